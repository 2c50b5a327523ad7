"""The examples/ projects do what their READMEs and the project README promise."""

from __future__ import annotations

import subprocess

import pytest
from helpers import heal_args, snapshot

from pytest_caretaker.testing import ScriptedServer, tool_call

FIXED = """\
def moving_average(values, window):
    \"\"\"The average of every run of `window` consecutive values, in order.\"\"\"
    averages = []
    for start in range(len(values) - window + 1):
        chunk = values[start : start + window]
        averages.append(sum(chunk) / window)
    return averages
"""


@pytest.fixture
def quickstart(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.copy_example("quickstart")
    return pytester


def test_quickstart_heals_without_a_model(quickstart: pytest.Pytester) -> None:
    before = snapshot(quickstart.path)

    result = quickstart.runpytest("--heal")

    assert result.ret == 1  # the run tested the code as it was
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(
        [
            "caretaker: heal (in memory) · model builtin (no model configured; *) · scope code",
            "HEALED test_textstats.py::test_moving_average",
            "  patched textstats.py::moving_average",
            "  -    for start in range(len(values) - window):",
            "  +    for start in range(len(values) - window + 1):",
            "  Plausible fix by the built-in repairer (no model): *",
            "  * candidates tried · no model, no tokens · * s · builtin",
            "caretaker: 1 healed, 0 not healed · no tokens spent · fixes in .caretaker/heal.patch",
        ]
    )
    assert snapshot(quickstart.path) == before
    applied = subprocess.run(
        ["git", "apply", "--check", ".caretaker/heal.patch"], cwd=quickstart.path, check=False
    )
    assert applied.returncode == 0


def test_quickstart_heals_with_a_model(quickstart: pytest.Pytester, llm: ScriptedServer) -> None:
    before = snapshot(quickstart.path)
    llm.script(
        tool_call(
            "The loop stops one window early.",
            [
                {"path": "textstats.py", "function": "moving_average", "code": FIXED},
            ],
        )
    )

    result = quickstart.runpytest(*heal_args(llm))

    result.stdout.fnmatch_lines(
        [
            "HEALED test_textstats.py::test_moving_average",
            "  -    for start in range(len(values) - window):",
            "  +    for start in range(len(values) - window + 1):",
        ]
    )
    assert snapshot(quickstart.path) == before
    subprocess.run(["git", "apply", ".caretaker/heal.patch"], cwd=quickstart.path, check=True)
    quickstart.runpytest("-p", "no:cacheprovider").assert_outcomes(passed=2)
