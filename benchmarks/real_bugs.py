"""`pytest --heal` on real bugs from real histories (a benchmark, not a test; issue #47).

    python benchmarks/real_bugs.py [--project NAME] [--bug ID] [--jobs 1] [--mirrors DIR]
        [--caretaker HEAD] [--against b06f0cd] [--only oracle|builtin] [--timeout 300]
        [--session-budget 60] [--cache ~/.cache/caretaker-bench] [--keep] [--json FILE]
    python benchmarks/real_bugs.py --report FILE [FILE ...] [--json MERGED]

The corpus (benchmarks/real_bugs.toml, mined by real_bugs_mine.py) lists bugs that developers
fixed in the histories of pure-Python projects, by commit. The repositories are cloned from their
URLs into the cache (or taken from --mirrors, a folder of ``owner+name/repo`` git directories).
Per bug, in a fresh git repository holding the buggy state (the fix's parent with the fix's test
files, committed), and for each caretaker revision asked (--against, the landed one, beside
--caretaker; measured once when their pytest_caretaker trees are the same):

1. oracle: `pytest <the failing tests' files> --heal --heal-model openai/oracle --heal-api-base
   <a ScriptedServer in this process>` whose every reply is the developer's own fix
   (real_bugs_oracle.py). Healed: every failing test HEALED in last-run.json, and the tests pass
   after `git apply .caretaker/heal.patch` with no other test of their files failing.
2. localization recall and prompt size, from the first request the server received: whether it
   shows every definition the developer changed (its first line from the buggy source), and the
   characters of its messages (tokens ~ characters / 4).
3. built-in: `--heal-model builtin --heal-session-budget S`: right (healed, proved, and every
   definition it changed is as the developer's fix has it, as ASTs without docstrings), wrong
   (healed otherwise), unsure, not healed.

Each heal run is killed at --timeout wall seconds; its output is kept with --keep.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import tempfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import real_bugs_lib as lib
import real_bugs_oracle as oracle
import real_bugs_report as report
import real_bugs_run as runs
import real_projects_lib
from real_bugs_reach import reached

from pytest_caretaker.testing import Scripted, ScriptedServer, tool_call

LANDED = "b06f0cd"


@dataclass(frozen=True)
class Revision:
    label: str
    caretaker: Path | None
    tag: str  # a short name for folders


@dataclass(frozen=True)
class Options:
    cache: Path
    timeout: float
    session_budget: float
    model: str
    only: str | None
    keep: bool


def bench_bug(
    setup: runs.Setup, revisions: list[Revision], options: Options
) -> list[report.Result]:
    work = Path(tempfile.mkdtemp(prefix=f"{setup.bug.id}-"))
    try:
        repo = work / "buggy"
        lib.buggy_tree(setup.project, setup.gitdir, setup.bug, repo)
        made = [p for p in setup.project.generated if (repo / p).exists()]  # maybe git-ignored
        for args in (
            ["init", "-q"],
            ["add", "-A"],
            ["add", "-f", *made],
            ["commit", "-qm", "buggy"],
        ):
            real_projects_lib.git(repo, *args)
        reach = reached(setup.project, setup.gitdir, setup.bug, setup.timeout)
        results = [measure(setup, revision, repo, options) for revision in revisions]
        for result in results:
            result.reached = reach
        return results
    finally:
        if options.keep:
            print(f"  kept {work}", flush=True)
        else:
            runs.remove(work)


def measure(setup: runs.Setup, revision: Revision, repo: Path, options: Options) -> report.Result:
    result = report.Result(setup.bug.id, setup.project.name, revision.label)
    setup = runs.Setup(**{**setup.__dict__, "caretaker": revision.caretaker})
    tag = revision.tag
    try:
        if options.only in (None, "oracle"):
            with_oracle(setup, runs.clone(repo, repo.parent / f"{tag}-oracle"), options, result)
        if options.only in (None, "builtin"):
            with_builtin(setup, runs.clone(repo, repo.parent / f"{tag}-builtin"), options, result)
    except (OSError, RuntimeError, subprocess.CalledProcessError) as error:
        result.notes.append(f"benchmark error: {error}")
    return result


def with_oracle(setup: runs.Setup, repo: Path, options: Options, out: report.Result) -> None:
    answer = oracle.reply(setup.gitdir, setup.bug)
    out.notes += answer.notes
    arguments = oracle.tool_arguments(setup.bug, answer)

    def respond(body: dict[str, Any]) -> Scripted:
        return tool_call(arguments["explanation"], arguments["edits"])

    with ScriptedServer(responder=respond).start() as server:
        more = ["--heal-model", options.model, "--heal-api-base", server.base_url]
        done = runs.heal(setup, repo, more)
        requests = list(server.requests)
    out.oracle = verdict(done)
    out.oracle_reason = done.reason
    out.seconds["oracle"] = done.seconds
    out.requests = len(requests)
    heads = oracle.first_lines(setup.gitdir, setup.bug)
    out.changed = len(heads)
    if requests:
        if options.keep:
            first = repo.parent / f"{repo.name}-request.json"
            first.write_text(json.dumps(requests[0], indent=1), encoding="utf-8")
        prompt = oracle.messages_text(requests[0])
        out.prompt_chars = len(prompt)
        seen = oracle.shown(prompt, heads)
        out.shown = len(seen)
        firsts = [oracle.messages_text(body) for body in requests if oracle.opening(body)]
        anywhere = {entry for text in firsts for entry in oracle.shown(text, heads)}
        out.shown_any = len(anywhere | set(seen))
        out.missing = [entry for entry in heads if entry not in anywhere | set(seen)]


def with_builtin(setup: runs.Setup, repo: Path, options: Options, out: report.Result) -> None:
    budget = ["--heal-session-budget", f"{options.session_budget:g}"]
    done = runs.heal(setup, repo, ["--heal-model", "builtin", *budget])
    out.builtin = verdict(done)
    if out.builtin == "healed":
        out.builtin = "right" if runs.right(setup, repo) else "wrong"
    out.builtin_reason = done.reason or ", ".join(done.patched)
    out.seconds["builtin"] = done.seconds


def verdict(done: runs.Heal) -> str:
    if done.outcome in ("healed", "unsure") and not done.proved:
        return "unproved"
    return done.outcome


# -- the run ------------------------------------------------------------------------------------


def revisions_of(revs: list[str], cache: Path) -> list[Revision]:
    """The caretaker revisions to measure; one whose pytest_caretaker tree is the same as an
    earlier one's is measured once, under both names."""
    found: dict[str, Revision] = {}
    for rev in revs:
        folder, label = real_projects_lib.caretaker_snapshot(rev, cache)
        tree = "worktree" if rev == "worktree" else caretaker_tree(rev)
        if tree in found:
            same = found[tree]
            label = f"{same.label} = {rev} (the same pytest_caretaker)"
            found[tree] = Revision(label, same.caretaker, same.tag)
        else:
            tag = label.split()[-1]
            found[tree] = Revision(label if rev in label else f"{rev} ({label})", folder, tag)
    return list(found.values())


