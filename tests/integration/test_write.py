"""Write: atomic replacement, commit messages, and write_fixes on real git repositories."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from collections.abc import Callable, Sequence
from dataclasses import replace as replace_result
from pathlib import Path
from typing import Any

import pytest

from pytest_caretaker.record.redact import Redactor
from pytest_caretaker.results import (
    Candidate,
    Doubt,
    Edit,
    FileChange,
    Fix,
    HealResult,
    Spend,
    Via,
    Written,
)
from pytest_caretaker.settings import Settings
from pytest_caretaker.write.repository import Repository
from pytest_caretaker.write.writer import (
    UNSURE_SKIPPED,
    atomic_write,
    message,
    subject,
    write_fixes,
)

NODEID = "tests/test_calc.py::test_mean"
MODEL = "openai/x"
WRITE = Settings(heal=True, write=True)

MEAN = b"def mean(xs):\n    return sum(xs) / (len(xs) + 1)\n"
MEAN_FIXED = b"def mean(xs):\n    return sum(xs) / len(xs)\n"
TOTAL = b"\n\ndef total(xs):\n    return sum(xs) - 1\n"
TOTAL_FIXED = b"\n\ndef total(xs):\n    return sum(xs)\n"
BEFORE = MEAN + TOTAL
AFTER_MEAN = MEAN_FIXED + TOTAL
AFTER_TOTAL = MEAN + TOTAL_FIXED
AFTER_BOTH = MEAN_FIXED + TOTAL_FIXED


# -- helpers ---------------------------------------------------------------------------------


def git(repo: Path, *args: str, check: bool = True) -> str:
    done = subprocess.run(
        ["git", "-C", str(repo), *args], capture_output=True, text=True, check=False
    )
    if check and done.returncode != 0:
        raise AssertionError(f"git {' '.join(args)} failed: {done.stderr}")
    return done.stdout


def head(repo: Path) -> str:
    return git(repo, "rev-parse", "HEAD").strip()


def result(
    nodeid: str = NODEID,
    *,
    before: bytes = BEFORE,
    after: bytes = AFTER_MEAN,
    path: str = "calc.py",
    qualname: str = "mean",
    explanation: str = "Divide by the number of items, not one more.",
    model: str = MODEL,
    attempts: int = 1,
    via: Via = "repair",
    **figures: Any,
) -> HealResult:
    edits = (Edit("replace", path, qualname, "def mean(xs): ...\n"),)
    return HealResult(
        nodeid,
        Candidate(edits, (FileChange(path, before, after),), explanation),
        spend=Spend(rounds=attempts, **figures),
        repairer=model,
        via=via,
    )


def fix_of(*results: HealResult) -> Fix:
    return Fix(results or (result(),))


@pytest.fixture(autouse=True)
def _isolated_git(monkeypatch: pytest.MonkeyPatch) -> None:
    """No global or system git configuration (signing, hooks path, identity) reaches the tests."""
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", os.devnull)
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    for name in ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A git repository whose only commit holds a README (calc.py is up to each test)."""
    path = tmp_path / "repo"
    path.mkdir()
    git(path, "init", "-q", "-b", "main")
    git(path, "config", "user.name", "Test Person")
    git(path, "config", "user.email", "test.person@example.com")
    (path / "README").write_text("readme\n")
    git(path, "add", "README")
    git(path, "commit", "-q", "-m", "initial")
    return path


@pytest.fixture
def project(repo: Path) -> Path:
    """The repository with calc.py committed as BEFORE."""
    (repo / "calc.py").write_bytes(BEFORE)
    git(repo, "add", "calc.py")
    git(repo, "commit", "-q", "-m", "add calc")
    return repo


@pytest.fixture
def plain(tmp_path: Path) -> Path:
    """A project outside git, with calc.py as BEFORE."""
    path = tmp_path / "plain"
    path.mkdir()
    (path / "calc.py").write_bytes(BEFORE)
    assert Repository.find(path) is None
    return path


def leftovers(directory: Path) -> list[str]:
    return sorted(p.name for p in directory.iterdir() if p.name.endswith(".caretaker"))


# -- atomic_write ----------------------------------------------------------------------------


