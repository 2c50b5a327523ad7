"""Helpers of benchmarks/real_projects.py: the corpus, the sdists, the venv, the runs.

Also a tiny pytest plugin (``-p real_projects_lib``): with REAL_PROJECTS_OUTCOMES set, it writes
each test's outcome as one JSON line, so that test ids with spaces or colons survive.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tarfile
import time
import urllib.parse
import urllib.request
import venv
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import tomllib

HERE = Path(__file__).resolve().parent
OUTCOMES_ENV = "REAL_PROJECTS_OUTCOMES"


@dataclass(frozen=True)
class Bug:
    id: str
    file: str
    line: str
    bug: str
    what: str
    occurrence: int | None = None


@dataclass(frozen=True)
class Project:
    name: str
    version: str
    sha256: str
    root: str
    pythonpath: str
    args: tuple[str, ...]
    requires: tuple[str, ...]
    bugs: tuple[Bug, ...] = field(default=())


def load_corpus(path: Path) -> list[Project]:
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    projects = []
    for name, entry in data["projects"].items():
        bugs = tuple(Bug(**bug) for bug in entry.pop("bugs", []))
        args, requires = tuple(entry.pop("args")), tuple(entry.pop("requires", ()))
        projects.append(Project(name=name, args=args, requires=requires, bugs=bugs, **entry))
    return projects


def sdist(project: Project, cache: Path) -> Path:
    """The project's sdist, downloaded once into cache and checked against the pinned sha256."""
    name = f"{project.name}-{project.version}.tar.gz"
    target = cache / "sdists" / name
    if not target.exists():
        listing = f"https://pypi.org/pypi/{project.name}/json"
        with urllib.request.urlopen(listing, timeout=60) as answer:
            files = json.load(answer)["releases"][project.version]
        (entry,) = [f for f in files if f["packagetype"] == "sdist"]
        with urllib.request.urlopen(
            urllib.parse.urljoin(listing, entry["url"]), timeout=120
        ) as got:
            data = got.read()
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    digest = hashlib.sha256(target.read_bytes()).hexdigest()
    if digest != project.sha256:
        target.unlink()
        raise SystemExit(f"{name}: sha256 {digest}, expected {project.sha256}; removed it")
    return target


def unpacked(project: Project, cache: Path) -> Path:
    """The pristine source tree, unpacked once into cache."""
    folder = cache / "src" / f"{project.name}-{project.version}"
    if not folder.exists():
        with tarfile.open(sdist(project, cache)) as archive:
            archive.extractall(folder.with_suffix(".part"), filter="data")
        folder.with_suffix(".part").rename(folder)
    return folder / project.root


def bench_venv(cache: Path, projects: list[Project]) -> Path:
    """A throwaway venv layered on this interpreter's environment (where pytest-caretaker is
    installed, editable from the working tree), with the projects' own requirements added."""
    folder = cache / f"venv-py{sys.version_info.major}{sys.version_info.minor}"
    python = folder / "bin" / "python"
    if not python.exists():
        venv.create(folder, with_pip=True)
        purelib = subprocess.run(
            [str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
            capture_output=True, text=True, check=True,
        ).stdout.strip()  # fmt: skip
        here = [p for p in sys.path if p.endswith("site-packages")]
        line = "import site; " + "; ".join(f"site.addsitedir({p!r})" for p in here)
        Path(purelib, "zz_caretaker_bench.pth").write_text(line + "\n")
    requires = sorted({r for p in projects for r in p.requires})
    if requires:
        pip = [str(python), "-m", "pip", "install", "-q", *requires]
        subprocess.run(pip, check=True)
    return python


def caretaker_snapshot(rev: str, cache: Path) -> tuple[Path | None, str]:
    """pytest_caretaker as committed at rev, exported into cache (None for "worktree": the
    installed one), and a label for the report. Others may be editing the working tree while
    the benchmark runs; a commit holds still."""
    if rev == "worktree":
        return None, "the working tree"
    repo = HERE.parent
    sha = git(repo, "rev-parse", "--short", rev).strip()
    folder = cache / f"caretaker-{sha}"
    if not folder.exists():
        part = folder.with_suffix(".part")
        shutil.rmtree(part, ignore_errors=True)
        part.mkdir(parents=True)
        archive = subprocess.run(
            ["git", "archive", sha, "pytest_caretaker"], cwd=repo, capture_output=True, check=True
        ).stdout
        subprocess.run(["tar", "-x", "-C", str(part)], input=archive, check=True)
        part.rename(folder)
    return folder, f"commit {sha}"


def inject(source: str, bug: Bug) -> str:
    lines = source.splitlines(keepends=True)
    hits = [i for i, text in enumerate(lines) if text.strip() == bug.line]
    if bug.occurrence is None and len(hits) != 1:
        raise ValueError(f"{bug.id}: the line is found {len(hits)} times in {bug.file}")
    at = hits[(bug.occurrence or 1) - 1]
    lines[at] = lines[at].replace(bug.line, bug.bug, 1)
    return "".join(lines)


def git(repo: Path, *args: str) -> str:
    command = ["git", "-c", "user.name=bench", "-c", "user.email=bench@example.invalid", *args]
    return subprocess.run(command, cwd=repo, capture_output=True, text=True, check=True).stdout


def checkout(project: Project, cache: Path, work: Path) -> Path:
    """A fresh copy of the project as a git repository with the pristine tree as first commit."""
    repo = work / project.root
    shutil.copytree(unpacked(project, cache), repo)
    git(repo, "init", "-q")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "pristine")
    return repo


