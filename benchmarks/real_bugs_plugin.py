"""A tiny pytest plugin of benchmarks/real_bugs*.py (``-p real_bugs_plugin``): with
REAL_BUGS_OUTCOMES set, it writes each test's outcome and the first line of its failure as one
JSON line (test ids may hold spaces and colons)."""

from __future__ import annotations

import json
import os
from typing import Any

OUTCOMES_ENV = "REAL_BUGS_OUTCOMES"


def pytest_runtest_logreport(report: Any) -> None:
    if report.when == "call" or report.outcome != "passed":
        _record(report.nodeid, report.outcome, report)


def pytest_collectreport(report: Any) -> None:
    if report.outcome == "failed":
        _record(f"<collection> {report.nodeid}", "failed", report)


def _record(nodeid: str, outcome: str, report: Any) -> None:
    path = os.environ.get(OUTCOMES_ENV)
    if not path:
        return
    message = ""
    if outcome == "failed":
        crash = getattr(report.longrepr, "reprcrash", None)
        text = crash.message if crash is not None else str(report.longrepr)
        message = (text.strip().splitlines() or [""])[0][:300]
    with open(path, "a", encoding="utf-8") as log:
        log.write(json.dumps([nodeid, outcome, message]) + "\n")
