"""The built-in repairer on the bug collection, measured side by side in one run (not a test).

    python benchmarks/builtin_repair.py [--budget 20] [--sample 30] [--one-worker] [--alone]
                                        [--against REV [--against-one-worker]] [--heal-only]

1. `pytest --heal` (no model: the built-in repairer) over a copy of examples/bugs in one session:
   per bug, whether it was healed as the catalog expects, the candidates tried and the time; then
   the healed count, the exact fixes, the partial fixes (reported, and written), the overfits
   refused (bugs whose catalog names an `overfit` edit that must not be written), the median and
   max time to a plausible fix, the median rank of the healing candidate (the candidates its
   problem tried, it included), and end-to-end candidates per second (generation, trials and
   the confirming run included). With --against REV, the same session under the package as of
   git revision REV (extracted, first on PYTHONPATH), on the same collection, side by side (both
   with --heal-sandbox=off: the sandbox would not show REV's package to the candidates); with
   --against-one-worker, REV's session at --heal-workers=1 as well; with --one-worker, this
   tree's session again at --heal-workers=1. With --alone, every bug once more in a session of
   its own (its test file only, one session after another): the time to a fix of a user with
   that one bug, where in the collection's session four bugs are repaired at once and share the
   trial workers.
2. Localization cost: the traced rerun (per-test line coverage, done only when healing) against
   the same rerun untraced, over every test of the collection (median of 3, warm runner).
3. Scaling: candidates per second through the trial server with 1, 2 and all cores' workers,
   interleaved on the same mutants (median of 3).
4. Verification throughput on the same candidates: the first --sample mutants of one bug checked
   by the trial server (a forked child of a collected session) and by a plain
   `python -m pytest <test file>` subprocess each, with the mutant written to disk; the ratio is
   the figure that matters.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from pytest_caretaker.builtin import mutate
from pytest_caretaker.project.files import SourceFile
from pytest_caretaker.verify.runner import Runner
from pytest_caretaker.verify.trials import Candidate, Trials, workers_default

ROOT = Path(__file__).resolve().parent.parent
BUGS = ROOT / "examples" / "bugs"
RESULT = re.compile(r"^(HEALED|UNSURE|NOT HEALED) (\S+?)(?:: | |$)")
PARTIAL = re.compile(r"heals? (\d+) of the (\d+) failing cases")
STATS = re.compile(r"^  ([\d,]+) candidates? tried · .* · ([\d.]+) s · builtin$")


def heal_collection(
    workdir: Path,
    budget: float,
    workers: int | None = None,
    package: Path | None = None,
    sandbox: bool = True,
    paths: tuple[str, ...] = (),
) -> tuple[dict[str, dict[str, object]], float]:
    """Per failing test id: healed, candidates, seconds, reason; and the session's wall time.
    package: a checkout whose pytest_caretaker to run instead of the installed one (the
    sandbox would not show it to the candidates: run without it, sandbox False)."""
    # Default verbosity: the summary shows each fix's diff and figures.
    command = [sys.executable, "-m", "pytest", "--heal", "-p", "no:cacheprovider"]
    # The repairer is measured, not the fixes an earlier session of the benchmark remembered.
    command += ["--heal-no-cache", *paths]
    command += ["-o", f"heal_builtin_budget={budget:g}"]
    # Every bug gets its own budget: the session's (120 s by default) would cut the collection.
    command += ["-o", "heal_session_budget=3600"]
    command += [] if sandbox else ["-o", "heal_sandbox=off"]
    if workers is not None:
        command += [f"--heal-workers={workers}"]
    env = dict(os.environ)
    if package is not None:
        use_package(command, env, package)
    started = time.perf_counter()
    done = subprocess.run(
        command, cwd=workdir, capture_output=True, text=True, check=False, env=env
    )
    wall = time.perf_counter() - started
    results = parse_summary(done.stdout)
    if not results:
        print(done.stdout[-3000:], done.stderr[-3000:], sep="\n")
        raise SystemExit("the heal run reported nothing")
    return results, wall


def heal_alone(
    workdir: Path, catalog: dict[str, dict[str, str]], budget: float
) -> tuple[dict[str, dict[str, object]], list[float]]:
    """Each bug in a session of its own (its test file only), one after the other: the time to
    a fix a user with that one bug sees, with no other bug's repair sharing the trial workers.
    The per-test results of all the sessions, and each session's wall time."""
    results: dict[str, dict[str, object]] = {}
    walls: list[float] = []
    for bug in sorted(catalog):
        found, wall = heal_collection(workdir, budget, paths=(f"test_{bug}.py",))
        results.update(found)
        walls.append(wall)
    return results, walls


