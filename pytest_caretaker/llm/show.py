"""Show: the project's source of a definition, a class or a file that a model asks to see.

A model that calls tools calls ``show`` before it proposes a fix; a text model replies with
``SHOW: name`` lines, or names a function the prompt did not show (asking.py reads which). The
answer is read-only and goes through the redaction every prompt goes through. It comes only from
the project's own Python files: never a hidden file or folder (``.env*``, ``.git``, caretaker's
own ``.caretaker/``), a virtual environment or a build, or anything outside the project root,
links resolved; and it is cut to the room the conversation has left, saying so.

A name (``parse_header``, ``Stack.push``, ``Stack``, ``calc.py::mean``, ``pkg.util.helper``) is
looked for in the files the prompt showed and the project files they import first, then in every
Python file of the project: a definition of exactly that qualified name first, then one whose name
ends in it (``push`` finds ``Stack.push``). One match is shown; several, or none, get a short
answer that lists the nearest.
"""

from __future__ import annotations

import ast
import difflib
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Literal

from pytest_caretaker import syntax
from pytest_caretaker.llm.context import fence_for
from pytest_caretaker.project.files import ProjectFiles, SourceFile
from pytest_caretaker.project.imports import imported
from pytest_caretaker.project.reads import module_file
from pytest_caretaker.record.dotenvs import python_files
from pytest_caretaker.record.redact import Redactor
from pytest_caretaker.record.sources import SKIPPED
from pytest_caretaker.text import short

#: Characters one round of showing holds at most, whatever room the conversation has.
MAX_SHOWN = 12_000
#: Candidates an answer lists for a name it cannot show.
MAX_NEAREST = 5
#: Characters of a name or path a request may give (longer is none of the project's).
MAX_NAME = 200
PYTHON = (".py", ".pyi")
#: A name (qualified or dotted); anything else asked for is a path.
_IDENTIFIER = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*")
Outcome = Literal["shown", "cut", "not found", "ambiguous", "refused", "not shown"]


@dataclass(frozen=True)
class Place:
    path: str
    qualname: str  # "" for a whole file
    start: int
    end: int
    kind: Literal["definition", "class", "file"] = "definition"  # a definition: files.py's

    @property
    def ref(self) -> str:
        return f"{self.path}::{self.qualname}" if self.qualname else self.path


@dataclass(frozen=True)
class Shown:
    """What one request to see code got: the model reads ``answer``; ``said`` is the report's."""

    asked: str
    outcome: Outcome
    answer: str
    place: Place | None = None  # what was shown

    @property
    def said(self) -> str:
        """``Stack.push (shown)``: on one line, and short, whatever the model asked."""
        asked = short(" ".join(self.asked.split()), MAX_NAME)
        return f"{asked} ({'shown, cut' if self.outcome == 'cut' else self.outcome})"


def refusal(rel: str, root: Path) -> str | None:
    """Why the file at rel (relative to root) may not be shown; None when it may."""
    why = _refused(PurePosixPath(rel))
    if why is not None:
        return why
    try:  # a link is judged by where it leads: one to a .env is refused as the .env is
        real = (root / rel).resolve().relative_to(root.resolve())
    except (OSError, ValueError):
        return "it lies outside the project root"
    why = _refused(PurePosixPath(real.as_posix()))
    if why is None and any((root / folder / "pyvenv.cfg").exists() for folder in real.parents):
        why = "a virtual environment is not the project's code"
    return why


def _refused(path: PurePosixPath) -> str | None:
    if path.is_absolute() or ".." in path.parts or not path.parts:
        return "it lies outside the project root"
    if any(part.startswith(".") for part in path.parts):
        return "hidden files and folders (.env, .git, .caretaker) are never shown"
    if path.suffix not in PYTHON:
        return "only the project's Python files are shown"
    if any(part in SKIPPED or part == "site-packages" for part in path.parts[:-1]):
        return "a virtual environment or a build is not the project's code"
    return None


