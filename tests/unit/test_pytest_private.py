"""Canary for the private pytest APIs caretaker uses (verify/pytest_private.py): when a pytest
upgrade moves one, this fails and says which, before a heal would."""

from __future__ import annotations

import ast
import inspect

import pytest

from pytest_caretaker.verify import pytest_private

HINT = (
    "pytest {version} changed {name}; caretaker's only use of it is in "
    "pytest_caretaker/verify/pytest_private.py: adapt it there"
)


@pytest.mark.parametrize(
    ("module", "name", "parameters"),
    [
        (
            "_pytest.assertion.rewrite",
            "rewrite_asserts",
            ["mod", "source", "module_path", "config"],
        ),
        ("_pytest.runner", "runtestprotocol", ["item", "log", "nextitem"]),
    ],
)
def test_the_private_apis_are_where_caretaker_expects_them(
    module: str, name: str, parameters: list[str]
) -> None:
    hint = HINT.format(version=pytest.__version__, name=f"{module}.{name}")
    try:
        found = getattr(__import__(module, fromlist=[name]), name)
    except (ImportError, AttributeError):
        pytest.fail(f"{hint} (it is gone)")

    assert list(inspect.signature(found).parameters)[: len(parameters)] == parameters, hint


def test_rewriting_in_memory_gives_asserts_pytests_messages(pytester: pytest.Pytester) -> None:
    source = b"def test():\n    x = 1\n    assert x == 2\n"
    tree = ast.parse(source)

    pytest_private.rewrite_asserts(tree, source, "t.py", pytester.parseconfig())
    namespace: dict[str, object] = {}
    exec(compile(tree, "t.py", "exec"), namespace)

    with pytest.raises(AssertionError, match=r"assert 1 == 2"):
        namespace["test"]()  # type: ignore[operator]


def test_a_fresh_run_restarts_the_clock_the_terminal_report_reads(
    pytester: pytest.Pytester,
) -> None:
    # pytest 8.0 has no timing.Instant (every heal ended NOT HEALED there): the clock restarted
    # must be one the installed pytest set at the session's start, not a new attribute.
    pytester.makeconftest(
        """
        from _pytest import timing
        from pytest_caretaker.verify.pytest_private import restart_clock

        def pytest_collection(session):  # the session has started: its clock is set
            reporter = session.config.pluginmanager.get_plugin("terminalreporter")
            before = set(vars(reporter))
            restart_clock(reporter, timing)
            assert set(vars(reporter)) == before, "a clock this pytest does not read"
        """
    )
    pytester.makepyfile("def test_one():\n    pass\n")

    result = pytester.runpytest("-p", "no:cacheprovider")

    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["*1 passed in *s*"])
