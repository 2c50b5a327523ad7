"""What installing the plugin weighs, and what it costs a pytest run that does not heal (#31), side
by side in one run (not part of the tests; it builds three virtual environments: minutes).

    python benchmarks/footprint.py [--repeat 21]

1. Installs, each into a fresh virtual environment from this checkout (a copy of it, so that the
   build leaves nothing here): pytest alone, the base install (``pytest-caretaker``) and
   ``pytest-caretaker[llm]``; for each, the packages it added and the megabytes (10^6 bytes, every
   file the install added, compiled bytecode included). Then models the other way (#48): the
   base install's ``caretaker model setup`` builds caretaker's model environment (litellm at this
   environment's release) in a folder of its own; what the test environment holds is counted
   again after it, and the model environment's weight is shown apart.
2. CPU time (user + system of the child, ``os.wait4``) of ``pytest --co -q`` in a project of two
   passing tests: pytest alone, the plugin installed but not enabled (base, and with [llm]),
   and ``pytest -q`` running them without and with ``--heal`` (and with ``--heal-sandbox off``,
   which leaves out the sandbox's probe); medians of interleaved rounds,
   their order turned around every round so that drift on a busy machine hits each alike.

Targets (#31): base <= 15 packages and <= 40 MB; installed but not enabled within 5 % of pytest
alone; --heal with nothing failing <= 50 ms of CPU more than without. (#48): with the model
environment built (models available), the test environment still holds the base install only, and
``pytest --co`` there costs within 5 % of pytest alone.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
#: What the package build needs of the checkout; the rest (tests, .git, caches) stays out.
SOURCES = ("pytest_caretaker", "pyproject.toml", "README.md", "LICENSE")
TESTS = "def test_one():\n    assert 1 + 1 == 2\n\n\ndef test_two():\n    assert 'a' in 'abc'\n"


def checkout_copy(work: Path) -> Path:
    copy = work / "source"
    copy.mkdir()
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info")
    for name in SOURCES:
        path = ROOT / name
        if path.is_dir():
            shutil.copytree(path, copy / name, ignore=ignore)
        elif path.exists():
            shutil.copy2(path, copy / name)
    return copy


def size(folder: Path) -> int:
    total = 0
    for directory, _, files in os.walk(folder):
        for name in files:
            path = Path(directory, name)
            if not path.is_symlink():
                total += path.stat().st_size
    return total


def packages(python: Path) -> set[str]:
    listed = subprocess.run(
        [python, "-m", "pip", "list", "--format=json", "--disable-pip-version-check"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return {item["name"].lower() for item in json.loads(listed)}


def install(work: Path, name: str, *requirements: str) -> tuple[Path, int, float]:
    """A fresh venv with requirements installed: its python, packages added, MB added."""
    folder = work / name
    venv.EnvBuilder(with_pip=True).create(folder)
    python = folder / "bin" / "python"
    before_packages, before_size = packages(python), size(folder)
    command = [str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
    subprocess.run([*command, *requirements], check=True)
    added = packages(python) - before_packages
    return python, len(added), (size(folder) - before_size) / 1e6


def model_environment(python: Path, folder: Path) -> tuple[int, float]:
    """Build caretaker's model environment at folder with the base install's ``caretaker model
    setup``, litellm pinned to this environment's release: its packages and MB."""
    from importlib.metadata import version

    pins = folder.parent / "models.txt"
    pins.write_text(f"litellm=={version('litellm')}\n")
    env = {**os.environ, "CARETAKER_MODEL_ENV": str(folder)}
    command = [str(python), "-m", "pytest_caretaker", "model", "setup"]
    subprocess.run([*command, "--from-requirements", str(pins)], check=True, env=env)
    return len(packages(folder / "bin" / "python")), size(folder) / 1e6


