"""How an UNSURE fix's doubt reads: the words the summary, review and a commit message share.

An UNSURE fix passes its tests, but the tests cannot tell it from another fix that behaves
differently (or it only silences the symptom). Whoever reads it must see why, the input on which
the two differ, the other fix, and a test that would decide: the next thing they do is pick one.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pytest_caretaker.report.levels import Markup

if TYPE_CHECKING:
    from pytest_caretaker.results import Doubt

#: What the one line of an UNSURE fix says before its reason.
CANNOT_TELL = "the tests cannot tell"


def other_name(doubt: Doubt) -> str:
    """What the fix is compared with: the other fix, or (a lone fix that silences) the code as
    it was."""
    return "the other" if doubt.alternative.strip() else "the original"


def separating(doubt: Doubt) -> str:
    """``age(date(1990, 6, 1), date(2024, 6, 1)): this fix returns 34, the other returns 33``;
    "" when the doubt names no input."""
    if not doubt.call:
        return ""
    other = other_name(doubt)
    if doubt.outcome and doubt.other:
        return f"{doubt.call}: this fix {doubt.outcome}, {other} {doubt.other}"
    if doubt.outcome or doubt.other:  # one side told: say what is known
        said = f"this fix {doubt.outcome}" if doubt.outcome else f"{other} {doubt.other}"
        return f"{doubt.call}: {said}"
    return f"{doubt.call}: this fix and {other} differ on it"


def because(reason: str) -> str:
    """A doubt's reason, to follow ``the tests cannot tell: ``: without those words when it
    opens with them (``the tests cannot tell `<` from `<=` on line 5``), so they are not said
    twice."""
    reason = reason.strip()
    if reason.lower().startswith(CANNOT_TELL):
        return reason[len(CANNOT_TELL) :].lstrip(" :")
    return reason


def diff_markup(line: str) -> Markup:
    """A diff line's colour: added green, removed red, the rest plain."""
    if line.startswith("+") and not line.startswith("+++"):
        return {"green": True}
    if line.startswith("-") and not line.startswith("---"):
        return {"red": True}
    return {}


def lines(doubt: Doubt, indent: str = "  ") -> list[tuple[str, Markup]]:
    """The doubt under an UNSURE fix: why, the separating input, the other fix's diff and the
    test that would decide, ready to paste."""
    shown: list[tuple[str, Markup]] = [
        (f"{indent}{CANNOT_TELL}: {because(doubt.reason)}", {"yellow": True, "bold": True})
    ]
    said = separating(doubt)
    if said:
        shown.append((f"{indent}separating input: {said}", {"yellow": True}))
    deeper = indent + "  "
    if doubt.alternative.strip():
        shown.append((f"{indent}the other fix:", {}))
        shown += [
            (deeper + line.rstrip("\r"), diff_markup(line))
            for line in doubt.alternative.splitlines()
            if not line.startswith("diff --git ")  # as show_diff: the file's --- and +++ say it
        ]
    if doubt.test.strip():
        shown.append((f"{indent}a test to settle it (it expects this fix's result):", {}))
        shown += [(deeper + line if line.strip() else "", {}) for line in doubt.test.splitlines()]
    return shown
