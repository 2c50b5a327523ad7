"""Mine real bugs from the git histories of the projects of benchmarks/real_bugs.toml (issue #47).

    python benchmarks/real_bugs_mine.py [--project NAME] [--mirrors DIR] [--commit SHA]
        [--cache ~/.cache/caretaker-bench] [--max-lines 200] [--limit N] [--timeout 300] [--write]

A candidate is a commit (merges aside) since the project's `since` day whose message says it fixes
something (fix, bug, issue, regression, crash, wrong, an issue number; not a subject that
announces a feature, "Add ...", "Support ...", without a fix word) and that changes both code
(a .py file in the project's `source` folders, tests aside) and a test file, with at most
--max-lines lines of code changed. Its tests are the test functions the commit added or changed
(their AST differs, decorators and parameters included). Its buggy state is the parent commit's
tree with the commit's versions of the test files it changed. The bug is kept when

1. at the buggy state, some of those tests fail, each with a failure that is not an ImportError,
   a missing module attribute, or a missing attribute or unexpected keyword argument the fix
   adds (a feature: nothing to heal), and every other test of their files passes (or skips),
   with no collection error;
2. at the fix, every test of those files passes (or skips).

Kept bugs are printed; with --write at most --per-project of them (spread evenly over the
project's history) replace the project's bugs in real_bugs.toml (the projects' own sections,
above the bugs mark, are kept as written). Each bug records the fix's
size: hunks, changed lines, files, the definitions it changed or added (real_bugs_code.py), and
whether it touches imports, module constants or other top-level statements.
"""

from __future__ import annotations

import argparse
import re
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import real_bugs_code as code
import real_bugs_lib as lib
import real_bugs_toml

SAYS_FIX = re.compile(
    r"\b(fix(e[sd]|ing)?|bugs?|issues?|regression|crash(es)?|wrong|incorrect|broken)\b"
    r"|#\d+|\bgh-\d+",
    re.I,
)
NOT_A_BUG = re.compile(
    r"\b(typos?|lint|flake8|mypy|pylint|ruff|isort|pre-commit|docs?|documentation|"
    r"readme|changelog|ci|travis|appveyor|tox|coverage|formatting|deprecation warnings?)\b",
    re.I,
)
FEATURE = re.compile(
    r"^\s*(issue\s*#?\d+\s*:?\s*)?(add(s|ed|ing)?|implement(s|ed)?|new|support|allow|introduce|enable)\b",
    re.I,
)
FIX_WORD = re.compile(r"\b(fix(e[sd]|ing)?|bugs?|regression|wrong|incorrect|broken)\b", re.I)
NEW_NAME = re.compile(r"has no attribute '(\w+)'|unexpected keyword argument '(\w+)'")
NOTHING_TO_HEAL = re.compile(
    r"^(ImportError|ModuleNotFoundError)\b|cannot import name|"
    r"^AttributeError: module '[^']*' has no attribute|"
    r"^TypeError: .*got an unexpected keyword argument"
)


@dataclass
class Candidate:
    fix: str
    parent: str
    date: str
    subject: str
    changed: list[str] = field(default_factory=list)


def candidates(gitdir: Path, project: lib.Project, max_lines: int) -> list[Candidate]:
    """The commits worth trying, oldest first."""
    form = "--format=%x00%H %P%x01%cs%x01%B%x01"
    log = lib.git(
        gitdir, "log", "--no-merges", f"--since={project.since}", form, "--numstat", "HEAD"
    )
    found = []
    for entry in log.split("\x00")[1:]:
        head, date, message, stat = entry.split("\x01")
        fix, *parents = head.split()
        subject = (message.strip().splitlines() or [""])[0]
        if len(parents) != 1 or fix[:7] in project.skip or fix in project.skip:
            continue
        if not says_fix(message):
            continue
        changed, lines = [], 0
        for row in stat.strip().splitlines():
            added, removed, path = row.split("\t", 2)
            changed.append(path)
            if lib.is_code(project, path):
                lines += int(added) + int(removed) if added != "-" else 0
        has_code = any(lib.is_code(project, p) for p in changed)
        has_test = any(lib.is_test(p) and p.endswith(".py") for p in changed)
        if has_code and has_test and 0 < lines <= max_lines:
            found.append(Candidate(fix, parents[0], date, subject, changed))
    return found[::-1]


def says_fix(message: str) -> bool:
    """Whether a commit message says it fixes something: a fix word or an issue number, and
    not a subject that announces a feature (Add, Implement, Support, ...) without a fix word."""
    subject = (message.strip().splitlines() or [""])[0]
    if not SAYS_FIX.search(message):
        return False
    if NOT_A_BUG.search(subject) and "bug" not in subject.lower():
        return False
    return not (FEATURE.search(subject) and not FIX_WORD.search(subject))


