"""Test faults (project/testfault.py): which failures are the test's own, whatever ran first."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_caretaker.project.files import ProjectFiles, TestFiles
from pytest_caretaker.project.testfault import own_fault
from pytest_caretaker.results import Failure, Frame

TESTS = TestFiles(frozenset({"test_x.py"}))


def fault(
    tmp_path: Path,
    body: str,
    exc_type: str,
    message: str,
    local_names: tuple[str, ...] = ("slug",),
    path: str = "test_x.py",
    head: str = "from slug import slugify\n",
) -> str | None:
    """own_fault of a failure in the test's last line."""
    source = f"{head}\n\ndef test_it():\n{body}"
    (tmp_path / path).write_text(source)
    line = source.count("\n")
    frame = Frame(path, line, "test_it", tuple((name, "'x'") for name in local_names))
    failure = Failure(f"{path}::test_it", "call", path, exc_type, message, "", (frame,))
    return own_fault(failure, ProjectFiles(tmp_path), TESTS)


SAID = {
    "an undefined name": (
        "    assert slugify('a') == expeted\n",
        "NameError",
        "name 'expeted' is not defined",
        "line 5 of test_x.py uses `expeted`, which is not defined",
    ),
    "a local used before it is assigned": (
        "    assert slug == 1\n",
        "UnboundLocalError",
        "cannot access local variable 'slug' where it is not associated with a value",
        "line 5 of test_x.py uses `slug` before it is assigned",
    ),
    "a typo of a builtin type's method": (
        "    assert slug.uper() == 'A'\n",
        "AttributeError",
        "'str' object has no attribute 'uper'",
        "line 5 of test_x.py asks `slug` (a str) for `uper`, which it does not have"
        " (did you mean `upper`?)",
    ),
}


@pytest.mark.parametrize(("body", "exc", "message", "said"), SAID.values(), ids=SAID.keys())
def test_the_tests_own_fault_is_said(
    tmp_path: Path, body: str, exc: str, message: str, said: str
) -> None:
    assert fault(tmp_path, body, exc, message) == said


def test_a_missing_attribute_of_the_tests_own_class_is_its_own(tmp_path: Path) -> None:
    head = "class Stub:\n    pass\n"
    said = fault(
        tmp_path,
        "    assert slug.size == 1\n",
        "AttributeError",
        "'Stub' object has no attribute 'size'",
        head=head,
    )

    assert said == "line 6 of test_x.py asks `slug` (a Stub) for `size`, which it does not have"


NOT_SAID = {
    "what the code under test returned as None": (
        "    assert slug.uper() == 'A'\n",
        "AttributeError",
        "'NoneType' object has no attribute 'uper'",
    ),
    "a class of the code under test": (
        "    assert slug.size == 1\n",
        "AttributeError",
        "'Slug' object has no attribute 'size'",
    ),
    "a builtin type's attribute with no near miss": (
        "    assert slug.length == 1\n",
        "AttributeError",
        "'str' object has no attribute 'length'",
    ),
    "an attribute of what a call returned, not of a local": (
        "    assert slugify('a').uper() == 'A'\n",
        "AttributeError",
        "'str' object has no attribute 'uper'",
    ),
    "a name the line does not use (raised inside a call)": (
        "    assert slugify('a') == 'a'\n",
        "NameError",
        "name 'expeted' is not defined",
    ),
    "an assertion": ("    assert slugify('a') == 'b'\n", "AssertionError", "assert 'a' == 'b'"),
}


@pytest.mark.parametrize(("body", "exc", "message"), NOT_SAID.values(), ids=NOT_SAID.keys())
def test_what_may_be_the_code_under_tests_fault_is_left_to_the_repairers(
    tmp_path: Path, body: str, exc: str, message: str
) -> None:
    assert fault(tmp_path, body, exc, message) is None


def test_a_name_a_star_import_may_bring_is_left_to_the_repairers(tmp_path: Path) -> None:
    said = fault(
        tmp_path,
        "    assert slugify('a') == expeted\n",
        "NameError",
        "name 'expeted' is not defined",
        head="from slug import *\n",
    )

    assert said is None


def test_a_failure_in_code_under_test_is_not_the_tests(tmp_path: Path) -> None:
    said = fault(
        tmp_path,
        "    return expeted\n",
        "NameError",
        "name 'expeted' is not defined",
        path="slug.py",
    )

    assert said is None
