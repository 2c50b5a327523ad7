"""caretaker's model environment (llm/modelenv.py): where it is, when it counts as set up, its
CI cache key, and setup's failures (each one line, nothing half-made left in use). The whole
setup, litellm and a heal through it, is tests/e2e/test_model_env_e2e.py's."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from pytest_caretaker.llm import modelenv


def caretaker(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pytest_caretaker", "model", *args],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        env=env,
    )


def test_the_folder_is_the_users_cache_unless_a_variable_names_another(tmp_path: Path) -> None:
    cache = {"XDG_CACHE_HOME": str(tmp_path / "cache")}
    assert modelenv.folder(cache) == tmp_path / "cache" / "pytest-caretaker" / "models"
    named = {**cache, "CARETAKER_MODEL_ENV": str(tmp_path / "ci")}
    assert modelenv.folder(named) == tmp_path / "ci"


def test_it_is_found_only_with_its_mark_and_its_interpreter(tmp_path: Path) -> None:
    env = {"CARETAKER_MODEL_ENV": str(tmp_path)}
    (tmp_path / "bin").mkdir()
    assert modelenv.found(env) is None
    (tmp_path / "caretaker-models.json").write_text('{"litellm": "1.110.2"}')
    assert modelenv.found(env) is None  # no interpreter
    (tmp_path / "bin" / "python").symlink_to(sys.executable)
    found = modelenv.found(env)
    assert found is not None and found.python == str(tmp_path / "bin" / "python")
    assert found.describe() == "litellm 1.110.2, caretaker's environment"
    (tmp_path / "caretaker-models.json").write_text("{not json")
    assert modelenv.found(env) is None


def test_the_cache_key_changes_with_the_pins_and_the_python(tmp_path: Path) -> None:
    pins = tmp_path / "models.txt"
    pins.write_text("litellm==1.110.2\n")
    one = modelenv.key(pins)
    assert one.startswith(f"caretaker-models-0.1.0-{sys.platform}-py3.") or "-source-" in one
    assert modelenv.key(pins) == one  # stable
    pins.write_text("litellm==1.110.2\nopenai==2.54.0\n")
    assert modelenv.key(pins) != one
    assert modelenv.key(None) not in (one, modelenv.key(pins))
    mine = _minor(sys.executable)
    others = [str(p) for p in Path.home().glob(".pyenv/versions/3.1*/bin/python")]
    other = next((p for p in others if _minor(p) not in (None, mine)), None)
    if other is not None:  # the interpreter setup would use: another key
        assert modelenv.key(pins, other) != modelenv.key(pins)


def _minor(python: str) -> str | None:
    try:
        return modelenv._python_version(python).rsplit(".", 1)[0]
    except modelenv.SetupError:  # not installed here (or a shim that finds none)
        return None


def test_key_prints_one_line_and_a_missing_requirements_file_is_one_line(tmp_path: Path) -> None:
    done = caretaker("key")
    assert done.returncode == 0 and done.stdout.count("\n") == 1
    assert done.stdout.startswith("caretaker-models-")

    missing = caretaker("setup", "--from-requirements", str(tmp_path / "nope.txt"))

    assert missing.returncode == 2
    assert (
        missing.stderr
        == f"caretaker: {tmp_path / 'nope.txt'} is not a file; give a requirements file\n"
    )


def test_a_python_that_is_not_one_is_refused_in_one_line(tmp_path: Path) -> None:
    env = {"CARETAKER_MODEL_ENV": str(tmp_path / "models")}
    with pytest.raises(modelenv.SetupError, match="is not a Python interpreter"):
        modelenv.setup(str(tmp_path / "no-python"), None, print, env)
    assert not (tmp_path / "models").exists()


def test_a_failed_install_leaves_no_environment_in_use(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    place = tmp_path / "models"
    env = {"CARETAKER_MODEL_ENV": str(place)}
    place.mkdir()
    (place / "caretaker-models.json").write_text('{"litellm": "1.106.2"}')  # an older setup's
    pins = tmp_path / "models.txt"
    pins.write_text("caretaker-no-such-package==1.0\n")
    monkeypatch.setenv("PIP_NO_INDEX", "1")  # offline, and at once
    said: list[str] = []

    with pytest.raises(modelenv.SetupError) as raised:
        modelenv.setup(None, pins, said.append, env)

    assert str(raised.value).startswith("pip could not install litellm: ERROR: ")
    assert "\n" not in str(raised.value)
    assert said[0].startswith(f"creating the model environment in {place}")
    assert modelenv.found(env) is None  # the old mark went before anything changed
    assert modelenv.interpreter(place).exists()  # the environment stays, for the next setup