def test_a_fix_of_the_same_size_is_what_the_next_process_runs(tmp_path: Path) -> None:
    # Python trusts a .pyc whose source kept its mtime (whole seconds) and size: a same-length
    # fix written in the second of the last import ran as the old code in the next process.
    module = tmp_path / "cart.py"
    module.write_text("DISCOUNT = 0.5\n")
    read = [sys.executable, "-c", "import cart; print(cart.DISCOUNT)"]
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    first = subprocess.run(read, cwd=tmp_path, env=env, capture_output=True, text=True, check=True)
    assert first.stdout == "0.5\n" and list((tmp_path / "__pycache__").glob("cart.*.pyc"))
    written = os.stat(module)

    atomic_write(module, b"DISCOUNT = 0.1\n")
    os.utime(module, ns=(written.st_atime_ns, written.st_mtime_ns))  # within the same second

    again = subprocess.run(read, cwd=tmp_path, env=env, capture_output=True, text=True, check=True)
    assert again.stdout == "0.1\n"


def test_atomic_write_replaces_the_content(tmp_path: Path) -> None:
    target = tmp_path / "calc.py"
    target.write_bytes(b"a much longer original content\n" * 10)
    atomic_write(target, b"short\n")
    assert target.read_bytes() == b"short\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["calc.py"]


@pytest.mark.parametrize("mode", [0o755, 0o600, 0o644])
def test_atomic_write_keeps_the_permission_bits(tmp_path: Path, mode: int) -> None:
    target = tmp_path / "calc.py"
    target.write_bytes(b"old\n")
    target.chmod(mode)
    atomic_write(target, b"new\n")
    assert stat.S_IMODE(target.stat().st_mode) == mode
    assert target.read_bytes() == b"new\n"


def test_atomic_write_through_a_symlink_updates_the_target(tmp_path: Path) -> None:
    real = tmp_path / "src" / "real.py"
    real.parent.mkdir()
    real.write_bytes(b"old\n")
    link = tmp_path / "link.py"
    link.symlink_to(real)
    atomic_write(link, b"new\n")
    assert real.read_bytes() == b"new\n"
    assert link.is_symlink()
    assert os.readlink(link) == str(real)
    assert leftovers(tmp_path) == [] and leftovers(real.parent) == []


