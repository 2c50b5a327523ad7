"""Remember: verified fixes kept in pytest's cache, so the same failure is healed without a model.

``RememberedFixes`` is the first link of every chain (unless ``--heal-no-cache``): it proposes
the fixes remembered for the lead case, and each goes through the same proof as a fresh one.

A fix is remembered under its failure's signature (test id and exception type) together with a
digest of the source of every function it replaced. It is recalled only while those functions
still read exactly as they did (after ``git revert`` of the fix, say), and a recalled fix is
verified again like any other candidate before it is used. ``pytest --cache-clear`` forgets it.
A damaged cache is ignored where it is damaged, in one warning line, and written back without the
damage; a cache that cannot be written costs this run's new fixes, in one line.
"""

from __future__ import annotations

import ast
import hashlib
import textwrap
import threading
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from pytest_caretaker import syntax
from pytest_caretaker.problem import Failed, Healed, Task
from pytest_caretaker.project.files import Kind, ProjectFiles
from pytest_caretaker.results import Accepted, Edit, Failure, Proposal, Spend
from pytest_caretaker.text import plural

KEY = "caretaker/fixes"
PER_FAILURE = 3  # fixes kept per failure signature, newest first
MAX_FAILURES = 200


class Cache(Protocol):
    """What pytest's ``config.cache`` offers."""

    def get(self, key: str, default: Any) -> Any: ...
    def set(self, key: str, value: object) -> None: ...


@dataclass(frozen=True)
class Remembered:
    edits: tuple[Edit, ...]
    explanation: str
    model: str  # the model that first found it


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:32]


def signature(failure: Failure) -> str:
    return _digest(f"{failure.nodeid}\0{failure.exc_type}")


def _function_digests(edits: Sequence[Edit], sources: ProjectFiles) -> dict[str, str] | None:
    """The digest of each replaced function's current source; None when one is missing."""
    digests: dict[str, str] = {}
    for edit in edits:
        if edit.kind != "replace":
            continue
        source = sources.get(edit.path)
        kind = _kind(edit.source)
        if kind == "statement":  # a statement run at import (reads.changers) has no name to
            return None  # be found by again: such a fix is not remembered
        definition = source.find(edit.qualname, kind) if source is not None else None
        if source is None or definition is None:
            return None
        digests[edit.ref] = _digest(source.source_of(definition))
    return digests


def _kind(code: str) -> Kind | None:
    """What a fix's code replaces: "augmented" for an ``X += …`` (that statement, not X's
    definition), "statement" for one that binds no name (``RATES.update(…)``), else None (the
    definition of its name)."""
    try:
        body = syntax.parse(textwrap.dedent(code)).body
    except (SyntaxError, ValueError):
        return None
    if len(body) != 1:
        return None
    node = body[0]
    targets = node.targets if isinstance(node, ast.Assign) else [getattr(node, "target", None)]
    if isinstance(node, ast.Expr) or not all(isinstance(t, ast.Name) for t in targets):
        return "statement" if not isinstance(node, _DEFINING) else None
    return "augmented" if isinstance(node, ast.AugAssign) else None


_DEFINING = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def _valid(entry: object) -> bool:
    """Whether a cached entry has the shape remember() writes (a damaged cache is ignored)."""
    if not isinstance(entry, dict):
        return False
    edits, functions = entry.get("edits"), entry.get("functions")
    return (
        isinstance(edits, list)
        and bool(edits)
        and all(
            isinstance(fields, list)
            and len(fields) == 4
            and all(_text(field) for field in fields)
            and fields[0] in ("replace", "helper", "import")
            for fields in edits
        )
        and isinstance(functions, dict)
        and all(_text(key) and _text(value) for key, value in functions.items())
        and _text(entry.get("explanation"))
        and _text(entry.get("model"))
    )


def _text(value: object) -> bool:
    """A string that can be written back (JSON may hold lone surrogates; UTF-8 may not)."""
    if not isinstance(value, str):
        return False
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _load(cache: Cache) -> tuple[dict[str, list[dict[str, Any]]], str]:
    """The remembered fixes in the cache, and what was wrong with what it held ("" if nothing).

    pytest's cache returns the default for a file it cannot read or decode, but lets through the
    RecursionError of JSON nested deeper than Python's stack.
    """
    try:
        stored = cache.get(KEY, {})
    except RecursionError:
        return {}, "nested too deeply to read"
    if not isinstance(stored, dict):
        return {}, "not a JSON object of fixes"
    entries = {
        key: [entry for entry in value if _valid(entry)]
        for key, value in stored.items()
        if isinstance(key, str) and isinstance(value, list)
    }
    dropped = sum(len(value) if isinstance(value, list) else 1 for value in stored.values())
    dropped -= sum(len(value) for value in entries.values())
    return (
        entries,
        f"{plural(dropped, 'entry', 'entries')} not as caretaker writes them" if dropped else "",
    )