@dataclass
class Run:
    stdout: str
    seconds: float
    returncode: int | None  # None: killed at the wall timeout


def run(command: list[str], cwd: Path, env: dict[str, str], timeout: float) -> Run:
    """Run in a process group of its own, so that a timeout ends the sandboxes too."""
    started = time.perf_counter()
    child = subprocess.Popen(
        command, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
        text=True, start_new_session=True,
    )  # fmt: skip
    try:
        out, _ = child.communicate(timeout=timeout)
        code: int | None = child.returncode
    except subprocess.TimeoutExpired:
        os.killpg(child.pid, signal.SIGKILL)
        out, _ = child.communicate()
        code = None
    return Run(out, time.perf_counter() - started, code)


def environment(
    project: Project, repo: Path, python: Path, caretaker: Path | None
) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("CARETAKER_")}
    env.pop("VIRTUAL_ENV", None)
    env["PATH"] = f"{python.parent}{os.pathsep}{env.get('PATH', '')}"
    paths = [repo / project.pythonpath, *([caretaker] if caretaker else []), HERE]
    env["PYTHONPATH"] = os.pathsep.join(str(path) for path in paths)
    env["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"
    return env


def outcomes(
    project: Project, repo: Path, python: Path, log: Path, timeout: float
) -> dict[str, str] | None:
    """Each test's outcome ("passed", "failed", "skipped") in a plain run of the whole suite;
    None when the run did not finish."""
    env = environment(project, repo, python, None) | {OUTCOMES_ENV: str(log)}
    command = [str(python), "-m", "pytest", "-q", "-p", "no:randomly", "-p", "no:cacheprovider"]
    command += ["-p", "no:caretaker", "-p", "real_projects_lib", *project.args]
    log.unlink(missing_ok=True)
    done = run(command, repo, env, timeout)
    if done.returncode is None or not log.exists():
        return None
    found: dict[str, str] = {}
    for line in log.read_text(encoding="utf-8").splitlines():
        nodeid, outcome = json.loads(line)
        if found.get(nodeid) != "failed":
            found[nodeid] = outcome
    return found


def heal_lines(stdout: str, known: set[str]) -> tuple[set[str], set[str], str | None]:
    """The tests reported HEALED and NOT HEALED, and the closing line. A test id is matched
    against the ids known to have failed, longest first: ids may hold spaces and colons."""
    ordered = sorted(known, key=len, reverse=True)
    healed: set[str] = set()
    not_healed: set[str] = set()
    closing = None
    for line in stdout.splitlines():
        if line.startswith("caretaker: ") and " healed, " in line:
            closing = line
        for prefix, into in (("HEALED ", healed), ("NOT HEALED ", not_healed)):
            if line.startswith(prefix):
                rest = line[len(prefix) :]
                match = next((n for n in ordered if rest.startswith(n)), rest.split(": ")[0])
                into.add(match)
    return healed, not_healed, closing


# The outcomes plugin, loaded only by `-p real_projects_lib` in the benchmark's plain runs.


def pytest_runtest_logreport(report: Any) -> None:
    if report.when == "call" or report.outcome != "passed":
        _record(report.nodeid, report.outcome)


def pytest_collectreport(report: Any) -> None:
    if report.outcome == "failed":
        _record(report.nodeid or "<collection>", "failed")


def _record(nodeid: str, outcome: str) -> None:
    path = os.environ.get(OUTCOMES_ENV)
    if path:
        with open(path, "a", encoding="utf-8") as log:
            log.write(json.dumps([nodeid, outcome]) + "\n")