def caretaker_tree(rev: str) -> str:
    repo = lib.HERE.parent
    command = ["git", "rev-parse", f"{rev}:pytest_caretaker"]
    return subprocess.run(command, cwd=repo, capture_output=True, text=True, check=True).stdout


def one_bug(setup: runs.Setup, revisions: list[Revision], options: Options) -> list[report.Result]:
    results = bench_bug(setup, revisions, options)
    for r in results:
        line = f"{r.bug} [{r.revision.split(' (')[0]}]: oracle {r.oracle}"
        line += f" (shows {r.shown}/{r.changed}, {r.prompt_chars:,} chars), builtin {r.builtin}"
        reasons = [x for x in (r.oracle_reason, r.builtin_reason, *r.notes) if x]
        print(line + (f" · {' · '.join(reasons)}" if reasons else ""), flush=True)
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--project", action="append", help="Only this project (repeatable)")
    parser.add_argument("--bug", action="append", help="Only this bug id (repeatable)")
    parser.add_argument("--jobs", type=int, default=1, help="Bugs measured at once (default 1)")
    parser.add_argument("--mirrors", type=Path, help="Take the repositories from this folder")
    parser.add_argument("--cache", type=Path, default=Path("~/.cache/caretaker-bench"))
    parser.add_argument("--caretaker", default="HEAD", help="The commit to measure (default HEAD)")
    parser.add_argument(
        "--against", default=LANDED, help=f"Beside it (default {LANDED}); none: alone"
    )
    parser.add_argument("--only", choices=("oracle", "builtin"), help="Measure only this repairer")
    parser.add_argument("--model", default="openai/oracle", help="The oracle's model name")
    parser.add_argument("--timeout", type=float, default=300.0, help="Wall seconds per heal run")
    parser.add_argument(
        "--session-budget", type=float, default=60.0, help="Builtin's session budget"
    )
    parser.add_argument("--keep", action="store_true", help="Keep each bug's work folder")
    parser.add_argument("--json", type=Path, help="Also write the results to this file")
    parser.add_argument(
        "--report", type=Path, nargs="+", help="Only print the report of these --json files"
    )
    parser.add_argument("--corpus", action="store_true", help="Only describe the corpus")
    args = parser.parse_args()
    if args.report:
        return reprint(args.report, args.json)
    cache = args.cache.expanduser()
    projects, bugs = lib.load()
    if args.corpus:
        return report.corpus(projects, bugs)
    bugs = [b for b in bugs if (not args.project or b.project in args.project)]
    bugs = [b for b in bugs if not args.bug or b.id in args.bug]
    revs = [args.caretaker] if args.against == "none" else [args.against, args.caretaker]
    revisions = revisions_of(revs, cache)
    options = Options(cache, args.timeout, args.session_budget, args.model, args.only, args.keep)
    setups = []
    for name in dict.fromkeys(b.project for b in bugs):
        project = projects[name]
        gitdir = lib.repository(project, cache, args.mirrors)
        python = lib.project_venv(project, cache)
        mine = [b for b in bugs if b.project == name]
        lib.ensure(project, gitdir, [sha for b in mine for sha in (b.fix, b.parent)])
        for bug in mine:
            setups.append(runs.Setup(project, bug, gitdir, python, None, args.timeout))
    print("pytest-caretaker: " + " beside ".join(r.label for r in revisions), flush=True)
    with ThreadPoolExecutor(max_workers=args.jobs) as pool:
        done = pool.map(lambda setup: one_bug(setup, revisions, options), setups)
        results = [r for per in done for r in per]
    print()
    totals = report.table(results, [r.label for r in revisions])
    if args.json:
        data = {"revisions": [r.label for r in revisions], "totals": totals,
                "results": [asdict(r) for r in results]}  # fmt: skip
        args.json.write_text(json.dumps(data, indent=1), encoding="utf-8")


def reprint(files: list[Path], into: Path | None) -> None:
    """The report of earlier runs (their --json files, merged: a bug measured twice counts by
    its later run)."""
    labels: list[str] = []
    results: dict[tuple[str, str], report.Result] = {}
    for path in files:
        data = json.loads(path.read_text(encoding="utf-8"))
        labels += [label for label in data["revisions"] if label not in labels]
        for entry in data["results"]:
            results[entry["bug"], entry["revision"]] = report.Result(**entry)
    totals = report.table(list(results.values()), labels)
    if into:
        merged = {"revisions": labels, "totals": totals,
                  "results": [asdict(r) for r in results.values()]}  # fmt: skip
        into.write_text(json.dumps(merged, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
