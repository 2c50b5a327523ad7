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
