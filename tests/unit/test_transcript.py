"""Transcripts: one Markdown file per failure, with safe names, valid fences, and no leftovers."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

from pytest_caretaker.record.redact import Redactor
from pytest_caretaker.report.files import FOLDER, file_name, write_all
from pytest_caretaker.report.transcript import MAX_BLOCK, Transcript
from pytest_caretaker.results import Candidate, Failure, FileChange, HealResult, Spend

NODEID = "tests/test_calc.py::test_mean"
FAILURE = Failure(
    nodeid=NODEID,
    when="call",
    path="tests/test_calc.py",
    exc_type="ZeroDivisionError",
    message="division by zero",
    longrepr="def test_mean():\n>       assert mean([]) == 0\nE       ZeroDivisionError",
    frames=(),
)
BEFORE = b"def mean(xs):\n    return sum(xs) / len(xs)\n"
AFTER = b"def mean(xs):\n    return sum(xs) / len(xs) if xs else 0\n"


def outside_code(markdown: str) -> list[str]:
    """The lines of markdown outside fenced code blocks (CommonMark's backtick fences)."""
    outside: list[str] = []
    fence = 0  # length of the open fence, 0 when none is open
    for line in markdown.splitlines():
        ticks = len(line) - len(line.lstrip("`"))
        if fence == 0 and ticks >= 3 and "`" not in line[ticks:]:
            fence = ticks
        elif fence and ticks >= fence and not line[ticks:].strip():
            fence = 0
        elif fence == 0:
            outside.append(line)
    assert fence == 0, "a code block is left open"
    return outside


# -- file names ----------------------------------------------------------------------------------


def test_file_name_is_safe_and_short_for_a_wild_test_id() -> None:
    nodeid = "tests/sub dir/test_ü.py::TestX::test_it[a/b c-ünï-" + "x" * 300 + "-\\..-:*?]"

    name = file_name(nodeid)

    assert re.fullmatch(r"[A-Za-z0-9_.-]+\.md", name)
    assert len(name) <= 100
    assert name.startswith("tests_sub_dir_test_")
    assert file_name(nodeid) == name  # stable across runs


def test_file_names_differ_for_ids_that_slugify_the_same() -> None:
    ids = ["t.py::test[a b]", "t.py::test[a/b]", "t.py::test[a:b]", "t.py::test[a_b]"]

    names = {file_name(nodeid) for nodeid in ids}

    assert len(names) == len(ids)
    assert len({name.rsplit("-", 1)[0] for name in names}) == 1  # the readable part is shared


# -- rendering -----------------------------------------------------------------------------------


def test_render_of_a_healed_result() -> None:
    transcript = Transcript(NODEID)
    transcript.prompt(
        [
            {"role": "system", "content": "You repair Python code."},
            {"role": "user", "content": "The test fails with ZeroDivisionError."},
        ]
    )
    transcript.add("Attempt 1: verdict", "accepted", code="some evidence")
    result = HealResult(
        NODEID,
        Candidate((), (FileChange("calc.py", BEFORE, AFTER),)),
        spend=Spend(rounds=1),
        repairer="openai/gpt-4o-mini",
    )

    text = transcript.render(FAILURE, result)

    assert text.startswith(f"# HEALED {NODEID}\n")
    assert "NOT HEALED" not in text
    assert "ZeroDivisionError: division by zero" in text
    assert FAILURE.longrepr in text
    assert ">       assert mean([]) == 0" not in outside_code(text)  # quoted as code
    for title in ("## Prompt: system", "## Prompt: user", "## Attempt 1: verdict", "## The fix"):
        assert title in outside_code(text)
    assert "You repair Python code." in text
    assert "The test fails with ZeroDivisionError." in text
    assert "some evidence" in text
    diff = text[text.index("```diff\n") :]
    assert "-    return sum(xs) / len(xs)\n" in diff
    assert "+    return sum(xs) / len(xs) if xs else 0\n" in diff
    assert "- model: openai/gpt-4o-mini" in text


def test_render_of_a_result_not_healed() -> None:
    transcript = Transcript(NODEID)
    transcript.add("Attempt 1: verdict", "rejected: fix broke t.py::b")
    result = HealResult(NODEID, reason="fix broke t.py::b", spend=Spend(rounds=1))

    text = transcript.render(FAILURE, result)

    assert text.startswith(f"# NOT HEALED {NODEID}\n")
    assert "- reason: fix broke t.py::b" in text
    assert "```diff" not in text
    assert "## The fix" not in text
    assert "## Attempt 1: verdict" in outside_code(text)


def test_render_without_a_failure() -> None:
    text = Transcript(NODEID).render(None, HealResult(NODEID, reason="the test passes alone"))

    assert "## The failure" not in text
    assert "- reason: the test passes alone" in text


def test_a_block_holding_a_fence_gets_a_longer_fence() -> None:
    reply = "Here is the fix:\n```python\ndef mean(xs):\n    return 0\n```\nand ````four````"
    transcript = Transcript(NODEID)
    transcript.add("Attempt 1: reply", code=reply)
    transcript.add("Attempt 1: verdict", "accepted")

    text = transcript.render(FAILURE, HealResult(NODEID, reason="no"))

    assert "`````\n" + reply + "\n`````" in text
    outside = outside_code(text)
    assert "## Attempt 1: reply" in outside
    assert "## Attempt 1: verdict" in outside
    assert "Here is the fix:" not in outside
    assert "def mean(xs):" not in outside


def test_a_long_block_is_cut_with_a_note() -> None:
    transcript = Transcript(NODEID)
    transcript.add("Attempt 1: reply", code="a" * MAX_BLOCK + "b" * 1_234)

    text = transcript.render(None, HealResult(NODEID, reason="no"))

    assert "a" * MAX_BLOCK in text
    assert "b" not in text.split("## Attempt 1: reply", 1)[1].split("more characters")[0]
    assert "(1,234 more characters cut)" in text
    assert len(text) < MAX_BLOCK + 1_000
    assert "## Attempt 1: reply" in outside_code(text)


def test_a_failure_message_holding_a_fence_keeps_the_markdown_valid() -> None:
    message = "the output differs:\n```\nexpected\n"
    failure = Failure(NODEID, "call", "t.py", "AssertionError", message, "E   " + message, ())
    transcript = Transcript(NODEID)
    transcript.add("Attempt 1: verdict", "rejected")

    text = transcript.render(failure, HealResult(NODEID, reason="no"))

    outside = outside_code(text)
    assert "E   the output differs:" not in outside  # the longrepr is quoted as code
    assert "## Attempt 1: verdict" in outside


# -- writing -------------------------------------------------------------------------------------


def md_files(folder: Path) -> dict[str, str]:
    return {p.name: p.read_text(encoding="utf-8") for p in (folder / FOLDER).glob("*.md")}


def test_write_all_replaces_the_previous_transcripts(tmp_path: Path) -> None:
    one, two, three = "t.py::test_one", "t.py::test_two[ü]", "t.py::test_three"

    target = write_all(tmp_path, {one: "# one\n", two: "# two\n"})

    assert target == tmp_path / FOLDER
    assert md_files(tmp_path) == {file_name(one): "# one\n", file_name(two): "# two\n"}

    again = write_all(tmp_path, {two: "# two, again\n", three: "# three\n"})

    assert again == tmp_path / FOLDER
    assert md_files(tmp_path) == {file_name(two): "# two, again\n", file_name(three): "# three\n"}


def test_write_all_of_nothing_removes_the_old_transcripts(tmp_path: Path) -> None:
    write_all(tmp_path, {"t.py::test_one": "# one\n"})
    assert len(md_files(tmp_path)) == 1

    assert write_all(tmp_path, {}) is None
    assert md_files(tmp_path) == {}


def test_write_all_of_nothing_creates_no_folder(tmp_path: Path) -> None:
    assert write_all(tmp_path, {}) is None
    assert not (tmp_path / FOLDER).exists()


# -- secrets in test ids -------------------------------------------------------------------------

PASSWORD = "Tr0ub4dor&3"
SECRET_ID = f"tests/test_login.py::test_rejects[{PASSWORD}]"


def _knows_the_password() -> Redactor:
    redactor = Redactor()
    redactor.remember(PASSWORD, "value of local password")
    return redactor


def test_file_name_is_made_from_the_redacted_test_id() -> None:
    redactor = _knows_the_password()

    name = file_name(SECRET_ID, redactor)

    assert "Tr0ub4dor" not in name
    assert name.startswith("tests_test_login.py_test_rejects_redacted_1_value_of_local_password-")
    assert name == file_name(SECRET_ID, redactor)
    assert name != file_name("tests/test_login.py::test_rejects[0ther-Pw-9]", redactor)


def test_the_hash_of_a_redacted_id_cannot_confirm_a_guessed_password() -> None:
    digest = file_name(SECRET_ID, _knows_the_password()).rsplit("-", 1)[1].removesuffix(".md")

    plain = hashlib.sha256(SECRET_ID.encode()).hexdigest()[:8]

    assert digest != plain  # keyed per process: a guess cannot be checked against the name


def test_file_name_without_a_redactor_still_drops_secrets_of_known_shapes() -> None:
    key = "sk-" + "abcdefghijklmnopqrstuvwx"

    name = file_name(f"tests/test_api.py::test_call[{key}]")

    assert "abcdefghijklmnop" not in name
    assert "API_key" in name


def test_write_all_with_a_redactor_redacts_names_and_text(tmp_path: Path) -> None:
    redactor = _knows_the_password()

    write_all(tmp_path, {SECRET_ID: f"# NOT HEALED {SECRET_ID}\n"}, redactor)

    (written,) = (tmp_path / FOLDER).glob("*.md")
    assert PASSWORD not in written.name
    assert PASSWORD not in written.read_text(encoding="utf-8")
    assert "[redacted #1: value of local password]" in written.read_text(encoding="utf-8")


def test_render_of_an_unsure_result_says_why() -> None:
    from pytest_caretaker.results import Doubt

    doubt = Doubt(
        "the tests cannot tell `if xs` from `if len(xs) > 1` on line 2",
        call="mean([5])",
        outcome="returns 5.0",
        other="returns 0",
        alternative="--- a/calc.py\n+++ b/calc.py\n",
        test="def test_mean_of_one():\n    assert mean([5]) == ...\n",
    )
    fixed = Candidate((), (FileChange("calc.py", BEFORE, AFTER),), doubt=doubt)

    text = Transcript(NODEID).render(FAILURE, HealResult(NODEID, fixed))

    assert text.startswith(f"# UNSURE {NODEID}\n")
    why = text[text.index("## Why it is UNSURE") :]
    assert "the tests cannot tell: `if xs` from `if len(xs) > 1` on line 2" in why
    assert "separating input: mean([5]): this fix returns 5.0, the other returns 0" in why
    assert "```diff\n--- a/calc.py" in why and "```python\ndef test_mean_of_one():" in why
