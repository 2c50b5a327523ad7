"""caretaker's own git runs no program that configuration names: real repositories under tmp_path,
each with a program planted the way hostile code could (``git config`` in ``.git/config``, a hook,
``.gitattributes``); every planted program only appends to a marker file. Each plant is first
shown to run under plain git (so the test can fail), then caretaker writes and commits a fix
through write_fixes, and no marker may exist."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from pytest_caretaker.results import Candidate, Edit, FileChange, Fix, HealResult, Spend
from pytest_caretaker.settings import Settings
from pytest_caretaker.write import hardening
from pytest_caretaker.write.writer import write_fixes

pytestmark = pytest.mark.skipif(os.name != "posix", reason="the planted programs are sh scripts")

BEFORE = b"def mean(xs):\n    return sum(xs) / (len(xs) + 1)\n"
AFTER = b"def mean(xs):\n    return sum(xs) / len(xs)\n"
HOOKS = (
    "pre-commit",
    "prepare-commit-msg",
    "commit-msg",
    "post-commit",
    "post-checkout",
    "post-index-change",
    "reference-transaction",
    "pre-auto-gc",
)


def git(repo: Path, *args: str, check: bool = True) -> str:
    done = subprocess.run(
        ["git", "-C", str(repo), *args],
        capture_output=True,
        text=True,
        check=False,
        stdin=subprocess.DEVNULL,
    )
    if check and done.returncode != 0:
        raise AssertionError(f"git {' '.join(args)} failed: {done.stderr}")
    return done.stdout


@pytest.fixture(autouse=True)
def _isolated_git(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", os.devnull)
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    for name in ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_CONFIG_COUNT"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def markers(tmp_path: Path) -> Path:
    path = tmp_path / "markers"
    path.mkdir()
    return path


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """calc.py (as BEFORE) and a .gitattributes that names a filter and drivers, committed."""
    path = tmp_path / "repo"
    path.mkdir()
    git(path, "init", "-q", "-b", "main")
    git(path, "config", "user.name", "Test Person")
    git(path, "config", "user.email", "test.person@example.com")
    (path / "calc.py").write_bytes(BEFORE)
    (path / ".gitattributes").write_text("*.py filter=evil diff=evil merge=evil\n")
    git(path, "add", "calc.py", ".gitattributes")
    git(path, "commit", "-q", "-m", "initial")
    return path


def script(markers: Path, name: str, passthrough: bool = False) -> str:
    """A program that appends its name and arguments to markers/name (and copies its input to
    its output when it stands in for a filter); its path."""
    path = markers.parent / "bin" / name
    path.parent.mkdir(exist_ok=True)
    copy = "cat\n" if passthrough else ""
    path.write_text(f'#!/bin/sh\necho "$0 $*" >> {markers / name}\n{copy}exit 0\n')
    path.chmod(0o755)
    return str(path)


def plant_fsmonitor(repo: Path, markers: Path) -> None:
    git(repo, "config", "core.fsmonitor", script(markers, "fsmonitor"))


def plant_gpg(repo: Path, markers: Path) -> None:
    git(repo, "config", "gpg.program", script(markers, "gpg"))
    git(repo, "config", "commit.gpgSign", "true")
    git(repo, "config", "tag.gpgSign", "true")


def plant_hooks(repo: Path, markers: Path) -> None:
    for hook in HOOKS:
        (repo / ".git" / "hooks" / hook).symlink_to(script(markers, hook))


def plant_hooks_path(repo: Path, markers: Path) -> None:
    folder = repo.parent / "hooks-elsewhere"
    folder.mkdir()
    for hook in HOOKS:
        (folder / hook).symlink_to(script(markers, f"path-{hook}"))
    git(repo, "config", "core.hooksPath", str(folder))


def plant_filter(repo: Path, markers: Path) -> None:
    git(repo, "config", "filter.evil.clean", script(markers, "clean", passthrough=True))
    git(repo, "config", "filter.evil.smudge", script(markers, "smudge", passthrough=True))
    git(repo, "config", "filter.evil.required", "true")


def plant_process_filter(repo: Path, markers: Path) -> None:
    git(repo, "config", "filter.evil.process", script(markers, "process"))


def plant_diff_drivers(repo: Path, markers: Path) -> None:
    git(repo, "config", "diff.external", script(markers, "external"))
    git(repo, "config", "diff.evil.textconv", script(markers, "textconv", passthrough=True))
    git(repo, "config", "diff.evil.command", script(markers, "command"))
    git(repo, "config", "merge.evil.driver", script(markers, "merge"))


def plant_ssh(repo: Path, markers: Path) -> None:
    git(repo, "remote", "add", "origin", "ssh://git@example.invalid/project.git")
    git(repo, "config", "core.sshCommand", script(markers, "ssh"))
    git(repo, "config", "credential.helper", script(markers, "credential"))
    git(repo, "config", "core.askPass", script(markers, "askpass"))


def plant_pager_and_editor(repo: Path, markers: Path) -> None:
    git(repo, "config", "core.pager", script(markers, "pager"))
    git(repo, "config", "pager.status", "true")
    git(repo, "config", "core.editor", script(markers, "editor"))


Plant = Callable[[Path, Path], None]

#: Each plant, and a plain git command (after calc.py is changed) that runs what it planted.
PLANTS: dict[str, tuple[Plant, tuple[str, ...]]] = {
    "fsmonitor": (plant_fsmonitor, ("status", "--porcelain")),
    "gpg": (plant_gpg, ("commit", "-q", "-m", "x", "calc.py")),
    "hooks": (plant_hooks, ("commit", "-q", "-m", "x", "calc.py")),
    "hooks-path": (plant_hooks_path, ("commit", "-q", "-m", "x", "calc.py")),
    "filter": (plant_filter, ("add", "calc.py")),
    "process-filter": (plant_process_filter, ("add", "calc.py")),
    "diff-drivers": (plant_diff_drivers, ("diff",)),
    "ssh": (plant_ssh, ("ls-remote", "origin")),
    "editor": (plant_pager_and_editor, ("commit", "calc.py")),
}


def fix(before: bytes = BEFORE) -> Fix:
    edits = (Edit("replace", "calc.py", "mean", "def mean(xs): ...\n"),)
    candidate = Candidate(edits, (FileChange("calc.py", before, AFTER),), "Divide by the count.")
    return Fix((HealResult("tests/test_calc.py::test_mean", candidate, spend=Spend(rounds=1)),))


def fired(markers: Path) -> list[str]:
    return sorted(path.name for path in markers.iterdir())


@pytest.mark.parametrize("name", PLANTS)
def test_plain_git_runs_the_planted_program(name: str, project: Path, markers: Path) -> None:
    """The control: each plant works, so its absence under caretaker means something."""
    plant, command = PLANTS[name]
    plant(project, markers)
    (project / "calc.py").write_bytes(AFTER)
    git(project, *command, check=False)
    assert fired(markers) != []


@pytest.mark.parametrize("name", PLANTS)
def test_caretakers_commit_runs_no_planted_program(name: str, project: Path, markers: Path) -> None:
    plant, _ = PLANTS[name]
    plant(project, markers)
    start = git(project, "rev-parse", "HEAD").strip()

    written, notes = write_fixes([fix()], project, Settings(heal=True, write=True))

    assert fired(markers) == []
    assert [w.state for w in written] == ["committed"], written[0].detail
    assert notes == []
    assert git(project, "rev-parse", "HEAD~1").strip() == start
    assert git(project, "show", "--name-only", "--format=", "HEAD").split() == ["calc.py"]
    assert git(project, "cat-file", "blob", "HEAD:calc.py") == AFTER.decode()
    assert "gpgsig" not in git(project, "cat-file", "commit", "HEAD")


def test_everything_at_once_on_another_branch(project: Path, markers: Path) -> None:
    """Every plant together, with --heal-branch switching to an existing branch (a checkout:
    smudge filters and post-checkout hooks would run there)."""
    git(project, "branch", "heal/x")
    for plant, _ in PLANTS.values():
        if plant is not plant_process_filter:  # process wins over clean/smudge; both tested
            plant(project, markers)

    settings = Settings(heal=True, write=True, branch="heal/x")
    written, _ = write_fixes([fix()], project, settings)

    assert fired(markers) == []
    assert [w.state for w in written] == ["committed"], written[0].detail
    assert git(project, "symbolic-ref", "--short", "HEAD").strip() == "heal/x"
    assert git(project, "rev-parse", "heal/x").strip() == written[0].commit


def test_a_filter_name_with_odd_characters_is_disabled_too(project: Path, markers: Path) -> None:
    """A name with dots and '=' cannot be passed as ``-c`` but is as GIT_CONFIG_KEY_n."""
    (project / ".gitattributes").write_text("*.py filter=a.b=c\n")
    git(project, "commit", "-q", "-m", "attributes", ".gitattributes")
    git(project, "config", "filter.a.b=c.clean", script(markers, "odd", passthrough=True))
    git(project, "config", "filter.a.b=c.required", "true")
    (project / "calc.py").write_bytes(BEFORE + b"\n")
    git(project, "add", "calc.py")  # the control: plain git runs it
    assert fired(markers) == ["odd"]
    git(project, "commit", "-q", "-m", "touch")
    (markers / "odd").unlink()

    written, _ = write_fixes([fix(BEFORE + b"\n")], project, Settings(heal=True, write=True))

    assert fired(markers) == []
    assert [w.state for w in written] == ["committed"], written[0].detail


def test_the_users_own_command_scope_config_is_kept_but_loses() -> None:
    inherited = {
        "GIT_CONFIG_COUNT": "1",
        "GIT_CONFIG_KEY_0": "core.fsmonitor",
        "GIT_CONFIG_VALUE_0": "/x",
    }
    env = hardening.environment([("core.fsmonitor", "false")], inherited)
    assert env["GIT_CONFIG_COUNT"] == "2"
    assert (env["GIT_CONFIG_KEY_1"], env["GIT_CONFIG_VALUE_1"]) == ("core.fsmonitor", "false")
    assert "GIT_CONFIG_KEY_0" not in env  # the inherited entry stays as the user set it


def test_driver_names_from_a_config_listing() -> None:
    listing = "filter.lfs.clean\ngit-lfs clean\0Diff.Evil.textconv\nx\0core.bare\nfalse\0"
    names = hardening.driver_names(listing + "merge.a.b.driver\ny\0filter.noname\nz\0")
    assert names == {"filter": {"lfs"}, "diff": {"Evil"}, "merge": {"a.b"}}
