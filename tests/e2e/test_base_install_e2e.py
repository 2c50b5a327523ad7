"""The base install (#31, #48): without the ``[llm]`` extra and without caretaker's model
environment, litellm cannot be imported anywhere. The built-in repairer heals the quick start; a
model named, a model found, and ``--heal-models`` each say in one line what is missing and the
exact command that brings it, and the model is left out (never a usage error, nor a traceback).

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

INSTALL = 'run `caretaker model setup` (or pip install "pytest-caretaker[llm]")'
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
    # No model environment either (the user's own, set up, would be found in their cache).
    monkeypatch.setenv("CARETAKER_MODEL_ENV", str(tmp_path_factory.mktemp("no-model-env")))
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
            f"caretaker: OPENAI_API_KEY is set, but openai/gpt-4.1 needs litellm: {INSTALL}",
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
def test_a_model_named_is_left_out_in_one_line_and_builtin_heals(
    quickstart: pytest.Pytester, args: list[str], where: str
) -> None:
    result = quickstart.runpytest_subprocess("--heal", *args, "-p", "no:cacheprovider", timeout=60)

    assert result.ret == 1  # the run's own failure, healed: no usage error
    result.stdout.fnmatch_lines(
        [
            HEADER_BUILTIN,
            f"caretaker: {where} openai/gpt-4o-mini needs litellm: {INSTALL}; builtin heals alone",
            "HEALED test_textstats.py::test_moving_average",
        ]
    )
    assert result.stdout.str().count(INSTALL) == 1
    assert "Traceback" not in result.stdout.str() + result.stderr.str()


def test_a_model_named_in_the_environment_is_named_so(
    quickstart: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CARETAKER_MODEL", "ollama_chat/qwen2.5-coder:7b")

    result = quickstart.runpytest_subprocess("--heal", "-p", "no:cacheprovider", timeout=60)

    assert result.ret == 1
    result.stdout.fnmatch_lines(
        [
            "caretaker: CARETAKER_MODEL ollama_chat/qwen2.5-coder:7b needs litellm: "
            f"{INSTALL}; builtin heals alone",
            "HEALED test_textstats.py::test_moving_average",
        ]
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
            f"litellm: {INSTALL})" in out
        )
        # What litellm would know of the model is unknown without it, not an error.
        assert any(
            line.split()[:4] == ["openai/gpt-4.1", "?", "?", "?"] for line in out.splitlines()
        )
    else:
        assert f"asking a model needs litellm: {INSTALL}" in out


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
    said = (
        f"caretaker: CARETAKER_MODEL openai/gpt-4o-mini needs litellm: {INSTALL}; builtin heals "
        "alone"
    )
    assert done.stdout.splitlines().count(said) == 1, done.stdout
    assert "Traceback" not in done.stderr  # the command's own traceback is on its stdout