def cpu(command: list[str | Path], cwd: Path, env: dict[str, str]) -> float:
    """CPU seconds (user + system) of one run of command and what it waited for."""
    process = subprocess.Popen(
        command, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode != 0:
        raise SystemExit(f"{' '.join(map(str, command))} exited with {process.returncode}")
    return usage.ru_utime + usage.ru_stime


def medians(
    variants: dict[str, list[str | Path]], cwd: Path, env: dict[str, str], repeat: int
) -> dict[str, float]:
    names = list(variants)
    for name in names:  # warm the file system cache and the bytecode; not counted
        cpu(variants[name], cwd, env)
    samples: dict[str, list[float]] = {name: [] for name in names}
    for round_ in range(repeat):
        for name in names if round_ % 2 == 0 else reversed(names):
            samples[name].append(cpu(variants[name], cwd, env))
    return {name: statistics.median(values) for name, values in samples.items()}


def _assigned(env: dict[str, str]) -> list[str]:
    """env's one difference from the runs' environment, as env(1) arguments (the CPU of env(1)
    itself is an exec: it replaces itself with the command, and wait4 counts one process)."""
    return [f"CARETAKER_MODEL_ENV={env['CARETAKER_MODEL_ENV']}"]


def quiet_env() -> dict[str, str]:
    """The environment without what would change the runs: keys (a model found), caretaker's
    and pytest's own variables; bytecode is cached as on a developer's machine (without it, pytest
    rewrites every module of a plugin again in each run: --heal imports fifty of them)."""
    return {
        name: value
        for name, value in os.environ.items()
        if not name.endswith("_API_KEY")
        and not name.startswith(("CARETAKER_", "PYTEST_", "VIRTUAL_ENV"))
        and name != "PYTHONDONTWRITEBYTECODE"
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=21, help="interleaved rounds (>= 15)")
    repeat = max(15, parser.parse_args().repeat)
    with tempfile.TemporaryDirectory(prefix="caretaker-footprint-") as name:
        work = Path(name)
        source = checkout_copy(work)
        pytest_version = subprocess.run(
            [sys.executable, "-c", "import pytest; print(pytest.__version__)"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        installs = {
            "pytest alone": install(work, "alone", f"pytest=={pytest_version}"),
            "base": install(work, "base", str(source)),
            "[llm]": install(work, "llm", f"{source}[llm]"),
        }
        print(f"footprint of pytest-caretaker ({ROOT}), pytest {pytest_version}")
        print("  install         packages       MB")
        for label, (_, count, megabytes) in installs.items():
            print(f"  {label:14} {count:9} {megabytes:8.1f}")
        _, base_count, base_mb = installs["base"]
        print(f"  (#31: base <= 15 packages and <= 40 MB: {base_count} and {base_mb:.1f})")
        base_python = installs["base"][0]
        before = packages(base_python), size(base_python.parent.parent)
        models = work / "models"
        model_count, model_mb = model_environment(base_python, models)
        after = packages(base_python), size(base_python.parent.parent)
        grown = (after[1] - before[1]) / 1e6
        print(
            f"  caretaker model setup: the model environment holds {model_count} packages, "
            f"{model_mb:.1f} MB, apart; the test environment after it: {len(after[0] - before[0])} "
            f"packages more, {grown:+.1f} MB"
        )

        project = work / "project"
        project.mkdir()
        (project / "test_two.py").write_text(TESTS)
        env = quiet_env()
        with_models = {**env, "CARETAKER_MODEL_ENV": str(models)}
        pythons = {label: python for label, (python, _, _) in installs.items()}
        collect = ["-m", "pytest", "--co", "-q"]
        run = ["-m", "pytest", "-q"]
        figures = medians(
            {
                "pytest alone": [pythons["pytest alone"], *collect],
                "base, not enabled": [pythons["base"], *collect],
                "[llm], not enabled": [pythons["[llm]"], *collect],
                "base + model env": ["env", *_assigned(with_models), pythons["base"], *collect],
                "base, no --heal": [pythons["base"], *run],
                "base, --heal": [pythons["base"], *run, "--heal"],
                "base, --heal, no sandbox": [pythons["base"], *run, "--heal", "--heal-sandbox=off"],
            },
            project,
            env,
            repeat,
        )
        report(figures, repeat)


def report(figures: dict[str, float], repeat: int) -> None:
    def line(label: str, seconds: float, compared: str = "") -> None:
        print(f"    {label:24} {seconds * 1000:7.1f} ms  {compared}".rstrip())

    alone, plain = figures["pytest alone"], figures["base, no --heal"]
    print(f"CPU (user + system), medians of {repeat} interleaved runs, 2 passing tests")
    print("  pytest --co -q")
    for label in ("pytest alone", "base, not enabled", "[llm], not enabled", "base + model env"):
        line(label, figures[label], f"({(figures[label] / alone - 1) * 100:+6.1f} %)")
    print("  pytest -q")
    line("base, no --heal", plain)
    # The sandbox's probe (a process that confines itself, verify/probe.py) runs at the start of
    # every --heal session: the last line says what is left without it.
    for label in ("base, --heal", "base, --heal, no sandbox"):
        line(label, figures[label], f"({(figures[label] - plain) * 1000:+6.1f} ms)")
    modelled = (figures["base + model env"] / alone - 1) * 100
    print(f"  (#48: models available, --co within 5 % of pytest alone: {modelled:+.1f} %)")
    unused = (figures["base, not enabled"] / alone - 1) * 100
    heal = (figures["base, --heal"] - plain) * 1000
    print(
        f"  (#31: installed but not enabled within 5 % of pytest alone: {unused:+.1f} %; "
        f"--heal with nothing failing <= 50 ms more: {heal:+.1f} ms)"
    )


if __name__ == "__main__":
    main()
