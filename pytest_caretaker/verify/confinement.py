"""Which sandbox a command outside pytest (``caretaker run``, runtime healing) runs candidates
in, from its settings: the one this machine has, none when it has none (auto) or none is wanted
(off), or (require, and none here) the one line saying why nothing may run."""

from __future__ import annotations

from pytest_caretaker.settings import Settings
from pytest_caretaker.verify.runner import Confinement


def confinement_for(settings: Settings) -> Confinement | str | None:
    """The sandbox to run candidates in; None without one; a string: why none can be had."""
    if settings.sandbox == "off":
        return None
    from pytest_caretaker.verify.probe import unavailable

    why = unavailable(settings.sandbox_network)
    if why is None:
        return Confinement(settings.sandbox_network)
    if settings.sandbox == "require":
        return f"the sandbox is required (--sandbox require) but not available: {why}"
    return None
