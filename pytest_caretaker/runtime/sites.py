"""A decorated function as caretaker keeps it (decorator.py makes it, live.py heals it)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from pytest_caretaker.runtime.mode import Mode, Store
from pytest_caretaker.runtime.sample import Sample

_CO_COROUTINE = 0x0080  # inspect.CO_COROUTINE, without importing inspect


@dataclass
class Site:
    """One decorated function: what caretaker knows of it and how to reach it live."""

    function: Callable[..., Any]  # the function itself (its __code__ is what a fix swaps)
    id: str
    description: str
    mode: Mode
    store: Store | None
    lock: threading.RLock = field(default_factory=threading.RLock, repr=False)
    #: Its good calls: a few of the calls that returned, for a fix to reproduce.
    sample: Sample = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self.sample = Sample(self.id, self.function)

    @property
    def coroutine(self) -> bool:
        return bool(self.function.__code__.co_flags & _CO_COROUTINE)


@dataclass(frozen=True)
class Retried:
    """The result of a call that raised, was healed and was called again."""

    value: Any
