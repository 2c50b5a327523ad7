"""The child side of verification: run pytest with candidate sources served from memory.

Started by runner.py as ``python -m pytest_caretaker.verify.worker SPEC.json``, or forked per
run by the warm server (warm.py). The user's files
are never written: a meta-path finder placed in front of every other finder (pytest's assertion
rewriter, setuptools' editable-install finders, the path finder) lets them locate a module as usual
and, when the module's file is one the candidate changes, swaps in a loader that compiles the
patched bytes instead — through pytest's own assertion rewriting for test modules. Bytecode writing
is off, so no cached .pyc of a candidate can outlive the run. Each test has its own time limit
(timer.py): one that hangs fails, with the lines it ran, and the run goes on. Results go to a JSON
file beside the spec, opened before the run is confined and written last (protocol.py types
both). Like trial_server.py, it imports nothing of the parent's side: the standard library,
pytest, and the small modules both sides share.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Generator, Sequence
from pathlib import Path
from typing import Literal

import pytest

from pytest_caretaker.verify import sandbox
from pytest_caretaker.verify.channel import MEMORY_HEADROOM, cap_memory
from pytest_caretaker.verify.protocol import (
    ReportedOutcome,
    RunReport,
    RunSpec,
)
from pytest_caretaker.verify.selecting import Selection
from pytest_caretaker.verify.swap import PatchFinder, Tracer, file_id
from pytest_caretaker.verify.timer import Limits, TimeLimits
from pytest_caretaker.verify.verdict import open_result, report_to, run_space

MAX_DETAIL = 3_000


class WorkerPlugin:
    def __init__(
        self, root: Path, patches: dict[tuple[int, int], bytes], trace: bool, limits: Limits
    ) -> None:
        self.patches = patches
        self.tracer = Tracer(root) if trace else None
        #: Each test's time limit: a plugin of its own, registered with this one (plugins()).
        self.time_limits = TimeLimits(limits)
        self.outcomes: dict[str, ReportedOutcome] = {}
        self.collect_errors: list[str] = []

    @pytest.hookimpl(tryfirst=True)
    def pytest_load_initial_conftests(self, early_config: pytest.Config) -> None:
        # pytest has installed its assertion rewriter by now; go in front of it.
        sys.meta_path.insert(0, PatchFinder(self.patches, early_config))

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_setup(self, item: pytest.Item) -> Generator[None, None, None]:
        if self.tracer is None:
            return (yield)
        self.tracer.start(item.nodeid)
        try:
            return (yield)
        finally:
            self.tracer.stop()

    # Fixtures are code under test too: trace setup and call alike.
    pytest_runtest_call = pytest_runtest_setup

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        seen = self.outcomes.get(report.nodeid)
        if report.failed:
            outcome: Literal["failed", "error"] = "failed" if report.when == "call" else "error"
            if seen is None or seen["outcome"] == "passed":
                detail = report.longreprtext[-MAX_DETAIL:]
                self.outcomes[report.nodeid] = {"outcome": outcome, "detail": detail, "seconds": 0}
        elif report.skipped and seen is None:
            self.outcomes[report.nodeid] = {"outcome": "skipped", "detail": "", "seconds": 0}
        elif report.when == "call" and report.passed and seen is None:
            seconds = report.duration
            self.outcomes[report.nodeid] = {"outcome": "passed", "detail": "", "seconds": seconds}

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        if report.failed:
            self.collect_errors.append(report.longreprtext[-MAX_DETAIL:])

    def plugins(self) -> list[object]:
        """What pytest.main is given to run a session of this plugin's."""
        return [self, self.time_limits]

    def result(self, exit_code: int) -> RunReport:
        return {
            "exit_code": exit_code,
            "outcomes": self.outcomes,
            "collect_errors": self.collect_errors,
            "trace": self.tracer.as_json() if self.tracer is not None else None,
        }


def run_spec(spec_path: str) -> RunReport:
    spec: RunSpec = json.loads(Path(spec_path).read_text(encoding="utf-8"))
    sys.dont_write_bytecode = True
    cap_memory()
    limits = Limits(spec["test_limit"], spec["run_limit"], scale=spec["limit_scale"])
    plugin = WorkerPlugin(
        Path(spec["root"]).resolve(), load_patches(spec), bool(spec["trace"]), limits
    )
    selection = Selection(spec["nodeids"])  # a node id that is gone must not stop the run
    plugins = [*plugin.plugins(), selection]
    exit_code = int(pytest.main([*spec["args"], *selection.paths()], plugins=plugins))
    return plugin.result(exit_code)


def load_patches(spec: RunSpec) -> dict[tuple[int, int], bytes]:
    """The spec's candidate bytes by the (device, inode) of the file each replaces."""
    patches: dict[tuple[int, int], bytes] = {}
    for original, patched in spec["patches"].items():
        key = file_id(original)
        if key is not None:
            patches[key] = Path(patched).read_bytes()
    return patches


def main(argv: Sequence[str]) -> int:
    spec: RunSpec = json.loads(Path(argv[0]).read_text(encoding="utf-8"))
    rules = spec.get("sandbox")
    result = open_result(argv[0])
    if rules is not None:  # one fresh run: this process waits, its child runs confined
        sandbox.enter(rules)
        sandbox.confine_run(rules, run_space(argv[0]), MEMORY_HEADROOM)
    report_to(result, run_spec(argv[0]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
