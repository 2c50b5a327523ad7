"""Every `pytest --heal` an end-to-end test runs through pytester is held to its patch (#21):
after ``git apply .caretaker/heal.patch`` (on a copy) every test it reported HEALED passes, every
test that passed still passes, and none it reported NOT HEALED passes. A test need not ask. The
project is copied as the run left it and judged when the test ends, so that the plain runs count
in no test's own timing and nothing the test does to the project afterwards changes the verdict.
What passed before the patch is what passed in the heal run itself, as a plugin of this file sees
it (not caretaker); a run that selected by the cache (``--lf``…) gets a plain run before too."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from helpers import WarmCaretaker, assert_patch_delivers, copy_project, healed_ids

from pytest_caretaker.settings.options import OPTIONS

#: The caretaker flags that take no value; every other --heal* flag is followed by its value.
_FLAGS = {option.flag for option in OPTIONS if option.kind == "bool"} | {"--heal-models"}
#: The cache plugin's selections: the plain runs go without the cache, and run every test.
_CACHE = {"--lf", "--last-failed", "--ff", "--failed-first", "--nf", "--new-first", "--sw"}


def plain_args(args: Sequence[str]) -> list[str] | None:
    """The arguments of a heal run without caretaker's own, for the plain runs that judge its
    patch; None when the run wrote its fixes (no patch to apply: the tree has them)."""
    kept: list[str] = []
    skip = False
    for arg in args:
        if skip:
            skip = False
            continue
        if arg in _CACHE or arg.startswith("--stepwise"):
            continue
        if arg.startswith("--heal"):
            flag = arg.partition("=")[0]
            if flag in ("--heal-write", "--heal-review"):
                return None
            skip = "=" not in arg and flag not in _FLAGS
            continue
        kept.append(arg)
    return kept


@pytest.fixture(autouse=True)
def _every_heal_is_delivered_by_its_patch(
    request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> Iterator[None]:
    if "pytester" not in request.fixturenames:
        yield
        return
    # In-process runs write no bytecode into the test's project: a test that applies a patch and
    # runs again within the same second would otherwise run the old code (Python trusts a .pyc
    # whose source kept its mtime, in whole seconds, and its size).
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    original = pytest.Pytester.runpytest
    judged: list[tuple[Path, list[str], list[str], Path, set[str] | None]] = []

    def runpytest(self: pytest.Pytester, *args: Any, **kwargs: Any) -> pytest.RunResult:
        seen = _Passed()
        kwargs["plugins"] = [*kwargs.get("plugins", ()), seen]
        result = original(self, *args, **kwargs)
        texts = [str(arg) for arg in args]
        kept = plain_args(texts)
        lines = result.stdout.lines
        patch = Path(self.path, ".caretaker", "heal.patch")
        if kept is not None and patch.is_file() and healed_ids(lines):
            selected = any(arg in _CACHE or arg.startswith("--stepwise") for arg in texts)
            # What the plugin saw must be what pytest counted; else the plain run decides.
            counted = result.parseoutcomes().get("passed", 0) == len(seen.passed)
            passed = seen.passed if seen.reported and counted and not selected else None
            judged.append((copy_project(self.path), lines, kept, self.path, passed))
        return result

    monkeypatch.setattr(pytest.Pytester, "runpytest", runpytest)
    yield
    for copy, lines, kept, root, passed in judged:
        assert_patch_delivers(copy, lines, kept, root, passed)


class _Passed:
    """The tests a run passed (every phase passed, none an xfail that passed), by id."""

    def __init__(self) -> None:
        self.passed: set[str] = set()
        self.failed: set[str] = set()
        self.reported = False

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        self.reported = True
        if report.failed or (report.when == "call" and not report.passed):
            self.failed.add(report.nodeid)
            self.passed.discard(report.nodeid)
        elif (
            report.when == "call"
            and not hasattr(report, "wasxfail")
            and (report.nodeid not in self.failed)
        ):
            self.passed.add(report.nodeid)


@pytest.fixture(scope="session")
def warm_caretaker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[WarmCaretaker]:
    """Runs ``python -m pytest_caretaker`` forked from an interpreter that imported litellm once
    for the session (helpers.WarmCaretaker): for the `caretaker run --model` tests."""
    from pytest_caretaker.llm.models import PROVIDERS

    # Made before any test's environment: the developer's caretaker variables and provider keys
    # stay out of it as _no_caretaker_env keeps them out of each run's.
    keys = {key for provider in PROVIDERS for key in provider.keys}
    env = {k: v for k, v in os.environ.items() if not k.startswith("CARETAKER_") and k not in keys}
    warm = WarmCaretaker(tmp_path_factory.mktemp("warm-caretaker"), env)
    yield warm
    warm.close()