def use_package(command: list[str], env: dict[str, str], package: Path) -> None:
    """command (``python -m pytest ...``) and env made to run package's pytest_caretaker."""
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(package), env.get("PYTHONPATH")]))
    # The installed entry point names this checkout's plugin module, which an older package may
    # not have (plugin.py became plugin/hooks.py): load the package's own.
    hooks = package / "pytest_caretaker" / "plugin" / "hooks.py"
    plugin = "pytest_caretaker.plugin" + (".hooks" if hooks.is_file() else "")
    command[3:3] = ["-p", "no:caretaker", "-p", plugin]


def parse_summary(stdout: str) -> dict[str, dict[str, object]]:
    """Per failing test id, what caretaker's summary says of it."""
    results: dict[str, dict[str, object]] = {}
    current: dict[str, object] | None = None
    for line in stdout.splitlines():
        found = RESULT.match(line)
        if found:
            current = {"healed": found.group(1) == "HEALED", "line": line, "candidates": 0}
            current["unsure"] = found.group(1) == "UNSURE"
            results[found.group(2)] = current
            if found.group(1) == "NOT HEALED":
                current["reason"] = line.split(": ", 1)[-1]
                current["partial"] = "partial fix heals" in line
                tried = re.search(r"([\d,]+) (?:of [\d,]+ )?candidate edits?", line)
                spent = re.search(r"in ([\d.]+) s|budget of ([\d.]+) s", line)
                current["candidates"] = int(tried.group(1).replace(",", "")) if tried else 0
                current["seconds"] = float(spent.group(1) or spent.group(2)) if spent else 0.0
            continue
        stats = STATS.match(line)
        if stats and current is not None:
            current["candidates"] = int(stats.group(1).replace(",", ""))
            current["seconds"] = float(stats.group(2))
        elif current is not None and line.startswith("  +") and not line.startswith("  +++"):
            added = current.setdefault("added", [])
            assert isinstance(added, list)
            added.append(line[3:].strip())
        elif current is not None and line.startswith("  separating input: "):
            current["separating"] = line.strip()
        elif current is not None and line.startswith(("  Plausible fix", "  Fix by")):
            current["fix"] = line.strip()
            if PARTIAL.search(line):
                current["partial"] = True
    return results


def failing_tests(workdir: Path) -> set[str]:
    """The ids of the tests a plain pytest run (no caretaker) of workdir fails."""
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-rfE",
            "-p",
            "no:caretaker",
            "-p",
            "no:cacheprovider",
        ],
        cwd=workdir,
        capture_output=True,
        text=True,
        check=False,
    )
    return {
        line.split()[1]
        for line in done.stdout.splitlines()
        if line.startswith(("FAILED ", "ERROR "))
    }


def after_the_patch(workdir: Path) -> tuple[set[str], set[str]] | None:
    """The tests failing before and after `git apply .caretaker/heal.patch` on a copy of workdir
    (None when there is no patch); the whole collection runs both times."""
    patch = workdir / ".caretaker" / "heal.patch"
    if not patch.is_file():
        return None
    before = failing_tests(workdir)
    copy = Path(tempfile.mkdtemp(prefix="caretaker-patched-"))
    try:
        shutil.copytree(workdir, copy, dirs_exist_ok=True)
        subprocess.run(["git", "apply", str(patch)], cwd=copy, check=True)
        return before, failing_tests(copy)
    finally:
        shutil.rmtree(copy, ignore_errors=True)


