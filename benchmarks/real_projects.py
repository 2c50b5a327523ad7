"""Honesty and efficacy of `pytest --heal` on real code (a benchmark, not a test; issue #21).

    python benchmarks/real_projects.py [--project NAME] [--bug ID] [--jobs 1] [--keep]
        [--cache ~/.cache/caretaker-bench] [--session-budget 150] [--timeout 300]
        [--caretaker HEAD] [--json FILE]

The corpus (benchmarks/real_projects.toml) pins small pure-Python projects from PyPI by version
and sha256 and lists single bugs written by hand into their code. Per bug, in a fresh git copy of
the project with the bug committed on top of the pristine tree:

1. the whole suite, plainly (`-p no:caretaker`): the tests the bug makes fail (a bug that fails
   none is skipped);
2. `python -m pytest -q -p no:randomly --heal --heal-model builtin` (the model-free repairer)
   with a session budget, killed at the wall timeout; its HEALED / NOT HEALED lines and closing
   line are read;
3. `git apply .caretaker/heal.patch`, then the whole suite again.

Reported per bug: failing tests before; healed (the closing line's count); exact (every tracked
file after the patch is as in the pristine tree); plausible (healed, not exact); green (the whole
suite passes after the patch); and the two dishonesties: tests reported HEALED that still fail
after the patch, and tests that did not fail before and fail after it; the heal run's seconds.

The runs use a throwaway venv in the cache, layered on the environment of the interpreter running
this script (pytest and pytest-caretaker's dependencies), with the projects' requirements added.
The pytest-caretaker measured is the commit given by --caretaker (default HEAD), exported into the
cache and put first on PYTHONPATH: others may be editing the working tree meanwhile.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import tempfile
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path

import real_projects_lib as lib

CORPUS = Path(__file__).resolve().with_suffix(".toml")


@dataclass
class Result:
    project: str
    bug: str
    failing: int = 0
    healed: int = 0
    exact: bool = False
    green: bool = False
    still_failing: list[str] = field(default_factory=list)  # reported HEALED, fail after the patch
    broken: list[str] = field(default_factory=list)  # did not fail before, fail after the patch
    unclaimed: int = 0  # reported NOT HEALED, pass after the patch (under-reported, not dishonest)
    seconds: float = 0.0
    note: str = ""

    @property
    def plausible(self) -> bool:
        return self.healed > 0 and not self.exact

    @property
    def dishonest(self) -> bool:
        return bool(self.still_failing or self.broken)


@dataclass(frozen=True)
class Options:
    cache: Path
    python: Path
    caretaker: Path | None  # None: the one installed
    session_budget: float
    timeout: float
    keep: bool


def bench_bug(project: lib.Project, bug: lib.Bug, options: Options) -> Result:
    result = Result(project.name, bug.id)
    work = Path(tempfile.mkdtemp(prefix=f"{bug.id}-"))
    try:
        measure(project, bug, options, work, result)
    except (
        OSError,
        ValueError,
        subprocess.CalledProcessError,
    ) as error:  # the bench's, not a bug's
        result.note = f"benchmark error: {error}"
    finally:
        if options.keep:
            print(f"  kept {work}", flush=True)
        else:
            shutil.rmtree(work, ignore_errors=True)
    return result


def measure(project: lib.Project, bug: lib.Bug, options: Options, work: Path, out: Result) -> None:
    repo = lib.checkout(project, options.cache, work)
    target = repo / bug.file
    target.write_text(lib.inject(target.read_text(encoding="utf-8"), bug), encoding="utf-8")
    lib.git(repo, "commit", "-q", "-am", f"bug {bug.id}: {bug.what}")
    log = work / "outcomes.jsonl"
    before = lib.outcomes(project, repo, options.python, log, options.timeout)
    if before is None:
        out.note = "the suite did not finish with the bug"
        return
    failing = {nodeid for nodeid, outcome in before.items() if outcome == "failed"}
    out.failing = len(failing)
    if not failing:
        out.note = "skipped: the bug fails no test"
        return
    heal = lib.run(
        heal_command(project, options),
        repo,
        lib.environment(project, repo, options.python, options.caretaker),
        options.timeout,
    )
    (work / "heal.out").write_text(heal.stdout, encoding="utf-8")
    out.seconds = round(heal.seconds, 1)
    healed, not_healed, notes = read_summary(heal, failing, out, options.timeout)
    notes += apply_patch(repo, healed)
    out.exact = lib.git(repo, "diff", "HEAD~1", "--stat") == ""
    after = lib.outcomes(project, repo, options.python, log, options.timeout)
    if after is None:
        notes.append("the suite did not finish after the patch")
        after = {}
    failed_after = {nodeid for nodeid, outcome in after.items() if outcome == "failed"}
    out.green = after != {} and not failed_after
    out.still_failing = sorted(healed & failed_after)
    out.broken = sorted(failed_after - failing)
    out.unclaimed = sum(after.get(nodeid) == "passed" for nodeid in not_healed)
    out.note = "; ".join(notes)


def heal_command(project: lib.Project, options: Options) -> list[str]:
    command = [str(options.python), "-m", "pytest", "-q", "-p", "no:randomly", "--heal"]
    command += ["--heal-model", "builtin", "--heal-session-budget", f"{options.session_budget:g}"]
    return command + list(project.args)


def read_summary(
    heal: lib.Run, failing: set[str], out: Result, timeout: float
) -> tuple[set[str], set[str], list[str]]:
    """The tests reported HEALED and NOT HEALED, with notes on anything amiss; the healed count
    into out."""
    healed, not_healed, closing = lib.heal_lines(heal.stdout, failing)
    notes = []
    if heal.returncode is None:
        notes.append(f"killed at {timeout:g} s")
    if closing is None:
        notes.append("no closing line")
    else:
        out.healed = int(closing.split()[1])
        if out.healed != len(healed):
            notes.append(f"{len(healed)} HEALED lines")
    if "INTERNALERROR" in heal.stdout:
        notes.append("INTERNALERROR")
    if "please report it" in heal.stdout:
        notes.append("caretaker failed on a test")
    return healed, not_healed, notes


def apply_patch(repo: Path, healed: set[str]) -> list[str]:
    patch = repo / ".caretaker" / "heal.patch"
    if not (patch.exists() and patch.stat().st_size):
        return ["HEALED without a patch"] if healed else []
    applied = lib.run(["git", "apply", str(patch)], repo, dict(os.environ), 60)
    if applied.returncode != 0:
        return ["the patch does not apply: " + applied.stdout.strip()[:80]]
    return []


def table(results: list[Result]) -> None:
    header = f"{'bug':<26} {'fail':>5} {'healed':>6} {'exact':>5} {'plaus':>5} {'green':>5}"
    print(header + f" {'HEALED+fail':>11} {'broken':>6} {'NOT+pass':>8} {'s':>6}  note")
    mark = {True: "yes", False: "-"}
    for r in results:
        line = f"{r.bug:<26} {r.failing:>5} {r.healed:>6} {mark[r.exact]:>5}"
        line += f" {mark[r.plausible]:>5} {mark[r.green]:>5} {len(r.still_failing):>11}"
        line += f" {len(r.broken):>6} {r.unclaimed:>8}"
        print(line + f" {r.seconds:>6.1f}  {r.note}")
    measured = [r for r in results if r.failing and not r.note.startswith("skipped")]

    def count(test: Callable[[Result], object]) -> int:
        return sum(1 for r in measured if test(r))

    seconds = [r.seconds for r in measured] or [0.0]
    print(
        f"\nbugs {len(measured)} · healed (any test) {count(lambda r: r.healed)} · "
        f"exact {count(lambda r: r.exact)} · plausible {count(lambda r: r.plausible)} · "
        f"whole suite green after the patch {count(lambda r: r.green)}\n"
        f"dishonest reports {count(lambda r: r.dishonest)} "
        f"(HEALED still failing after the patch in {count(lambda r: r.still_failing)}, "
        f"passing tests broken by it in {count(lambda r: r.broken)}) · "
        f"under-reported (NOT HEALED, pass after the patch) {count(lambda r: r.unclaimed)} · "
        f"runs with a note {count(lambda r: r.note)}\n"
        f"heal run: median {statistics.median(seconds):.1f} s, max {max(seconds):.1f} s, "
        f"total {sum(seconds):.0f} s"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--project", action="append", help="Only this project (repeatable)")
    parser.add_argument("--bug", action="append", help="Only this bug id (repeatable)")
    parser.add_argument("--jobs", type=int, default=1, help="Bugs measured at once (default 1)")
    parser.add_argument("--keep", action="store_true", help="Keep each bug's work folder")
    parser.add_argument("--cache", type=Path, default=Path("~/.cache/caretaker-bench"))
    parser.add_argument("--session-budget", type=float, default=150.0, help="Seconds per session")
    parser.add_argument("--timeout", type=float, default=300.0, help="Wall seconds per heal run")
    parser.add_argument(
        "--caretaker", default="HEAD", help="The commit to measure, or worktree (default HEAD)"
    )
    parser.add_argument("--json", type=Path, help="Also write the results to this file")
    args = parser.parse_args()
    projects = [p for p in lib.load_corpus(CORPUS) if not args.project or p.name in args.project]
    cache = args.cache.expanduser()
    caretaker, label = lib.caretaker_snapshot(args.caretaker, cache)
    python = lib.bench_venv(cache, projects)
    options = Options(cache, python, caretaker, args.session_budget, args.timeout, args.keep)
    jobs = [(p, b) for p in projects for b in p.bugs if not args.bug or b.id in args.bug]
    print(f"pytest-caretaker: {label}; --heal-session-budget {args.session_budget:g}")
    for project in {p.name: p for p, _ in jobs}.values():
        print(f"{project.name} {project.version}: {pristine(project, options)}", flush=True)
    with ThreadPoolExecutor(max_workers=args.jobs) as pool:
        results = list(pool.map(lambda job: report(job[0], job[1], options), jobs))
    print()
    table(results)
    if args.json:
        args.json.write_text(json.dumps([asdict(r) for r in results], indent=1), encoding="utf-8")


def pristine(project: lib.Project, options: Options) -> str:
    """The pristine suite's outcome: the measure assumes it passes."""
    with tempfile.TemporaryDirectory() as work:
        repo = lib.checkout(project, options.cache, Path(work))
        found = lib.outcomes(project, repo, options.python, Path(work, "log"), options.timeout)
    if found is None:
        raise SystemExit(f"{project.name}: the pristine suite did not finish")
    failed = sorted(n for n, outcome in found.items() if outcome == "failed")
    if failed:
        raise SystemExit(f"{project.name}: the pristine suite fails: {', '.join(failed[:5])}")
    return f"{len(found)} tests, none fails"


def report(project: lib.Project, bug: lib.Bug, options: Options) -> Result:
    result = bench_bug(project, bug, options)
    line = f"{bug.id}: {result.failing} failing, {result.healed} healed, exact {result.exact}, "
    line += f"green {result.green}, {result.seconds} s"
    if result.dishonest:
        line += f", DISHONEST: {len(result.still_failing)} HEALED still failing, "
        line += f"{len(result.broken)} passing tests broken"
    print(f"{line} {result.note}".rstrip(), flush=True)
    return result


if __name__ == "__main__":
    main()
