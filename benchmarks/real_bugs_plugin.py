"""A tiny pytest plugin of benchmarks/real_bugs*.py (``-p real_bugs_plugin``): with
REAL_BUGS_OUTCOMES set, it writes each test's outcome and the first line of its failure as one
JSON line (test ids may hold spaces and colons); with REAL_BUGS_CALLS set, it writes what the
tests named in REAL_BUGS_TESTS (one per line) called of the code under the current folder: each
function's path and qualified name, and each class a method ran on (its self or cls)."""

from __future__ import annotations

import json
import os
import sys
from typing import Any

OUTCOMES_ENV = "REAL_BUGS_OUTCOMES"
CALLS_ENV = "REAL_BUGS_CALLS"
TESTS_ENV = "REAL_BUGS_TESTS"
_calls: set[tuple[str, str]] = set()


def pytest_runtest_logreport(report: Any) -> None:
    if report.when == "call" or report.outcome != "passed":
        _record(report.nodeid, report.outcome, report)


def pytest_collectreport(report: Any) -> None:
    if report.outcome == "failed":
        _record(f"<collection> {report.nodeid}", "failed", report)


def pytest_runtest_setup(item: Any) -> None:
    if os.environ.get(CALLS_ENV) and item.nodeid in os.environ.get(TESTS_ENV, "").splitlines():
        sys.setprofile(_on_call)


def pytest_runtest_teardown(item: Any) -> None:
    sys.setprofile(None)


def pytest_sessionfinish(session: Any) -> None:
    path = os.environ.get(CALLS_ENV)
    if path:
        with open(path, "w", encoding="utf-8") as out:
            json.dump(sorted(_calls), out)


def _on_call(frame: Any, event: str, arg: Any) -> None:
    if event != "call":
        return
    code = frame.f_code
    root = os.getcwd() + os.sep
    if not code.co_filename.startswith(root):
        return
    rel = code.co_filename[len(root) :].replace(os.sep, "/")
    _calls.add((rel, code.co_qualname))
    if code.co_argcount and code.co_varnames[0] in ("self", "cls"):
        obj = frame.f_locals.get(code.co_varnames[0])
        cls = obj if isinstance(obj, type) else type(obj)
        module = sys.modules.get(cls.__module__)
        filename = getattr(module, "__file__", None) or ""
        if filename.startswith(root):
            _calls.add((filename[len(root) :].replace(os.sep, "/"), cls.__qualname__))


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
