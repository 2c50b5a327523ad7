"""One environment for every candidate, whatever the front end (verify/environment.py), played as
an attacker: each candidate returns the right result only if what it looks for in its environment
is there (an API key, a database password in a URL, the ssh agent's socket, the tmux server), so
a HEALED would mean it leaked. The last candidate of each conversation heals if an ordinary
variable reached it: healing at that attempt, and not before, shows every earlier one ran and saw
nothing. And a ``CARETAKER_WORKER=1`` left in the user's shell does not turn healing off.
"""

from __future__ import annotations

import os
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any

import pytest
from helpers import CALC, GOOD_MEAN, TEST_CALC, git, heal_args

from pytest_caretaker.testing import Scripted, ScriptedServer, tool_call
from pytest_caretaker.verify.probe import unavailable

pytestmark = pytest.mark.skipif(
    unavailable(False) is not None, reason=f"no sandbox here: {unavailable(False)}"
)

PYTHON = sys.executable
API_KEY = "sk-" + "envtest-" + uuid.uuid4().hex
DB_PASSWORD = "Db-pw-" + uuid.uuid4().hex[:12]
#: The user's session: secrets, and the ways into the agents and the terminal multiplexer.
SESSION = {
    "OPENAI_API_KEY": API_KEY,
    "DATABASE_URL": f"postgres://app:{DB_PASSWORD}@db.internal:5432/app",
    "SSH_AUTH_SOCK": "/tmp/ssh-caretaker-test/agent.1",
    "TMUX": "/tmp/tmux-1000/default,4242,0",
    "PLAIN_SETTING": "kept",
}
#: What each candidate looks for; the last one is the control: an ordinary variable, kept.
LEAKS = {
    "the API key": f"os.environ.get('OPENAI_API_KEY') == {API_KEY!r}",
    "the database password": f"{DB_PASSWORD!r} in os.environ.get('DATABASE_URL', '')",
    "the ssh agent": "'SSH_AUTH_SOCK' in os.environ",
    "the tmux server": "'TMUX' in os.environ",
}
CONTROL = "os.environ.get('PLAIN_SETTING') == 'kept'"
CHECKS = [*LEAKS.values(), CONTROL]


def candidate(signature: str, right: str, wrong: str, check: str) -> str:
    return f"def {signature}:\n    import os\n    return {right} if {check} else {wrong}\n"


def leaked(text: str) -> list[str]:
    return [secret for secret in (API_KEY, DB_PASSWORD) if secret in text]


