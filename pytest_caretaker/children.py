"""The mark of caretaker's own child processes: nothing in them records or heals.

Caretaker starts processes that load the plugin or the runtime decorators again: the workers
that verify a candidate, runtime healing's replays, the command ``caretaker run`` runs (a pytest
inside it must not heal itself). Each gets WORKER_ENV in its environment, and settings.resolve and
runtime/mode.py turn healing off where they see it.

The value is a token, not a flag: ``caretaker-child-`` and 128 random bits made once per parent
process (worker_token), and only a value of that shape counts (is_worker). A variable exported in
the user's shell by accident (``CARETAKER_WORKER=1``, ``=true``, a copied CI setting) does not
turn healing off. Nothing finer is checked on purpose: the children that read the mark are
grandchildren across ``exec`` (a pytest in a script in a command), forks of a warm server, and
processes in the sandbox's own pid namespace, which cannot see their parent to ask it; a check
against the parent would fail there and have a worker heal itself. An accident never produces
128 random bits in this shape, which is what the mark must rule out.
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Mapping
from functools import cache

WORKER_ENV = "CARETAKER_WORKER"
_PREFIX = "caretaker-child-"
_TOKEN = re.compile(re.escape(_PREFIX) + r"[0-9a-f]{32}")


@cache
def worker_token() -> str:
    """The value this process sets as WORKER_ENV in its children (the same for all of them)."""
    return _PREFIX + secrets.token_hex(16)


def is_worker(env: Mapping[str, str]) -> bool:
    """Whether env is that of one of caretaker's own children: WORKER_ENV holds a token that
    worker_token made (here or in an ancestor), not a value a shell holds by accident."""
    return _TOKEN.fullmatch(env.get(WORKER_ENV, "")) is not None
