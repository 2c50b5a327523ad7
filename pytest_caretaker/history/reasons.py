"""Why a problem was not healed, in a few words: the category of a NOT HEALED reason.

The reasons are sentences written for the user; the report counts them by kind. The table is
read top to bottom and the first pattern found in the reason decides. A chain's reason lists each
link ("builtin: …; then gpt-4o: …"): the last link's decides, it is where the chain stopped.
"""

from __future__ import annotations

import re

CATEGORIES: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (name, re.compile(pattern))
    for name, pattern in (
        ("not attempted", r"(?:^|: )not attempted\b"),
        ("left out of the patch", r"fix is left out of the patch"),
        ("model error", r"model error|did not parse|reply repeats|reply was cut off"),
        ("fix refused", r"fix refused|fix does not apply"),
        ("broke a test", r"fix broke "),
        ("timeout", r"still hangs|timed out|ran out|healing budget|time limit"),
        ("budget", r"--heal-budget|--heal-max-tokens|tokens, the cap"),
        ("still fails", r"still fails|did not run|collecting the tests failed|skipped under"),
        ("no candidate", r"tried all|found nothing it may edit|no model to ask|no attempt"),
        ("not editable", r"in test code|no test code ran|no project code ran"),
        ("flaky", r"passes when rerun alone"),
        ("internal error", r"caretaker failed on this test|could not be rerun"),
    )
)
OTHER = "other"


def category(reason: str) -> str:
    """The category of a NOT HEALED reason; "other" when no pattern matches."""
    last = reason.rsplit("; then ", 1)[-1].strip()
    for name, pattern in CATEGORIES:
        if pattern.search(last):
            return name
    return OTHER
