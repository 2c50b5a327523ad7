"""The two private pytest APIs the verification children use, in one place.

- Assertion rewriting in memory: a patched test module must keep pytest's assertion messages, and
  pytest offers no public way to rewrite a source that is not a file on disk.
- Running one item's protocol without the reporting hooks: a trial reruns a few items thousands of
  times and nobody reads a trial's terminal output.

Both are imported when first called. ``tests/unit/test_pytest_private.py`` is the canary: after a
pytest upgrade it says which of them moved, before a heal does.
"""

from __future__ import annotations

import ast
from collections.abc import Sequence

import pytest


def rewrite_asserts(tree: ast.Module, source: bytes, origin: str, config: pytest.Config) -> None:
    """Rewrite the asserts of a test module's tree in place, as pytest's import hook does."""
    from _pytest.assertion.rewrite import rewrite_asserts as rewrite

    rewrite(tree, source, origin, config)


def run_item(item: pytest.Item, nextitem: pytest.Item | None) -> Sequence[pytest.TestReport]:
    """Run one item's setup, call and teardown; its reports, unlogged."""
    from _pytest.runner import runtestprotocol

    return runtestprotocol(item, log=False, nextitem=nextitem)
