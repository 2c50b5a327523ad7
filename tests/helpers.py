"""Helpers shared by the tests of the three layers."""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from importlib.metadata import version
from pathlib import Path
from typing import Any

from pytest_caretaker.ci.last_run import SCHEMA_FILE
from pytest_caretaker.testing import Scripted, ScriptedServer
from pytest_caretaker.verify.runner import Outcome, RunResult

#: The end-to-end tests' usual project: mean() divides by one too many; test_total passes.
CALC = """\
def total(xs):
    result = 0
    for x in xs:
        result += x
    return result


def mean(xs):
    return total(xs) / (len(xs) + 1)
"""
TEST_CALC = """\
from calc import mean, total


def test_total():
    assert total([1, 2, 3]) == 6


def test_mean():
    assert mean([1, 2, 3]) == 2
"""
GOOD_MEAN = "def mean(xs):\n    return total(xs) / len(xs)\n"

#: What the header says of where the model process runs: from this suite's environment.
HERE = f"litellm {version('litellm')}, the test environment"
TEST_ENV = f"({HERE})"
TOOLS_MODEL = "openai/gpt-4o-mini"  # litellm knows it supports tool calling
TEXT_MODEL = "openai/caretaker-scripted-text"  # unknown to litellm: the plain-text format


def heal_args(server: ScriptedServer, model: str = TOOLS_MODEL, *more: str) -> list[str]:
    return ["--heal", "--heal-model", model, "--heal-api-base", server.base_url, *more]


def run_in_terminal(
    cwd: Path,
    args: Sequence[str],
    answers: Sequence[bytes] = (),
    prompt: bytes = b"q(uit) [n] ",
    timeout: float = 120.0,
) -> str:
    """Run pytest as a person at a terminal does: a pseudo-terminal as its stdin, stdout and
    stderr, no CI variable set. Each answer is typed once the prompt has been asked once more.
    The output, with the terminal's line ends as \\n (a redrawn line keeps its \\r)."""
    import pty
    import select

    from pytest_caretaker.settings import CI_VARIABLES

    env = {k: v for k, v in os.environ.items() if k not in CI_VARIABLES and k != "PYTEST_ADDOPTS"}
    main, child = pty.openpty()
    process = subprocess.Popen(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *args],
        cwd=cwd,
        stdin=child,
        stdout=child,
        stderr=child,
        env=env,
        close_fds=True,
    )
    os.close(child)
    output, pending = b"", list(answers)
    try:
        while True:
            ready, _, _ = select.select([main], [], [], timeout)
            if not ready:
                raise AssertionError(f"no output for {timeout:g} s; so far:\n{output.decode()}")
            try:
                chunk = os.read(main, 4096)
            except OSError:  # EIO: the child closed the terminal
                break
            if not chunk:
                break
            output += chunk
            if pending and output.count(prompt) > len(answers) - len(pending):
                os.write(main, pending.pop(0))
    finally:
        os.close(main)
        process.wait(timeout=timeout)
    return output.decode("utf-8", "replace").replace("\r\n", "\n")


_STOPPED = re.compile(
    r"the test did not finish within (?P<seconds>[\d.]+) s(?P<how> \(does the code loop forever\?\)"
    r"|, (?:waiting for a processor|running for) [\d.e-]+ s of them \(a busy machine[^)]*\))"
)


def stopped_at(text: str, seconds: float) -> bool:
    """Whether text says a test was stopped at its limit of seconds (timer.hung): as a loop; on a
    busy machine, having waited for a processor; or, so stopped, again with three times the limit
    (patience.py, a trial's run again). Which of them depends on the machine's load."""
    for said in _STOPPED.finditer(text):
        limit = float(said["seconds"])
        if f"{limit:.3g}" in (f"{seconds:.3g}", f"{3 * seconds:.3g}"):
            return True
    return False


def git(cwd: Path, *args: str) -> str:
    """Run git in cwd as a test user; its output. Raises when git fails."""
    done = subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout


def snapshot(root: Path) -> dict[str, str]:
    """SHA-256 of every file under root but pytest's caches and caretaker's output folder."""
    skipped = {"__pycache__", ".pytest_cache", ".caretaker", ".git"}
    return {
        path.relative_to(root).as_posix(): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(root.rglob("*"))
        if path.is_file() and not skipped.intersection(path.relative_to(root).parts)
    }


def by_test(replies: dict[str, list[Scripted]]) -> Callable[[dict[str, Any]], Scripted]:
    """A responder that plays each test's replies in order to the requests about that test (its
    id opens the prompt), so that concurrent repairs get the replies meant for them."""
    queues = {nodeid: list(scripted) for nodeid, scripted in replies.items()}

    def respond(body: dict[str, Any]) -> Scripted:
        found = re.match(r"The test `([^`]+)` fails", str(body["messages"][1]["content"]))
        assert found is not None and found.group(1) in queues, found
        queue = queues[found.group(1)]
        return queue.pop(0) if len(queue) > 1 else queue[0]

    return respond


