"""Caretaker's model environment: a virtual environment of its own that holds litellm.

litellm and its ~60 dependencies (pydantic, openai, boto3, aiohttp…) would otherwise live in the
project's test environment, where they conflict with the project's pins, move its packages and
load anyio's pytest plugin into every run. The model process (remote.py, serve.py) needs nothing
of the test environment: it imports litellm and caretaker's own standard-library modules. So
``caretaker model setup`` builds this environment once, in the user's cache (``folder``), and the
model process runs from its interpreter, with only caretaker's package put where it can import
it (remote.CODE): nothing of either environment reaches the other.

The environment is ready when its ``MARK`` file is there: setup removes it before changing
anything and writes it last, once litellm imports in the new environment. A setup cut off
leaves no half-made environment in use: models then say to run setup again. Standard library
only.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import shutil
import subprocess
import sys
import textwrap
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

#: The litellm releases caretaker is tested with; what setup installs unless told otherwise.
LITELLM = "litellm>=1.106,<1.111"
#: The variable that puts the model environment elsewhere (a CI cache's path, a shared disk).
FOLDER = "CARETAKER_MODEL_ENV"
#: Written last by setup, read by ``found``: what the environment holds and how it was made.
MARK = "caretaker-models.json"
#: The command that makes it.
SETUP = "caretaker model setup"
#: What the environment's interpreter prints for ``found``'s mark: litellm's version, Python's.
_PROBE = (
    "import importlib.metadata as m, json, platform, sys; import litellm; "
    "print(json.dumps({'litellm': m.version('litellm'), 'python': platform.python_version()}))"
)


class SetupError(Exception):
    """Setup failed: the one-line reason, which says what to do."""


@dataclass(frozen=True)
class Found:
    """An environment models can run from: its interpreter, its litellm, and what to call it."""

    python: str
    litellm: str
    label: str  # "caretaker's environment" or "the test environment"
    #: What changes when the environment does (the kept process's stamp: kept.py).
    identity: str = ""

    def describe(self) -> str:
        return f"litellm {self.litellm}, {self.label}"


def folder(env: Mapping[str, str] = os.environ) -> Path:
    """Where the model environment is: ``$CARETAKER_MODEL_ENV``, else the user's cache."""
    given = env.get(FOLDER)
    if given:
        return Path(given).expanduser().absolute()
    if sys.platform == "win32":
        cache = Path(env.get("LOCALAPPDATA") or Path.home() / "AppData" / "Local")
    elif sys.platform == "darwin":
        cache = Path.home() / "Library" / "Caches"
    else:
        cache = Path(env.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return cache / "pytest-caretaker" / "models"


def interpreter(place: Path) -> Path:
    """The Python of the virtual environment at place."""
    if sys.platform == "win32":
        return place / "Scripts" / "python.exe"
    return place / "bin" / "python"


def found(env: Mapping[str, str] = os.environ) -> Found | None:
    """The model environment, when setup made it and its interpreter is there (no process is
    started: a file is read)."""
    place = folder(env)
    try:
        mark = json.loads((place / MARK).read_text(encoding="utf-8"))
        version = str(mark["litellm"])
    except (OSError, ValueError, KeyError, TypeError):
        return None
    python = interpreter(place)
    if not python.exists():
        return None
    identity = json.dumps([str(python), mark, (place / MARK).stat().st_mtime_ns])
    return Found(str(python), version, "caretaker's environment", identity)


def key(requirements: Path | None = None, python: str | None = None) -> str:
    """A cache key for a CI cache of the environment: it changes with caretaker's version, the
    platform and Python's version, and what is installed (the pins of requirements, or LITELLM).
    """
    from importlib.metadata import PackageNotFoundError, version

    try:
        caretaker = version("pytest-caretaker")
    except PackageNotFoundError:
        caretaker = "source"
    wanted = requirements.read_text(encoding="utf-8") if requirements is not None else LITELLM
    version_of = _python_version(python) if python else platform.python_version()
    minor = ".".join(version_of.split(".")[:2])
    digest = hashlib.sha256(wanted.encode()).hexdigest()[:16]
    return f"caretaker-models-{caretaker}-{sys.platform}-py{minor}-{digest}"


def setup(
    python: str | None,
    requirements: Path | None,
    say: Callable[[str], None],
    env: Mapping[str, str] = os.environ,
) -> tuple[Found, list[str]]:
    """Create (or update) the model environment; the environment and what it holds (``name==
    version`` lines). ``say`` gets the progress lines. SetupError says why it could not."""
    place = folder(env)
    base = python or sys.executable
    version_of = _python_version(base)
    if tuple(int(part) for part in version_of.split(".")[:2]) < (3, 10):
        raise SetupError(f"{base} is Python {version_of}; the model environment needs 3.10+")
    (place / MARK).unlink(missing_ok=True)  # not in use until it is whole again
    existing = interpreter(place)
    if existing.exists() and python and _python_version(str(existing)) != version_of:
        shutil.rmtree(place)  # another Python was asked for: made anew
    if not interpreter(place).exists():
        say(f"creating the model environment in {place} (Python {version_of})")
        _run([base, "-m", "venv", str(place)], "could not create a virtual environment")
    wanted: Sequence[str] = ["-r", str(requirements)] if requirements else [LITELLM]
    say(f"installing {' '.join(wanted)} (a minute or two the first time)")
    pip = [str(interpreter(place)), "-m", "pip", "install", "--quiet", "--upgrade"]
    _run([*pip, "--disable-pip-version-check", *wanted], "pip could not install litellm")
    say("checking that litellm imports there")
    probe = _run([str(interpreter(place)), "-I", "-c", _PROBE], "litellm does not import there")
    mark = {**json.loads(probe.strip().splitlines()[-1]), "installed": " ".join(wanted)}
    freeze = _run([str(interpreter(place)), "-m", "pip", "freeze"], "pip freeze failed")
    (place / MARK).write_text(json.dumps(mark, indent=1) + "\n", encoding="utf-8")
    made = found(env)
    assert made is not None
    return made, [line for line in freeze.splitlines() if "==" in line]


def command(args: argparse.Namespace) -> int:
    """``caretaker model setup`` and ``caretaker model key``; the exit status."""
    requirements: Path | None = args.from_requirements
    if requirements is not None and not requirements.is_file():
        print(f"caretaker: {requirements} is not a file; give a requirements file", file=sys.stderr)
        return 2
    try:
        if args.action == "key":
            print(key(requirements, args.python))
            return 0
        made, installed = setup(args.python, requirements, lambda line: print(f"caretaker: {line}"))
    except SetupError as error:
        print(f"caretaker: {error}", file=sys.stderr)
        return 1
    others = sorted(line for line in installed if not line.lower().startswith("litellm=="))
    print(f"caretaker: the model environment holds litellm {made.litellm} and {len(others)} more:")
    print(
        textwrap.fill(
            " ".join(others),
            96,
            initial_indent="  ",
            subsequent_indent="  ",
            break_on_hyphens=False,
        )
    )
    print(f"caretaker: models run from {made.python}; the test environment needs no litellm")
    return 0


def _python_version(python: str) -> str:
    command = [python, "-I", "-c", "import platform; print(platform.python_version())"]
    return _run(command, f"{python} is not a Python interpreter").strip()


def _run(command: Sequence[str], failure: str) -> str:
    """The command's output; SetupError with failure and its last line of errors."""
    environ = {**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True", "LITELLM_MODE": "PRODUCTION"}
    try:
        done = subprocess.run(
            command, capture_output=True, text=True, env=environ, cwd="/", check=False
        )
    except OSError as error:
        raise SetupError(f"{failure}: {error}") from None
    if done.returncode != 0:
        lines = [line for line in done.stderr.splitlines() if line.strip()]
        errors = [line for line in lines if "ERROR" in line] or lines[-1:]
        said = errors[0].strip() if errors else f"exit status {done.returncode}"
        raise SetupError(f"{failure}: {said}")
    return done.stdout
