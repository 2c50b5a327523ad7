"""Right fixes, not just green ones (issue 45): the built-in repairer on bugs whose tests a wrong
edit passes as well as the right one (not a test).

    python benchmarks/weak_tests.py [--against REV ...] [--budget 20] [--only a,b] [--self-check]

examples/weak holds small bugs with weak tests: a single edit the built-in repairer can make fixes
each, and another single edit, wrong, passes every test of its file too. Its catalog.json names,
per bug, the buggy line, the right line, the wrong line (or that the wrong edit deletes a line)
and a call on which the two differ, with what each gives.

1. One `pytest --heal` session (no model: the built-in repairer) over a copy of examples/weak.
   Per bug: what the summary says of its failing tests (HEALED, UNSURE or NOT HEALED), whether
   the fix given is the catalog's right line, its wrong line or another edit, and what the fix
   does on the separating call (the edit applied to the buggy file, the call run in a fresh
   process): ``right`` or ``wrong`` as the catalog says, else ``other``. A fix is right when
   that call gives the catalog's right value (by its line where the call cannot be run on it).
   Totals: healed right, healed WRONG (the number that must be 0), unsure (and how many of those
   show a separating input, and give the right fix), not healed. With --against REV (repeated
   for more), the same session under the package as of git revision REV, side by side (all with
   the sandbox off: it would not show REV's package to the candidates).
2. With --self-check, no caretaker: the catalog checked against the files. The buggy file fails
   at least one test of its file and passes another; the right line and the wrong line each pass
   every test of the file; the separating call gives what the catalog says of each.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from builtin_repair import ROOT, package_at, use_package

WEAK = ROOT / "examples" / "weak"
RESULT = re.compile(r"^(HEALED|UNSURE|NOT HEALED) (\S+?)(?:: | |$)")
SAME = re.compile(r"^  the same fix as for (\S+)")
CLOSING = re.compile(r"^caretaker: (\d+) healed(?:, (\d+) unsure)?, (\d+) not healed")
OUTCOME = re.compile(r"^(PASSED|FAILED|ERROR) (\S+)")
#: Run in the folder of the bugs: each bug's separating call, its value's repr or what it raised.
EVALUATE = """
import importlib, json, sys
sys.path.insert(0, ".")
found = {}
for name, call in json.loads(sys.argv[1]).items():
    try:
        found[name] = repr(eval(call, vars(importlib.import_module(name))))
    except BaseException as error:
        found[name] = f"raises {type(error).__name__}"
print(json.dumps(found))
"""

Catalog = dict[str, dict[str, object]]


@dataclass
class Told:
    """What a session's summary says of one failing test."""

    outcome: str  # HEALED, UNSURE or NOT HEALED
    removed: list[str] = field(default_factory=list)  # the fix's diff, lines with indentation
    added: list[str] = field(default_factory=list)
    same_as: str = ""  # the test whose fix this is, shown there
    separating: bool = False  # an UNSURE fix's summary shows a separating input


@dataclass
class Row:
    """One bug in one session."""

    outcome: str  # HEALED, UNSURE, NOT HEALED (joined with + when its tests differ), or -
    line: str = ""  # the fix given: right, wrong or other, by its line
    acts: str = ""  # what it gives on the separating call: right, wrong, other ("" untold)
    separating: bool = False
    added: tuple[str, ...] = ()

    @property
    def right(self) -> bool:
        """The fix given is right: by what it does on the separating call where that is told,
        else by its line."""
        return (self.acts or self.line) == "right"

    @property
    def kind(self) -> str:
        """healed, unsure, not healed, or other (no outcome, or HEALED beside NOT HEALED)."""
        if "UNSURE" in self.outcome:
            return "unsure"
        return {"HEALED": "healed", "NOT HEALED": "not healed"}.get(self.outcome, "other")


# the catalog's edits ----------------------------------------------------------------------------


def edited(text: str, entry: Mapping[str, object], which: str) -> str:
    """The buggy file's text with the catalog's right or wrong line in place."""
    lines = text.splitlines(keepends=True)
    if which == "right":
        at, new = int(entry["line"]), str(entry["fixed_line"])  # type: ignore[call-overload]
    else:
        at = int(entry["wrong_at"])  # type: ignore[call-overload]
        new = "pass" if entry.get("wrong_deleted") else str(entry["wrong_line"])
    old = lines[at - 1]
    indent = old[: len(old) - len(old.lstrip())]
    lines[at - 1] = indent + new + old[len(old.rstrip("\r\n")) :]
    return "".join(lines)


