"""``caretaker merge --verify``: the combined patch against the whole suite that matters.

A fix proved in one shard was run only beside that shard's tests. Here, in the checkout, the
combined patch is applied in memory (as ``pytest --heal`` does, sandboxed as a proof is) and run
against the tests the fixes heal and every test any shard passed whose module imports a changed
file, directly or through other project files, or sits under a changed conftest (imports.py's
``importers``: what ``--heal`` itself checks a fix against beyond the failing tests' modules).

A test that passed in its shard, passes here without the patch and fails with it was broken by
it (one that fails here anyway is not held against the fixes). Each kept fix is then
run alone on what broke and on its own tests: a fix under which a shard's passing test fails, or
its own tests still fail, is dropped, naming the test; the rest are run together again. When the
fixes break something only together, the lowest-ranked one is dropped, until what is left holds.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from pytest_caretaker.ci.merge import Fix, Merged
from pytest_caretaker.project.files import ProjectFiles
from pytest_caretaker.project.imports import conftests, importers
from pytest_caretaker.project.neighbours import module_of
from pytest_caretaker.settings import Settings
from pytest_caretaker.verify.arguments import standalone_args
from pytest_caretaker.verify.confinement import confinement_for
from pytest_caretaker.verify.runner import Runner

#: Seconds one run of the selected tests may take.
TIMEOUT = 600.0


def selected(root: Path, merged: Merged) -> list[str]:
    """The tests to run: the fixes' own, and the shards' passing tests that reach a change."""
    changed = {path for fix in merged.kept for path in fix.files}
    files = ProjectFiles(root).get
    modules = {module_of(test) for test in merged.passed}
    shared = conftests(modules, files)
    reaching = importers(changed, modules, files, shared) | {m for m in modules if m in changed}
    if changed & shared:  # a changed conftest: every test under it
        reaching |= modules
    own = [test for fix in merged.kept for test in fix.tests]
    return list(dict.fromkeys([*own, *(t for t in merged.passed if module_of(t) in reaching)]))


def verify_merged(root: Path, merged: Merged, settings: Settings | None = None) -> None:
    """Drop, from merged.kept, every fix the suite that matters refutes (the module's doc)."""
    confinement = confinement_for(settings or Settings(heal=True))
    with Runner(
        root,
        root,
        standalone_args(),
        TIMEOUT,
        confinement=confinement if not isinstance(confinement, str) else None,
    ) as runner:
        while merged.kept:
            tests = selected(root, merged)
            result = runner.run(tests, merged.combined())
            failed = [t for t in tests if _failed(result.outcomes.get(t))]
            broken = _broken([t for t in failed if t in merged.passed], runner)
            unhealed = [t for fix in merged.kept for t in fix.tests if t in failed]
            if not broken and not unhealed:
                return
            culprits = _alone(runner, merged, broken)
            if not culprits:  # only together: the lowest-ranked fix goes
                last = merged.kept[-1]
                culprits = [(last, f"with the other fixes, {(broken or unhealed)[0]} fails")]
            for fix, reason in culprits:
                merged.kept.remove(fix)
                merged.dropped.append((fix, reason))


def _broken(failed: Sequence[str], runner: Runner) -> list[str]:
    """Of the tests a shard passed that fail with the patch, those that pass here without it:
    one that fails in this job anyway (a service the shard had, another machine's state) says
    nothing of the fixes."""
    if not failed:
        return []
    plain = runner.run(failed, {})
    return [test for test in failed if not _failed(plain.outcomes.get(test))]


def _alone(runner: Runner, merged: Merged, broken: Sequence[str]) -> list[tuple[Fix, str]]:
    """The fixes that fail on their own: each run with only itself applied."""
    culprits: list[tuple[Fix, str]] = []
    for fix in merged.kept:
        tests = list(dict.fromkeys([*fix.tests, *broken]))
        result = runner.run(tests, merged.combined([fix]))
        breaks = [t for t in broken if _failed(result.outcomes.get(t))]
        fails = [t for t in fix.tests if _failed(result.outcomes.get(t))]
        if breaks:
            shard = merged.passed[breaks[0]]
            culprits.append((fix, f"it breaks {breaks[0]}, which passes without it ({shard})"))
        elif fails:
            culprits.append((fix, f"{fails[0]} still fails with it here"))
    return culprits


def _failed(outcome: object) -> bool:
    return outcome is None or getattr(outcome, "outcome", "") not in ("passed", "skipped")
