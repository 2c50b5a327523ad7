"""What a failing command's output reports, as findings (run/findings.py)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from pytest_caretaker.project.files import ProjectFiles
from pytest_caretaker.record.redact import Redactor
from pytest_caretaker.results import Failure, Frame
from pytest_caretaker.run.findings import key, keys, moved_on, new, references, unique

SOURCE = """\
RATE = 0.2


def net(price):
    gross = price * (1 + RATE)
    return gross
"""


def found(tmp_path: Path, output: str) -> list[Failure]:
    (tmp_path / "pkg").mkdir(exist_ok=True)
    (tmp_path / "pkg" / "tax.py").write_text(SOURCE, encoding="utf-8")
    (tmp_path / "notes.txt").write_text("x\n", encoding="utf-8")
    return references(output, tmp_path, "mypy pkg", ProjectFiles(tmp_path), Redactor({}))


def test_each_path_line_of_a_project_python_file_is_a_finding_in_its_function(
    tmp_path: Path,
) -> None:
    output = (
        "pkg/tax.py:5: error: Unsupported operand types  [operator]\n"
        "    note: see the docs\n"
        f"{tmp_path}/pkg/tax.py:1:8: E999 rate\n"
        "Found 2 errors in 1 file\n"
    )
    first, second = found(tmp_path, output)
    assert first.nodeid == "pkg/tax.py:5: error: Unsupported operand types  [operator]"
    assert first.exc_type == "mypy pkg reports"
    assert first.frames == (Frame("pkg/tax.py", 5, "net"),)
    assert first.longrepr.endswith("    note: see the docs")
    assert second.nodeid == "pkg/tax.py:1: E999 rate"  # the column is not part of it
    assert second.frames == (Frame("pkg/tax.py", 1, "<module>"),)


def test_lines_naming_other_files_or_no_file_are_not_findings(tmp_path: Path) -> None:
    output = (
        "notes.txt:1: not python\n"
        "pkg/missing.py:3: gone\n"
        "/usr/lib/python3/os.py:10: a library\n"
        '  File "pkg/tax.py", line 5, in net\n'
        "pkg/tax.py: no line\n"
        "../outside.py:2: outside the project\n"
    )
    assert found(tmp_path, output) == []


def test_the_same_finding_printed_twice_is_one(tmp_path: Path) -> None:
    assert len(found(tmp_path, "pkg/tax.py:5: bad\npkg/tax.py:5: bad\n")) == 1


def test_a_finding_that_moves_keeps_its_key_and_a_new_one_is_new(tmp_path: Path) -> None:
    (before,) = found(tmp_path, "pkg/tax.py:5: bad operand\n")
    (moved,) = found(tmp_path, "pkg/tax.py:6: bad operand\n")
    (other,) = found(tmp_path, "pkg/tax.py:6: worse operand\n")
    assert key(before) == key(moved) != key(other)
    assert new(keys([before]), keys([moved])) == []
    assert new(keys([before]), keys([moved, other])) == [key(other)]
    # Twice where there was one is new too.
    assert new(Counter({key(before): 1}), Counter({key(before): 2})) == [key(before)]


def test_findings_of_one_run_get_unique_ids(tmp_path: Path) -> None:
    (finding,) = found(tmp_path, "pkg/tax.py:5: bad\n")
    taken: set[str] = set()
    first = unique([finding], taken)[0]
    second = unique([finding], taken)[0]
    assert (first.nodeid, second.nodeid) == (finding.nodeid, f"{finding.nodeid} (2)")


def crash(*frames: tuple[str, str], exc_type: str = "ZeroDivisionError") -> Failure:
    stack = tuple(Frame("stats.py", number, name) for number, (_, name) in enumerate(frames, 1))
    return Failure("python stats.py", "call", "", exc_type, "", "", stack)


def test_a_crash_that_moves_on_into_new_code_is_progress_but_not_back_or_up_the_stack() -> None:
    first = crash(("", "<module>"), ("", "mean"))
    further = crash(("", "<module>"), ("", "ratio"))
    up_the_stack = crash(("", "<module>"), exc_type="TypeError")
    assert moved_on(first, [further])
    assert not moved_on(first, [up_the_stack])  # mean returned garbage its caller tripped over
    # Back where an earlier fix of this run had removed it: the fix undoes that one.
    assert not moved_on(further, [first], seen={key(first)})
    assert moved_on(further, [first])
    finding = Failure("x", "call", "", "mypy reports", "stats.py:1: x", "", ())
    assert not moved_on(finding, [further])  # a checker's finding must go without a new one
    assert not moved_on(first, [finding])