def copy_of(bugs: Iterable[str], into: Path) -> Path:
    """The bugs' files (module and tests) copied into a folder of their own."""
    into.mkdir(parents=True, exist_ok=True)
    for bug in bugs:
        for name in (f"{bug}.py", f"test_{bug}.py"):
            shutil.copy(WEAK / name, into / name)
    return into


def separating(folder: Path, calls: Mapping[str, str]) -> dict[str, str]:
    """Each bug's separating call run on the module in folder, in a fresh process."""
    done = subprocess.run(
        [sys.executable, "-c", EVALUATE, json.dumps(calls)],
        cwd=folder,
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    if done.returncode != 0:
        raise SystemExit(f"the separating calls did not run:\n{done.stderr[-2000:]}")
    found: dict[str, str] = json.loads(done.stdout)
    return found


def env() -> dict[str, str]:
    """This process's environment with no model and no extra pytest options."""
    found = {**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    for name in ("PYTEST_ADDOPTS", "CARETAKER_MODEL"):
        found.pop(name, None)
    return found


# --self-check -----------------------------------------------------------------------------------


def outcomes(folder: Path) -> dict[str, str]:
    """Every test's outcome in a plain pytest run of folder (no caretaker)."""
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-rA",
            "-p",
            "no:caretaker",
            "-p",
            "no:cacheprovider",
        ],
        cwd=folder,
        capture_output=True,
        text=True,
        check=False,
        env=env(),
    )
    found = {}
    for line in done.stdout.splitlines():
        matched = OUTCOME.match(line)
        if matched:
            found[matched.group(2)] = matched.group(1)
    return found


def self_check(catalog: Catalog) -> bool:
    """The catalog against the files; prints a row per bug and says whether all of it holds."""
    scratch = Path(tempfile.mkdtemp(prefix="caretaker-weak-check-"))
    try:
        runs: dict[str, tuple[dict[str, str], dict[str, str]]] = {}
        for which in ("buggy", "right", "wrong"):
            folder = copy_of(catalog, scratch / which)
            for bug, entry in catalog.items():
                path = folder / f"{bug}.py"
                if which != "buggy":
                    path.write_text(edited(path.read_text(encoding="utf-8"), entry, which))
            calls = {bug: str(entry["separating"]) for bug, entry in catalog.items()}
            runs[which] = (outcomes(folder), separating(folder, calls))
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    print(f"{'bug':<17} {'buggy':<15} {'right line':<11} {'wrong line':<11} separating call")
    good = True
    for bug, entry in catalog.items():
        cells, ok = check_row(bug, entry, runs)
        good &= ok
        print(f"{bug:<17} {cells[0]:<15} {cells[1]:<11} {cells[2]:<11} {cells[3]}")
    examples = [bug for bug in catalog if ">>>" in (WEAK / f"{bug}.py").read_text(encoding="utf-8")]
    print(f"docstring examples in {len(examples)} of {len(catalog)} bugs: {', '.join(examples)}")
    good &= len(examples) <= 2
    print("the catalog holds" if good else "THE CATALOG DOES NOT HOLD (see the rows above)")
    return good


def check_row(
    bug: str, entry: Mapping[str, object], runs: Mapping[str, tuple[dict[str, str], dict[str, str]]]
) -> tuple[list[str], bool]:
    """One bug's self-check cells and whether they all hold."""
    mine = {which: _tests(runs[which][0], bug) for which in runs}
    failed = sum(1 for outcome in mine["buggy"].values() if outcome != "PASSED")
    passed = len(mine["buggy"]) - failed
    buggy_ok = failed > 0 and passed > 0
    green = {which: bool(mine[which]) and set(mine[which].values()) == {"PASSED"} for which in mine}
    right, wrong = runs["right"][1][bug], runs["wrong"][1][bug]
    calls_ok = right == entry["right"] and wrong == entry["wrong"] and right != wrong
    said = (
        f"ok ({right} / {wrong})"
        if calls_ok
        else (
            f"NO: right gives {right} (catalog {entry['right']}), "
            f"wrong gives {wrong} (catalog {entry['wrong']})"
        )
    )
    lines_ok = _differs(bug, entry)
    cells = [
        f"{failed} fail {passed} pass" + ("" if buggy_ok else " NO"),
        "passes all" if green["right"] else "NO",
        "passes all" if green["wrong"] else "NO",
        said + ("" if lines_ok else "; NO: a catalog line is the buggy line itself"),
    ]
    return cells, buggy_ok and green["right"] and green["wrong"] and calls_ok and lines_ok