def changed_tests(gitdir: Path, candidate: Candidate) -> dict[str, list[str]]:
    """Per test file, the test functions (node id tails) the commit added or changed."""
    found = {}
    for path in candidate.changed:
        if not (lib.is_test(path) and path.endswith(".py")):
            continue
        before = lib.show(gitdir, candidate.parent, path) or b""
        after = lib.show(gitdir, candidate.fix, path)
        if after is None:
            continue
        old = code.test_functions(before.decode("utf-8", "replace"))
        new = code.test_functions(after.decode("utf-8", "replace"))
        names = [name for name, tree in new.items() if old.get(name) != tree]
        if names:
            found[path] = names
    return found


@dataclass(frozen=True)
class Context:
    project: lib.Project
    gitdir: Path
    python: Path
    timeout: float


def validate(context: Context, candidate: Candidate, work: Path) -> lib.Bug | str:
    """The bug, or why the candidate is not one."""
    tests = changed_tests(context.gitdir, candidate)
    if not tests:
        return "adds or changes no test function"
    test_files = tuple(p for p in candidate.changed if lib.is_test(p))
    buggy, fixed = work / "buggy", work / "fixed"
    lib.export(context.gitdir, candidate.parent, buggy)
    lib.overlay(context.gitdir, candidate.fix, test_files, buggy)
    lib.prepare(context.project, context.gitdir, buggy)
    files = sorted(tests)
    selected = [f"{path}::{name}" for path, names in tests.items() for name in names]
    first = run(context, buggy, selected, work)
    if isinstance(first, str):
        return first
    if not any(o.outcome == "failed" for o in first.values()):
        return "its tests pass at the buggy state"
    before = run(context, buggy, files, work)
    if isinstance(before, str):
        return before
    failing = sorted(n for n, o in before.items() if o.outcome == "failed")
    ours = [n for n in failing if _ours(n, tests)]
    if len(ours) != len(failing):
        return (
            f"other tests of the file fail at the buggy state: {_first(set(failing) - set(ours))}"
        )
    if not failing:
        return "its tests pass in their whole file at the buggy state"
    bug = describe(context, candidate, tuple(failing), test_files, before[failing[0]].message)
    feature = adds_name(bug, [before[n].message for n in failing])
    if feature:
        return f"nothing to heal (a name the fix adds): {feature[:90]}"
    lib.export(context.gitdir, candidate.fix, fixed)
    lib.prepare(context.project, context.gitdir, fixed)
    after = run(context, fixed, files, work)
    if isinstance(after, str):
        return after.replace("buggy state", "fix")
    broken = [n for n, o in after.items() if o.outcome == "failed"]
    if broken:
        return f"fails at the fix: {_first(set(broken))}: {after[broken[0]].message[:80]}"
    return bug


def adds_name(bug: lib.Bug, messages: list[str]) -> str | None:
    """The first failure that only says a name is missing (an import, a module's attribute,
    an attribute or keyword argument the fix adds), if any."""
    added = {entry.rsplit("::", 1)[-1].rsplit(".", 1)[-1] for entry in bug.added}
    for message in messages:
        names = {n for pair in NEW_NAME.findall(message) for n in pair if n}
        if NOTHING_TO_HEAL.search(message) or names & added:
            return message
    return None


def run(context: Context, tree: Path, args: list[str], work: Path) -> dict[str, lib.Outcome] | str:
    found = lib.outcomes(
        context.project, tree, context.python, args, work / "outcomes.jsonl", context.timeout
    )
    if found is None:
        return "the tests did not finish at the buggy state"
    collection = [n for n in found if n.startswith("<collection>")]
    if collection:
        return f"collection error at the buggy state: {found[collection[0]].message[:90]}"
    return found


def describe(
    context: Context,
    candidate: Candidate,
    failing: tuple[str, ...],
    test_files: tuple[str, ...],
    failure: str,
) -> lib.Bug:
    """The bug's record: what the fix changed, and how much."""
    files = []
    functions, added = [], []
    kinds = set()
    for path in (p for p in candidate.changed if lib.is_code(context.project, p)):
        old = (lib.show(context.gitdir, candidate.parent, path) or b"").decode("utf-8", "replace")
        new = (lib.show(context.gitdir, candidate.fix, path) or b"").decode("utf-8", "replace")
        found = code.changes(old, new)
        if found:  # not only comments, docstrings or the version
            files.append(path)
        for change in found:
            kinds.add(change.kind)
            if change.kind in ("function", "class", "constant"):
                into = added if change.status == "added" else functions
                into.append(f"{path}::{change.qualname}")
    diff = lib.git(context.gitdir, "diff", "-U0", candidate.parent, candidate.fix, "--", *files)
    hunks = sum(line.startswith("@@") for line in diff.splitlines())
    lines = sum(
        line[:1] in "+-" and not line.startswith(("+++", "---")) for line in diff.splitlines()
    )
    return lib.Bug(
        id=f"{context.project.name}-{candidate.fix[:7]}",
        project=context.project.name,
        fix=candidate.fix,
        parent=candidate.parent,
        date=candidate.date,
        what=candidate.subject[:100],
        failure=failure[:160],
        tests=failing,
        test_files=test_files,
        files=tuple(files),
        functions=tuple(functions),
        added=tuple(added),
        hunks=hunks,
        lines=lines,
        imports="imports" in kinds,
        constants="constant" in kinds,
        module="module" in kinds,
    )