def test_atomic_write_failure_leaves_the_original(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "calc.py"
    target.write_bytes(b"original\n")

    def refuse(src: object, dst: object) -> None:
        assert leftovers(tmp_path)  # the temporary file exists at this point
        raise OSError("no space left")

    monkeypatch.setattr(os, "replace", refuse)
    with pytest.raises(OSError, match="no space left"):
        atomic_write(target, b"new\n")
    monkeypatch.undo()
    assert target.read_bytes() == b"original\n"
    assert leftovers(tmp_path) == []


@pytest.mark.skipif(
    not hasattr(os, "geteuid") or os.geteuid() == 0, reason="root ignores permission bits"
)
def test_atomic_write_in_a_read_only_directory(tmp_path: Path) -> None:
    directory = tmp_path / "locked"
    directory.mkdir()
    target = directory / "calc.py"
    target.write_bytes(b"original\n")
    directory.chmod(0o555)
    try:
        with pytest.raises(PermissionError):
            atomic_write(target, b"new\n")
    finally:
        directory.chmod(0o755)
    assert target.read_bytes() == b"original\n"
    assert leftovers(directory) == []


# -- subject and message ---------------------------------------------------------------------


def test_subject_of_a_short_id() -> None:
    assert subject(fix_of()) == f"fix: heal {NODEID}"


def test_subject_counts_the_other_tests() -> None:
    fix = fix_of(result(NODEID), result("tests/test_calc.py::test_b"), result("t.py::test_c"))
    assert subject(fix) == f"fix: heal {NODEID} (+2 more)"


def test_subject_drops_directories_first() -> None:
    nodeid = "tests/" + "very_deep_directory/" * 4 + "test_calc.py::test_mean[a/b]"
    assert len(f"fix: heal {nodeid}") > 72
    assert subject(fix_of(result(nodeid))) == "fix: heal test_calc.py::test_mean[a/b]"
    more = subject(fix_of(result(nodeid), result("z.py::t")))
    assert more == "fix: heal test_calc.py::test_mean[a/b] (+1 more)"


def test_subject_truncates_a_long_name() -> None:
    nodeid = "tests/unit/test_calc.py::test_" + "x" * 100
    line = subject(fix_of(result(nodeid)))
    assert len(line) == 72
    assert line.startswith("fix: heal test_calc.py::test_xxx")
    assert line.endswith("x…")


def test_subject_truncates_keeping_the_count() -> None:
    nodeid = "tests/unit/test_calc.py::test_" + "y" * 100
    line = subject(fix_of(result(nodeid), result("b.py::t"), result("c.py::t")))
    assert len(line) == 72
    assert line.startswith("fix: heal test_calc.py::test_yyy")
    assert line.endswith("y… (+2 more)")


@pytest.mark.parametrize("length", [1, 40, 62, 63, 80, 200])
def test_subject_never_exceeds_72(length: int) -> None:
    nodeid = "a/b/c/" + "d" * length + ".py::test_" + "e" * length
    line = subject(fix_of(result(nodeid)))
    assert len(line) <= 72
    assert line.startswith("fix: heal ")


def paragraphs(text: str) -> list[str]:
    assert text.endswith("\n") and not text.endswith("\n\n")
    return text[:-1].split("\n\n")


def trailers(text: str, cwd: Path) -> str:
    done = subprocess.run(
        ["git", "interpret-trailers", "--parse"],
        input=text,
        capture_output=True,
        text=True,
        check=True,
        cwd=cwd,
    )
    return done.stdout


def test_message_for_a_model(tmp_path: Path) -> None:
    explanation = (
        "The mean divided the sum by one more than the number of items, which made every "
        "average slightly too small; it now divides by the number of items as intended, "
        "and an empty list still raises as before."
    )
    first = result(
        explanation=explanation, attempts=2, prompt_tokens=100, completion_tokens=50, cost=0.0012
    )
    fix = fix_of(first, result("tests/test_calc.py::test_other"))
    text = message(fix)
    parts = paragraphs(text)
    assert parts[0] == subject(fix) == f"fix: heal {NODEID} (+1 more)"
    wrapped = parts[1].splitlines()
    assert len(wrapped) > 1
    assert all(len(line) <= 72 for line in wrapped)
    assert " ".join(wrapped) == explanation
    assert parts[2] == (f"Makes these tests pass:\n- {NODEID}\n- tests/test_calc.py::test_other")
    assert parts[3].splitlines() == [
        "Patched: calc.py::mean",
        f"Model: {MODEL}",
        "Attempts: 2 · tokens: 150 · cost: $0.0012",
    ]
    assert parts[4] == f"Healed-by: pytest-caretaker ({MODEL})"
    assert len(parts) == 5
    assert trailers(text, tmp_path) == f"Healed-by: pytest-caretaker ({MODEL})\n"


def test_message_for_one_test_keeps_the_full_id() -> None:
    nodeid = "tests/" + "very_deep_directory/" * 4 + "test_calc.py::test_mean"
    parts = paragraphs(message(fix_of(result(nodeid))))
    assert parts[0] == "fix: heal test_calc.py::test_mean"
    assert parts[2] == f"Makes this test pass:\n- {nodeid}"


def test_message_for_the_builtin_repairer(tmp_path: Path) -> None:
    text = message(fix_of(result(model="builtin", attempts=0, candidates=1234)))
    figures = paragraphs(text)[3].splitlines()
    assert figures[1:] == ["Model: builtin", "Candidates tried: 1,234 (no model, no tokens)"]
    assert "tokens:" not in text and "cost:" not in text
    assert trailers(text, tmp_path) == "Healed-by: pytest-caretaker (builtin)\n"


def test_message_for_a_cached_fix() -> None:
    text = message(fix_of(result(via="cache", attempts=3, cost=0.5)))
    figures = paragraphs(text)[3].splitlines()
    assert figures[2] == "From caretaker's cache: re-verified, no model asked"
    assert "Attempts:" not in text


def test_message_without_explanation_lists_only_patched_functions() -> None:
    edits = (
        Edit("import", "calc.py", "import math", "import math\n"),
        Edit("replace", "calc.py", "mean", "def mean(xs): ...\n"),
        Edit("helper", "calc.py", "_count", "def _count(xs): ...\n"),
    )
    base = result(explanation="")
    assert base.candidate is not None
    with_edits = replace_result(base, candidate=replace_result(base.candidate, edits=edits))
    parts = paragraphs(message(fix_of(with_edits)))
    assert len(parts) == 4
    assert parts[1].startswith("Makes this test pass:")
    assert parts[2].splitlines()[0] == "Patched: calc.py::mean, calc.py::_count"


# -- write_fixes -----------------------------------------------------------------------------


def commits(repo: Path) -> int:
    return int(git(repo, "rev-list", "--count", "HEAD"))


def test_write_and_commit_a_clean_file(project: Path) -> None:
    start = head(project)
    fix = fix_of()
    written, notes = write_fixes([fix], project, WRITE)
    assert notes == []
    assert [w.state for w in written] == ["committed"]
    sha = head(project)
    assert sha != start
    assert written[0].commit == sha
    assert written[0].detail == f"committed {sha[:7]} fix: heal {NODEID}"
    assert git(project, "log", "-1", "--format=%s") == f"fix: heal {NODEID}\n"
    assert git(project, "cat-file", "commit", "HEAD").split("\n\n", 1)[1] == message(fix)
    assert git(project, "show", "--name-only", "--format=", "HEAD").split() == ["calc.py"]
    assert (project / "calc.py").read_bytes() == AFTER_MEAN
    assert git(project, "status", "--porcelain") == ""


def test_write_of_nothing(project: Path) -> None:
    assert write_fixes([], project, WRITE) == ([], [])


def test_file_changed_on_disk_is_skipped(project: Path) -> None:
    start = head(project)
    edited = BEFORE + b"\n# the user typed this meanwhile\n"
    (project / "calc.py").write_bytes(edited)
    written, _ = write_fixes([fix_of()], project, WRITE)
    assert [w.state for w in written] == ["skipped"]
    assert "changed on disk" in written[0].detail
    assert "calc.py" in written[0].detail
    assert written[0].commit == ""
    assert (project / "calc.py").read_bytes() == edited
    assert head(project) == start


def test_untracked_file_is_written_not_committed(repo: Path) -> None:
    start = head(repo)
    (repo / "calc.py").write_bytes(BEFORE)
    written, notes = write_fixes([fix_of()], repo, WRITE)
    assert [w.state for w in written] == ["written"]
    assert "calc.py is not tracked by git" in written[0].detail
    assert notes == []
    assert (repo / "calc.py").read_bytes() == AFTER_MEAN
    assert head(repo) == start
    assert git(repo, "status", "--porcelain") == "?? calc.py\n"


def test_staged_file_is_written_not_committed(repo: Path) -> None:
    (repo / "calc.py").write_bytes(b"def mean(xs):\n    return 0\n")
    git(repo, "add", "calc.py")
    git(repo, "commit", "-q", "-m", "old calc")
    start = head(repo)
    (repo / "calc.py").write_bytes(BEFORE)
    git(repo, "add", "calc.py")  # the user's staged work, which the repair read
    written, _ = write_fixes([fix_of()], repo, WRITE)
    assert [w.state for w in written] == ["written"]
    assert "calc.py had uncommitted changes before the run" in written[0].detail
    assert written[0].uncommitted == "your edits in that file"  # the report's words
    assert head(repo) == start
    assert git(repo, "show", ":calc.py").encode() == BEFORE  # still staged as the user left it
    assert (repo / "calc.py").read_bytes() == AFTER_MEAN


def test_ignored_file_is_written_not_committed(repo: Path) -> None:
    (repo / ".gitignore").write_text("calc.py\n")
    git(repo, "add", ".gitignore")
    git(repo, "commit", "-q", "-m", "ignore")
    start = head(repo)
    (repo / "calc.py").write_bytes(BEFORE)
    written, _ = write_fixes([fix_of()], repo, WRITE)
    assert [w.state for w in written] == ["written"]
    assert "calc.py is ignored by git" in written[0].detail
    assert head(repo) == start
    assert (repo / "calc.py").read_bytes() == AFTER_MEAN


def test_no_commit_setting(project: Path) -> None:
    start = head(project)
    settings = Settings(heal=True, write=True, commit=False)
    written, notes = write_fixes([fix_of()], project, settings)
    assert [w.state for w in written] == ["written"]
    assert "--heal-no-commit" in written[0].detail
    assert notes == []
    assert head(project) == start
    assert (project / "calc.py").read_bytes() == AFTER_MEAN
    assert git(project, "status", "--porcelain") == " M calc.py\n"


def test_outside_git_writes_and_notes_it(plain: Path) -> None:
    written, notes = write_fixes([fix_of()], plain, WRITE)
    assert [w.state for w in written] == ["written"]
    assert "no git repository" in written[0].detail
    assert len(notes) == 1
    assert "not in a git repository" in notes[0]
    assert (plain / "calc.py").read_bytes() == AFTER_MEAN


def test_declined_in_review(project: Path) -> None:
    start = head(project)
    asked: list[tuple[Fix, list[FileChange]]] = []

    def ask(fix: Fix, changes: Sequence[FileChange]) -> bool:
        asked.append((fix, list(changes)))
        return False

    fix = fix_of()
    written, _ = write_fixes([fix], project, WRITE, ask)
    assert asked == [(fix, [FileChange("calc.py", BEFORE, AFTER_MEAN)])]
    assert written == [Written(fix, "declined", "not written: declined in review")]
    assert (project / "calc.py").read_bytes() == BEFORE
    assert head(project) == start


def test_accepted_in_review(project: Path) -> None:
    written, _ = write_fixes([fix_of()], project, WRITE, lambda fix, changes: True)
    assert [w.state for w in written] == ["committed"]
    assert (project / "calc.py").read_bytes() == AFTER_MEAN


def test_two_fixes_of_one_file_both_land(project: Path) -> None:
    start = commits(project)
    first = fix_of(result(NODEID))
    second = fix_of(result("tests/test_calc.py::test_total", after=AFTER_TOTAL, qualname="total"))
    asked: list[list[FileChange]] = []

    def ask(fix: Fix, changes: Sequence[FileChange]) -> bool:
        asked.append(list(changes))
        return True

    written, notes = write_fixes([first, second], project, WRITE, ask)
    assert notes == []
    assert [w.state for w in written] == ["committed", "committed"]
    assert asked == [
        [FileChange("calc.py", BEFORE, AFTER_MEAN)],
        [FileChange("calc.py", AFTER_MEAN, AFTER_BOTH)],  # against the file as the first left it
    ]
    assert commits(project) == start + 2
    assert (project / "calc.py").read_bytes() == AFTER_BOTH
    assert git(project, "log", "-2", "--format=%s").splitlines() == [
        "fix: heal tests/test_calc.py::test_total",
        f"fix: heal {NODEID}",
    ]
    assert written[1].commit == head(project)
    assert written[0].commit == git(project, "rev-parse", "HEAD~1").strip()
    assert git(project, "show", "HEAD~1:calc.py").encode() == AFTER_MEAN
    assert git(project, "show", "HEAD:calc.py").encode() == AFTER_BOTH
    assert git(project, "status", "--porcelain") == ""


def test_clashing_second_fix_is_skipped(project: Path) -> None:
    other_mean = AFTER_MEAN.replace(b"len(xs)", b"max(len(xs), 1)")
    first = fix_of(result(NODEID))
    second = fix_of(result("tests/test_calc.py::test_other", after=other_mean))
    written, _ = write_fixes([first, second], project, WRITE)
    assert [w.state for w in written] == ["committed", "skipped"]
    assert "does not combine" in written[1].detail
    assert (project / "calc.py").read_bytes() == AFTER_MEAN


def test_branch_outside_git_skips_everything(plain: Path) -> None:
    settings = Settings(heal=True, write=True, branch="heal/x")
    fixes = [
        fix_of(result(NODEID)),
        fix_of(result("tests/test_calc.py::test_total", after=AFTER_TOTAL)),
    ]
    written, notes = write_fixes(fixes, plain, settings)
    assert [w.state for w in written] == ["skipped", "skipped"]
    assert all("--heal-branch heal/x needs a git repository" in w.detail for w in written)
    assert len(notes) == 1
    assert "--heal-branch heal/x needs a git repository" in notes[0]
    assert "nothing was written" in notes[0]
    assert (plain / "calc.py").read_bytes() == BEFORE


def test_branch_in_git_commits_there(project: Path) -> None:
    main = head(project)
    settings = Settings(heal=True, write=True, branch="heal/x")
    written, notes = write_fixes([fix_of()], project, settings)
    assert notes == []
    assert [w.state for w in written] == ["committed"]
    assert git(project, "symbolic-ref", "--short", "HEAD").strip() == "heal/x"
    assert git(project, "rev-parse", "main").strip() == main
    assert git(project, "rev-parse", "heal/x").strip() == written[0].commit
    assert git(project, "rev-parse", "heal/x~1").strip() == main


def commit_other(project: Path) -> None:
    """A second committed file, other.py, with the same content as calc.py."""
    (project / "other.py").write_bytes(BEFORE)
    git(project, "add", "other.py")
    git(project, "commit", "-q", "-m", "other")


def break_replace_of(name: str, monkeypatch: pytest.MonkeyPatch, error: BaseException) -> None:
    """os.replace raises error for a file called name (after removing the temporary file)."""
    replace = os.replace

    def replace_or_raise(src: str, dst: str) -> None:
        if Path(dst).name == name:
            Path(src).unlink()
            raise error
        replace(src, dst)

    monkeypatch.setattr(os, "replace", replace_or_raise)


def test_a_file_that_cannot_be_written_is_skipped(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    commit_other(project)
    break_replace_of("other.py", monkeypatch, PermissionError(13, "Permission denied"))
    fixes = [fix_of(result(NODEID)), fix_of(result("tests/test_other.py::t", path="other.py"))]
    written, _ = write_fixes(fixes, project, WRITE)
    assert [w.state for w in written] == ["committed", "skipped"]
    assert (project / "other.py").read_bytes() == BEFORE


def test_a_fix_whose_second_file_cannot_be_written_leaves_neither_changed(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    commit_other(project)
    head = git(project, "rev-parse", "HEAD")
    break_replace_of("other.py", monkeypatch, PermissionError(13, "Permission denied"))
    both = result()
    assert both.candidate is not None
    changes = (*both.changes, FileChange("other.py", BEFORE, AFTER_MEAN))
    both = replace_result(both, candidate=replace_result(both.candidate, changes=changes))
    written, _ = write_fixes([fix_of(both)], project, WRITE)
    assert [(w.state, w.detail) for w in written] == [
        ("skipped", "not written: other.py: Permission denied")
    ]
    assert (project / "calc.py").read_bytes() == BEFORE  # written, then put back
    assert (project / "other.py").read_bytes() == BEFORE
    assert git(project, "rev-parse", "HEAD") == head
    assert not list(project.glob(".*.caretaker"))


def test_ctrl_c_while_committing_leaves_that_fix_written_and_the_rest_untouched(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pytest_caretaker.write.repository import Repository

    def interrupted(self: Repository, paths: object, message: str, new: object = ()) -> str:
        raise KeyboardInterrupt

    monkeypatch.setattr(Repository, "commit", interrupted)
    first = result()
    second = result("tests/test_calc.py::test_total", after=AFTER_TOTAL, qualname="total")
    written, notes = write_fixes([fix_of(first), fix_of(second)], project, WRITE)
    assert [(w.state, w.detail) for w in written] == [
        ("written", "written; its commit was interrupted (see git log)"),
        ("skipped", "not written: interrupted"),
    ]
    assert notes == ["caretaker: writing interrupted; the fixes after it were not written"]
    assert (project / "calc.py").read_bytes() == AFTER_MEAN


def test_ctrl_c_between_the_files_of_one_fix_puts_the_first_back(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    commit_other(project)
    break_replace_of("other.py", monkeypatch, KeyboardInterrupt())
    both = result()
    assert both.candidate is not None
    changes = (*both.changes, FileChange("other.py", BEFORE, AFTER_MEAN))
    both = replace_result(both, candidate=replace_result(both.candidate, changes=changes))
    written, _ = write_fixes([fix_of(both)], project, WRITE)
    assert [(w.state, w.detail) for w in written] == [("skipped", "not written: interrupted")]
    assert (project / "calc.py").read_bytes() == BEFORE
    assert (project / "other.py").read_bytes() == BEFORE


# -- no commit in the middle of something, or on a detached HEAD ------------------------------


def conflict(project: Path, command: str) -> None:
    """Leave project in the middle of command (merge, rebase, cherry-pick, revert) by a
    conflict on a.py; calc.py stays clean and as committed."""
    (project / "a.py").write_text("a = 0\n")
    git(project, "add", "a.py")
    git(project, "commit", "-q", "-m", "a")
    git(project, "switch", "-q", "-c", "theirs")
    (project / "a.py").write_text("a = 'theirs'\n")
    git(project, "commit", "-q", "-am", "theirs")
    git(project, "switch", "-q", "main")
    (project / "a.py").write_text("a = 'ours'\n")
    git(project, "commit", "-q", "-am", "ours")
    if command == "rebase":
        git(project, "switch", "-q", "theirs")
        git(project, "rebase", "main", check=False)
    elif command == "revert":
        git(project, "revert", "--no-edit", "HEAD~1", check=False)  # "a" under "ours"
    else:
        git(project, command, "--no-edit", "theirs", check=False)


#: Each state: how to enter it, the file git keeps while in it, and caretaker's reason.
STATES: dict[str, tuple[Callable[[Path], object], str, str]] = {
    "detached": (
        lambda p: git(p, "switch", "-q", "--detach"),
        "HEAD",
        "HEAD is detached",
    ),
    "merge": (lambda p: conflict(p, "merge"), "MERGE_HEAD", "a merge is in progress"),
    "rebase": (lambda p: conflict(p, "rebase"), "rebase-merge", "a rebase is in progress"),
    "cherry-pick": (
        lambda p: conflict(p, "cherry-pick"),
        "CHERRY_PICK_HEAD",
        "a cherry-pick is in progress",
    ),
    "revert": (lambda p: conflict(p, "revert"), "REVERT_HEAD", "a revert is in progress"),
    # HEAD stays on main during a bisect, so only the bisect's own files tell
    "bisect": (lambda p: git(p, "bisect", "start"), "BISECT_LOG", "a bisect is in progress"),
}


def enter(project: Path, state: str) -> str:
    """Put project in state; caretaker's reason for not committing there."""
    setup, kept, why = STATES[state]
    setup(project)
    assert (project / ".git" / kept).exists()
    return why


@pytest.mark.parametrize("state", STATES)
def test_no_commit_in_the_middle_of_an_operation(state: str, project: Path) -> None:
    why = enter(project, state)
    start = head(project)
    refs = git(project, "for-each-ref")

    written, notes = write_fixes([fix_of()], project, WRITE)

    assert [(w.state, w.detail, w.uncommitted) for w in written] == [
        ("written", f"written to calc.py; not committed ({why})", why)
    ]
    assert notes == [f"caretaker: {why}, so no fix was committed; commit them after"]
    assert (project / "calc.py").read_bytes() == AFTER_MEAN
    assert head(project) == start
    assert git(project, "for-each-ref") == refs
    assert " M calc.py\n" in git(project, "status", "--porcelain")
    assert (project / ".git" / STATES[state][1]).exists()  # the user's operation, as it was


@pytest.mark.parametrize("state", ["merge", "rebase", "bisect"])
def test_no_switch_to_a_branch_in_the_middle_of_an_operation(state: str, project: Path) -> None:
    why = enter(project, state)
    start = head(project)
    settings = Settings(heal=True, write=True, branch="heal/x")

    written, notes = write_fixes([fix_of()], project, settings)

    reason = f"cannot switch to branch heal/x: {why}"
    assert [(w.state, w.detail) for w in written] == [("skipped", f"not written: {reason}")]
    assert notes == [f"caretaker: {reason}; nothing was written"]
    assert (project / "calc.py").read_bytes() == BEFORE
    assert head(project) == start


def test_a_branch_from_a_detached_head_is_committed_on(project: Path) -> None:
    enter(project, "detached")
    settings = Settings(heal=True, write=True, branch="heal/x")
    written, notes = write_fixes([fix_of()], project, settings)
    assert [w.state for w in written] == ["committed"]
    assert notes == []
    assert git(project, "symbolic-ref", "--short", "HEAD").strip() == "heal/x"


# -- no secret in a commit -------------------------------------------------------------------

SECRET = "Hunter2-Swordfish"


def test_a_secret_in_a_test_id_is_redacted_from_the_commit(project: Path) -> None:
    nodeid = f"tests/test_calc.py::test_login[{SECRET}]"
    redactor = Redactor({"DB_PASSWORD": SECRET})
    written, _ = write_fixes([fix_of(result(nodeid))], project, WRITE, redactor=redactor)
    assert [w.state for w in written] == ["committed"]
    stored = git(project, "cat-file", "commit", "HEAD")
    assert SECRET not in stored
    assert "[redacted #1: value of $DB_PASSWORD]" in git(project, "log", "-1", "--format=%s")
    assert SECRET not in written[0].detail


def test_without_a_redactor_the_environments_secrets_are_redacted(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DB_PASSWORD", SECRET)
    nodeid = f"tests/test_calc.py::test_login[{SECRET}]"
    written, _ = write_fixes([fix_of(result(nodeid))], project, WRITE)
    assert [w.state for w in written] == ["committed"]
    assert SECRET not in git(project, "cat-file", "commit", "HEAD")


def test_a_secret_cut_by_the_subjects_width_is_redacted_whole() -> None:
    nodeid = "test_login.py::test_" + "x" * 55 + f"[{SECRET}]"  # the … would cut the secret
    text = message(fix_of(result(nodeid)), Redactor({"API_TOKEN": SECRET}))
    assert len(text.splitlines()[0]) <= 72
    assert SECRET[:5] not in text


# -- the journal of what a killed run would leave ----------------------------------------------


def test_the_journal_is_gone_after_a_write(project: Path) -> None:
    written, _ = write_fixes([fix_of()], project, WRITE)
    assert [w.state for w in written] == ["committed"]
    assert list((project / ".caretaker").glob("writing-*")) == []
    assert list(project.glob(".calc.py.*.caretaker")) == []


def test_a_journal_that_cannot_be_kept_does_not_stop_the_write(project: Path) -> None:
    (project / ".caretaker").write_text("a file where caretaker's folder would be\n")
    git(project, "add", ".caretaker")
    git(project, "commit", "-q", "-m", "in the way")
    written, notes = write_fixes([fix_of()], project, WRITE)
    assert [w.state for w in written] == ["committed"]
    assert notes == []
    assert (project / "calc.py").read_bytes() == AFTER_MEAN


# -- UNSURE fixes (#45): never written without review or --heal-accept-unsure ------------------

DOUBT = Doubt(
    "the tests cannot tell `/ len(xs)` from `/ max(len(xs), 1)` on line 2",
    call="mean([])",
    outcome="raises ZeroDivisionError",
    other="returns 0.0",
    alternative="--- a/calc.py\n+++ b/calc.py\n",
)


def unsure(nodeid: str = NODEID, doubt: Doubt = DOUBT, **more: Any) -> HealResult:
    plain = result(nodeid, **more)
    assert plain.candidate is not None
    return replace_result(plain, candidate=replace_result(plain.candidate, doubt=doubt))


def test_an_unsure_fix_is_not_written_and_the_others_are(project: Path) -> None:
    other = result("tests/test_calc.py::test_total", after=AFTER_TOTAL, qualname="total")
    doubted = fix_of(unsure())

    written, notes = write_fixes([doubted, fix_of(other)], project, WRITE)

    assert written[0] == Written(doubted, "skipped", UNSURE_SKIPPED)
    assert UNSURE_SKIPPED == (
        "UNSURE: not written; review it with --heal-review, or take it with --heal-accept-unsure"
    )
    assert written[1].state == "committed" and notes == []
    assert (project / "calc.py").read_bytes() == AFTER_TOTAL
    assert git(project, "log", "--format=%s").splitlines()[0] == (
        "fix: heal tests/test_calc.py::test_total"  # a plain fix's subject as it was
    )


def test_accept_unsure_commits_it_saying_unsure_and_why(project: Path) -> None:
    settings = Settings(heal=True, write=True, accept_unsure=True)

    written, _ = write_fixes([fix_of(unsure())], project, settings)

    assert [w.state for w in written] == ["committed"]
    assert written[0].detail.endswith(f" unsure: heal {NODEID}")
    assert git(project, "log", "-1", "--format=%s") == f"unsure: heal {NODEID}\n"
    parts = paragraphs(git(project, "log", "-1", "--format=%B").rstrip("\n") + "\n")
    assert parts[2] == (
        "UNSURE: the tests cannot tell: `/ len(xs)` from `/ max(len(xs), 1)` on\n"
        "  line 2\n"
        "Separating input: mean([]): this fix raises ZeroDivisionError, the other\n"
        "  returns 0.0"
    )
    assert (project / "calc.py").read_bytes() == AFTER_MEAN


def test_review_may_take_an_unsure_fix(project: Path) -> None:
    asked: list[Fix] = []

    def ask(fix: Fix, changes: Sequence[FileChange]) -> bool:
        asked.append(fix)
        return True

    written, _ = write_fixes([fix_of(unsure())], project, WRITE, ask)

    assert len(asked) == 1 and asked[0].unsure
    assert [w.state for w in written] == ["committed"]
    assert git(project, "log", "-1", "--format=%s") == f"unsure: heal {NODEID}\n"


def test_an_unsure_fix_with_no_separating_input_says_why_alone() -> None:
    lone = Doubt("it deletes the raise on line 2 of calc.py")

    parts = paragraphs(message(fix_of(unsure(doubt=lone))))

    assert parts[0] == f"unsure: heal {NODEID}"
    assert parts[2] == "UNSURE: the tests cannot tell: it deletes the raise on line 2 of calc.py"


def test_a_secret_in_a_doubt_is_redacted_from_the_commit_whole() -> None:
    # At the body's width the secret would be wrapped at its first hyphen, and no longer
    # recognised, were it wrapped before it is redacted.
    secret = "Swordfish-Hunter-Zqxw"
    doubt = Doubt("x" * 30 + f" {secret}", call=f"login('{secret}')", outcome="returns True")

    text = message(fix_of(unsure(doubt=doubt)), Redactor({"DB_PASSWORD": secret}))

    assert "Swordfish" not in text and "Zqxw" not in text