def _tests(found: Mapping[str, str], bug: str) -> dict[str, str]:
    return {
        nodeid: outcome
        for nodeid, outcome in found.items()
        if nodeid.startswith(f"test_{bug}.py::")
    }


def _differs(bug: str, entry: Mapping[str, object]) -> bool:
    """Whether the right and the wrong edit each change the line they are on."""
    lines = (WEAK / f"{bug}.py").read_text(encoding="utf-8").splitlines()
    at, wrong_at = int(entry["line"]), int(entry["wrong_at"])  # type: ignore[call-overload]
    right = lines[at - 1].strip() != entry["fixed_line"]
    wrong = bool(entry.get("wrong_deleted")) or lines[wrong_at - 1].strip() != entry["wrong_line"]
    return right and wrong


# the heal session -------------------------------------------------------------------------------


def heal_session(
    folder: Path, budget: float, package: Path | None = None, sandbox: bool = True
) -> tuple[str, float]:
    """`pytest --heal` over folder at default verbosity (the summary shows each fix's diff): its
    output and wall time. package: a checkout whose pytest_caretaker runs instead of the
    installed one (the sandbox would not show it to the candidates: run without it)."""
    command = [
        sys.executable,
        "-m",
        "pytest",
        "--heal",
        "-p",
        "no:cacheprovider",
        "--heal-no-cache",
    ]
    command += ["-o", f"heal_builtin_budget={budget:g}", "-o", "heal_session_budget=3600"]
    command += [] if sandbox else ["-o", "heal_sandbox=off"]
    environment = env()
    if package is not None:
        use_package(command, environment, package)
    started = time.perf_counter()
    done = subprocess.run(
        command, cwd=folder, capture_output=True, text=True, check=False, env=environment
    )
    wall = time.perf_counter() - started
    if not any(RESULT.match(line) for line in done.stdout.splitlines()):
        print(done.stdout[-3000:], done.stderr[-3000:], sep="\n")
        raise SystemExit("the heal run reported nothing")
    return done.stdout, wall


def parse_summary(stdout: str) -> tuple[dict[str, Told], str]:
    """Per failing test id, what the caretaker summary says of it; and its closing line."""
    results: dict[str, Told] = {}
    current: Told | None = None
    closing = ""
    for line in stdout.splitlines():
        found = RESULT.match(line)
        if found:
            current = results[found.group(2)] = Told(found.group(1))
        elif CLOSING.match(line):
            closing, current = line, None
        elif current is not None:
            _read_block_line(current, line)
    return results, closing


def _read_block_line(told: Told, line: str) -> None:
    same = SAME.match(line)
    if same:
        told.same_as = same.group(1)
    elif line.startswith("  separating input:"):
        told.separating = True
    elif line.startswith("  +") and not line.startswith("  +++"):
        told.added.append(line[3:])
    elif line.startswith("  -") and not line.startswith("  ---"):
        told.removed.append(line[3:])


def closing_counts(closing: str) -> str:
    """The closing line's counts, unsure as 0 where it names none."""
    found = CLOSING.match(closing)
    if found is None:
        return "no caretaker line"
    healed, unsure, not_healed = found.group(1), found.group(2) or "0", found.group(3)
    return f"{healed} / {unsure} / {not_healed}"


def patch_edits(folder: Path) -> dict[str, tuple[list[str], list[str]]]:
    """Per file of .caretaker/heal.patch: the lines it removes and adds."""
    patch = folder / ".caretaker" / "heal.patch"
    found: dict[str, tuple[list[str], list[str]]] = {}
    if not patch.is_file():
        return found
    current: tuple[list[str], list[str]] | None = None
    for line in patch.read_text(encoding="utf-8").splitlines():
        if line.startswith("+++ b/"):
            current = found.setdefault(line[6:], ([], []))
        elif current is not None and line.startswith("-") and not line.startswith("---"):
            current[0].append(line[1:])
        elif current is not None and line.startswith("+"):
            current[1].append(line[1:])
    return found


