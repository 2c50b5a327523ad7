"""`caretaker run` on a check command (any program that names ``path:line``) and fix after fix:
real processes, real git, the scripted server, the sandbox where this machine has it. The runs
that ask a model are forked from a process that imported litellm once (helpers.WarmCaretaker)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import WarmCaretaker, git, snapshot

from pytest_caretaker.testing import ScriptedServer, tool_call
from pytest_caretaker.verify.probe import unavailable

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "check"
PYTHON = sys.executable
MODEL = ("--model", "openai/gpt-4o-mini")
GOOD_DISCOUNTED = (
    "def discounted(price, percent):\n"
    '    """price less percent per cent."""\n'
    "    return price * (1 - percent / 100)\n"
)
sandboxed = pytest.mark.skipif(
    unavailable(False) is not None, reason=f"no sandbox here: {unavailable(False)}"
)


def example(tmp_path: Path, **replaced: str) -> Path:
    """The check example as a git repository, with files replaced by name."""
    root = tmp_path / "check"
    shutil.copytree(EXAMPLE, root)
    for name, text in replaced.items():
        (root / name.replace("_", ".")).write_text(text, encoding="utf-8")
    git(root, "init", "-q")
    git(root, "add", ".")
    git(root, "commit", "-qm", "start")
    return root


def caretaker(
    cwd: Path, *args: str, warm: WarmCaretaker | None = None
) -> subprocess.CompletedProcess[str]:
    """``caretaker run ARGS`` in cwd; forked from warm (litellm imported) when given: the tests
    that ask a model, whose own import of litellm would cost more than their heal."""
    command = [PYTHON, "-m", "pytest_caretaker", "run", *args]
    env = {**os.environ, "PYTHON": PYTHON}  # check.sh's interpreter
    if warm is not None:
        return warm.run(cwd, ["run", *args], env)
    return subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=300, env=env)


def check_passes(root: Path) -> bool:
    env = {**os.environ, "PYTHON": PYTHON}
    return (
        subprocess.run(["sh", "check.sh"], cwd=root, env=env, capture_output=True).returncode == 0
    )


def one_finding(root: Path) -> None:
    """Leave only discounted's bug in the example."""
    invoice = (root / "invoice.py").read_text(encoding="utf-8")
    (root / "invoice.py").write_text(invoice.replace("lines[1:]", "lines"), encoding="utf-8")
    git(root, "commit", "-qam", "one bug")


def test_a_check_command_is_healed_by_a_model_on_a_scratch_copy(
    tmp_path: Path, warm_caretaker: WarmCaretaker
) -> None:
    root = example(tmp_path)
    one_finding(root)
    before = snapshot(root)
    with ScriptedServer().start() as server:
        edit = {"path": "invoice.py", "function": "discounted", "code": GOOD_DISCOUNTED}
        server.script(tool_call("A discount subtracts.", [edit]))
        done = caretaker(
            root, *MODEL, "--api-base", server.base_url, "--", "sh", "check.sh", warm=warm_caretaker
        )

    assert done.returncode == 1, done.stdout + done.stderr
    finding = "invoice.py:4: discounted(200, 10) returned 220.00000000000003, expected 180"
    assert f"HEALED {finding}" in done.stdout.splitlines()
    assert "caretaker: 1 healed, 0 not healed" in done.stdout
    (request,) = server.requests
    prompt = request["messages"][1]["content"]
    assert finding in prompt and "return price * (1 + percent / 100)" in prompt
    assert prompt.startswith(
        f"The command `sh check.sh` reports a problem in the project's code: `{finding}`."
    )
    assert "What the command printed:" in prompt and "Functions the command ran" in prompt
    assert "copy-" not in done.stdout  # what the command said names the user's files
    assert snapshot(root) == before
    git(root, "apply", ".caretaker/heal.patch")
    assert check_passes(root)


def test_two_findings_are_fixed_in_two_iterations_with_two_commits_and_a_log(
    tmp_path: Path,
) -> None:
    root = example(tmp_path)
    start = git(root, "rev-parse", "HEAD").strip()

    done = caretaker(root, "--write", "--log", "FIXES.md", "--", "sh", "check.sh")

    assert done.returncode == 0, done.stdout + done.stderr
    assert "caretaker: 2 healed, 0 not healed" in done.stdout
    assert "2 fixes written, 2 committed" in done.stdout
    assert (
        done.stdout.splitlines()[-1]
        == "caretaker: sh check.sh exits with status 0 after the 2 fixes"
    )
    commits = git(root, "rev-list", f"{start}..HEAD").split()
    assert len(commits) == 2
    for commit, function in zip(reversed(commits), ("discounted", "total"), strict=True):
        changed = git(root, "show", "--name-only", "--format=", commit).split()
        assert changed == ["FIXES.md", "invoice.py"]
        body = git(root, "show", "-s", "--format=%B", commit)
        assert "Fixes what `sh check.sh` reported:" in body
        assert f"`invoice.py` (`{function}`)" in git(root, "show", f"{commit}:FIXES.md")
    log = (root / "FIXES.md").read_text(encoding="utf-8")
    assert log.count("\n## invoice.py:") == 2 and "no longer reports it" in log
    assert git(root, "status", "--porcelain", "--untracked-files=no") == ""
    assert check_passes(root)


