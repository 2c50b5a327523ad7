"""`caretaker run -- COMMAND` end to end: real processes, real git, the scripted server. The runs
that ask a model are forked from a process that imported litellm once (helpers.WarmCaretaker)."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from helpers import WarmCaretaker, git, last_run, snapshot

from pytest_caretaker.testing import ScriptedServer, tool_call

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "script"
PYTHON = sys.executable
SHOP = """\
def average(prices):
    if len(prices) >= 0:
        return sum(prices) / len(prices)
    return 0.0


print(average([]))
"""
PRICES = """\
def unit_price(total, count):
    return total / (count - 1)
"""
MAIN = """\
from shop.prices import unit_price

print(unit_price(10, 1))
"""
GOOD_PRICE = "def unit_price(total, count):\n    return total / count\n"
BAD_PRICE = "def unit_price(total, count):\n    return 1.0\n"
TEST_PRICES = """\
from shop.prices import unit_price


def test_unit_price():
    assert unit_price(0, 5) == 0
"""


def project(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    git(root, "init", "-q")
    git(root, "add", ".")
    git(root, "commit", "-qm", "start")
    return root


def caretaker(
    cwd: Path, *args: str, warm: WarmCaretaker | None = None
) -> subprocess.CompletedProcess[str]:
    """``caretaker run ARGS`` in cwd; forked from warm (litellm imported) when given: the tests
    that ask a model, whose own import of litellm would cost more than their heal."""
    if warm is not None:
        return warm.run(cwd, ["run", *args])
    command = [PYTHON, "-m", "pytest_caretaker", "run", *args]
    return subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=300)


def test_a_passing_command_is_said_to_pass(tmp_path: Path) -> None:
    project(tmp_path, {"ok.py": "print('fine')\n"})

    done = caretaker(tmp_path, "--", PYTHON, "ok.py")

    assert done.returncode == 0, done.stderr
    assert done.stdout == "caretaker: python ok.py passed\n"
    data = last_run(tmp_path)  # nothing healed: CI never reads an earlier session's results
    assert data["source"] == "run" and data["problems"] == [] and data["notes"] == []
    assert git(tmp_path, "status", "--porcelain") == ""


def test_a_crashing_script_is_healed_in_memory_by_the_builtin_repairer(tmp_path: Path) -> None:
    project(tmp_path, {"shop.py": SHOP})
    before = snapshot(tmp_path)

    done = caretaker(tmp_path, "--", PYTHON, "shop.py")  # the sandbox where available

    assert done.returncode == 1, done.stderr  # the script's status, as the files are
    lines = done.stdout.splitlines()
    assert "ZeroDivisionError: division by zero" in lines
    assert "HEALED python shop.py" in lines
    assert "  +    if len(prices) > 0:" in lines
    assert lines[-1] == (
        "caretaker: 1 healed, 0 not healed · no tokens spent · fixes in .caretaker/heal.patch"
    )
    assert snapshot(tmp_path) == before
    assert git(tmp_path, "status", "--porcelain") == ""  # .caretaker/ ignores itself
    (transcript,) = (tmp_path / ".caretaker" / "transcripts").glob("*/*.md")
    assert "ZeroDivisionError" in transcript.read_text(encoding="utf-8")
    (problem,) = last_run(tmp_path)["problems"]
    assert problem["tests"] == [{"id": "python shop.py", "outcome": "healed"}]
    assert problem["repairer"] == "builtin" and problem["commit"] is None
    assert "+    if len(prices) > 0:" in problem["files"][0]["hunks"][0].splitlines()
    git(tmp_path, "apply", ".caretaker/heal.patch")
    assert subprocess.run([PYTHON, "shop.py"], cwd=tmp_path).returncode == 0


def test_write_commits_the_fix_and_exits_with_the_fixed_scripts_status(tmp_path: Path) -> None:
    project(tmp_path, {"shop.py": SHOP})

    done = caretaker(tmp_path, "--write", "--sandbox", "off", "--", PYTHON, "shop.py")

    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 fix written, 1 committed" in done.stdout
    assert done.stdout.splitlines()[-2:] == [
        "0.0",
        "caretaker: python shop.py exits with status 0 after the fix",
    ]
    assert git(tmp_path, "log", "--format=%s").splitlines() == [
        "fix: heal python shop.py",
        "start",
    ]
    assert git(tmp_path, "status", "--porcelain") == ""
    assert "if len(prices) > 0:" in (tmp_path / "shop.py").read_text(encoding="utf-8")


TWO_CRASHES = """\
def mean(values):
    if len(values) >= 0:
        return sum(values) / len(values)
    return 0.0