def rows_of(catalog: Catalog, stdout: str, folder: Path) -> dict[str, Row]:
    """Per bug: the outcome, the fix given by its line, and what it does on the separating call."""
    told, _ = parse_summary(stdout)
    patch = patch_edits(folder)
    rows: dict[str, Row] = {}
    fixes: dict[str, tuple[list[str], list[str]]] = {}
    for bug in catalog:
        mine = {nodeid: t for nodeid, t in told.items() if nodeid.startswith(f"test_{bug}.py::")}
        outcomes = sorted({t.outcome for t in mine.values()})
        rows[bug] = Row("+".join(outcomes) if outcomes else "-")
        rows[bug].separating = any(t.separating for t in mine.values())
        shown = [told.get(t.same_as, t) for t in mine.values()]
        diff = next(((t.removed, t.added) for t in shown if t.added or t.removed), None)
        diff = diff or patch.get(f"{bug}.py")
        if diff is not None:
            fixes[bug] = diff
            rows[bug].added = tuple(line.strip() for line in diff[1])
            rows[bug].line = fix_line(catalog[bug], bug, *diff)
    for bug, acts in acting(catalog, fixes).items():
        rows[bug].acts = acts
    return rows


def fix_line(entry: Mapping[str, object], bug: str, removed: list[str], added: list[str]) -> str:
    """right, wrong or other: the fix given, by the line it writes (or the one it deletes)."""
    new = {line.strip() for line in added}
    if entry["fixed_line"] in new:
        return "right"
    if entry.get("wrong_line") in new:
        return "wrong"
    if entry.get("wrong_deleted"):
        lines = (WEAK / f"{bug}.py").read_text(encoding="utf-8").splitlines()
        deleted = lines[int(entry["wrong_at"]) - 1].strip()  # type: ignore[call-overload]
        if deleted in {line.strip() for line in removed} and new <= {"pass"}:
            return "wrong"
    return "other"


def acting(catalog: Catalog, fixes: Mapping[str, tuple[list[str], list[str]]]) -> dict[str, str]:
    """Per bug with a fix: right, wrong or other, by what the fix gives on the separating call
    (the fix applied to the buggy file in a scratch folder); a fix that does not apply as one
    block of lines is left out."""
    if not fixes:
        return {}
    scratch = Path(tempfile.mkdtemp(prefix="caretaker-weak-acts-"))
    try:
        copy_of(fixes, scratch)
        applied = []
        for bug, (removed, added) in fixes.items():
            path = scratch / f"{bug}.py"
            text = path.read_text(encoding="utf-8")
            old, new = "\n".join(removed), "\n".join(added)
            if old and old in text:  # else (a fix of several hunks, say) it is judged by line
                path.write_text(text.replace(old, new, 1), encoding="utf-8")
                applied.append(bug)
        calls = {bug: str(catalog[bug]["separating"]) for bug in applied}
        gives = separating(scratch, calls) if calls else {}
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return {
        bug: "right"
        if got == catalog[bug]["right"]
        else "wrong"
        if got == catalog[bug]["wrong"]
        else "other"
        for bug, got in gives.items()
    }


Session = tuple[str, dict[str, Row], str, float]


def session(catalog: Catalog, budget: float, revision: str | None, sandbox: bool) -> Session:
    """One heal session over a copy of the bugs (under revision's package if one is given):
    its label, its rows, its closing line's counts and its wall time."""
    # The commit is named once: a revision such as HEAD may move while the session runs.
    commit = git("rev-parse", "--short", revision or "HEAD")
    said = label(revision, commit)
    scratch = Path(tempfile.mkdtemp(prefix="caretaker-weak-"))
    try:
        folder = copy_of(catalog, scratch / "weak")
        package = package_at(commit, scratch / "package") if revision else None
        stdout, wall = heal_session(folder, budget, package, sandbox)
        rows = rows_of(catalog, stdout, folder)
        return said, rows, closing_counts(parse_summary(stdout)[1]), wall
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def label(revision: str | None, commit: str) -> str:
    """A session's column: the revision and its commit, or this tree, its HEAD and whether the
    package has changes not committed."""
    if revision is not None:
        return revision if revision.startswith(commit) else f"{revision} ({commit})"
    changed = git("status", "--porcelain", "--", "pytest_caretaker")
    return f"this tree ({commit}{' + changes' if changed else ''})"