def named(source: SourceFile) -> list[Place]:
    """The definitions of a file a model may ask for by name: functions, methods, module- and
    class-level assignments, and classes."""
    places = [
        Place(source.path, d.qualname, d.start, d.end)
        for d in source.definitions
        if d.kind != "augmented"
    ]
    try:
        tree = syntax.parse(source.data)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return places

    def walk(nodes: Iterable[ast.AST], prefix: str) -> None:
        for node in nodes:
            if isinstance(node, ast.ClassDef):
                start = min([node.lineno] + [d.lineno for d in node.decorator_list])
                end = node.end_lineno or node.lineno
                places.append(Place(source.path, prefix + node.name, start, end, "class"))
            if isinstance(node, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
                walk(node.body, f"{prefix}{node.name}.")
            elif isinstance(node, ast.stmt):  # if/try/with…: the statements they hold
                walk(ast.iter_child_nodes(node), prefix)

    walk(tree.body, "")
    return places


class Index:
    """The project's definitions by name, read on the first request (nothing before it)."""

    def __init__(self, files: ProjectFiles, redactor: Redactor, first: Iterable[str]) -> None:
        self.files, self.redactor = files, redactor
        self._first = list(dict.fromkeys(first))
        self._near: list[str] | None = None
        self._rest: list[str] | None = None
        self._named: dict[str, list[Place]] = {}

    def near(self) -> list[str]:
        """The files the prompt showed, then the project files they import."""
        if self._near is None:
            paths = [p for p in self._first if self._showable(p)]
            paths += [rel for p in list(paths) for rel in sorted(imported(p, self.files.get))]
            self._near = [p for p in dict.fromkeys(paths) if self._showable(p)]
        return self._near

    def rest(self) -> list[str]:
        """Every other Python file of the project (record/dotenvs.py finds them)."""
        if self._rest is None:
            root, near = self.files.root, set(self.near())
            paths = [path.relative_to(root).as_posix() for path in python_files(root)]
            self._rest = [p for p in paths if p not in near and self._showable(p)]
        return self._rest

    def _showable(self, rel: str) -> bool:
        return refusal(rel, self.files.root) is None

    def _holds(self, rel: str, word: str) -> bool:
        """Whether the file at rel holds word at all (a file that does not is not parsed)."""
        source = self.files.get(rel)
        return source is not None and word.encode() in source.data

    def places(self, rel: str) -> list[Place]:
        if rel not in self._named:
            source = self.files.get(rel)
            self._named[rel] = named(source) if source is not None else []
        return self._named[rel]

    def find(self, name: str, path: str | None = None) -> list[Place]:
        """The definitions name may mean, from the nearest files on: exactly that qualified
        name, else one ending in it; in path alone when given."""
        only = [path] if path else []
        tiers: list[Callable[[], list[str]]] = [lambda: only] if path else [self.near, self.rest]
        matchers: list[Callable[[Place], bool]] = [
            lambda place: place.qualname == name,
            lambda place: place.qualname.endswith(f".{name}"),
        ]
        word = name.rpartition(".")[2]
        for matches in matchers:
            for tier in tiers:
                files = [rel for rel in tier() if self._holds(rel, word)]  # the rest: unparsed
                found = [p for rel in files for p in self.places(rel) if matches(p)]
                if found:
                    return found
        return self._dotted(name) if path is None else []

    def _dotted(self, name: str) -> list[Place]:
        """``pkg.util.helper`` as a module of the project and a name in it (or the module)."""
        parts = name.split(".")
        for cut in range(len(parts), 0, -1):
            rel = module_file("", ".".join(parts[:cut]), 0, self.files.get)
            source = self.files.get(rel) if rel is not None else None
            if rel is None or source is None or not self._showable(rel):
                continue
            if cut == len(parts):
                return [Place(rel, "", 1, len(source.lines), "file")]
            return self.find(".".join(parts[cut:]), rel)
        return []

    def answer(self, name: str, path: str | None, budget: int) -> Shown:
        """What the model reads when it asks for name (in path): the source, within budget
        characters, or why not."""
        name, path = name.strip().strip("`").strip(), (path or "").strip().strip("`") or None
        if "::" in name:
            path, name = name.split("::", 1)
        asked = f"{path}::{name}" if path and name else (path or name)
        if len(asked) > MAX_NAME:
            return Shown(asked, "not found", f"`{short(asked, MAX_NAME)}` is no name or path here.")
        if not name or not _IDENTIFIER.fullmatch(name) or name.endswith(PYTHON) or self._file(name):
            path, name = path or name, ""
        if path is not None:
            why = refusal(path, self.files.root)
            if why is not None:
                return Shown(asked, "refused", f"`{asked}` cannot be shown: {why}.")
            source = self.files.get(path)
            if source is None:
                nearest = difflib.get_close_matches(path, self.near() + self.rest(), MAX_NEAREST)
                return _unknown(asked, f"there is no file {path} in the project", nearest)
            if not name:
                return self._show(asked, Place(path, "", 1, len(source.lines), "file"), budget)
        found = self.find(name, path)
        if len(found) == 1:
            return self._show(asked, found[0], budget)
        if found:
            refs = ", ".join(f"`{p.ref}`" for p in found[:MAX_NEAREST])
            more = " …" if len(found) > MAX_NEAREST else ""
            text = f"`{asked}` is defined in {len(found)} places: {refs}{more}; ask for one by "
            return Shown(asked, "ambiguous", text + "its file and name (`path::Class.name`).")
        return _unknown(
            asked, "it is not defined in the project's Python files", self._near_to(name)
        )

    def _file(self, name: str) -> bool:
        """Whether a dotted name is a file's path (``README.md``), not a module's name."""
        try:
            return (self.files.root / name).is_file()
        except OSError:
            return False

    def _near_to(self, name: str) -> list[str]:
        """The refs of the defined names closest to name."""
        refs: dict[str, list[str]] = {}
        start = name.rpartition(".")[2][:4]  # of the rest, the files that may hold a near name
        for rel in self.near() + [rel for rel in self.rest() if self._holds(rel, start)]:
            for place in self.places(rel):
                for key in (place.qualname, place.qualname.rpartition(".")[2]):
                    refs.setdefault(key, []).append(place.ref)
        close = difflib.get_close_matches(name, list(refs), MAX_NEAREST)
        return list(dict.fromkeys(ref for key in close for ref in refs[key]))[:MAX_NEAREST]

    def _show(self, asked: str, place: Place, budget: int) -> Shown:
        source = self.files.get(place.path)
        assert source is not None  # found in it
        self.redactor.learn_code(self.files.root, [place.path])  # the literals it holds
        code = self.redactor("\n".join(source.lines[place.start - 1 : place.end]) + "\n")
        lines = code.splitlines(keepends=True)
        what = f"lines {place.start}–{place.end} of {place.path}" if place.qualname else "the file"
        title = f"`{place.ref}` ({what}):"
        room = budget - len(title) - 100  # the fences and the note
        kept: list[str] = []
        for line in lines:
            if len(line) > room:
                break
            kept.append(line)
            room -= len(line)
        fence = fence_for(code)
        text = f"{title}\n{fence}python\n{''.join(kept)}{fence}" if kept else title
        if len(kept) == len(lines):
            return Shown(asked, "shown", text, place)
        note = f"Cut to fit the token budget: {len(kept)} of {len(lines)} lines shown."
        return Shown(asked, "cut", f"{text}\n{note}", place)


def _unknown(asked: str, why: str, nearest: list[str]) -> Shown:
    near = f" Nearest: {', '.join(f'`{ref}`' for ref in nearest)}." if nearest else ""
    return Shown(asked, "not found", f"`{asked}` cannot be shown: {why}.{near}")
