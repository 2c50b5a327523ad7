"""Helpers of benchmarks/real_bugs.py and real_bugs_mine.py: the corpus, the projects'
repositories, the buggy and fixed trees, and the projects' test runs.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import urllib.parse
from dataclasses import dataclass, field
from pathlib import Path

import real_bugs_plugin
import real_projects_lib
import tomllib

HERE = Path(__file__).resolve().parent
CORPUS = HERE / "real_bugs.toml"
OUTCOMES_ENV = real_bugs_plugin.OUTCOMES_ENV
BUGS_MARK = "# ---- bugs: written by benchmarks/real_bugs_mine.py ----"
TEST_PART = re.compile(r"^(tests?|testing)$")
TEST_FILE = re.compile(r"^(test_.*|.*_test|test|tests|conftest)\.py$")


@dataclass(frozen=True)
class Project:
    name: str
    url: str
    why: str
    source: tuple[str, ...]  # folders of the project's code; test files in them are not code
    pythonpath: tuple[str, ...] = ()
    requires: tuple[str, ...] = ()  # what pip installs besides pytest
    args: tuple[str, ...] = ()  # more pytest arguments
    since: str = "2015-01-01"  # mine commits from this day on
    skip: tuple[str, ...] = ()  # commits the miner does not try
    # Files a build makes (a version module), written into a tree that lacks them, when their
    # folder exists.
    generated: dict[str, str] = field(default_factory=dict)
    metadata: str = ""  # a version: the venv gets the project's installed metadata (a dist-info)
    # Test support files taken from a later commit where a tree has them (a conftest.py that
    # today's pytest refuses): {path: commit}.
    backport: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Bug:
    id: str
    project: str
    fix: str
    parent: str
    date: str
    what: str
    tests: tuple[str, ...]  # the node ids that fail at the buggy state and pass at the fix
    test_files: tuple[str, ...]  # files taken from the fix into the buggy state
    files: tuple[str, ...]  # the code files the fix changed
    functions: tuple[str, ...]  # "path::qualname" of the definitions it changed or removed
    added: tuple[str, ...] = ()  # "path::qualname" of the definitions it added
    hunks: int = 0
    lines: int = 0  # lines added and removed in the code files
    imports: bool = False  # the fix changes a module's imports
    constants: bool = False  # ... or a module constant
    module: bool = False  # ... or other top-level statements
    failure: str = ""  # the first failing test's failure at the buggy state


def load(path: Path = CORPUS) -> tuple[dict[str, Project], list[Bug]]:
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    projects = {}
    for name, entry in data.get("projects", {}).items():
        entry = {k: tuple(v) if isinstance(v, list) else v for k, v in entry.items()}
        projects[name] = Project(name=name, **entry)
    bugs = []
    for entry in data.get("bugs", []):
        entry = {k: tuple(v) if isinstance(v, list) else v for k, v in entry.items()}
        bugs.append(Bug(**entry))
    return projects, bugs


def is_test(path: str) -> bool:
    parts = path.split("/")
    return any(TEST_PART.match(p) for p in parts[:-1]) or bool(TEST_FILE.match(parts[-1]))


def is_code(project: Project, path: str) -> bool:
    inside = any(path == s or path.startswith(s.rstrip("/") + "/") for s in project.source)
    return path.endswith(".py") and inside and not is_test(path)


# -- repositories -------------------------------------------------------------------------------


def git(gitdir: Path, *args: str, check: bool = True) -> str:
    command = ["git", f"--git-dir={gitdir}", *args]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if check and done.returncode:
        raise RuntimeError(f"git {' '.join(args[:3])}: {done.stderr.strip()[:200]}")
    return done.stdout


def slug(project: Project) -> str:
    """owner+name, as the mirrors folder names a repository."""
    path = urllib.parse.urlparse(project.url).path.strip("/").removesuffix(".git")
    return path.replace("/", "+")


def repository(project: Project, cache: Path, mirrors: Path | None) -> Path:
    """The project's git directory: from the mirrors folder when given (``owner+name/repo``,
    ``owner+name``, ``name.git``), else cloned (bare) from its URL into the cache."""
    if mirrors is not None:
        name = slug(project)
        for folder in (
            mirrors / name / "repo",
            mirrors / name,
            mirrors / f"{name.split('+')[-1]}.git",
            mirrors / name / ".git",
        ):
            if (folder / "HEAD").is_file() and (folder / "objects").is_dir():
                return folder
        raise SystemExit(f"{project.name}: no repository for {name} in {mirrors}")
    folder = cache / "repos" / f"{slug(project)}.git"
    if not folder.exists():
        folder.parent.mkdir(parents=True, exist_ok=True)
        command = ["git", "clone", "--bare", "--quiet", project.url, str(folder)]
        subprocess.run(command, check=True)
    return folder


def has_commit(gitdir: Path, sha: str) -> bool:
    return git(gitdir, "cat-file", "-t", sha, check=False).strip() == "commit"


def ensure(project: Project, gitdir: Path, shas: list[str]) -> None:
    """Fetch the project's branches and tags when gitdir lacks one of the commits."""
    if all(has_commit(gitdir, sha) for sha in shas):
        return
    refs = ["+refs/heads/*:refs/heads/*", "+refs/tags/*:refs/tags/*"]
    git(gitdir, "fetch", "--quiet", project.url, *refs)
    lacking = [sha for sha in shas if not has_commit(gitdir, sha)]
    if lacking:
        raise SystemExit(f"{project.name}: {gitdir} lacks commits {', '.join(lacking[:3])}")


