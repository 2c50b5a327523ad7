"""The plugin is loaded by every pytest run: without work to do it must import nothing heavy."""

from __future__ import annotations

import subprocess
import sys

import pytest

HEAVY = ("litellm", "libcst", "git", "jinja2")


def test_loading_the_plugin_imports_nothing_heavy() -> None:
    code = (
        "import sys\n"
        "import pytest_caretaker.plugin.hooks\n"
        f"print(sorted(m for m in {HEAVY!r} if m in sys.modules))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


@pytest.mark.parametrize("flags", [[], ["--heal", "--heal-model", "openai/gpt-4o-mini"]])
def test_a_passing_run_imports_nothing_heavy(pytester: pytest.Pytester, flags: list[str]) -> None:
    pytester.makepyfile(test_ok="def test_ok():\n    assert True\n")
    pytester.makeconftest(
        "import sys\n"
        "def pytest_unconfigure():\n"
        f"    print('HEAVY:', sorted(m for m in {HEAVY!r} if m in sys.modules))\n"
    )

    result = pytester.runpytest_subprocess(*flags)

    assert result.ret == 0
    result.stdout.fnmatch_lines(["HEAVY: []"])


def test_the_first_failure_imports_the_heal_while_the_run_goes_on(
    pytester: pytest.Pytester,
) -> None:
    # libcst and the heal's pipeline take a third of a second to import: a run with a failure
    # under --heal starts that at the failure, in a thread, not after the last test.
    pytester.makepyfile(
        test_two="""
        import sys, time

        def test_fails():
            assert 1 == 2

        def test_later():
            deadline = time.monotonic() + 30
            while "libcst" not in sys.modules and time.monotonic() < deadline:
                time.sleep(0.02)
            assert "libcst" in sys.modules
        """
    )

    result = pytester.runpytest_subprocess("--heal", "-p", "no:cacheprovider", timeout=120)

    result.assert_outcomes(failed=1, passed=1)
    result.stdout.fnmatch_lines(["NOT HEALED test_two.py::test_fails: *"])
