"""The terminal follows pytest's verbosity (#31): a short header, progress that counts problems and
reaches its total, a live line on a terminal only, one line a test under -q, what the search tried
under -v, and pytest's final line counting heals. The blocks of each level that the README and
the docs show are run."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from helpers import run_in_terminal

ROOT = Path(__file__).resolve().parents[2]
QUICKSTART = ROOT / "examples" / "quickstart"
HEALED = "HEALED test_textstats.py::test_moving_average"

CALC = "def mean(xs):\n    return sum(xs) / (len(xs) + 1)\n"
TEST_CALC = (
    "from calc import mean\n\n\n"
    "def test_mean():\n    assert mean([1, 2, 3]) == 2\n\n\n"
    "def test_mean_of_two():\n    assert mean([2, 4]) == 3\n"
)
PICK = "def middle(xs):\n    return sorted(xs)[len(xs) // 2 + 1]\n"
TEST_PICK = (
    "from pick import middle\n\n\ndef test_middle():\n    assert middle([3, 1, 2, 5, 4]) == 3\n"
)


@pytest.fixture
def quickstart(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.copy_example("quickstart")
    return pytester


def test_quiet_is_one_line_a_test_and_the_final_line_counts_the_heal(
    quickstart: pytest.Pytester,
) -> None:
    result = quickstart.runpytest("--heal", "-q")

    result.stdout.fnmatch_lines(
        [
            "=* caretaker =*",
            f"{HEALED} → textstats.py::moving_average",
            "caretaker: 1 healed, 0 not healed · no tokens spent · fixes in .caretaker/heal.patch",
            "1 failed, 1 passed, 1 healed in *s",
        ]
    )
    result.stdout.no_fnmatch_line("*for start in range*")  # no diff
    result.stdout.no_fnmatch_line("healing *")  # no progress


def test_the_final_line_counts_what_was_healed_and_what_not(pytester: pytest.Pytester) -> None:
    pytester.copy_example("quickstart")
    pytester.makepyfile(test_wrong="def test_wrong():\n    assert 1 + 1 == 3\n")

    result = pytester.runpytest("--heal")

    result.stdout.fnmatch_lines(["=* 2 failed, 1 passed, 1 healed, 1 not healed in *s =*"])


def test_the_header_is_one_short_line_and_a_warning_stays(quickstart: pytest.Pytester) -> None:
    result = quickstart.runpytest("--heal")
    unconfined = quickstart.runpytest("--heal", "--heal-sandbox", "off")

    lines = [line for line in result.stdout.lines if line.startswith("caretaker: heal")]
    assert lines == ["caretaker: heal (in memory) · model builtin · scope code"]
    result.stdout.no_fnmatch_line("caretaker: sandbox on*")
    unconfined.stdout.fnmatch_lines(["caretaker: candidates run unsandboxed: --heal-sandbox off"])
    assert "\r" not in result.stdout.str()  # a pipe: no line is redrawn


def test_verbose_says_why_this_chain_what_was_tried_and_where_the_time_went(
    quickstart: pytest.Pytester,
) -> None:
    result = quickstart.runpytest("--heal", "-v")

    result.stdout.fnmatch_lines(
        [
            "caretaker: heal (in memory) · model builtin (no model configured; *) · scope code",
            "caretaker: sandbox on (*)",
            HEALED,
            "  * candidates tried · no model, no tokens · * s · builtin",
            "  tried * before it*:",
            "    `*` → `*` on line *",
            "  transcript: .caretaker/transcripts/*/test_textstats.py_test_moving_average-*.md",
            "caretaker: 1 healed, 0 not healed · no tokens spent · *",
            "caretaker: took * s to rerun the failures · * s to repair · "
            "* s to check the fixes together",
        ]
    )
    shown = re.search(r"transcript: (\S+)", result.stdout.str())
    assert shown is not None and (quickstart.path / shown.group(1)).is_file()


def test_progress_counts_problems_and_reaches_its_total(pytester: pytest.Pytester) -> None:
    # Three failures, two of one root cause: before, progress read 1/3, 2/3 and stopped there.
    pytester.makepyfile(calc=CALC, test_calc=TEST_CALC, pick=PICK, test_pick=TEST_PICK)

    result = pytester.runpytest("--heal", "--heal-concurrency", "1")

    healing = [line for line in result.stdout.lines if line.startswith("healing ")]
    assert healing == [
        "healing 1/2 test_calc.py::test_mean (2 failures) …",
        "healing 2/2 test_pick.py::test_middle …",
    ]
    result.stdout.fnmatch_lines(
        [
            "caretaker: 3 failures in 2 problems; "
            "each problem is repaired once for all its failures",
            "healing 1/2 *",
        ]
    )


def test_on_a_terminal_the_progress_line_is_live(tmp_path: Path) -> None:
    for path in QUICKSTART.glob("*.py"):
        shutil.copy(path, tmp_path)

    output = run_in_terminal(tmp_path, ["--heal", "-p", "no:xdist"])

    drawn = "\rhealing 1/1 test_textstats.py::test_moving_average …"
    assert drawn in output, output
    assert HEALED in output


#: The pages that show the quick start's output: the README, and the docs site's pages.
SHOWN = [ROOT / "README.md", *sorted((ROOT / "docs" / "pages").glob("*.md"))]


def shown_blocks() -> list[tuple[str, list[str], list[str]]]:
    """The README's and the docs' blocks of the quick start at each verbosity: the page, the
    arguments after `pytest`, and the lines shown, each a pattern (numbers, rules and what `...`
    leaves out are any)."""
    found = []
    for page in SHOWN:
        text = page.read_text(encoding="utf-8")
        blocks = re.findall(r"```text\n\$ pytest (examples/quickstart[^\n]*)\n(.*?)```", text, re.S)
        found += [
            (
                page.relative_to(ROOT).as_posix(),
                args.split(),
                [pattern(line) for line in body.splitlines() if line != "..."],
            )
            for args, body in blocks
        ]
    return found


def pattern(line: str) -> str:
    line = re.sub(r" \.\.\.$", "\0", line)
    line = re.sub(r"\d+|={3,}", "\0", line)
    line = re.sub(r"([\[\]?*])", r"[\1]", line)
    return line.replace("\0", "*")


def test_the_readme_and_the_docs_show_each_verbosity_as_it_is(pytester: pytest.Pytester) -> None:
    blocks = shown_blocks()
    assert sorted((page, " ".join(args)) for page, args, _ in blocks) == [
        ("README.md", "examples/quickstart --heal"),
        ("docs/pages/heal.md", "examples/quickstart --heal -q"),
        ("docs/pages/heal.md", "examples/quickstart --heal -v"),
        ("docs/pages/index.md", "examples/quickstart --heal"),
    ]
    pytester.makeini("[pytest]\n")  # the repository's root: ids as the pages show them
    shutil.copytree(QUICKSTART, pytester.path / "examples" / "quickstart")
    runs: dict[tuple[str, ...], pytest.RunResult] = {}

    for _, args, lines in blocks:
        if tuple(args) not in runs:  # each a first heal; a page that repeats a block reads it
            runs[tuple(args)] = pytester.runpytest(*args, "-p", "no:cacheprovider")

        runs[tuple(args)].stdout.fnmatch_lines(lines)
