"""Start a command inside the sandbox: ``python -m pytest_caretaker.run.confined WORKDIR TREE
COMMAND [ARG...]``, by copies.py, for a command that runs on a scratch copy of the project.

This process enters the sandbox (verify/sandbox.py: its own user, pid and network namespaces)
and confines itself as a forked verification run is confined (writes only under WORKDIR, which
holds the copy TREE; hard limits; no stdin), then becomes the command: Landlock's rules and the
namespaces hold across exec. The policy is read from the environment variable POLICY_ENV, taken
out before the command starts. Like the other children it imports nothing of the parent's side.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
from collections.abc import Sequence

from pytest_caretaker.verify import sandbox
from pytest_caretaker.verify.channel import MEMORY_HEADROOM

POLICY_ENV = "CARETAKER_RUN_POLICY"
NOT_FOUND = 127
NOT_EXECUTABLE = 126


def main(argv: Sequence[str]) -> int:
    workdir, tree, command = argv[0], argv[1], list(argv[2:])
    rules = json.loads(os.environ.pop(POLICY_ENV))
    sandbox.enter(rules, _installation(command[0]))
    sandbox.confine_run(rules, workdir, MEMORY_HEADROOM)
    os.chdir(tree)
    try:
        os.execvp(command[0], command)
    except FileNotFoundError:
        print(f"caretaker: command not found: {command[0]}", file=sys.stderr)
        return NOT_FOUND
    except PermissionError:
        print(f"caretaker: command not executable: {command[0]}", file=sys.stderr)
        return NOT_EXECUTABLE


def _installation(program: str) -> list[str]:
    """Where the command's program is installed (another interpreter's prefix, a venv), so that
    the sandbox's view shows it: the folder above its bin/, as named and as resolved."""
    found = shutil.which(program)
    if found is None:
        return []
    return [os.path.dirname(os.path.dirname(p)) for p in (found, os.path.realpath(found))]


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