class FixMemory:
    def __init__(self, cache: Cache | None) -> None:
        self.cache = cache
        self.entries: dict[str, list[dict[str, Any]]] = {}
        #: What was wrong with the cache, for one warning line (its damage is not kept).
        self.damage = ""
        if cache is not None:
            self.entries, self.damage = _load(cache)
        self.changed = bool(self.damage)  # saving writes the good part back
        self._lock = threading.Lock()

    def warning(self) -> str | None:
        """The line that says the cache was damaged and what happened to it, if it was."""
        if not self.damage:
            return None
        return (
            f"caretaker: pytest's cache entry {KEY} is damaged ({self.damage}); the remembered "
            "fixes that could not be read are ignored and the entry is rewritten"
        )

    def recall(
        self, failure: Failure, sources: ProjectFiles, suspects: Sequence[str] = ()
    ) -> list[Remembered]:
        """Remembered fixes for this failure whose functions still read as they did; then those
        of other failures that replaced only suspects of this one (refs): another test of one
        bug, healed earlier or by another shard (shared_memory.py)."""
        own = self.entries.get(signature(failure), [])
        others = [e for key, es in reversed(self.entries.items()) for e in es if es is not own]
        found: list[Remembered] = []
        for entry in [*own, *others]:
            edits = tuple(Edit(*fields) for fields in entry["edits"])
            named = set(entry["functions"])  # the refs it replaced
            if entry not in own and not (named and named <= set(suspects)):
                continue
            remembered = Remembered(edits, entry["explanation"], entry["model"])
            if remembered not in found and _function_digests(edits, sources) == entry["functions"]:
                found.append(remembered)
        return found

    def remember(
        self,
        failure: Failure,
        edits: Sequence[Edit],
        explanation: str,
        model: str,
        sources: ProjectFiles,
    ) -> None:
        functions = _function_digests(edits, sources)
        if self.cache is None or not edits or functions is None:
            return
        entry = {
            "edits": [[e.kind, e.path, e.qualname, e.source] for e in edits],
            "explanation": explanation,
            "model": model,
            "functions": functions,
        }
        if not _valid(entry):  # e.g. a file whose name is not UTF-8: it cannot be saved
            return
        key = signature(failure)
        with self._lock:  # repairs run in threads
            kept = [o for o in self.entries.pop(key, []) if o.get("edits") != entry["edits"]]
            self.entries[key] = [entry, *kept][:PER_FAILURE]  # re-inserted: newest last
            while len(self.entries) > MAX_FAILURES:
                del self.entries[next(iter(self.entries))]
            self.changed = True

    def save(self) -> str | None:
        """Write the fixes to the cache; None, or the one line that says why they were not.

        pytest's cache reports a folder or file it cannot write (read-only, a full disk) with a
        warning, an error under ``-W error``; a value it cannot encode raises.
        """
        if self.cache is None or not self.changed:
            return None
        problem = ""
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                self.cache.set(KEY, self.entries)
            except (OSError, UnicodeError, ValueError) as error:
                problem = str(error)
        problem = problem or (str(caught[0].message) if caught else "")
        if problem:
            return f"caretaker: the fixes found were not remembered: {problem}"
        self.changed = False
        return None


class RememberedFixes:
    """The repairer that proposes remembered fixes (the ``cache`` link of the chain)."""

    name = "cache"

    def __init__(self, memory: FixMemory, files: ProjectFiles) -> None:
        self.memory = memory
        self.files = files

    def repair(self, task: Task) -> Healed | Failed:
        refs = [suspect.ref for suspect in task.suspects if not suspect.is_test]
        for remembered in self.memory.recall(task.problem.lead, self.files, refs):
            decided = task.prove(Proposal(remembered.edits, remembered.explanation))
            task.log.add(
                f"Remembered fix (first found by {remembered.model})",
                "verdict: accepted"
                if isinstance(decided, Accepted)
                else f"verdict: {decided.reason}",
                code="\n".join(edit.source for edit in remembered.edits),
                language="python",
            )
            if isinstance(decided, Accepted):
                return Healed(
                    decided.candidate, Spend(), remembered.model, decided.verdict, via="cache"
                )
        return Failed("")  # nothing remembered holds: not a failure worth a fallback line
