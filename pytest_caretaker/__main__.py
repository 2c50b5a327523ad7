"""``python -m pytest_caretaker``: the ``caretaker`` command."""

from __future__ import annotations

import sys

from pytest_caretaker.cli import main

if __name__ == "__main__":
    sys.exit(main())