def localization_cost(workdir: Path) -> tuple[float, float, int]:
    """Seconds of the rerun of every test, traced and untraced (median of 3 each)."""
    collect = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider"],
        cwd=workdir,
        capture_output=True,
        text=True,
        check=False,
    )
    nodeids = [line for line in collect.stdout.splitlines() if "::" in line]
    args = ["-q", "-p", "no:cacheprovider", "-o", "addopts=", "--rootdir", str(workdir)]
    with Runner(workdir, workdir, args, 60.0) as runner:
        runner.run(nodeids[:1])  # start the warm server
        plain = statistics.median(runner.run(nodeids).seconds for _ in range(3))
        traced = statistics.median(runner.run(nodeids, trace=True).seconds for _ in range(3))
    return plain, traced, len(nodeids)


def throughput(workdir: Path, bug: str, sample: int) -> tuple[float, float, int]:
    """Seconds per candidate: trial server vs a plain pytest subprocess, on the same mutants."""
    source = SourceFile(f"{bug}.py", (workdir / f"{bug}.py").read_bytes())
    candidates = [m for d in mutate.outermost(source) for m in mutate.mutants(source, d)][:sample]
    tests = [f"test_{bug}.py"]
    args = ["-q", "-p", "no:cacheprovider", "-o", "addopts=", "--rootdir", str(workdir)]
    runner = Runner(workdir, workdir, args, 10.0)
    collect = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", *tests],
        cwd=workdir,
        capture_output=True,
        text=True,
        check=False,
    )
    nodeids = [line for line in collect.stdout.splitlines() if "::" in line]
    trial_each = trial_seconds(runner, source, candidates, nodeids, workers=1)
    runner.close()

    plain_dir = Path(tempfile.mkdtemp(prefix="caretaker-plain-"))
    for name in (f"{bug}.py", f"test_{bug}.py"):
        shutil.copy(workdir / name, plain_dir / name)
    started = time.perf_counter()
    for mutant in candidates:
        (plain_dir / mutant.path).write_text(mutant.apply(source.text), encoding="utf-8")
        subprocess.run(
            [sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", *tests],
            cwd=plain_dir,
            capture_output=True,
            check=False,
            timeout=60,
        )
    plain_each = (time.perf_counter() - started) / len(candidates)
    shutil.rmtree(plain_dir, ignore_errors=True)
    return trial_each, plain_each, len(candidates)


def trial_seconds(
    runner: Runner,
    source: SourceFile,
    candidates: list[mutate.Mutant],
    nodeids: list[str],
    workers: int,
    rounds: int = 1,
) -> float:
    """Seconds per candidate through one trial server with this many workers (taken in order,
    as the search takes them); the best of rounds."""
    trials = Trials.start(runner, nodeids, workers)
    if trials is None or not trials.ready():
        raise SystemExit("trials are not available here (they need fork, on Linux)")
    requests = []
    for mutant in candidates:
        definition = source.find(mutant.function)
        assert definition is not None
        requests.append(
            Candidate(
                nodeids,
                5.0,
                path=str(runner.root / mutant.path),
                qualname=mutant.function,
                line=definition.start,
                source=mutant.apply(source.text),
            )
        )
    best = float("inf")
    try:
        for _ in range(rounds):
            started = time.perf_counter()
            done = list(trials.map(requests))
            best = min(best, (time.perf_counter() - started) / len(requests))
            assert all(trial is not None for trial in done), "the trial server died"
    finally:
        trials.close()
    return best


def scaling(workdir: Path, bug: str, sample: int, counts: list[int]) -> dict[int, float]:
    """Candidates per second through the trial server with each number of workers, measured
    interleaved on the same mutants (median of three rounds each)."""
    source = SourceFile(f"{bug}.py", (workdir / f"{bug}.py").read_bytes())
    candidates = [m for d in mutate.outermost(source) for m in mutate.mutants(source, d)][:sample]
    args = ["-q", "-p", "no:cacheprovider", "-o", "addopts=", "--rootdir", str(workdir)]
    collect = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", f"test_{bug}.py"],
        cwd=workdir,
        capture_output=True,
        text=True,
        check=False,
    )
    nodeids = [line for line in collect.stdout.splitlines() if "::" in line]
    seen: dict[int, list[float]] = {count: [] for count in counts}
    with Runner(workdir, workdir, args, 10.0) as runner:
        for _ in range(3):
            for count in counts:
                each = trial_seconds(runner, source, candidates, nodeids, count)
                seen[count].append(1 / each)
    return {count: statistics.median(rates) for count, rates in seen.items()}


