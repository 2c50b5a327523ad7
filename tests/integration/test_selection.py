"""Select: group equal fixes, combine fixes line by line, and keep the ones that hold together."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path

import pytest

from pytest_caretaker.results import Candidate, Failure, FileChange, Fix, HealResult
from pytest_caretaker.selection import also_healed, combined, compatible, group, patch, together
from pytest_caretaker.verify.runner import Runner, RunResult

# Not "code.py" as one might name it: that would shadow the standard library's code module,
# which pdb (and so pytest) may import in the worker.
FUNCS = "funcs.py"
BEFORE = b"def f():\n    return 1\n\n\ndef g():\n    return 1\n"
F_AFTER = BEFORE.replace(b"def f():\n    return 1", b"def f():\n    return 2")
G_AFTER = BEFORE.replace(b"def g():\n    return 1", b"def g():\n    return 2")
BOTH = b"def f():\n    return 2\n\n\ndef g():\n    return 2\n"


def healed(nodeid: str, *applied: FileChange, proved: frozenset[str] = frozenset()) -> HealResult:
    return HealResult(nodeid, Candidate((), applied, passed=proved))


def fix(nodeid: str, *applied: FileChange, proved: frozenset[str] = frozenset()) -> Fix:
    return Fix((healed(nodeid, *applied, proved=proved),))


F = fix("test_a.py::test_f", FileChange(FUNCS, BEFORE, F_AFTER))
G = fix("test_b.py::test_g", FileChange(FUNCS, BEFORE, G_AFTER))


# -- group ---------------------------------------------------------------------------------------


def test_group_ignores_unhealed_results_and_results_without_changes() -> None:
    results = [
        HealResult("t.py::not_healed", reason="no fix"),
        HealResult("t.py::healed_but_nothing_applied", Candidate((), ())),
    ]

    assert group(results) == []


def test_group_makes_one_fix_of_equal_changes_ordered_by_nodeid() -> None:
    other = FileChange("other.py", b"x = 1\n", b"x = 2\n")
    change = FileChange(FUNCS, BEFORE, F_AFTER)
    later = healed("t.py::test_z", change, other)
    earlier = healed("t.py::test_a", other, change)  # the same changes, in another order

    fixes = group([later, earlier])

    assert len(fixes) == 1
    assert fixes[0].nodeids == ("t.py::test_a", "t.py::test_z")
    assert fixes[0].first is earlier
    assert set(fixes[0].paths) == {FUNCS, "other.py"}


def test_group_keeps_different_changes_apart_ordered_by_first_nodeid() -> None:
    f_b = healed("t.py::test_b", FileChange(FUNCS, BEFORE, F_AFTER))
    g_a = healed("t.py::test_a", FileChange(FUNCS, BEFORE, G_AFTER))
    g_c = healed("t.py::test_c", FileChange(FUNCS, BEFORE, G_AFTER))
    f_d = healed("t.py::test_d", FileChange(FUNCS, BEFORE, F_AFTER))

    fixes = group([f_d, g_c, f_b, g_a])

    assert [fix.nodeids for fix in fixes] == [
        ("t.py::test_a", "t.py::test_c"),
        ("t.py::test_b", "t.py::test_d"),
    ]
    assert [fix.changes[0].after for fix in fixes] == [G_AFTER, F_AFTER]


# -- combined and compatible ---------------------------------------------------------------------


def test_combined_merges_changes_of_different_lines() -> None:
    files = combined([F, G])

    assert files == {FUNCS: FileChange(FUNCS, BEFORE, BOTH)}


def test_combined_refuses_two_changes_of_one_line() -> None:
    three = fix("t.py::test_three", FileChange(FUNCS, BEFORE, F_AFTER.replace(b"2", b"3")))

    assert combined([F, three]) is None


def test_compatible_drops_the_clashing_fix_and_names_the_one_it_clashes_with() -> None:
    f_three = fix("test_c.py::test_f3", FileChange(FUNCS, BEFORE, F_AFTER.replace(b"2", b"3")))
    other = fix("test_d.py::test_h", FileChange("other.py", b"x = 1\n", b"x = 2\n"))

    # G comes first, so the fix that f_three clashes with is not simply the first one kept.
    kept, dropped = compatible([G, F, f_three, other])

    assert kept == [G, F, other]
    assert [d.fix for d in dropped] == [f_three]
    assert dropped[0].reason == "it changes the same lines as the fix for test_a.py::test_f"


# -- patch ---------------------------------------------------------------------------------------


def git(repo: Path, *args: str, stdin: bytes = b"") -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(["git", "-C", str(repo), *args], input=stdin, capture_output=True)


def test_patch_is_accepted_by_git_apply_and_gives_the_merged_bytes(tmp_path: Path) -> None:
    notes_before = b"first\nsecond\nlast line without newline"
    notes_after = b"first\nsecond\nlast line, changed"
    first = fix("t.py::test_1", FileChange(FUNCS, BEFORE, F_AFTER))
    second = fix(
        "t.py::test_2",
        FileChange(FUNCS, BEFORE, G_AFTER),
        FileChange("docs/notes.txt", notes_before, notes_after),
    )
    repo = tmp_path / "repo"
    (repo / "docs").mkdir(parents=True)
    (repo / FUNCS).write_bytes(BEFORE)
    (repo / "docs" / "notes.txt").write_bytes(notes_before)
    assert git(repo, "init", "-q").returncode == 0

    diff = patch([first, second])

    check = git(repo, "apply", "--check", "-", stdin=diff)
    assert check.returncode == 0, check.stderr.decode()
    done = git(repo, "apply", "-", stdin=diff)
    assert done.returncode == 0, done.stderr.decode()
    assert (repo / FUNCS).read_bytes() == BOTH
    assert (repo / "docs" / "notes.txt").read_bytes() == notes_after


# -- together, with a real runner ----------------------------------------------------------------

TEST_A = """\
from funcs import f, g