def models_table(text: str) -> dict[str, list[str]]:
    """The table ``pytest --heal-models`` prints, by model: the cells after the model's name
    (tools, context, $/M in, $/M out, from)."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("model "))
    assert re.split(r"\s{2,}", lines[start]) == [
        *("model", "tools", "context", "$/M in", "$/M out", "from")
    ]
    rows = {}
    for line in lines[start + 1 :]:
        if not line.strip():
            break
        cells = re.split(r"\s{2,}", line.strip())
        rows[cells[0]] = cells[1:]
    return rows


#: A HEALED line by default or under -q (``HEALED id → file::function``).
_HEALED = re.compile(r"^HEALED (\S.*?)(?: → \S.*?)?(?: \(from cache\))?$")
_NOT_HEALED = re.compile(r"^NOT HEALED (.+?): ")
_OUTCOME = re.compile(r"^(PASSED|FAILED|ERROR|XPASS|XFAIL|SKIPPED) (\S+)")


def healed_ids(lines: list[str]) -> set[str]:
    """The test ids a caretaker summary reported HEALED."""
    return {m.group(1) for line in lines if (m := _HEALED.match(line))}


def not_healed_ids(lines: list[str]) -> set[str]:
    """The test ids a caretaker summary reported NOT HEALED."""
    return {m.group(1) for line in lines if (m := _NOT_HEALED.match(line))}


def outcomes_of(root: Path, args: Sequence[str] = ()) -> dict[str, str]:
    """Each test's outcome in a plain pytest run of root (no caretaker), by id. The plugins the
    suite's runs go without are named here, not left to PYTEST_ADDOPTS: a patch is judged when
    the test ends, after pytester has undone the environment (hypothesis' plugin alone then took
    1.3 s of the run's 2 s)."""
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-rA",
            "-q",
            "-p",
            "no:caretaker",
            "-p",
            "no:cacheprovider",
            "-p",
            "no:hypothesispytest",
            "-p",
            "no:anyio",
            *args,
        ],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=300,
    )
    return {
        m.group(2): m.group(1) for line in done.stdout.splitlines() if (m := _OUTCOME.match(line))
    }


def copy_project(root: Path) -> Path:
    """A copy of the project as it is now, its .caretaker/heal.patch beside it (``.patch``), for
    assert_patch_delivers to judge later, whatever the test does to the project meanwhile."""
    number = 1
    while (copy := root.parent / f"{root.name}-patched-{number}").exists():
        number += 1
    skipped = shutil.ignore_patterns(".caretaker", "__pycache__", ".pytest_cache", ".git")
    shutil.copytree(root, copy, ignore=skipped)
    shutil.copy(root / ".caretaker" / "heal.patch", copy.with_suffix(".patch"))
    return copy


def assert_patch_delivers(
    copy: Path,
    lines: list[str],
    args: Sequence[str] = (),
    root: Path | None = None,
    passed: set[str] | None = None,
) -> None:
    """On a copy of the project (copy_project): after ``git apply`` of its patch every test the
    summary reported HEALED passes, every test that passed before still passes, and none reported
    NOT HEALED passes: the summary neither claims nor under-reports what the patch does (#21).
    args are the plain runs' (root's paths among them lead into the copy); passed, the tests
    that passed in the heal run itself (seen by a plugin of the test's, not caretaker's), spares
    the plain run before the patch."""
    healed = healed_ids(lines)
    assert healed, "the summary reported nothing HEALED"
    if root is not None:
        args = [arg.replace(str(root), str(copy)) for arg in args]
    before = outcomes_of(copy, args) if passed is None else dict.fromkeys(passed, "PASSED")
    patch = copy.with_suffix(".patch")
    subprocess.run(["git", "apply", str(patch)], cwd=copy, check=True, capture_output=True)
    after = outcomes_of(copy, args)
    assert {n: after.get(n) for n in healed if after.get(n) != "PASSED"} == {}
    broke = {n for n, o in before.items() if o == "PASSED" and after.get(n) != "PASSED"}
    assert broke == set()
    assert {n for n in not_healed_ids(lines) if after.get(n) == "PASSED"} == set()


def last_run(root: Path) -> dict[str, Any]:
    """root's .caretaker/last-run.json, validated against the JSON Schema the package ships."""
    import jsonschema

    data = json.loads((root / ".caretaker" / "last-run.json").read_text(encoding="utf-8"))
    schema = json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator(schema).validate(data)
    return dict(data)