def git(*args: str) -> str:
    done = subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, check=True)
    return done.stdout.strip()


# the report -------------------------------------------------------------------------------------


def cell(row: Row) -> str:
    """HEALED wrong, UNSURE right (sep), NOT HEALED, ..."""
    if not row.line:
        return row.outcome
    verdict = row.line if row.line != "other" else f"other~{row.acts or '?'}"
    return f"{row.outcome} {verdict}" + (" (sep)" if row.separating else "")


def totals(rows: Mapping[str, Row]) -> list[tuple[str, str]]:
    """The figures of one session: healed right and WRONG, unsure (with a separating input),
    not healed."""
    kinds = {kind: [row for row in rows.values() if row.kind == kind] for kind in KINDS}
    healed, unsure = kinds["healed"], kinds["unsure"]
    return [
        ("healed right", str(sum(row.right for row in healed))),
        ("healed WRONG (must be 0)", str(sum(not row.right for row in healed))),
        (
            "unsure (with a separating input)",
            f"{len(unsure)} ({sum(row.separating for row in unsure)})",
        ),
        ("  of which the fix given is right", str(sum(row.right for row in unsure))),
        ("not healed", str(len(kinds["not healed"]))),
        ("other (no outcome, or HEALED beside NOT HEALED)", str(len(kinds["other"]))),
    ]


KINDS = ("healed", "unsure", "not healed", "other")


def report(catalog: Catalog, sessions: list[Session]) -> None:
    """The per-bug table, the totals and the fixes given that are not right, a column a session."""
    width = 30
    print(
        f"{'bug':<17} {'pattern':<46}"
        + "".join(f" {label[:width]:>{width}}" for label, *_ in sessions)
    )
    for bug, entry in catalog.items():
        cells = "".join(f" {cell(rows[bug]):>{width}}" for _, rows, *_ in sessions)
        print(f"{bug:<17} {str(entry['pattern'])[:46]:<46}{cells}")
    print(
        "(the fix given, by its line: right, wrong, or other~ what it does on the separating "
        "call; (sep): the summary shows a separating input)"
    )
    print()
    columns = [totals(rows) for _, rows, *_ in sessions]
    for index, (name, _) in enumerate(columns[0]):
        print(f"{name:<64}" + "".join(f" {column[index][1]:>{width}}" for column in columns))
    print(
        f"{'tests healed / unsure / not healed (the caretaker line)':<64}"
        + "".join(f" {counts[:width]:>{width}}" for *_, counts, _ in sessions)
    )
    print(
        f"{'session wall time':<64}"
        + "".join(f" {f'{wall:.1f} s':>{width}}" for *_, wall in sessions)
    )
    for label, rows, *_ in sessions:
        given = [
            f"  {bug}: {' / '.join(row.added) or '(line deleted)'}"
            for bug, row in rows.items()
            if row.line and not row.right
        ]
        if given:
            print(f"\nfixes given that are not right ({label}):")
            print("\n".join(given))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--budget", type=float, default=20.0, help="--heal-builtin-budget")
    parser.add_argument(
        "--against",
        metavar="REV",
        action="append",
        default=[],
        help="heal the bugs with this revision's package too",
    )
    parser.add_argument("--only", help="these bugs only, comma-separated")
    parser.add_argument(
        "--self-check",
        action="store_true",
        help="check the catalog against the files, without caretaker",
    )
    options = parser.parse_args()
    catalog: Catalog = json.loads((WEAK / "catalog.json").read_text(encoding="utf-8"))
    if options.only:
        catalog = {bug: catalog[bug] for bug in options.only.split(",")}
    if options.self_check:
        raise SystemExit(0 if self_check(catalog) else 1)
    # Side by side, all unsandboxed: REV's package lies outside what the sandbox shows.
    sandbox = not options.against
    sessions = [session(catalog, options.budget, rev, False) for rev in options.against]
    sessions.append(session(catalog, options.budget, None, sandbox))
    report(catalog, sessions)


if __name__ == "__main__":
    main()