def ratio(part, whole):
    return part / whole if whole >= 0 else 0.0


print(mean([]))
print(ratio(1, 0))
"""


def test_a_script_crashing_twice_is_fixed_crash_after_crash_one_commit_each(
    tmp_path: Path,
) -> None:
    project(tmp_path, {"stats.py": TWO_CRASHES})
    start = git(tmp_path, "rev-parse", "HEAD").strip()

    done = caretaker(tmp_path, "--write", "--", PYTHON, "stats.py")

    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert "HEALED python stats.py" in lines and "HEALED python stats.py (2)" in lines
    # The second fix is ratio's: undoing the first (the crash back in mean) is no progress.
    assert "  patched stats.py::mean" in lines and "  patched stats.py::ratio" in lines
    assert lines[-3:] == [
        "0.0",
        "0.0",
        "caretaker: python stats.py exits with status 0 after the 2 fixes",
    ]
    assert len(git(tmp_path, "rev-list", f"{start}..HEAD").split()) == 2


def test_a_model_sees_the_locals_of_the_next_crash_too(
    tmp_path: Path, warm_caretaker: WarmCaretaker
) -> None:
    project(tmp_path, {"stats.py": TWO_CRASHES})
    mean = "def mean(values):\n    return sum(values) / len(values) if values else 0.0\n"
    ratio = "def ratio(part, whole):\n    return part / whole if whole else 0.0\n"
    with ScriptedServer().start() as server:
        server.script(
            tool_call("Empty input.", [{"path": "stats.py", "function": "mean", "code": mean}]),
            tool_call("Zero whole.", [{"path": "stats.py", "function": "ratio", "code": ratio}]),
        )
        done = caretaker(
            tmp_path,
            *("--model", "openai/gpt-4o-mini", "--api-base", server.base_url),
            *("--", PYTHON, "stats.py"),
            warm=warm_caretaker,
        )
    assert "caretaker: 2 healed, 0 not healed" in done.stdout, done.stdout + done.stderr
    first, second = (request["messages"][1]["content"] for request in server.requests)
    assert "- values = []" in first
    # The second crash happened in a run with the first fix, in child.py: recorded there.
    assert "- part = 1" in second and "- whole = 0" in second
    git(tmp_path, "apply", ".caretaker/heal.patch")
    assert subprocess.run([PYTHON, "stats.py"], cwd=tmp_path).returncode == 0


def test_a_module_run_with_dash_m_is_healed_in_memory(tmp_path: Path) -> None:
    files = {"shop/__init__.py": "", "shop/__main__.py": MAIN, "shop/prices.py": PRICES}
    project(tmp_path, files)

    done = caretaker(tmp_path, "--sandbox", "off", "--", PYTHON, "-m", "shop")

    assert done.returncode == 1, done.stderr
    assert "HEALED python -m shop" in done.stdout
    assert "  patched shop/prices.py::unit_price" in done.stdout
    git(tmp_path, "apply", ".caretaker/heal.patch")
    assert subprocess.run([PYTHON, "-m", "shop"], cwd=tmp_path).returncode == 0


def test_a_model_heals_a_crash_in_an_imported_module(
    tmp_path: Path, warm_caretaker: WarmCaretaker
) -> None:
    prices = PRICES.replace("):\n", "):\n    token = 'tok-4f9a8b7c6d5e3a2b'\n", 1)
    files = {"main.py": MAIN, "shop/__init__.py": "", "shop/prices.py": prices}
    project(tmp_path, files)
    before = snapshot(tmp_path)
    with ScriptedServer().start() as server:
        edit = {"path": "shop/prices.py", "function": "unit_price", "code": GOOD_PRICE}
        server.script(tool_call("count - 1 is zero for one item.", [edit]))
        done = caretaker(
            tmp_path,
            *("--model", "openai/gpt-4o-mini", "--api-base", server.base_url),
            *("--sandbox", "off", "--", PYTHON, "main.py"),
            warm=warm_caretaker,
        )
    assert done.returncode == 1, done.stderr
    assert "HEALED python main.py" in done.stdout.splitlines()
    assert "  count - 1 is zero for one item." in done.stdout
    assert "1 attempt · 150 tokens" in done.stdout
    (request,) = server.requests
    prompt = request["messages"][1]["content"]
    assert "division by zero" in prompt and "return total / (count - 1)" in prompt
    assert prompt.startswith("The command `python main.py` crashed.")
    # The hook's record: the innermost frame's locals, the secret one redacted.
    assert "- count = 1" in prompt and "- total = 10" in prompt
    assert "tok-4f9a8b7c6d5e3a2b" not in str(request)
    assert snapshot(tmp_path) == before
    git(tmp_path, "apply", ".caretaker/heal.patch")
    assert subprocess.run([PYTHON, "main.py"], cwd=tmp_path).returncode == 0


def test_a_fix_that_breaks_a_project_test_is_rejected_with_that_reason(
    tmp_path: Path, warm_caretaker: WarmCaretaker
) -> None:
    files = {
        "main.py": MAIN,
        "shop/__init__.py": "",
        "shop/prices.py": PRICES,
        "test_prices.py": TEST_PRICES.replace("10, 2) == 5", "9, 4) == 3"),
    }
    project(tmp_path, files)
    with ScriptedServer().start() as server:
        bad = {"path": "shop/prices.py", "function": "unit_price", "code": BAD_PRICE}
        good = {"path": "shop/prices.py", "function": "unit_price", "code": GOOD_PRICE}
        server.script(tool_call("Return a constant.", [bad]), tool_call("Divide.", [good]))
        done = caretaker(
            tmp_path,
            *("--model", "openai/gpt-4o-mini", "--api-base", server.base_url),
            *("--sandbox", "off", "--", PYTHON, "main.py"),
            warm=warm_caretaker,
        )
    # unit_price(0, 5) == 0 passes with the bug and with the fix, not with the constant.
    assert done.returncode == 1, done.stderr
    assert "HEALED python main.py" in done.stdout.splitlines()
    assert "2 attempts" in done.stdout
    second = str(server.requests[1]["messages"])
    assert "the command passes but the fix broke test_prices.py::test_unit_price" in second


def test_a_passing_command_imports_nothing_heavy(tmp_path: Path) -> None:
    # What it costs in time is benchmarks/run_overhead.py's to measure (about 0.1 s here).
    project(tmp_path, {"ok.py": "print('fine')\n"})
    heavy = ("litellm", "libcst", "git", "jinja2", "pytest", "pytest_caretaker.run.repair")
    code = (
        "import sys\n"
        "from pytest_caretaker.cli import main\n"
        f"status = main(['run', '--', {PYTHON!r}, 'ok.py'])\n"
        f"print('HEAVY:', sorted(m for m in {heavy!r} if m in sys.modules))\n"
        "sys.exit(status)\n"
    )

    done = subprocess.run([PYTHON, "-c", code], cwd=tmp_path, capture_output=True, text=True)

    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-2:] == ["caretaker: python ok.py passed", "HEAVY: []"]


def test_an_exit_without_a_traceback_is_not_healed_and_keeps_its_status(tmp_path: Path) -> None:
    project(tmp_path, {"lint.py": "import sys\n\nprint('2 problems')\nsys.exit(3)\n"})

    done = caretaker(tmp_path, "--", PYTHON, "lint.py")

    assert done.returncode == 3
    assert done.stdout.splitlines() == [
        "2 problems",
        "caretaker: python lint.py failed (exit status 3); it printed no Python traceback, "
        "so there is nothing to heal",
    ]
    data = last_run(tmp_path)
    assert data["problems"] == [] and data["notes"] == done.stdout.splitlines()[1:]


def test_ctrl_c_stops_the_command_in_one_line(tmp_path: Path) -> None:
    script = "import os, pathlib, time\n\npathlib.Path('started').write_text(str(os.getpid()))\n"
    script += "time.sleep(60)\n"
    project(tmp_path, {"wait.py": script})
    command = [PYTHON, "-m", "pytest_caretaker", "run", "--", PYTHON, "wait.py"]
    process = subprocess.Popen(
        command, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    marker = tmp_path / "started"
    deadline = time.monotonic() + 30
    while not (marker.exists() and marker.read_text()) and time.monotonic() < deadline:
        time.sleep(0.05)
    process.send_signal(signal.SIGINT)
    stdout, stderr = process.communicate(timeout=30)

    assert process.returncode == 130
    assert stdout == b""
    assert stderr.decode().splitlines() == ["caretaker: interrupted (Ctrl-C); nothing was written"]
    assert not (tmp_path / ".caretaker").exists()
    with pytest.raises(ProcessLookupError):  # the command was stopped with it
        os.kill(int(marker.read_text()), 0)


def test_ctrl_c_while_healing_keeps_the_fixes_written_before_it(tmp_path: Path) -> None:
    # The project's test turns slow once the first fix is on disk: Ctrl-C comes while the
    # second crash's candidates are checked.
    slow_test = (
        "import os, pathlib, time\n\n\ndef test_slow():\n"
        "    if 'len(values) > 0' in pathlib.Path('stats.py').read_text():\n"
        "        pathlib.Path(os.environ['MARKER']).write_text('x')\n"
        "        time.sleep(60)\n"
    )
    project(tmp_path, {"stats.py": TWO_CRASHES, "test_slow.py": slow_test})
    marker = tmp_path.parent / "second-crash"
    command = [PYTHON, "-m", "pytest_caretaker", "run", "--write", "--sandbox", "off"]
    process = subprocess.Popen(
        [*command, "--", PYTHON, "stats.py"],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, "MARKER": str(marker)},
    )
    deadline = time.monotonic() + 120
    while not marker.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    process.send_signal(signal.SIGINT)
    stdout, stderr = process.communicate(timeout=60)

    assert process.returncode == 130, stderr
    last = stderr.decode().splitlines()[-1]
    assert last == "caretaker: interrupted (Ctrl-C); 1 fix written before it"
    assert "HEALED python stats.py" in stdout.decode().splitlines()  # the summary of it
    assert git(tmp_path, "log", "--format=%s").splitlines() == [
        "fix: heal python stats.py",
        "start",
    ]
    assert git(tmp_path, "status", "--porcelain", "--untracked-files=no") == ""


def test_a_missing_command_is_one_line(tmp_path: Path) -> None:
    done = caretaker(tmp_path, "--", "caretaker-no-such-command", "x")

    assert done.returncode == 127
    assert done.stdout == ""
    assert done.stderr == "caretaker: command not found: caretaker-no-such-command\n"


def test_a_hanging_command_is_stopped_after_the_timeout(tmp_path: Path) -> None:
    project(tmp_path, {"wait.py": "import time\n\ntime.sleep(60)\n"})
    started = time.monotonic()

    done = caretaker(tmp_path, "--timeout", "1", "--", PYTHON, "wait.py")

    assert time.monotonic() - started < 30
    assert done.returncode == 124
    assert done.stderr.splitlines() == [
        "caretaker: python wait.py did not finish in 1 s and was stopped (--timeout); "
        "nothing was healed"
    ]
    assert snapshot(tmp_path) == {"wait.py": snapshot(tmp_path)["wait.py"]}


SYSTEM_PYTHON = "/usr/bin/python3"


def _without_caretaker(python: str) -> bool:
    if not Path(python).exists():
        return False
    probe = [python, "-I", "-c", "import pytest_caretaker"]
    return subprocess.run(probe, capture_output=True).returncode != 0


@pytest.mark.parametrize(
    "python",
    [
        pytest.param(PYTHON, id="caretakers-interpreter"),
        pytest.param(
            SYSTEM_PYTHON,
            id="an-interpreter-without-caretaker",
            marks=pytest.mark.skipif(
                not _without_caretaker(SYSTEM_PYTHON),
                reason=f"no {SYSTEM_PYTHON} without caretaker",
            ),
        ),
    ],
)
def test_the_script_example_is_healed_as_its_readme_says(tmp_path: Path, python: str) -> None:
    root = tmp_path / "script"
    shutil.copytree(EXAMPLE, root)
    project(root, {})
    readme = (EXAMPLE / "README.md").read_text(encoding="utf-8")
    # The system's interpreter has no caretaker: the kit goes with it (run/kit.py), sandboxed.
    sandbox = "off" if python == PYTHON else "auto"

    done = caretaker(root, "--sandbox", sandbox, "--", python, "report.py")

    assert done.returncode == 1, done.stderr
    name = Path(python).name
    for line in (
        "HEALED python report.py",
        "  +    if len(ratings) > 0:",
        done.stdout.splitlines()[-1],
    ):
        assert line.replace("python ", f"{name} ") in done.stdout.splitlines(), done.stdout
        assert line in readme
    git(root, "apply", ".caretaker/heal.patch")
    fixed = subprocess.run([python, "report.py"], cwd=root, capture_output=True, text=True)
    assert fixed.returncode == 0 and "blender    0.00" in fixed.stdout


def test_the_script_example_runs_from_its_own_folder_in_the_checkout(tmp_path: Path) -> None:
    # As a reader of the checkout runs it (#46): the checkout above is a project of its own.
    checkout = project(tmp_path, {"pyproject.toml": '[project]\nname = "checkout"\n'})
    root = checkout / "examples" / "script"
    shutil.copytree(EXAMPLE, root)
    git(checkout, "add", ".")
    git(checkout, "commit", "-qm", "the examples")

    done = caretaker(root, "--sandbox", "off", "--", PYTHON, "report.py")

    assert "HEALED python report.py" in done.stdout.splitlines(), done.stdout + done.stderr
    assert (root / ".caretaker" / "heal.patch").is_file()
    assert not (checkout / ".caretaker").exists()


def test_the_projects_session_token_cap_stops_the_model(
    tmp_path: Path, warm_caretaker: WarmCaretaker
) -> None:
    files = {"main.py": MAIN, "shop/__init__.py": "", "shop/prices.py": PRICES}
    files["test_prices.py"] = TEST_PRICES  # the constant the model sends fails it
    files["pyproject.toml"] = "[tool.pytest.ini_options]\nheal_session_tokens = 1000\n"
    project(tmp_path, files)
    with ScriptedServer().start() as server:
        bad = {"path": "shop/prices.py", "function": "unit_price", "code": BAD_PRICE}
        server.script(tool_call("Return a constant.", [bad], prompt_tokens=1200))
        done = caretaker(
            tmp_path,
            *("--model", "openai/gpt-4o-mini", "--api-base", server.base_url),
            *("--sandbox", "off", "--", PYTHON, "main.py"),
            warm=warm_caretaker,
        )
    # The first request spends 1,250 tokens: over the project's cap, no second one is made.
    assert len(server.requests) == 1, done.stdout
    assert "the session used 1,250 tokens, the cap is 1,000" in done.stdout, done.stdout


QUICKSTART = Path(__file__).resolve().parents[2] / "examples" / "quickstart"


def test_caretaker_run_pytest_heals_what_pytest_heal_heals(tmp_path: Path) -> None:
    # (python -m pytest is recognised too: tests/unit/test_run_command.py)
    for name in ("textstats.py", "test_textstats.py"):
        shutil.copy(QUICKSTART / name, tmp_path / name)
    pytest_command = [str(Path(PYTHON).parent / "pytest")]
    quiet = ["-q", "-p", "no:cacheprovider"]
    direct = subprocess.run(
        [*pytest_command, *quiet, "--heal"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    through = caretaker(tmp_path, "--sandbox", "auto", "--", *pytest_command, *quiet)

    def healed(out: str) -> list[str]:
        return [line for line in out.splitlines() if line.startswith(("HEALED", "NOT HEALED"))]

    assert healed(direct.stdout) == [
        "HEALED test_textstats.py::test_moving_average → textstats.py::moving_average"
    ], direct.stdout
    assert healed(through.stdout) == healed(direct.stdout), through.stdout + through.stderr
    assert through.returncode == direct.returncode == 1
    assert "caretaker: pytest heals itself: " in through.stderr
    assert "--heal --heal-sandbox auto" in through.stderr


def test_caretaker_run_pytest_refuses_what_pytest_has_not(tmp_path: Path) -> None:
    done = caretaker(tmp_path, "--iterations", "2", "--", PYTHON, "-m", "pytest")

    assert done.returncode == 2
    assert done.stderr == "caretaker: --iterations is caretaker run's own; pytest --heal has none\n"


def test_a_hanging_project_test_is_named_and_the_others_still_check_the_fix(
    tmp_path: Path,
) -> None:
    # Eight tests pass, the ninth loops: the fix is checked against the eight, and the one that
    # hung is named, after its own limit rather than the whole run's --timeout.
    passing = "".join(
        f"\n\ndef test_unit_price_{n}():\n    assert unit_price(0, {n + 2}) == 0\n"
        for n in range(8)
    )
    hangs = "\n\ndef test_forever():\n    while True:\n        pass\n"
    files = {
        "main.py": MAIN,
        "shop/__init__.py": "",
        "shop/prices.py": PRICES,
        "test_prices.py": "from shop.prices import unit_price\n" + passing + hangs,
    }
    project(tmp_path, files)

    done = caretaker(tmp_path, "--", PYTHON, "main.py")

    assert "HEALED python main.py" in done.stdout.splitlines(), done.stdout + done.stderr
    assert "the project's 8 passing tests still pass" in done.stdout
    assert "no passing tests" not in done.stdout
    assert (
        "caretaker: test_prices.py::test_forever: the test did not finish within 10 s"
    ) in done.stdout
    said = "in the run of the project's tests before any fix; fixes are checked against the 8 tests"
    assert said in done.stdout