def package_at(revision: str, into: Path) -> Path:
    """The pytest_caretaker package as of a git revision, extracted under into (no worktree:
    the repository is left as it is)."""
    archive = subprocess.run(
        ["git", "archive", revision, "pytest_caretaker"], cwd=ROOT, capture_output=True, check=True
    )
    into.mkdir(parents=True, exist_ok=True)
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive.stdout, check=True)
    # The installed entry point names pytest_caretaker.plugin.hooks, and every pytest process
    # of the session loads it (its verification workers too, which take no -p of ours): an
    # older package's plugin module, plugin.py, becomes that package with hooks re-exported.
    package = into / "pytest_caretaker"
    if (package / "plugin.py").is_file() and not (package / "plugin").exists():
        (package / "plugin").mkdir()
        (package / "plugin.py").rename(package / "plugin" / "__init__.py")
        (package / "plugin" / "hooks.py").write_text(
            "from pytest_caretaker.plugin import *  # noqa: F403\n", encoding="utf-8"
        )
    return into


def per_bug(
    catalog: dict[str, dict[str, str]], results: dict[str, dict[str, object]], still: set[str]
) -> dict[str, dict[str, object]]:
    """Per bug of the catalog: healed, candidates tried, seconds, the rank of the healing
    candidate (the most any of its problems tried), exact, partial, and whether its overfit was
    kept out of the patch."""
    rows: dict[str, dict[str, object]] = {}
    for bug, entry in catalog.items():
        mine = [v for k, v in results.items() if k.startswith(f"test_{bug}.py::")]
        healed = bool(mine) and all(v["healed"] for v in mine)
        unsure = bool(mine) and not healed and all(v["healed"] or v["unsure"] for v in mine)
        added = {str(a) for v in mine for a in v.get("added", [])}  # type: ignore[attr-defined]
        tried = [int(v.get("candidates", 0)) for v in mine]  # type: ignore[call-overload]
        rows[bug] = {
            "healed": healed,
            "tried": sum(tried),
            "rank": max(tried, default=0),
            "seconds": sum(float(v.get("seconds", 0.0)) for v in mine),  # type: ignore[arg-type]
            "unsure": unsure,
            "separating": next((str(v["separating"]) for v in mine if "separating" in v), ""),
            "exact": (healed or unsure) and entry["fixed_line"].strip() in added,
            "partial": any(v.get("partial") for v in mine),
            "partial_written": any(v.get("partial") and v["healed"] for v in mine),
            "refused": entry.get("overfit") is not None and entry["overfit"] not in added,
            "left": sum(1 for nodeid in still if nodeid.startswith(f"test_{bug}.py::")),
        }
    return rows


def figures(catalog: dict[str, dict[str, str]], rows: dict[str, dict[str, object]]) -> list[str]:
    """The summary lines of one session's per-bug rows."""
    healed = [bug for bug, row in rows.items() if row["healed"]]
    times = [float(rows[bug]["seconds"]) for bug in healed]  # type: ignore[arg-type]
    ranks = [int(rows[bug]["rank"]) for bug in healed]  # type: ignore[call-overload]
    overfits = [bug for bug, entry in catalog.items() if entry.get("overfit")]
    expected = sum(
        (entry.get("expect", "healed" if entry["family"] != "none" else "-") == "healed")
        == rows[bug]["healed"]
        for bug, entry in catalog.items()
    )
    tried = sum(int(row["tried"]) for row in rows.values())  # type: ignore[call-overload]
    spent = sum(float(row["seconds"]) for row in rows.values())  # type: ignore[arg-type]
    return [
        f"{len(healed)} of {len(catalog)}",
        f"{sum(1 for row in rows.values() if row['unsure'])}",
        f"{expected} of {len(catalog)}",
        f"{sum(1 for bug in healed if rows[bug]['exact'])}",
        f"{sum(1 for row in rows.values() if row['partial'])} "
        f"({sum(1 for row in rows.values() if row['partial_written'])} written)",
        f"{sum(1 for bug in overfits if rows[bug]['refused'])} of {len(overfits)}",
        f"{sum(1 for bug in healed if not rows[bug]['left'])} of {len(healed)}",
        f"{statistics.median(times):.2f} s" if times else "-",
        f"{max(times):.2f} s" if times else "-",
        f"{statistics.median(ranks):g}" if ranks else "-",
        f"{tried / spent:.0f}/s" if spent else "-",
    ]


