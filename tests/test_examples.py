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


def test_quickstart_without_a_model(quickstart: pytest.Pytester) -> None:
    result = quickstart.runpytest("--heal")

    assert result.ret == 1
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["caretaker: no model configured, nothing was healed; *"])


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