@dataclass
class Recorded:
    """Runs nothing: every test passes but those named in fails; each run's ids are kept."""

    fails: set[str] = field(default_factory=set)
    runs: list[list[str]] = field(default_factory=list)
    root: Path = Path("/nowhere")

    def run(
        self,
        nodeids: Sequence[str],
        patches: Mapping[str, bytes] | None = None,
        trace: bool = False,
        timeout: float | None = None,
    ) -> RunResult:
        self.runs.append(list(nodeids))
        outcomes = {n: Outcome("failed" if n in self.fails else "passed") for n in nodeids}
        return RunResult(outcomes, {})


_WARM_CARETAKER = """\
import json, os, sys, traceback
from pytest_caretaker.llm import warmup
import pytest_caretaker.cli
warmup.warm(sys.argv[1:])
for line in sys.stdin:
    job = json.loads(line)
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:
        os.chdir(job["cwd"])
        os.environ.clear()
        os.environ.update(job["env"])
        os.dup2(os.open(os.devnull, os.O_RDONLY), 0)
        for fd, name in ((1, "out"), (2, "err")):
            os.dup2(os.open(job[name], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), fd)
        sys.argv = [pytest_caretaker.cli.__file__, *job["args"]]
        try:
            status = pytest_caretaker.cli.main(job["args"])
        except SystemExit as exit:
            code = exit.code
            status = code if isinstance(code, int) else 0 if code is None else 1
            if not isinstance(code, int) and code is not None:
                print(code, file=sys.stderr)
        except BaseException:
            traceback.print_exc()
            status = 1
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(status)
    _, waited = os.waitpid(pid, 0)
    print(os.waitstatus_to_exitcode(waited), flush=True)
"""


class WarmCaretaker:
    """``python -m pytest_caretaker ARGS`` as a process of its own, started warm: each run is a
    fork of one interpreter that has imported caretaker and litellm and made litellm's first
    request (warmup.warm, refused at a closed port) once. A ``caretaker run --model`` started
    cold imports litellm in its own process and pays ~8 s of CPU for that and the HTTP stack of
    its first request, more than the whole heal; the import is no part of what the tests
    claim (test_llm_client.py and test_model_process.py test it). The forked run has the
    caller's working folder, environment, arguments, and its own stdout and stderr."""

    def __init__(
        self, folder: Path, env: Mapping[str, str], models: Sequence[str] = (TOOLS_MODEL,)
    ) -> None:
        self._folder = folder
        self._runs = 0
        # Nothing in it runs a thread when it forks (litellm's import and request start none).
        # A process group of its own: a run that hangs is ended with it (close).
        self._process = subprocess.Popen(
            [sys.executable, "-c", _WARM_CARETAKER, *models],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env=dict(env),
            start_new_session=True,
        )

    def run(
        self, cwd: Path, args: Sequence[str], env: Mapping[str, str] | None = None
    ) -> subprocess.CompletedProcess[str]:
        """What subprocess.run of ``python -m pytest_caretaker *args`` would give (text), with
        its limit of 300 s."""
        import select

        assert self._process.stdin is not None and self._process.stdout is not None
        self._runs += 1
        out = self._folder / f"run-{self._runs}.out"
        err = self._folder / f"run-{self._runs}.err"
        job = {
            "cwd": str(cwd),
            "env": dict(os.environ if env is None else env),
            "args": list(args),
            "out": str(out),
            "err": str(err),
        }
        self._process.stdin.write(json.dumps(job) + "\n")
        self._process.stdin.flush()
        if not select.select([self._process.stdout], [], [], 300)[0]:
            self.close()
            raise AssertionError(f"caretaker {' '.join(args)} did not end within 300 s")
        status = self._process.stdout.readline()
        assert status, "the warm caretaker process ended"
        return subprocess.CompletedProcess(
            [sys.executable, "-m", "pytest_caretaker", *args],
            int(status),
            out.read_text(encoding="utf-8"),
            err.read_text(encoding="utf-8"),
        )

    def close(self) -> None:
        if self._process.stdin is not None:
            self._process.stdin.close()
        try:
            self._process.wait(timeout=30)
        except subprocess.TimeoutExpired:  # a run hangs: it and the process that forked it end
            import signal

            os.killpg(self._process.pid, signal.SIGKILL)
            self._process.wait()
        if self._process.stdout is not None:
            self._process.stdout.close()


def block(lines: list[str], heading: str) -> list[str]:
    """The heading's line of a summary and the indented lines under it (empty if none)."""
    if heading not in lines:
        return []
    start = lines.index(heading)
    end = start + 1
    while end < len(lines) and lines[end].startswith("  "):
        end += 1
    return lines[start:end]