def test_a_fix_that_exits_early_to_pass_the_check_is_refused(
    tmp_path: Path, warm_caretaker: WarmCaretaker
) -> None:
    root = example(tmp_path)
    one_finding(root)
    forged = GOOD_DISCOUNTED.replace(
        "    return price * (1 - percent / 100)\n",
        "    import os\n    os._exit(0)\n",
    )
    with ScriptedServer().start() as server:
        bad = {"path": "invoice.py", "function": "discounted", "code": forged}
        server.script(*[tool_call("Exit early.", [bad])] * 3)
        done = caretaker(
            root, *MODEL, "--api-base", server.base_url, "--", "sh", "check.sh", warm=warm_caretaker
        )

    assert done.returncode == 1, done.stdout + done.stderr
    assert "caretaker: 0 healed, 1 not healed" in done.stdout
    assert "uses process control (os._exit)" in done.stdout
    assert not (root / ".caretaker" / "heal.patch").exists()


@sandboxed
def test_a_candidate_cannot_write_to_the_users_files_from_the_copy(
    tmp_path: Path, warm_caretaker: WarmCaretaker
) -> None:
    root = example(tmp_path)
    one_finding(root)
    before = snapshot(root)
    target = root / "invoice.py"
    hostile = GOOD_DISCOUNTED.replace(
        "    return",
        f"    try:\n        open({str(target)!r}, 'a').write('# owned\\n')\n"
        "    except OSError:\n        pass\n    return",
    )
    with ScriptedServer().start() as server:
        edit = {"path": "invoice.py", "function": "discounted", "code": hostile}
        server.script(tool_call("Subtract.", [edit]))
        done = caretaker(
            root,
            *MODEL,
            "--api-base",
            server.base_url,
            "--sandbox",
            "require",
            "--",
            "sh",
            "check.sh",
            warm=warm_caretaker,
        )

    assert "caretaker: 1 healed" in done.stdout, done.stdout + done.stderr
    assert snapshot(root) == before  # the write failed inside the sandbox
    assert "# owned" not in target.read_text(encoding="utf-8")


def test_a_command_reporting_no_project_file_is_not_healed(tmp_path: Path) -> None:
    root = example(tmp_path, check_sh="#!/bin/sh\necho 'lint: 3 problems in vendor code'\nexit 3\n")

    done = caretaker(root, "--", "sh", "check.sh")

    assert done.returncode == 3
    assert done.stdout.splitlines()[-1] == (
        "caretaker: sh check.sh failed (exit status 3); it printed no Python traceback and no "
        "path:line of a Python file of the project, so there is nothing to heal"
    )


def test_the_projects_ini_keys_apply_and_the_command_line_wins(tmp_path: Path) -> None:
    root = example(tmp_path)
    (root / "pyproject.toml").write_text(
        '[tool.pytest.ini_options]\nheal_attempts = "none"\n', encoding="utf-8"
    )

    done = caretaker(root, "--", "sh", "check.sh")
    assert done.returncode == 2
    assert done.stderr.startswith("caretaker: ") and "ini option heal_attempts" in done.stderr
    assert len(done.stderr.splitlines()) == 1

    done = caretaker(root, "--attempts", "2", "--iterations", "1", "--", "sh", "check.sh")
    assert done.returncode == 1 and "caretaker: 1 healed, 0 not healed" in done.stdout
    note = "caretaker: stopped after 1 finding (--iterations); the command still reports 1 more"
    assert note in done.stdout.splitlines()


def test_the_check_example_is_healed_as_its_readme_says(tmp_path: Path) -> None:
    root = example(tmp_path)
    readme = (EXAMPLE / "README.md").read_text(encoding="utf-8")

    done = caretaker(root, "--", "sh", "check.sh")

    assert done.returncode == 1, done.stderr
    lines = done.stdout.splitlines()
    for line in (
        "HEALED invoice.py:4: discounted(200, 10) returned 220.00000000000003, expected 180",
        "HEALED invoice.py:9: total([(2, 5.0), (1, 3.0)]) returned 3.0, expected 13.0",
        "  +    return price * (1 - percent / 100)",
        lines[-1],
    ):
        assert line in lines and line in readme
    git(root, "apply", ".caretaker/heal.patch")
    assert check_passes(root)


def test_the_check_example_runs_from_its_own_folder_in_the_checkout(tmp_path: Path) -> None:
    # As a reader of the checkout runs it (#46): the checkout above is a project of its own.
    checkout = tmp_path / "checkout"
    root = checkout / "examples" / "check"
    shutil.copytree(EXAMPLE, root)
    (checkout / "pyproject.toml").write_text('[project]\nname = "checkout"\n')
    git(checkout, "init", "-q")
    git(checkout, "add", ".")
    git(checkout, "commit", "-qm", "start")

    done = caretaker(root, "--", "sh", "check.sh")

    lines = done.stdout.splitlines()
    assert (
        "HEALED invoice.py:9: total([(2, 5.0), (1, 3.0)]) returned 3.0, expected 13.0" in lines
    ), done.stdout + done.stderr
    assert (root / ".caretaker" / "heal.patch").is_file()
    assert not (checkout / ".caretaker").exists()
