"""The pytest plugin a bisection probe runs with (``-p pytest_caretaker.culprit.probe``): it
keeps only the tests asked for, so that one missing at an old commit is reported missing rather
than ending the run, and writes each test's outcome to a JSON file. Loaded only in that child.
"""

from __future__ import annotations

import json
import os
from typing import Any

import pytest

from pytest_caretaker.culprit.names import PROBE_ENV

_outcomes: dict[str, str] = {}


def _spec() -> dict[str, Any]:
    data = json.loads(os.environ.get(PROBE_ENV, "{}"))
    return data if isinstance(data, dict) else {}


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    wanted = set(_spec().get("ids", ()))
    dropped = [item for item in items if item.nodeid not in wanted]
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = [item for item in items if item.nodeid in wanted]


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    if report.failed:
        _outcomes[report.nodeid] = "failed"
    elif report.when == "call" and report.passed:
        _outcomes.setdefault(report.nodeid, "passed")
    elif report.skipped:
        _outcomes.setdefault(report.nodeid, "skipped")


def pytest_sessionfinish() -> None:
    target = _spec().get("out")
    if target:
        with open(target, "w", encoding="utf-8") as handle:
            json.dump(_outcomes, handle)