def test_f():
    assert f() == 2


def test_sum():
    assert f() + g() < 4


def test_loose():
    assert f() + g() < 5
"""
TEST_B = """\
from funcs import g


def test_g():
    assert g() == 2
"""


class Counting(Runner):
    """A real runner that remembers which tests each run ran."""

    runs: list[list[str]]

    def run(
        self,
        nodeids: Sequence[str],
        patches: Mapping[str, bytes] | None = None,
        trace: bool = False,
        timeout: float | None = None,
    ) -> RunResult:
        self.runs.append(list(nodeids))
        return super().run(nodeids, patches, trace, timeout)


@pytest.fixture(scope="module")
def runner(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Counting]:
    root = tmp_path_factory.mktemp("together").resolve()
    root.joinpath(FUNCS).write_bytes(BEFORE)
    root.joinpath("test_a.py").write_text(TEST_A)
    root.joinpath("test_b.py").write_text(TEST_B)
    args = ["-q", "-p", "no:cacheprovider", "-o", "addopts=", "--rootdir", str(root)]
    with Counting(root, root, args, timeout=30.0) as runner:
        yield runner


@pytest.fixture
def counting(runner: Counting) -> Counting:
    runner.runs = []
    return runner


def test_each_fix_passes_alone(counting: Counting) -> None:
    # The premise of the next test: neither fix breaks test_sum on its own.
    for one in (F, G):
        result = counting.run([*one.nodeids, "test_a.py::test_sum"], {FUNCS: one.changes[0].after})
        assert {o.outcome for o in result.outcomes.values()} == {"passed"}, result.output


def test_together_drops_the_fix_that_breaks_the_others(counting: Counting) -> None:
    kept, dropped = together([F, G], counting, ["test_a.py::test_sum"])

    assert kept == [F]
    assert [d.fix for d in dropped] == [G]
    assert "together with the fix for test_a.py::test_f" in dropped[0].reason
    assert "test_a.py::test_sum" in dropped[0].reason
    assert len(counting.runs) == 3  # all together, F alone against all of it, G added back


def test_together_keeps_fixes_that_pass_together_in_one_run(counting: Counting) -> None:
    kept, dropped = together([F, G], counting, ["test_a.py::test_loose"])

    assert (kept, dropped) == ([F, G], [])
    assert counting.runs == [["test_a.py::test_f", "test_b.py::test_g", "test_a.py::test_loose"]]


class NoRuns(Runner):
    def run(
        self,
        nodeids: Sequence[str],
        patches: Mapping[str, bytes] | None = None,
        trace: bool = False,
        timeout: float | None = None,
    ) -> RunResult:
        raise AssertionError(f"unexpected run of {nodeids}")


def test_together_keeps_a_single_fix_its_own_proof_covered_without_running(
    tmp_path: Path,
) -> None:
    with NoRuns(tmp_path / "missing", tmp_path, [], timeout=1.0) as runner:
        proved = fix(
            "test_a.py::test_f",
            FileChange(FUNCS, BEFORE, F_AFTER),
            proved=frozenset({"test_a.py::test_f", "test_a.py::test_sum"}),
        )
        clash = fix("test_c.py::test_f3", FileChange(FUNCS, BEFORE, F_AFTER.replace(b"2", b"3")))

        assert together([proved], runner, ["test_a.py::test_sum"]) == ([proved], [])
        kept, dropped = together([proved, clash], runner, [])  # one is left after compatible()
        assert kept == [proved]
        assert [d.fix for d in dropped] == [clash]


def test_together_keeps_a_single_fix_its_proofs_for_several_problems_covered_without_running(
    tmp_path: Path,
) -> None:
    # One root cause in two problems: the fix was proved for each (the same changes), and each
    # proof saw a part of what must pass; together they saw all of it.
    change = FileChange(FUNCS, BEFORE, F_AFTER)
    one = healed("test_a.py::test_f", change, proved=frozenset({"test_a.py::test_f"}))
    other = healed("test_b.py::test_f2", change, proved=frozenset({"test_b.py::test_f2"}))
    shared = Fix((one, other))
    with NoRuns(tmp_path / "missing", tmp_path, [], timeout=1.0) as runner:
        assert together([shared], runner, []) == ([shared], [])
        with pytest.raises(AssertionError, match="unexpected run"):  # what no proof saw runs
            together([shared], runner, ["test_a.py::test_sum"])


def test_together_runs_a_single_fix_against_what_its_proof_did_not(
    counting: Counting,
) -> None:
    # F's own check ran only its own problem's neighbours; test_a.py::test_sum is more.
    kept, dropped = together([F], counting, ["test_a.py::test_sum"])

    assert kept == [F] and dropped == []
    assert len(counting.runs) == 1


def test_a_test_the_patch_heals_is_owned_by_the_fix_of_its_module_in_one_run_of_it(
    tmp_path: Path,
) -> None:
    # test_b.py::test_g_again was not healed on its own; the patch heals it, and G (found for
    # test_b.py) is its fix: asked first, over test_b.py's failing tests only, and F never.
    root = tmp_path.resolve()
    root.joinpath(FUNCS).write_bytes(BEFORE)
    root.joinpath("test_a.py").write_text(
        "from funcs import f\n\n\ndef test_f():\n    assert f() == 2\n"
    )
    root.joinpath("test_b.py").write_text(
        TEST_B + "\n\ndef test_g_again():\n    assert g() + 1 == 3\n"
    )
    failed = ["test_a.py::test_f", "test_b.py::test_g", "test_b.py::test_g_again"]
    failures = [
        Failure(n, "call", n.partition("::")[0], "AssertionError", "", "", ()) for n in failed
    ]
    results = [*F.results, *G.results, HealResult("test_b.py::test_g_again", reason="not found")]
    args = ["-q", "-p", "no:cacheprovider", "-o", "addopts=", "--rootdir", str(root)]
    with Counting(root, root, args, timeout=30.0) as runner:
        runner.runs = []
        now = also_healed([F, G], runner, results, failures)

    assert [r.nodeid for r in now if r.healed] == failed
    assert now[2].shared_with == "test_b.py::test_g"
    assert runner.runs == [failed, failed[1:]]  # the whole patch, then G over test_b.py only
