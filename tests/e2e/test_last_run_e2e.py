"""Results CI can read, end to end: every `pytest --heal` session leaves .caretaker/last-run.json,
valid against the JSON Schema the package ships, and with --junitxml each healed or not-healed
test carries caretaker_* properties (the XML parsed as CI parses it), serial and under xdist."""

from __future__ import annotations

import json
from pathlib import Path
from xml.etree import ElementTree

import pytest
from helpers import last_run

OTHER = "def test_wrong():\n    assert 1 + 1 == 3\n"
FIXED_LINE = "+    for start in range(len(values) - window + 1):"
IN_TEST_CODE = "the failure is in test code (no code under test ran in it)"


def junit_properties(path: Path) -> dict[str, dict[str, str]]:
    """Each test case's properties, by its name."""
    cases = ElementTree.parse(path).getroot().iter("testcase")
    return {
        case.attrib["name"]: {p.attrib["name"]: p.attrib["value"] for p in case.iter("property")}
        for case in cases
    }


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.copy_example("quickstart")
    pytester.makepyfile(test_other=OTHER)
    return pytester


def test_last_run_and_junit_xml_say_what_was_healed_and_why_not(project: pytest.Pytester) -> None:
    result = project.runpytest("--heal", "--junitxml=junit.xml")

    result.assert_outcomes(passed=1, failed=2)
    data = last_run(project.path)
    assert data["source"] == "pytest" and data["mode"] == "heal (in memory)"
    assert data["patch"] == ".caretaker/heal.patch"
    assert data["totals"]["problems"] == 2 and data["totals"]["tests_healed"] == 1
    unhealed, healed = data["problems"]
    assert unhealed["tests"] == [{"id": "test_other.py::test_wrong", "outcome": "not healed"}]
    assert unhealed["reason"].startswith(IN_TEST_CODE)
    assert healed["tests"] == [
        {"id": "test_textstats.py::test_moving_average", "outcome": "healed"}
    ]
    assert healed["repairer"] == "builtin" and healed["candidates"] > 0
    assert healed["patched"] == ["textstats.py::moving_average"]
    assert healed["commit"] is None  # in memory: nothing to commit
    patch = (project.path / ".caretaker" / "heal.patch").read_text(encoding="utf-8")
    assert healed["diff"] == patch
    (hunk,) = healed["files"][0]["hunks"]
    assert FIXED_LINE in hunk.splitlines()

    found = junit_properties(project.path / "junit.xml")
    assert found["test_moving_average_of_nothing"] == {}  # it passed: nothing to say
    assert found["test_moving_average"] == {
        "caretaker_outcome": "healed",
        "caretaker_patch": patch,
        "caretaker_reason": "",
    }
    assert found["test_wrong"]["caretaker_outcome"] == "not healed"
    assert found["test_wrong"]["caretaker_patch"] == ""
    assert found["test_wrong"]["caretaker_reason"] == unhealed["reason"]


def test_under_xdist_the_properties_reach_the_controllers_xml(project: pytest.Pytester) -> None:
    result = project.runpytest_subprocess("-n", "2", "--heal", "--junitxml=junit.xml", timeout=120)

    result.assert_outcomes(passed=1, failed=2)
    found = junit_properties(project.path / "junit.xml")
    assert found["test_moving_average"]["caretaker_outcome"] == "healed"
    assert FIXED_LINE in found["test_moving_average"]["caretaker_patch"].splitlines()
    assert found["test_wrong"]["caretaker_reason"].startswith(IN_TEST_CODE)
    assert last_run(project.path)["totals"]["tests_healed"] == 1


def test_a_session_with_nothing_to_heal_replaces_an_earlier_last_run(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(test_fine="def test_fine():\n    assert True\n")
    (pytester.path / ".caretaker").mkdir()
    stale = {"schema": 1, "problems": ["an earlier session's"]}
    (pytester.path / ".caretaker" / "last-run.json").write_text(json.dumps(stale))

    pytester.runpytest("--heal").assert_outcomes(passed=1)

    data = last_run(pytester.path)
    assert data["problems"] == [] and data["totals"]["tests"] == 0
    assert data["patch"] is None and data["notes"] == []
