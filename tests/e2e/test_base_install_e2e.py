"""The base install (#31): without the ``[llm]`` extra, litellm cannot be imported. The built-in
repairer heals the quick start; a model named, a model found, and ``--heal-models`` each say in
one line what is missing and the exact command that brings it.

A fresh virtual environment without litellm takes minutes to build (benchmarks/footprint.py does
it); here a ``sitecustomize`` on PYTHONPATH refuses the import in every process of the run, which
is what a base install looks like to caretaker.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

INSTALL = 'pip install "pytest-caretaker[llm]"'
BLOCKER = '''\
import sys


class _NoLitellm:
    """A base install of pytest-caretaker: no litellm to import."""

    def find_spec(self, name, path=None, target=None):
        if name == "litellm" or name.startswith("litellm."):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None


sys.meta_path.insert(0, _NoLitellm())
'''
HEADER_BUILTIN = "caretaker: heal (in memory) · model builtin · scope code"


@pytest.fixture
def quickstart(
    pytester: pytest.Pytester,
    tmp_path_factory: pytest.TempPathFactory,
    monkeypatch: pytest.MonkeyPatch,
) -> pytest.Pytester:
    blocked = tmp_path_factory.mktemp("no-litellm")
    (blocked / "sitecustomize.py").write_text(BLOCKER, encoding="utf-8")
    path = os.environ.get("PYTHONPATH", "")
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(blocked), path])))
    pytester.copy_example("quickstart")
    return pytester


def test_litellm_cannot_be_imported(quickstart: pytest.Pytester) -> None:
    done = subprocess.run(
        [sys.executable, "-c", "import litellm"], capture_output=True, text=True, check=False
    )
    assert done.returncode == 1
    assert "ModuleNotFoundError: No module named 'litellm'" in done.stderr


def test_the_builtin_repairer_heals_the_quickstart(quickstart: pytest.Pytester) -> None:
    result = quickstart.runpytest_subprocess("--heal", "-p", "no:cacheprovider", timeout=120)

    assert result.ret == 1
    result.stdout.fnmatch_lines(
        [
            HEADER_BUILTIN,
            "HEALED test_textstats.py::test_moving_average",
            "  * candidates tried · no model, no tokens · * s · builtin",
            "caretaker: 1 healed, 0 not healed · no tokens spent · fixes in .caretaker/heal.patch",
        ]
    )
    assert INSTALL not in result.stdout.str()  # nothing asks for a model: nothing to install


def test_a_model_found_says_what_is_missing_and_builtin_heals(
    quickstart: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-a-key-of-the-users-shell")

    result = quickstart.runpytest_subprocess("--heal", "-p", "no:cacheprovider", timeout=120)

    result.stdout.fnmatch_lines(
        [
            HEADER_BUILTIN,  # one short line, and what is missing on the next: a warning
            "caretaker: OPENAI_API_KEY is set, but openai/gpt-4.1 needs litellm, which is "
            f"not installed here: {INSTALL}",
            "HEALED test_textstats.py::test_moving_average",
            "  * candidates tried · no model, no tokens · * s · builtin",
        ]
    )
    assert result.stdout.str().count(INSTALL) == 1
    assert "Traceback" not in result.stdout.str() + result.stderr.str()


@pytest.mark.parametrize(
    ("args", "where"),
    [
        (["--heal-model", "openai/gpt-4o-mini"], "--heal-model"),
        (["--heal-model", "builtin", "--heal-model", "openai/gpt-4o-mini"], "--heal-model"),
    ],
    ids=["alone", "after-builtin"],
)
def test_a_model_named_is_one_usage_error_line(
    quickstart: pytest.Pytester, args: list[str], where: str
) -> None:
    result = quickstart.runpytest_subprocess("--heal", *args, timeout=60)

    assert result.ret == pytest.ExitCode.USAGE_ERROR
    errors = [line for line in result.stderr.lines if line.strip()]
    assert errors == [
        f"ERROR: caretaker: {where} openai/gpt-4o-mini needs litellm, which is not installed "
        f"here: {INSTALL}"
    ]


def test_a_model_named_in_the_environment_is_named_so(
    quickstart: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CARETAKER_MODEL", "ollama_chat/qwen2.5-coder:7b")

    result = quickstart.runpytest_subprocess("--heal", timeout=60)

    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert result.stderr.lines[0] == (
        "ERROR: caretaker: CARETAKER_MODEL ollama_chat/qwen2.5-coder:7b needs litellm, which is "
        f"not installed here: {INSTALL}"
    )


@pytest.mark.parametrize("key", [False, True], ids=["no-key", "key"])
def test_heal_models_says_the_same(
    quickstart: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, key: bool
) -> None:
    if key:
        monkeypatch.setenv("OPENAI_API_KEY", "sk-a-key-of-the-users-shell")

    result = quickstart.runpytest_subprocess("--heal-models", timeout=60)

    assert result.ret == 0, result.stderr.str()
    out = result.stdout.str()
    assert out.count(INSTALL) == 1
    if key:
        assert (
            "caretaker would use builtin (OPENAI_API_KEY is set, but openai/gpt-4.1 needs "
            f"litellm, which is not installed here: {INSTALL})" in out
        )
        # What litellm would know of the model is unknown without it, not an error.
        assert any(
            line.split()[:4] == ["openai/gpt-4.1", "?", "?", "?"] for line in out.splitlines()
        )
    else:
        assert f"asking a model needs litellm, which is not installed here: {INSTALL}" in out


def test_caretaker_run_with_a_model_named_says_what_is_missing(
    quickstart: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    Path(quickstart.path, "crash.py").write_text("print(1 / 0)\n", encoding="utf-8")
    monkeypatch.setenv("CARETAKER_MODEL", "openai/gpt-4o-mini")
    done = subprocess.run(
        [sys.executable, "-m", "pytest_caretaker", "run", "--", sys.executable, "crash.py"],
        cwd=quickstart.path,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 1, done.stderr
    assert done.stdout.splitlines()[-1] == (
        f"caretaker: {Path(sys.executable).name} crash.py failed (exit status 1); CARETAKER_MODEL "
        f"openai/gpt-4o-mini needs litellm, which is not installed here: {INSTALL}"
    )
