"""What a ``pytest --heal`` session leaves for CI: its last-run.json, and with ``--junitxml`` the
``caretaker_*`` properties of each healed or not-healed test (junit.py keeps their nodes while
the run reports failures)."""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from pytest_caretaker.ci.junit import JunitNodes
from pytest_caretaker.ci.last_run import Ended, Outcome, write_last_run
from pytest_caretaker.record.redact import Redact
from pytest_caretaker.settings import Settings

if TYPE_CHECKING:
    import pytest


class HealOutcome(Outcome, Protocol):
    """What is read of the engine's outcome (engine.HealOutcome)."""

    @property
    def notes(self) -> Sequence[str]: ...
    @property
    def interrupted(self) -> bool: ...


class SessionEnd:
    """Made with the session: registers the keeper of junitxml nodes."""

    def __init__(self, config: pytest.Config, settings: Settings, redact: Redact) -> None:
        self.root = Path(config.rootpath).resolve()
        self.settings, self.redact = settings, redact
        self.junit = JunitNodes(config)
        config.pluginmanager.register(self.junit, "caretaker-junit")

    def leave(
        self,
        outcome: HealOutcome | None,
        notes: Sequence[str],
        interrupted: bool,
        begun: float,
        passed: Sequence[str] = (),
    ) -> list[str]:
        """Write last-run.json and the junitxml properties; a note when it could not be."""
        if outcome is not None:
            notes = [*notes, *outcome.notes]
            interrupted = interrupted or outcome.interrupted
        seconds = time.monotonic() - begun
        ended = Ended(
            "pytest", self.settings, self.redact, outcome, notes, seconds, interrupted, passed
        )
        failed = write_last_run(self.root, ended, self.junit)
        return [failed] if failed is not None else []
