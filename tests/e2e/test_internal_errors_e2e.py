"""Caretaker's own failures are said to be caretaker's, with the exception, and never blamed on
the code under test (#31): a verification run whose caretaker side raised, sandboxed or not."""

from __future__ import annotations

import pytest

from pytest_caretaker.verify.probe import unavailable

#: A bug of caretaker's in the verification children, as pytest 8.0 made one (#31): the warm
#: server's forked runs restart the terminal report's clock, here with an error.
BROKEN_CLOCK = """
import os

from pytest_caretaker.children import is_worker
from pytest_caretaker.verify import pytest_private


def broken(reporter, timing):
    raise RuntimeError("a bug of caretaker's")


if is_worker(os.environ):  # the warm server, whose forked runs inherit the patch
    pytest_private.restart_clock = broken
"""


@pytest.mark.parametrize("confined", ["auto", "off"], ids=["sandboxed", "unsandboxed"])
def test_a_run_that_caretaker_broke_is_reported_as_caretakers(
    pytester: pytest.Pytester, confined: str
) -> None:
    if confined == "auto" and unavailable(network=False) is not None:
        pytest.skip("no sandbox here")
    pytester.copy_example("quickstart")
    pytester.makeconftest(BROKEN_CLOCK)

    result = pytester.runpytest("--heal", "--heal-sandbox", confined, "-p", "no:cacheprovider")

    result.stdout.fnmatch_lines(
        [
            "NOT HEALED test_textstats.py::test_moving_average: the failing tests could not be "
            "rerun: caretaker's test process failed: RuntimeError: a bug of caretaker's "
            "at conftest.py:*",
        ]
    )
    assert "did the code exit the interpreter" not in result.stdout.str()
