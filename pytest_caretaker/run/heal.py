"""One heal of a command: run it with the recording hook; if it passes, say so (and leave a
last-run.json with nothing healed); if it fails, heal what it reports (healing.py, imported only
then: a passing command costs little more than itself)."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from pytest_caretaker.children import WORKER_ENV, worker_token
from pytest_caretaker.run import kit
from pytest_caretaker.run.command import Command, Run, shown, start
from pytest_caretaker.run.hook import RECORD_ENV, ROOT_ENV, SITECUSTOMIZE


def heal(command: Command, run: Run) -> int:
    """Run the command, heal its crash; the exit status is the command's on the files as they
    are at the end."""
    with tempfile.TemporaryDirectory(prefix="caretaker-run-") as scratch:
        folder = Path(scratch)
        (folder / "hook").mkdir()
        (folder / "hook" / "sitecustomize.py").write_text(SITECUSTOMIZE, encoding="utf-8")
        unfit = kit.prepare(command.argv, command.env, folder / "hook")
        env = child_env(command, folder / "hook")
        first = start(command, {**env, RECORD_ENV: str(folder / "record.json")})
        if isinstance(first, int):
            return first
        if unfit is not None and first.status != 0:
            command.out.write(first.output)
            print(f"caretaker: {unfit}; nothing was healed", file=command.out)
            return first.status
        if first.status == 0:
            print(f"caretaker: {shown(command.argv)} passed", file=command.out)
            _passed(command, run)
            return 0
        command.out.write(first.output)
        from pytest_caretaker.run.healing import heal_failure

        return heal_failure(command, first, folder, env, run)


def _passed(command: Command, run: Run) -> None:
    """last-run.json of a session with nothing to heal: CI never reads an earlier one's."""
    from pytest_caretaker.ci.last_run import Ended, write_last_run

    failed = write_last_run(command.root, Ended("run", command.settings, run.redactor))
    if failed is not None:
        print(failed, file=command.out)


def child_env(command: Command, hook: Path) -> dict[str, str]:
    """The command's environment: the hook's folder first on PYTHONPATH, the root for it."""
    env = dict(command.env)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(hook), env.get("PYTHONPATH", "")) if p)
    env[ROOT_ENV] = str(command.root)
    env[WORKER_ENV] = worker_token()  # a pytest run inside the command must not heal itself
    return env