FIGURES = (
    "healed",
    "unsure (a fix the tests cannot tell)",
    "as the catalog expects",
    "exact (the catalog's fixed line)",
    "partial fixes (written)",
    "overfits refused",
    "green after the patch",
    "median time to a fix",
    "max time to a fix",
    "median rank of the healing candidate",
    "candidates per second, end to end",
)


def report(
    catalog: dict[str, dict[str, str]], sessions: list[tuple[str, dict[str, dict[str, object]]]]
) -> None:
    """The per-bug table and the figures, one column per session."""
    names = "".join(f" {label[:24]:>24}" for label, _ in sessions)
    print(f"{'bug':<22} {'family':<13} {'expected':<9}{names}")
    for bug, entry in sorted(catalog.items()):
        expected = entry.get("expect", "healed" if entry["family"] != "none" else "-")
        cells = ""
        for _, rows in sessions:
            row = rows[bug]
            said = "HEALED" if row["healed"] else "UNSURE" if row["unsure"] else "no"
            said += "*" if row["exact"] else ""
            said += " (partial)" if row["partial"] else ""
            cells += f" {said} {row['rank']}/{float(row['seconds']):.1f}s".rjust(25)  # type: ignore[arg-type]
        print(f"{bug:<22} {entry['family']:<13} {expected[:9]:<9}{cells}")
    print("(*: the catalog's fixed line; n/s: the healing candidate's rank, the seconds taken)")
    for label, rows in sessions:
        for bug, row in sorted(rows.items()):
            if row["unsure"]:
                exact = "the catalog's fix" if row["exact"] else "not the catalog's fix"
                print(f"UNSURE under {label}: {bug} ({exact}) {row['separating']}")
    print()
    columns = [figures(catalog, rows) for _, rows in sessions]
    print(f"{'':<40}" + "".join(f" {label[:24]:>24}" for label, _ in sessions))
    for index, name in enumerate(FIGURES):
        print(f"{name:<40}" + "".join(f" {column[index]:>24}" for column in columns))
    both = [bug for bug in catalog if all(rows[bug]["healed"] for _, rows in sessions)]
    if len(sessions) > 1 and both:
        ranks = [
            statistics.median(int(rows[bug]["rank"]) for bug in both)  # type: ignore[call-overload]
            for _, rows in sessions
        ]
        name = f"median rank on the {len(both)} bugs all heal"
        print(f"{name:<40}" + "".join(f" {rank:>24g}" for rank in ranks))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--budget", type=float, default=20.0, help="--heal-builtin-budget")
    parser.add_argument("--sample", type=int, default=30, help="mutants for the throughput")
    parser.add_argument("--bug", default="clamp_value", help="the bug whose mutants are timed")
    parser.add_argument(
        "--one-worker",
        action="store_true",
        help="heal the collection with --heal-workers=1 too, side by side",
    )
    parser.add_argument("--against", metavar="REV", help="heal it with this revision too")
    parser.add_argument(
        "--against-one-worker", action="store_true", help="and with REV at --heal-workers=1"
    )
    parser.add_argument(
        "--alone", action="store_true", help="heal each bug in a session of its own too"
    )
    parser.add_argument("--heal-only", action="store_true", help="no scaling and cost figures")
    options = parser.parse_args()
    catalog = json.loads((BUGS / "catalog.json").read_text(encoding="utf-8"))
    workdir = Path(tempfile.mkdtemp(prefix="caretaker-bugs-"))
    shutil.copytree(BUGS, workdir, dirs_exist_ok=True)
    sessions: list[tuple[str, dict[str, dict[str, object]]]] = []
    try:
        if options.against:
            sessions.append(heal_against(options.against, catalog, options.budget))
            if options.against_one_worker:
                sessions.append(heal_against(options.against, catalog, options.budget, 1))
        # Side by side, both unsandboxed: REV's package lies outside what the sandbox shows.
        results, wall = heal_collection(workdir, options.budget, sandbox=not options.against)
        patched = after_the_patch(workdir)
        still = patched[1] if patched is not None else set()
        sessions.append(("this tree", per_bug(catalog, results, still)))
        alone = None
        if options.one_worker:
            alone_results, alone = heal_collection(workdir, options.budget, 1)
            sessions.append(("--heal-workers=1", per_bug(catalog, alone_results, still)))
        walls: list[float] = []
        if options.alone:
            alone_results, walls = heal_alone(workdir, catalog, options.budget)
            sessions.append(("each bug alone", per_bug(catalog, alone_results, still)))
        report(catalog, sessions)
        cores = workers_default()
        if walls:
            print(
                f"each bug alone: the whole session (its tests, the rerun, the repair, the proof) "
                f"median {statistics.median(walls):.2f} s, max {max(walls):.2f} s"
            )
        print(f"the whole `pytest --heal` session: {wall:.1f} s ({cores} trial workers)")
        if alone is not None:
            print(f"the same session with --heal-workers=1: {alone:.1f} s ({alone / wall:.2f}x)")
        if patched is not None:
            broken = sorted(patched[1] - patched[0])
            print(
                f"after `git apply .caretaker/heal.patch`: {len(broken)} test(s) that passed now "
                "fail" + (f": {', '.join(broken)}" if broken else "")
            )
        if not options.heal_only:
            costs(workdir, options.bug, options.sample)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


