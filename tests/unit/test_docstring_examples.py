"""A fix that makes an example of its function's docstring false is found, and named."""

from __future__ import annotations

import subprocess
import sys

from pytest_caretaker.builtin import docstring, overfit
from pytest_caretaker.results import Candidate, Edit, FileChange
from pytest_caretaker.verify.trials import Trial

PRICE = '''\
def bulk_price(qty, unit):
    """The price of qty items at unit each; ten items or more cost 10 % less.

    >>> bulk_price(9, 2.0)
    18.0
    >>> bulk_price(11, 2.0)
    19.8
    """
    if qty > 10:
        return round(qty * unit * 0.9, 2)
    return qty * unit
'''


def real_probe(path: str, qualname: str, line: int, text: str) -> Trial:
    """The lead case, bulk_price(10, 2.0) == 18.0, run on text in a child interpreter."""
    code = f"ns = {{}}\nexec(compile({text!r}, {path!r}, 'exec'), ns)\n"
    code += f"assert ns[{qualname!r}](10, 2.0) == 18.0\n"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, check=False)
    if done.returncode == 0:
        return Trial(True)
    return Trial(False, f"the test process exited with code {done.returncode} before it reported")


def examined(after: str, before: str = PRICE) -> overfit.Finding:
    change = FileChange("price.py", before.encode(), after.encode())
    candidate = Candidate((Edit("replace", "price.py", "bulk_price", ""),), (change,))
    return overfit.examine(candidate, real_probe, None)


def test_a_fix_that_makes_an_example_false_is_named_with_it() -> None:
    # qty > 1 heals bulk_price(10, 2.0), and prices nine items at a discount.
    found = examined(PRICE.replace("qty > 10", "qty > 1"))

    assert found.contradicts == (
        "its docstring's example `bulk_price(9, 2.0)` (`18.0`) does not hold with it, "
        "and does with the original"
    )
    assert not found.refused and not found.skipped


def test_a_fix_that_keeps_every_example_true_is_not_marked() -> None:
    assert examined(PRICE.replace("qty > 10", "qty >= 10")) == overfit.Finding()


def test_examples_false_of_the_original_too_say_nothing_of_a_fix() -> None:
    stale = PRICE.replace("18.0\n    >>>", "16.2\n    >>>")  # the original gives 18.0: stale

    assert examined(stale.replace("qty > 10", "qty > 1"), stale) == overfit.Finding()


def test_an_example_the_bug_breaks_does_not_hide_one_the_fix_breaks() -> None:
    # bulk_price(10, 2.0) == 18.0 is false of the original (it is the bug); the fix makes it
    # true and bulk_price(9, 2.0) false.
    shown = PRICE.replace(
        ">>> bulk_price(9", ">>> bulk_price(10, 2.0)\n    18.0\n    >>> bulk_price(9"
    )

    found = examined(shown.replace("qty > 10", "qty > 1"), shown)

    assert "`bulk_price(9, 2.0)` (`18.0`) does not hold" in found.contradicts


def test_no_examples_no_probe() -> None:
    prose = PRICE.replace(">>> bulk_price(9, 2.0)\n    18.0\n", "").replace(
        ">>> bulk_price(11, 2.0)\n    19.8\n", ""
    )
    asked: list[str] = []

    def probe(path: str, qualname: str, line: int, text: str) -> Trial:
        asked.append(text)
        return Trial(True)

    change = FileChange("price.py", prose.encode(), prose.replace("> 10", "> 1").encode())
    candidate = Candidate((Edit("replace", "price.py", "bulk_price", ""),), (change,))

    assert overfit.examine(candidate, probe, None) == overfit.Finding()
    assert not any(docstring.__name__ in text for text in asked)


def test_the_check_runs_the_examples_once_though_they_call_the_function_again() -> None:
    # The probe line is first in the function: the examples call it, and must not recurse.
    after = PRICE.replace("qty > 10", "qty >= 10")
    lines = after.splitlines(keepends=True)
    function = overfit._function(lines, "bulk_price")
    assert function is not None
    probed = docstring._probed(lines, function, ">>> bulk_price(9, 2.0)\n18.0\n")
    assert probed is not None

    trial = real_probe("price.py", "bulk_price", 1, probed)

    assert f"exited with code {docstring.CHECKED}" in trial.reason
