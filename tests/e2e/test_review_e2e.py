"""`pytest --heal-review` at a real terminal (#31): the questions come after pytest has shown the
failures, one fix at a time in the summary's order, each naming every test it heals and "fix k of
N", answered y / n / a(ll) / q(uit), No by default. Review refuses to run without a terminal, so
these run pytest under a pseudo-terminal, in a real git repository, with the built-in repairer."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import git, last_run, run_in_terminal

PICK = "def middle(xs):\n    return sorted(xs)[len(xs) // 2 + 1]\n"
TEST_PICK = (
    "from pick import middle\n\n\ndef test_middle():\n    assert middle([3, 1, 2, 5, 4]) == 3\n"
)
CALC = "def mean(xs):\n    return sum(xs) / (len(xs) + 1)\n"
#: Two tests of one bug, one fix: the fix that heals the most is written first unless review
#: follows the summary, where test_a_pick.py comes first.
TEST_CALC = (
    "from calc import mean\n\n\n"
    "def test_mean():\n    assert mean([1, 2, 3]) == 2\n\n\n"
    "def test_mean_of_two():\n    assert mean([2, 4]) == 3\n"
)
QUESTION = "Write fix {} of 2? y / n / a(ll) / q(uit) [n] "
CALC_IDS = ("test_b_calc.py::test_mean", "test_b_calc.py::test_mean_of_two")


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    files = {"pick.py": PICK, "test_a_pick.py": TEST_PICK, "calc.py": CALC}
    files["test_b_calc.py"] = TEST_CALC
    for name, text in files.items():
        tmp_path.joinpath(name).write_text(text)
    tmp_path.joinpath(".gitignore").write_text(".caretaker/\n__pycache__/\n")
    git(tmp_path, "init", "-q", "-b", "main")
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-q", "-m", "start")
    return tmp_path


def review(repo: Path, *answers: bytes) -> str:
    return run_in_terminal(repo, ["--heal-review", "--heal-model", "builtin"], answers)


def subjects(repo: Path) -> list[str]:
    return git(repo, "log", "--format=%s").splitlines()


def test_review_follows_the_failures_in_summary_order_naming_every_test_healed(
    repo: Path,
) -> None:
    output = review(repo, b"y\n", b"\n")  # yes, then the default

    failures = output.index("= FAILURES =")
    first = output.index("caretaker: fix 1 of 2")
    second = output.index("caretaker: fix 2 of 2")
    section = output.index("= caretaker =")
    assert failures < first < second < section, output
    asked_first, asked_second = output[first:second], output[second:section]
    assert "heals test_a_pick.py::test_middle\npatches pick.py::middle\n" in asked_first
    assert QUESTION.format(1) in asked_first
    assert (
        "heals 2 tests:\n  test_b_calc.py::test_mean\n  test_b_calc.py::test_mean_of_two\n"
        "patches calc.py::mean\n"
    ) in asked_second
    assert QUESTION.format(2) in asked_second
    assert "not written: declined in review" in output[section:]
    assert subjects(repo) == ["fix: heal test_a_pick.py::test_middle", "start"]
    assert repo.joinpath("calc.py").read_text() == CALC
    # last-run.json, written when the session ended, says what the review wrote
    states = {p["tests"][0]["id"]: p["commit"]["state"] for p in last_run(repo)["problems"]}
    assert states == {"test_a_pick.py::test_middle": "committed", CALC_IDS[0]: "declined"}


def test_all_writes_this_fix_and_the_rest_without_asking(repo: Path) -> None:
    output = review(repo, b"a\n")

    assert output.count("q(uit) [n] ") == 1, output
    assert subjects(repo) == [
        "fix: heal test_b_calc.py::test_mean (+1 more)",
        "fix: heal test_a_pick.py::test_middle",
        "start",
    ]


def test_quit_writes_none_of_the_rest(repo: Path) -> None:
    output = review(repo, b"q\n")

    assert output.count("q(uit) [n] ") == 1, output
    assert output.count("not written: declined in review") == 3, output  # a line a test
    assert subjects(repo) == ["start"]


def test_an_answer_it_does_not_know_is_asked_again(repo: Path) -> None:
    output = review(repo, b"maybe\n", b"n\n", b"y\n")

    assert "Answer y (write it), n (do not), a (this and the rest) or q." in output
    assert output.count(QUESTION.format(1)) == 2, output
    assert subjects(repo) == ["fix: heal test_b_calc.py::test_mean (+1 more)", "start"]
