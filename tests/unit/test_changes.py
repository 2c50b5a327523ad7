"""The change since a test last passed: hunks read from git's -U0 diffs, attributed to their
commits, ranking suspects, shown to a model, naming the culprit."""

from __future__ import annotations

from pathlib import Path

from pytest_caretaker.changes.diff import Hunk, parse
from pytest_caretaker.changes.lineage import (
    Changes,
    Lineage,
    attribute,
    culprit_from,
    culprit_line,
)
from pytest_caretaker.commits import Commit, Culprit
from pytest_caretaker.project.files import ProjectFiles
from pytest_caretaker.project.localize import Suspect
from pytest_caretaker.results import Candidate, Executed, HealResult

DIFF = """\
diff --git a/calc.py b/calc.py
index 1111111..2222222 100644
--- a/calc.py
+++ b/calc.py
@@ -3,2 +3,2 @@ def mean(xs):
-    total = sum(xs)
-    return total / len(xs)
+    total = sum(xs[1:])
+    return total / (len(xs) - 2)
@@ -10,0 +11,2 @@ def spread(xs):
+    low = min(xs)
+    high = max(xs)
@@ -20 +21,0 @@ def last(xs):
-    xs = list(xs)
diff --git a/old.py b/new.py
similarity index 90%
rename from old.py
rename to new.py
--- a/old.py
+++ b/new.py
@@ -1 +1 @@
-RATE = 1
\\ No newline at end of file
+RATE = 2
\\ No newline at end of file
diff --git a/gone.py b/gone.py
deleted file mode 100644
--- a/gone.py
+++ /dev/null
@@ -1 +0,0 @@
-x = 1
"""

A = Commit("a" * 40, "refactor mean", "Ann", "2024-01-02T10:00:00+00:00")
B = Commit("b" * 40, "spread: names", "Bob", "2024-01-03T10:00:00+00:00")


def test_hunks_keep_both_sides_and_where_they_start() -> None:
    hunks = parse(DIFF)

    assert [(h.path, h.old_path, h.old_start, h.new_start) for h in hunks] == [
        ("calc.py", "calc.py", 3, 3),
        ("calc.py", "calc.py", 11, 11),  # an addition: nothing removed, after line 10
        ("calc.py", "calc.py", 20, 22),  # a removal: it stood before line 22 now
        ("new.py", "old.py", 1, 1),  # renamed: the old name is kept
    ]  # a deleted file has no place in the working tree
    assert hunks[0].old == ("    total = sum(xs)", "    return total / len(xs)")
    assert hunks[0].new == ("    total = sum(xs[1:])", "    return total / (len(xs) - 2)")
    assert hunks[2].new == () and hunks[2].new_end == 22
    assert hunks[3].old == ("RATE = 1",) and hunks[3].new == ("RATE = 2",)


def test_a_crlf_file_keeps_its_carriage_returns() -> None:
    crlf = "--- a/w.py\n+++ b/w.py\n@@ -1 +1 @@\n-x = 1\r\n+x = 2\r\n"

    assert parse(crlf)[0].old == ("x = 1\r",)


def test_each_hunk_is_attributed_to_the_commit_whose_lines_it_holds() -> None:
    now = parse(DIFF)[:2]
    made = [
        (
            A,
            [
                Hunk(
                    "calc.py",
                    "calc.py",
                    3,
                    ("    total = sum(xs)",),
                    3,
                    ("    total = sum(xs[1:])",),
                )
            ],
        ),
        (B, [Hunk("calc.py", "calc.py", 11, (), 11, ("    low = min(xs)", "    high = max(xs)"))]),
        (None, []),
    ]

    attributed = attribute(now, made)

    assert [h.commit for h in attributed] == [A, B]


def test_a_hunk_no_commit_made_is_not_committed() -> None:
    hunk = Hunk("calc.py", "calc.py", 1, ("a",), 1, ("b",))

    assert attribute([hunk], [(A, []), (None, [hunk])])[0].commit is None


def files_with(tmp_path: Path, text: str) -> ProjectFiles:
    (tmp_path / "calc.py").write_text(text)
    return ProjectFiles(tmp_path)


CALC = "def helper():\n    return 1\n\n\ndef mean(xs):\n    total = sum(xs[1:])\n    return total\n"


def test_suspects_the_change_touched_are_ranked_first(tmp_path: Path) -> None:
    files = files_with(tmp_path, CALC)
    hunk = Hunk("calc.py", "calc.py", 6, ("    total = sum(xs)",), 6, ("    total = sum(xs[1:])",))
    changes = Changes(A, (hunk.attributed(A),), (A,))
    helper = Suspect("calc.py", "helper", False, 1.0)
    mean = Suspect("calc.py", "mean", False, 0.5)

    assert changes.boost([helper, mean], files) == (mean, helper)
    assert changes.boost([helper], files) == (helper,)


def test_the_model_sees_the_change_within_the_suspects_with_its_commit(tmp_path: Path) -> None:
    files = files_with(tmp_path, CALC)
    hunk = Hunk("calc.py", "calc.py", 6, ("    total = sum(xs)",), 6, ("    total = sum(xs[1:])",))
    changes = Changes(B, (hunk.attributed(A),), (A,))

    shown = changes.shown([Suspect("calc.py", "mean", False, 1.0)], files)

    assert 'aaaaaaaaaa "refactor mean"' in shown
    assert "-    total = sum(xs)\n+    total = sum(xs[1:])" in shown
    assert changes.shown([Suspect("calc.py", "helper", False, 1.0)], files) == ""


def test_the_culprit_is_the_commit_of_the_hunks_the_test_ran() -> None:
    mine = Hunk("calc.py", "calc.py", 6, ("a",), 6, ("b",), A)
    theirs = Hunk("other.py", "other.py", 1, ("c",), 1, ("d",), B)
    changes = Changes(B, (mine, theirs), (A, B))

    assert culprit_from(changes, Executed(lines={"calc.py": frozenset({6})})) == A
    assert (
        culprit_from(
            changes, Executed(lines={"calc.py": frozenset({6}), "other.py": frozenset({1})})
        )
        is None
    )
    assert culprit_from(Changes(B, (mine,), (A,)), None) == A  # the only commit since green


def test_a_healing_revert_names_the_commit_it_undoes() -> None:
    changes = Changes(B, (Hunk("calc.py", "calc.py", 6, ("a",), 6, ("b",), A),), (A, B))
    lineage = Lineage({"t::x": Culprit(B, None, "range")}, {"t::x": changes})
    healed = HealResult("t::x", Candidate((), (), reverts=(A.sha,)))

    named = lineage.named([healed, HealResult("t::y", reason="no")], {})

    assert named[0].culprit == Culprit(B, A, "revert")
    assert named[1].culprit is None


def test_a_bisected_culprit_is_kept_whatever_the_fix() -> None:
    exact = Culprit(B, A, "bisection")
    lineage = Lineage({"t::x": exact}, {"t::x": Changes(B, (), (A,))})

    assert (
        lineage.named([HealResult("t::x", Candidate((), (), reverts=("c" * 40,)))], {})[0].culprit
        == exact
    )


def test_the_culprit_line_names_sha_subject_author_and_date() -> None:
    line = culprit_line(Culprit(B, A, "bisection"))

    assert line == (
        'broke in aaaaaaaaaa "refactor mean" (Ann, 2024-01-02; found by bisection); '
        'last green bbbbbbbbbb "spread: names"'
    )
    assert culprit_line(Culprit(red="red for its whole known history")) == (
        "red for its whole known history"
    )
    assert "uncommitted" in culprit_line(Culprit(B, None, "uncommitted"))