def redescribe(context: Context, bug: lib.Bug) -> lib.Bug:
    """A bug of the corpus described again (after a change to how fixes are measured)."""
    changed = lib.git(context.gitdir, "diff", "--name-only", bug.parent, bug.fix).split()
    candidate = Candidate(bug.fix, bug.parent, bug.date, bug.what, changed)
    return describe(context, candidate, bug.tests, bug.test_files, bug.failure)


def spread(bugs: list[lib.Bug], most: int) -> list[lib.Bug]:
    """At most `most` of a project's bugs, spread evenly over its history (oldest first), so
    that no project and no year dominates the corpus."""
    bugs = sorted(bugs, key=lambda b: b.date)
    if len(bugs) <= most:
        return bugs
    if most <= 1:
        return bugs[:most]
    return [bugs[round(i * (len(bugs) - 1) / (most - 1))] for i in range(most)]


def _ours(nodeid: str, tests: dict[str, list[str]]) -> bool:
    """Whether a node id is of a test function the commit added or changed (in a subclass
    too: a test class's tests run again in the classes that inherit them)."""
    path, *names = nodeid.split("::")
    name = names[-1].split("[", 1)[0] if names else ""
    return name in {test.split("::")[-1] for test in tests.get(path, [])}


def _first(nodeids: set[str]) -> str:
    return sorted(nodeids)[0] + (f" (+{len(nodeids) - 1})" if len(nodeids) > 1 else "")


def mine(context: Context, options: argparse.Namespace) -> list[lib.Bug]:
    if options.describe:
        return [redescribe(context, b) for b in options.known if b.project == context.project.name]
    found = candidates(context.gitdir, context.project, options.max_lines)
    if options.commit:
        found = [c for c in found if any(c.fix.startswith(s) for s in options.commit)]
    print(f"{context.project.name}: {len(found)} candidates", flush=True)
    bugs: list[lib.Bug] = []
    for number, candidate in enumerate(found[: options.limit], 1):
        work = Path(tempfile.mkdtemp(prefix="real-bug-"))
        try:
            verdict = validate(context, candidate, work)
        except (OSError, RuntimeError, UnicodeDecodeError) as error:
            verdict = f"miner error: {error}"
        finally:
            shutil.rmtree(work, ignore_errors=True)
        head = f"  {number}/{len(found)} {candidate.fix[:7]} {candidate.date}"
        head += f" {candidate.subject[:60]!r}"
        if isinstance(verdict, str):
            print(f"{head}: {verdict}", flush=True)
        else:
            bugs.append(verdict)
            print(f"{head}: BUG, {len(verdict.tests)} failing tests", flush=True)
    return bugs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--project", action="append", help="Only this project (repeatable)")
    parser.add_argument("--commit", action="append", help="Only this commit (prefix; repeatable)")
    parser.add_argument("--mirrors", type=Path, help="Take the repositories from this folder")
    parser.add_argument("--cache", type=Path, default=Path("~/.cache/caretaker-bench"))
    parser.add_argument("--max-lines", type=int, default=200, help="Largest fix, in code lines")
    parser.add_argument("--limit", type=int, help="Try at most this many candidates per project")
    parser.add_argument("--timeout", type=float, default=300.0, help="Wall seconds per test run")
    parser.add_argument("--write", action="store_true", help="Write the bugs into the toml")
    parser.add_argument(
        "--per-project", type=int, default=12, help="Write at most this many bugs of a project"
    )
    parser.add_argument(
        "--describe",
        action="store_true",
        help="Only describe the corpus's bugs again, at most --per-project of each (no runs)",
    )
    options = parser.parse_args()
    projects, known = lib.load()
    options.known = known
    cache = options.cache.expanduser()
    chosen = [p for p in projects.values() if not options.project or p.name in options.project]
    mined: dict[str, list[lib.Bug]] = {}
    for project in chosen:
        gitdir = lib.repository(project, cache, options.mirrors)
        python = Path() if options.describe else lib.project_venv(project, cache)
        context = Context(project, gitdir, python, options.timeout)
        mined[project.name] = mine(context, options)
    total = sum(len(b) for b in mined.values())
    print(f"\n{total} bugs: " + ", ".join(f"{n} {len(b)}" for n, b in mined.items()))
    if options.write:
        if options.commit or options.limit:  # replace the bugs of the commits tried
            tried = options.commit or []
            known = [b for b in known if not any(b.fix.startswith(c) for c in tried)]
            found = {b.id for bugs in mined.values() for b in bugs}
            known = [b for b in known if b.id not in found]
            bugs = known + [b for bugs in mined.values() for b in bugs]
        else:
            bugs = [b for b in known if b.project not in mined]
            for name, found in mined.items():
                kept = spread(found, options.per_project)
                print(f"{name}: {len(kept)} of its {len(found)} bugs written")
                bugs += kept
        real_bugs_toml.write(lib.CORPUS, bugs, list(projects))


if __name__ == "__main__":
    main()
