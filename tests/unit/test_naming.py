"""Naming: the data a failing test's name names is a suspect (markdown's HR and ENTITY bugs)."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from pytest_caretaker.project import naming
from pytest_caretaker.project.files import ProjectFiles, TestFiles
from pytest_caretaker.project.localize import localize
from pytest_caretaker.repair import cluster
from pytest_caretaker.results import Executed, Failure
from pytest_caretaker.verify.runner import Outcome, RunResult


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("HRProcessor", {"hr", "processor"}),
        ("HTMLExtractor", {"html", "extractor"}),
        ("ENTITY_RE", {"entity", "re"}),
        ("test_hexadecimal_entities", {"hexadecimal", "entity"}),
        ("TestRawHtml", {"raw", "html"}),
        ("test_it_should_parse_boxes_and_classes", {"parse", "box", "class"}),
        ("test_x_status", {"status"}),  # one letter names nothing; "us" is not a plural
    ],
)
def test_words_are_lower_case_singular_and_name_code(name: str, expected: set[str]) -> None:
    assert naming.words(name) == expected


def test_the_words_of_tests_are_their_file_class_and_function_without_parameters() -> None:
    found = naming.of_tests(
        [
            "tests/test_hr.py::TestHorizontalRules::test_hr_after_emstrong",
            "tests/inline/test_entities.py::test_named[amp-&]",
        ]
    )

    assert found == {"hr", "horizontal", "rule", "after", "emstrong", "entity", "named"}


# Every test renders a document through the whole module: the spectrum ranks nothing, and the
# constants and class data ran at import.
BLOCKS = """\
import re

ENTITY_RE = r"&#[0-9]+;"
LINK_RE = r"\\["
NOT_STRONG_RE = r"(^|\\s)\\*(\\s|$)"


class Processor:
    def run(self, text):
        return text


class HRProcessor(Processor):
    RE = r"^\\*\\*\\*$"

    def run(self, text):
        return re.sub(self.RE, "<hr />", text)


class ReferenceProcessor(Processor):
    NEWLINE_CLEANUP_RE = r"[ ]?\\n"

    def run(self, text):
        return text


class ShortReferenceProcessor(ReferenceProcessor):
    SHORT = True


def render(text):
    for processor in (HRProcessor(), ReferenceProcessor(), ShortReferenceProcessor()):
        text = processor.run(text)
    return text
"""


def _named(tmp_path: Path, *failing: str) -> list[str]:
    (tmp_path / "blocks.py").write_text(BLOCKS)
    ran = (("blocks.py", 31), ("blocks.py", 16), ("blocks.py", 23))
    on = tuple(
        (("blocks.py", 23), ("blocks.py", cls))
        for cls in ("ReferenceProcessor", "ShortReferenceProcessor")
    )
    executed = {nodeid: Executed(functions=ran, classes=on) for nodeid in failing}
    functions = [("blocks.py", "render"), ("blocks.py", "HRProcessor.run")]
    functions.append(("blocks.py", "ReferenceProcessor.run"))
    sources, tests = ProjectFiles(tmp_path), TestFiles(frozenset())
    found = naming.named(list(failing), functions, executed, sources, tests)
    return [qualname for _, qualname in found]


def test_the_class_and_the_constant_a_test_name_names_are_suspects(tmp_path: Path) -> None:
    # (then the named class's methods that ran)
    assert _named(tmp_path, "tests/test_hr.py::TestHorizontalRules::test_hr_after_emphasis") == [
        "HRProcessor",
        "HRProcessor.run",
    ]
    assert _named(tmp_path, "tests/test_entities.py::TestEntities::test_hex_entities") == [
        "ENTITY_RE"
    ]
    assert _named(tmp_path, "tests/test_emphasis.py::TestNotEmphasis::test_standalone") == [
        "NOT_STRONG_RE"
    ]


def test_a_class_is_named_by_its_data_and_the_closer_name_ranks_first(tmp_path: Path) -> None:
    # markdown-a38fd1b: the fix is ReferenceInlineProcessor's NEWLINE_CLEANUP_RE; its subclass
    # ShortReferenceInlineProcessor shares the word "reference" and says more besides.
    found = _named(tmp_path, "tests/test_links.py::TestLinks::test_reference_newlines")

    # (and "links" names LINK_RE, a constant: each kind is chosen apart)
    assert found == [
        "LINK_RE",
        "ReferenceProcessor",
        "ShortReferenceProcessor",
        "ReferenceProcessor.run",
    ]


def test_a_test_whose_name_names_no_code_names_nothing(tmp_path: Path) -> None:
    assert _named(tmp_path, "tests/test_misc.py::test_something_else") == []


def test_localize_ranks_named_data_before_what_the_spectrum_cannot_tell_apart(
    tmp_path: Path,
) -> None:
    (tmp_path / "blocks.py").write_text(BLOCKS)
    nodeid = "tests/test_hr.py::TestHorizontalRules::test_hr_after_emphasis"
    ran = (("blocks.py", 31), ("blocks.py", 16), ("blocks.py", 23))
    passing = ["tests/test_hr.py::TestHorizontalRules::test_plain"]
    executed = {test: Executed(functions=ran) for test in [nodeid, *passing]}
    lead = Failure(nodeid, "call", "tests/test_hr.py", "AssertionError", "", "", ())

    found = localize(
        lead, [nodeid], executed, passing, ProjectFiles(tmp_path), TestFiles(frozenset())
    )

    refs = [s.qualname for s in found]
    assert refs.index("HRProcessor") < refs.index("HRProcessor.run")
    assert "ENTITY_RE" not in refs[: refs.index("HRProcessor") + 1]


def test_tests_of_one_bug_named_for_other_things_share_their_root_cause(tmp_path: Path) -> None:
    # Each test's name names other data (HRProcessor, ENTITY_RE); an assertion in the test has
    # the function localization ranks first as its cause, and that is render for both.
    (tmp_path / "blocks.py").write_text(BLOCKS)
    ran = (("blocks.py", 31), ("blocks.py", 16), ("blocks.py", 23))
    failing = [
        Failure(nodeid, "call", "tests/t.py", "AssertionError", "", "", ())
        for nodeid in ("tests/t.py::test_hr_after_emphasis", "tests/t.py::test_hex_entities")
    ]
    baseline = RunResult(
        {f.nodeid: Outcome("failed") for f in failing},
        {f.nodeid: Executed(functions=ran) for f in failing},
    )
    editable = SimpleNamespace(tests=frozenset({"tests/t.py"}), path=lambda path: True)

    causes = {
        cluster.root_cause(f, baseline, [], ProjectFiles(tmp_path), editable)  # type: ignore[arg-type]
        for f in failing
    }

    assert causes == {("AssertionError", "blocks.py::render")}