def export(gitdir: Path, commit: str, dest: Path) -> None:
    """The tree of a commit, written into dest."""
    dest.mkdir(parents=True, exist_ok=True)
    archive = subprocess.run(
        ["git", f"--git-dir={gitdir}", "archive", commit], capture_output=True, check=True
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(dest)], input=archive, check=True)


def show(gitdir: Path, commit: str, path: str) -> bytes | None:
    done = subprocess.run(
        ["git", f"--git-dir={gitdir}", "show", f"{commit}:{path}"], capture_output=True
    )
    return done.stdout if done.returncode == 0 else None


def overlay(gitdir: Path, commit: str, paths: tuple[str, ...], dest: Path) -> None:
    """Put the files as they are at commit into dest (removing those it does not have)."""
    for path in paths:
        data = show(gitdir, commit, path)
        target = dest / path
        if data is None:
            target.unlink(missing_ok=True)
        else:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)


def buggy_tree(project: Project, gitdir: Path, bug: Bug, dest: Path) -> None:
    """The buggy state: the fix's parent, with the fix's versions of the test files."""
    export(gitdir, bug.parent, dest)
    overlay(gitdir, bug.fix, bug.test_files, dest)
    prepare(project, gitdir, dest)


def prepare(project: Project, gitdir: Path, tree: Path) -> None:
    """Write what a build of the project would have made, and the test support files its
    recipe backports."""
    for path, text in project.generated.items():
        target = tree / path
        if target.parent.is_dir() and not target.exists():
            target.write_text(text, encoding="utf-8")
    for path, commit in project.backport.items():
        if (tree / path).exists():
            overlay(gitdir, commit, (path,), tree)


# -- running a project's tests ------------------------------------------------------------------


def project_venv(project: Project, cache: Path) -> Path:
    """A venv of the project's own (layered on this interpreter's environment, as the
    benchmark's of real_projects.py is), with its requirements."""
    python = real_projects_lib.bench_venv(cache / "venvs" / project.name, [project])  # type: ignore[list-item]
    if project.metadata:
        purelib = subprocess.run(
            [str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
            capture_output=True, text=True, check=True,
        ).stdout.strip()  # fmt: skip
        info = Path(purelib, f"{project.name}-{project.metadata}.dist-info")
        info.mkdir(exist_ok=True)
        metadata = f"Metadata-Version: 2.1\nName: {project.name}\nVersion: {project.metadata}\n"
        (info / "METADATA").write_text(metadata, encoding="utf-8")
    return python


def environment(
    project: Project, tree: Path, python: Path, caretaker: Path | None
) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CARETAKER_", "PYTEST_"))}
    env.pop("VIRTUAL_ENV", None)
    env["PATH"] = f"{python.parent}{os.pathsep}{env.get('PATH', '')}"
    paths = [tree / p for p in project.pythonpath] + ([caretaker] if caretaker else []) + [HERE]
    env["PYTHONPATH"] = os.pathsep.join(str(path) for path in paths)
    env["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"
    return env


def pytest_argv(python: Path, project: Project, *args: str) -> list[str]:
    """pytest as the corpus runs it: the project's addopts dropped (coverage and doctest options
    of its day), no cache, no random order."""
    command = [str(python), "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:randomly"]
    return [*command, "-o", "addopts=", "--rootdir=.", *project.args, *args]


@dataclass(frozen=True)
class Outcome:
    outcome: str  # "passed", "failed", "skipped"
    message: str = ""


def outcomes(
    project: Project, tree: Path, python: Path, files: list[str], log: Path, timeout: float
) -> dict[str, Outcome] | None:
    """Each test's outcome in a plain run of files; None when the run did not finish. A
    collection error is the outcome of node id ``<collection> FILE``."""
    env = environment(project, tree, python, None) | {OUTCOMES_ENV: str(log)}
    command = pytest_argv(python, project, "-q", "-p", "no:caretaker", "-p", "real_bugs_plugin")
    log.write_text("", encoding="utf-8")
    done = real_projects_lib.run([*command, *files], tree, env, timeout)
    if done.returncode is None:
        return None
    found: dict[str, Outcome] = {}
    for line in log.read_text(encoding="utf-8").splitlines():
        nodeid, outcome, message = json.loads(line)
        if found.get(nodeid, Outcome("")).outcome != "failed":
            found[nodeid] = Outcome(outcome, message)
    if not found and done.returncode not in (0, 5):
        last = done.stdout.strip().splitlines()[-1:] or [f"exit status {done.returncode}"]
        found["<collection>"] = Outcome("failed", last[0])
    return found