def test_pytest_heal_workers_see_no_secret_and_no_socket(
    pytester: pytest.Pytester, llm: ScriptedServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name, value in SESSION.items():
        monkeypatch.setenv(name, value)
    count = range(len(CHECKS))
    pytester.makepyfile(
        lib="\n\n".join(f"def f{n}(x):\n    return x + 1\n" for n in count),
        test_env="import lib\n\n\n"
        + "\n\n".join(f"def test_{n}():\n    assert lib.f{n}(1) == 1\n" for n in count),
    )
    fixes = [candidate(f"f{n}(x)", "x", "x + 1", check) for n, check in enumerate(CHECKS)]

    def respond(body: dict[str, Any]) -> Scripted:
        prompt = str(body["messages"][1]["content"])
        n = int(prompt.split("::test_", 1)[1].split("`", 1)[0])
        return tool_call("a fix", [{"path": "lib.py", "function": f"f{n}", "code": fixes[n]}])

    llm.responder = respond

    result = pytester.runpytest(*heal_args(llm), "--heal-attempts", "1")

    for n, name in enumerate(LEAKS):
        assert f"NOT HEALED test_env.py::test_{n}" in result.stdout.str(), name
    result.stdout.fnmatch_lines([f"HEALED test_env.py::test_{len(LEAKS)}"])
    assert leaked(str(llm.requests)) == []


def project(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    git(root, "init", "-q")
    git(root, "add", ".")
    git(root, "commit", "-qm", "start")
    return root


def environment(**more: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("CARETAKER_")}
    env.update({**SESSION, "PYTHONDONTWRITEBYTECODE": "1", "CARETAKER_MODEL_KEEP": "0", **more})
    return env


def conversation(server: ScriptedServer, path: str, function: str, codes: list[str]) -> None:
    server.script(
        *(tool_call("Try this.", [{"path": path, "function": function, "code": c}]) for c in codes)
    )


def test_caretaker_run_candidates_see_no_secret_and_no_socket(tmp_path: Path) -> None:
    lib = "def ratio(x):\n    return 1 / (x - 1)\n"
    project(tmp_path, {"lib.py": lib, "main.py": "import lib\n\nassert lib.ratio(1) == 1\n"})
    codes = [candidate("ratio(x)", "1", "1 / (x - 1)", check) for check in CHECKS]
    with ScriptedServer().start() as server:
        conversation(server, "lib.py", "ratio", codes)
        done = subprocess.run(
            [
                *(PYTHON, "-m", "pytest_caretaker", "run", "--model", "openai/gpt-4o-mini"),
                *("--api-base", server.base_url, "--attempts", str(len(codes)), "--no-tests"),
                *("--", PYTHON, "main.py"),
            ],
            cwd=tmp_path,
            env=environment(),
            capture_output=True,
            text=True,
            timeout=300,
        )
    assert "HEALED python main.py" in done.stdout.splitlines(), done.stdout + done.stderr
    assert len(server.requests) == len(codes)  # healed by the control, and by no leak before it
    assert leaked(str(server.requests)) == []


INVOICE = """\
from pytest_caretaker.runtime import heal


@heal(id="invoice-total")
def total(amount, kind):
    return {"standard": 100.0}[kind]
"""


def test_runtime_replays_see_no_secret_and_no_socket(tmp_path: Path) -> None:
    project(
        tmp_path,
        {
            "pyproject.toml": "[project]\nname = 'shop'\n\n[tool.pytest.ini_options]\n"
            f"heal_attempts = {len(CHECKS)}\n",
            "app/__init__.py": "",
            "app/invoice.py": INVOICE,
            # A good call before the crash: a runtime fix with nothing else to prove it is
            # UNSURE and never swapped in (runtime/proof.py).
            "main.py": "from app.invoice import total\n\n"
            "print(total(100, 'standard'))\nprint(total(100, 'zero'))\n",
        },
    )
    codes = [candidate("total(amount, kind)", "100.0", "{}[kind]", c) for c in CHECKS]
    with ScriptedServer().start() as server:
        conversation(server, "app/invoice.py", "total", codes)
        done = subprocess.run(
            [PYTHON, "main.py"],
            cwd=tmp_path,
            env=environment(
                CARETAKER_RUNTIME="heal",
                CARETAKER_MODEL="openai/gpt-4o-mini",
                CARETAKER_API_BASE=server.base_url,
            ),
            capture_output=True,
            text=True,
            timeout=300,
        )
    assert done.returncode == 0, done.stderr
    assert done.stdout == "100.0\n100.0\n"
    assert len(server.requests) == len(codes)  # healed by the control, and by no leak before it
    assert leaked(str(server.requests)) == []


def test_a_worker_flag_left_in_the_users_shell_does_not_turn_healing_off(
    pytester: pytest.Pytester, llm: ScriptedServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CARETAKER_WORKER", "1")
    pytester.makepyfile(calc=CALC, test_calc=TEST_CALC)
    fix = {"path": "calc.py", "function": "mean", "code": GOOD_MEAN}
    llm.script(tool_call("Divide by the count.", [fix]))

    result = pytester.runpytest(*heal_args(llm))

    result.stdout.fnmatch_lines(["HEALED test_calc.py::test_mean", "caretaker: 1 healed*"])
