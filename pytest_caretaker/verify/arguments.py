"""pytest's arguments for reruns, read and written on both sides of verification.

The parent's side builds the arguments of a rerun outside a pytest session (``caretaker run``,
``@heal``: standalone_args; a ``pytest --heal`` session's are plugin/addopts.py's runner_for), and
a warm server reads which plugins the runs will not load (blocked_plugins), so as not to import
them. Standard library only: the children's side imports it.
"""

from __future__ import annotations

import itertools
import os
import shlex
from collections.abc import Mapping, Sequence

#: How the project's own tests are rerun outside a pytest session: quietly, no cache, no
#: caretaker inside.
STANDALONE_ARGS = ("-q", "--no-header", "--tb=short", "-p", "no:cacheprovider", "-o", "addopts=")


def plugin_values(args: Sequence[str]) -> list[str]:
    """What these arguments name with -p (``-p NAME``, ``-pNAME``; ``no:NAME`` blocks one)."""
    values = []
    for previous, arg in itertools.pairwise(["", *args]):
        if previous == "-p":
            values.append(arg)
        elif arg.startswith("-p") and len(arg) > 2:
            values.append(arg[2:])
    return values


def blocked_plugins(args: Sequence[str]) -> frozenset[str]:
    """The plugin names pytest blocks for these arguments: NAME of each ``-p no:NAME`` and, as
    pytest has it, ``pytest_NAME`` too."""
    names = [value[3:] for value in plugin_values(args) if value.startswith("no:")]
    return frozenset(names) | {f"pytest_{name}" for name in names if not name.startswith("pytest_")}


def standalone_args(env: Mapping[str, str] = os.environ) -> tuple[str, ...]:
    """STANDALONE_ARGS and the plugins the user's PYTEST_ADDOPTS names or blocks with -p. The
    variable itself is not passed on (its other options may not suit a rerun); a plugin the
    user blocks stays blocked."""
    named = plugin_values(shlex.split(env.get("PYTEST_ADDOPTS", "")))
    return (*STANDALONE_ARGS, *itertools.chain.from_iterable(("-p", name) for name in named))
