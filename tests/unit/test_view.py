"""What the sandbox's view shows (verify/view.py): the paths a sandboxed process must read, chosen
here; the view itself is built and attacked in tests/integration/test_sandbox*.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_caretaker.verify import view


def test_a_venv_on_path_is_shown_whole_with_the_interpreter_it_was_made_from(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    base = tmp_path / "python3.12"
    (base / "bin").mkdir(parents=True)
    venv = tmp_path / "other-venv"
    (venv / "bin").mkdir(parents=True)
    (venv / "pyvenv.cfg").write_text(f"home = {base / 'bin'}\nversion = 3.12.1\n")
    monkeypatch.setenv("PATH", f"{venv / 'bin'}:/usr/bin")

    shown = view.visible([])

    assert str(venv) in shown
    assert str(base) in shown


def test_home_stays_empty_unless_asked_for(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "home"
    (home / "bin").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("PATH", f"{tmp_path}:{home / 'bin'}")  # an ancestor of $HOME, and under it

    shown = view.visible([str(tmp_path / "project")])

    assert str(tmp_path) not in shown  # it would show $HOME whole
    assert str(home / "bin") in shown
    assert str(tmp_path / "project") not in shown  # it does not exist


def test_a_project_that_holds_home_is_still_shown(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))

    assert str(tmp_path) in view.visible([str(tmp_path)])
