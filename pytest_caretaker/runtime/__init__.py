"""Runtime healing: the ``heal`` decorator and the ``install()`` exception hook.

By default (``CARETAKER_RUNTIME=record``) an exception is recorded under ``.caretaker/crashes/``
and raised as it was: the program behaves as without caretaker. In ``heal`` mode (development)
a failing decorated call is repaired, the fix proved by replaying the call in a sandboxed child,
swapped into the running function and the call retried. ``off`` does nothing at all.

Only the standard library is imported until an exception happens.
"""

from __future__ import annotations

from pytest_caretaker.runtime.decorator import heal
from pytest_caretaker.runtime.hooks import install
from pytest_caretaker.runtime.mode import MODE_ENV, MODES, Store

__all__ = ["MODES", "MODE_ENV", "Store", "heal", "install"]
