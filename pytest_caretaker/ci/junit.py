"""``caretaker_*`` properties on the test cases of pytest's ``--junitxml`` report.

Healing happens after the run, when every test's report is made and its ``user_properties``
were read, so ``record_property`` cannot carry them. The junitxml plugin's node of a test is
kept instead while the run reports its failure, and the properties are added to it after
healing; the session heals before the plugin writes its file (a ``tryfirst`` sessionfinish).
A node the plugin finalized holds its XML element: the properties go into that element.

The junitxml plugin's objects are pytest's private API (``_pytest.junitxml``); this module is
their only user. Without ``--junitxml`` it does nothing.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any
from xml.etree import ElementTree

if TYPE_CHECKING:  # caretaker run and crashes heal write last-run.json without pytest
    import pytest

    from pytest_caretaker.ci.problems import Problem

OUTCOME, PATCH, REASON, COMMIT = (
    "caretaker_outcome",
    "caretaker_patch",
    "caretaker_reason",
    "caretaker_commit",
)


class JunitNodes:
    """Registered beside the session: the junitxml node of each test that failed."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.nodes: dict[str, Any] = {}

    def _xml(self) -> Any:
        try:
            from _pytest.junitxml import xml_key
        except ImportError:  # pragma: no cover - a pytest that moved it: no properties
            return None
        return self.config.stash.get(xml_key, None)

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.failed and report.when in ("setup", "call") and report.nodeid not in self.nodes:
            xml = self._xml()
            if xml is not None:  # the node the plugin makes (or made) for this report
                self.nodes[report.nodeid] = xml.node_reporter(report)

    def add(self, properties: Mapping[str, Mapping[str, str]]) -> None:
        """Add each test's properties (test id -> name -> value) to its node."""
        for nodeid, values in properties.items():
            node = self.nodes.get(nodeid)
            if node is not None:
                _add(node, values)


def _add(node: Any, values: Mapping[str, str]) -> None:
    if "properties" in vars(node):  # not finalized yet (its teardown never came)
        for name, value in values.items():
            node.add_property(name, value)
        return
    from _pytest.junitxml import bin_xml_escape  # control characters XML cannot hold

    element = node.to_xml()  # finalized: the element the file will hold
    found = element.find("properties")
    if found is None:
        found = ElementTree.Element("properties")
        element.insert(0, found)
    for name, value in values.items():
        found.append(ElementTree.Element("property", name=name, value=bin_xml_escape(value)))


def properties(
    found: Sequence[Problem], records: Sequence[Mapping[str, Any]]
) -> dict[str, dict[str, str]]:
    """Each test's properties (by its id as pytest has it), from the problems' records as
    last-run.json holds them (redacted): the test's outcome, its problem's diff and reason, and
    the commit of its fix when there is one."""
    found_properties: dict[str, dict[str, str]] = {}
    for problem, record in zip(found, records, strict=True):
        commit = record["commit"] or {}
        for result, test in zip(problem.results, record["tests"], strict=True):
            values = {OUTCOME: test["outcome"], PATCH: record["diff"], REASON: record["reason"]}
            if commit.get("sha"):
                values[COMMIT] = commit["sha"]
            found_properties[result.nodeid] = values
    return found_properties
