"""A failure's locals (record/failure.py): a large local costs what is shown of it, not its size
(the redactor reads at most the shown part and room for a secret that begins there), and a secret
within what is shown is still redacted whole."""

from __future__ import annotations

from pytest_caretaker.record.failure import MAX_LOCAL_REPR, MAX_SECRET, safe_repr
from pytest_caretaker.record.redact import Redactor


class Counting(Redactor):
    """A redactor that counts the characters it is given."""

    def __init__(self) -> None:
        super().__init__({})
        self.read: list[int] = []

    def __call__(self, text: str) -> str:
        self.read.append(len(text))
        return super().__call__(text)


def test_a_large_local_is_redacted_for_what_is_shown_of_it() -> None:
    redactor = Counting()

    shown = safe_repr("table", "x" * 5_000_000, redactor)

    assert len(shown) == MAX_LOCAL_REPR
    assert redactor.read and max(redactor.read) <= MAX_LOCAL_REPR + MAX_SECRET


def test_a_secret_that_begins_within_what_is_shown_is_still_redacted() -> None:
    redactor = Counting()
    secret = "s3cr3t-" + "k" * 30
    redactor.remember(secret, "a test's token")

    shown = safe_repr("rows", "y" * 140 + secret + "z" * 1_000_000, redactor)

    assert "s3cr3t" not in shown and "kkkk" not in shown


def test_a_lookup_key_local_is_hidden_but_its_word_is_not_learnt() -> None:
    # semver: `for key in ("major", "minor", "patch")` in a failing frame made "patch" a secret,
    # and every test id with "patch" in it was redacted in last-run.json.
    redactor = Redactor({})

    shown = safe_repr("key", "patch", redactor)

    assert shown == "<redacted: name looks like a secret>"
    assert redactor("test_semver.py::test_bump_patch") == "test_semver.py::test_bump_patch"


def test_a_secret_shaped_key_and_any_password_local_are_learnt() -> None:
    redactor = Redactor({})

    safe_repr("key", "sk-Zq8vL2mW9xKp4Ta7Rq3nB", redactor)
    safe_repr("password", "hunter", redactor)
    safe_repr("auth", ("bob", "Tr0ub4dor&3x"), redactor)

    shown = redactor("sk-Zq8vL2mW9xKp4Ta7Rq3nB hunter Tr0ub4dor&3x bob")
    assert "Zq8vL2" not in shown and "hunter" not in shown and "Tr0ub4dor" not in shown
    assert shown.endswith(" bob")