def heal_against(
    revision: str, catalog: dict[str, dict[str, str]], budget: float, workers: int | None = None
) -> tuple[str, dict[str, dict[str, object]]]:
    """The collection healed by the package as of revision (its own copy of the bugs)."""
    scratch = Path(tempfile.mkdtemp(prefix="caretaker-against-"))
    try:
        package = package_at(revision, scratch / "package")
        bugs = scratch / "bugs"
        shutil.copytree(BUGS, bugs)
        results, _ = heal_collection(bugs, budget, workers, package=package, sandbox=False)
        patched = after_the_patch(bugs)
        still = patched[1] if patched is not None else set()
        name = revision + (f" --heal-workers={workers}" if workers else "")
        return name, per_bug(catalog, results, still)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def costs(workdir: Path, bug: str, sample: int) -> None:
    """Scaling, localization and verification figures."""
    cores = workers_default()
    rates = scaling(workdir, bug, max(sample, 120), sorted({1, 2, cores}))
    trial_each, plain_each, sampled = throughput(workdir, bug, sample)
    untraced, traced, reran = localization_cost(workdir)
    print(
        f"trials of {bug}'s mutants by workers ({cores} cores here): "
        + ", ".join(f"{n}: {rate:.0f}/s ({rate / rates[1]:.2f}x)" for n, rate in rates.items())
    )
    print(
        f"localization: rerun of {reran} tests traced {traced:.2f} s vs untraced "
        f"{untraced:.2f} s ({traced / untraced:.2f}x, in the repair phase only)"
    )
    print(
        f"verification of {sampled} mutants of {bug}: trial {trial_each * 1000:.1f} ms "
        f"({1 / trial_each:.0f}/s), plain pytest subprocess {plain_each * 1000:.0f} ms "
        f"({1 / plain_each:.1f}/s): {plain_each / trial_each:.0f}x"
    )


if __name__ == "__main__":
    main()
