"""The model side in an environment of its own (#48), for real: two virtual environments made
from the package index this machine uses, no stand-in for either.

A project pins an ``openai`` older than litellm accepts, so ``pytest-caretaker[llm]`` cannot be
installed beside it. Its environment gets the base install; ``caretaker model setup`` builds the
model environment; a model heals through the scripted server, and the project's packages are
what they were. Building both takes about a minute (most of it pip), so one test does it all.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from importlib.metadata import version
from pathlib import Path

import pytest
from helpers import CALC, GOOD_MEAN, TEST_CALC

from pytest_caretaker.testing import ScriptedServer, tool_call

ROOT = Path(__file__).resolve().parents[2]
#: What the package build needs of the checkout (the rest stays out of the copy).
SOURCES = ("pytest_caretaker", "pyproject.toml", "README.md", "LICENSE")
#: The project's pin: openai 1.x, which every litellm caretaker supports refuses (>= 2.20).
PIN = "openai==1.109.1"
#: What leaves the child processes: the suite's own environment must not reach them.
DROPPED = ("PYTHONPATH", "VIRTUAL_ENV", "PYTEST_ADDOPTS", "PYTEST_XDIST_WORKER", "CARETAKER_MODEL")


def run(command: list[str], env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        command, cwd=cwd, env=env, capture_output=True, text=True, timeout=900, check=False
    )


def source_copy(work: Path) -> Path:
    copy = work / "source"
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info")
    for name in SOURCES:
        path = ROOT / name
        if path.is_dir():
            shutil.copytree(path, copy / name, ignore=ignore)
        elif path.exists():
            copy.mkdir(exist_ok=True)
            shutil.copy2(path, copy / name)
    return copy


def test_a_project_pinning_an_older_openai_heals_with_caretakers_model_environment(
    tmp_path: Path, llm: ScriptedServer
) -> None:
    env = {k: v for k, v in os.environ.items() if k not in DROPPED and not k.startswith("PYTEST")}
    env |= {"CARETAKER_MODEL_ENV": str(tmp_path / "models"), "CARETAKER_MODEL_KEEP": "0"}
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    project = tmp_path / "project"
    project.mkdir()
    (project / "calc.py").write_text(CALC)
    (project / "test_calc.py").write_text(TEST_CALC)
    (project / "requirements.txt").write_text(f"{PIN}\n")
    litellm = version("litellm")  # the release this suite runs on: the one proved here
    (tmp_path / "models.txt").write_text(f"litellm=={litellm}\n")

    # The project's environment: its pin and caretaker's base install.
    python = tmp_path / "project-env" / "bin" / "python"
    made = run([sys.executable, "-m", "venv", str(python.parent.parent)], env, tmp_path)
    assert made.returncode == 0, made.stderr
    pip = [str(python), "-m", "pip", "install", "--quiet"]
    installed = run([*pip, "-r", "requirements.txt", str(source_copy(tmp_path))], env, project)
    if installed.returncode != 0 and "No matching distribution" in installed.stderr:
        pytest.skip(f"the package index has no {PIN}: {installed.stderr.strip()[-300:]}")
    assert installed.returncode == 0, installed.stderr
    # The conflict is real: litellm cannot join the project's pins.
    refused = run(
        [*pip, "--dry-run", "-r", "requirements.txt", f"litellm=={litellm}"], env, project
    )
    assert refused.returncode != 0 and "conflict" in refused.stderr.lower(), refused.stderr
    before = run([str(python), "-m", "pip", "freeze"], env, project).stdout

    setup = run(
        [
            str(python),
            "-m",
            "pytest_caretaker",
            "model",
            "setup",
            "--from-requirements",
            str(tmp_path / "models.txt"),
        ],
        env,
        project,
    )
    assert setup.returncode == 0, setup.stdout + setup.stderr
    assert f"the model environment holds litellm {litellm} and" in setup.stdout

    # What litellm knows of a model is asked there too (the test environment has no litellm).
    keyed = {**env, "OPENAI_API_KEY": "sk-never-sent", "OLLAMA_HOST": "127.0.0.1:9"}
    listed = run([str(python), "-m", "pytest", "--heal-models"], keyed, project)
    assert listed.returncode == 0, listed.stdout + listed.stderr
    assert f"(litellm {litellm}, caretaker's environment)" in listed.stdout
    row = next(line for line in listed.stdout.splitlines() if line.startswith("openai/gpt-4.1 "))
    assert row.split()[1] == "yes", listed.stdout  # calls tools: litellm's model map says so

    llm.script(
        tool_call(
            "mean divides by one too many.",
            [
                {"path": "calc.py", "function": "mean", "code": GOOD_MEAN},
            ],
        )
    )
    healed = run(
        [
            str(python),
            "-m",
            "pytest",
            "-p",
            "no:cacheprovider",
            "--heal",
            "--heal-model",
            "openai/gpt-4o-mini",
            "--heal-api-base",
            llm.base_url,
        ],
        env,
        project,
    )

    out = healed.stdout
    assert healed.returncode == 1, out + healed.stderr  # the run tested the code as it was
    assert (
        f"caretaker: heal (in memory) · model openai/gpt-4o-mini (litellm {litellm}, "
        "caretaker's environment) · scope code"
    ) in out.splitlines()
    assert "HEALED test_calc.py::test_mean" in out.splitlines(), out
    assert len(llm.requests) == 1
    # Nothing of the model environment reached the project's: the same packages, no litellm.
    assert run([str(python), "-m", "pip", "freeze"], env, project).stdout == before
    assert PIN in before and "litellm" not in before
