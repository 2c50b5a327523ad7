"""Parse targets: which function of the project a definition in a model's reply replaces.

A reply names a function by its plain name (``def mean``), a method name, or a qualified
``Class.method``, and sometimes by a file. The name is matched to the suspects localize ranked,
editable ones first; failing that, to a sibling method in a suspect's class, then to any function
of that name in the suspects' files. A name that matches nothing is a new function: the parser
accepts it only as a helper the fix calls. A definition whose first parameter is ``self`` or
``cls`` is a method and replaces only a method, never a module-level function of that name.

A bare method name (``def __init__``, ``def run``) is never simply the first method of that name:
when several classes of those files have one, it is the one whose parameters the reply's def
keeps, else the one the prompt showed, else a method of the class whose method the prompt
showed; when that leaves more than one, the name is ``Ambiguous`` and the reply is refused with
the places it could mean, never written over one of them.

An assignment in a reply (``VAT = 0.2``, ``RATE: float = 0.2``, ``LIMIT += 5``) is matched only to
a module- or class-level assignment of that name (``assignment``), never to a function: a reply's
``total = 0`` is a function's body, not a replacement of ``def total``.
"""

from __future__ import annotations

import ast
import textwrap
from collections.abc import Callable, Collection, Sequence

from pytest_caretaker.llm.restated import function_of
from pytest_caretaker.llm.same_names import Ambiguous, one_of, parameters_of
from pytest_caretaker.project.files import Kind, SourceFile
from pytest_caretaker.project.localize import Suspect
from pytest_caretaker.project.names import ModuleNames

#: A project file by its path relative to the root, or None when caretaker cannot read it.
Files = Callable[[str], SourceFile | None]


class Targets:
    """The functions a reply may replace: the ranked suspects, and the files that hold them.
    shown: the definitions the prompt showed (every suspect when not told)."""

    def __init__(
        self,
        suspects: Sequence[Suspect],
        editable: Callable[[Suspect], bool],
        files: Files,
        shown: Collection[tuple[str, str]] | None = None,
    ) -> None:
        self.suspects = suspects
        self.editable = [s for s in suspects if editable(s)]
        self.files = files
        self.shown = set(shown) if shown is not None else {(s.path, s.qualname) for s in suspects}
        self.names = ModuleNames(files)

    def may_edit(self, rel: str) -> bool:
        """Whether a fix may change rel, as far as the suspects tell (the guard decides)."""
        known = [s for s in self.suspects if s.path == rel]
        return not known or any(s in self.editable for s in known)

    def is_test(self, rel: str) -> bool:
        """Whether rel holds test code, as far as the suspects tell."""
        return any(s.is_test for s in self.suspects if s.path == rel)

    def original(self, rel: str, qualname: str) -> str | None:
        """The source of the definition a replace edit replaces, dedented."""
        source = self.files(rel)
        definition = source.find(qualname) if source is not None else None
        if source is None:
            return None
        if definition is None:  # a class given whole
            whole = source.class_source(qualname)
            return textwrap.dedent(whole) if whole is not None else None
        return textwrap.dedent(source.source_of(definition))

    def home(self, path: str | None) -> list[str]:
        """The files a new definition may belong to: path, else the suspects' files."""
        if path is not None:
            return [path]
        return list(dict.fromkeys(s.path for s in self.editable + list(self.suspects)))

    def class_file(self, name: str, path: str | None) -> tuple[str, bool] | None:
        """(file, defined) for a class called name in home(path): the file that defines it (or
        the project module one of them imports it from), else one that imports it from outside
        (defined False); None for a class the project lacks."""
        for rel in self.home(path):
            if name in self.names.classes(rel):
                return rel, True
        for rel in self.home(path):
            origin = self.names.origin(rel, name)
            if origin is not None and origin[1] == name and name in self.names.classes(origin[0]):
                return origin[0], True  # the class is the module's it comes from
        for rel in self.home(path):
            if name in self.names.bound(rel):
                return rel, False
        return None

    def members(self, rel: str, cls: str) -> frozenset[str]:
        """The names of the methods and class-level assignments the class called cls in rel
        defines itself."""
        source = self.files(rel)
        prefix = cls + "."
        return frozenset(
            d.qualname[len(prefix) :]
            for d in (source.definitions if source is not None else ())
            if (d.method or d.kind == "assignment")
            and d.qualname.startswith(prefix)
            and "." not in d.qualname[len(prefix) :]
        )

    def allowed(self) -> str:
        refs = [s.ref for s in self.editable[:6]] or [s.ref for s in self.suspects[:6]]
        return ", ".join(refs) if refs else "(none)"

    def resolve(
        self,
        name: str,
        path: str | None,
        method: bool = False,
        parameters: Sequence[str] | None = None,
    ) -> tuple[str, str] | Ambiguous | None:
        """(path, qualname) of the function called name (plain or qualified) in suspects' files;
        with method, only a method (the reply's def takes self or cls). parameters: those of
        the reply's def, which tell same-named methods apart."""
        pool = self.editable + [s for s in self.suspects if s not in self.editable]
        if path is not None:
            pool = [s for s in pool if s.path == path]
        paths = [path] if path is not None else list(dict.fromkeys(s.path for s in pool))
        pool = [s for s in pool if self._runs(s.path, s.qualname)]
        if method:
            pool = [s for s in pool if self._is_method(s.path, s.qualname)]
        found = _suspect(pool, name) or self._defined(pool, paths, name)
        if found is not None and method and not self._is_method(*found):
            found = self._nested(paths, name, methods_only=True)
        if found is None and not method and "." not in name:
            found = self._imported_function(paths, name)
        if found is None or found[1] == name:
            return found  # named in full, or a function of the module itself
        rivals = self._rivals(paths, name, method)
        return one_of(name, rivals, parameters, self.shown, self._parameters) or found

    def _imported_function(self, paths: Sequence[str], name: str) -> tuple[str, str] | None:
        """A function of another project module that one of paths imports by name."""
        for rel in paths:
            origin = self.names.origin(rel, name)
            source = self.files(origin[0]) if origin is not None else None
            definition = source.find(origin[1]) if origin and source else None
            if origin is not None and definition is not None and definition.runs:
                return origin
        return None

    def _rivals(self, paths: Sequence[str], name: str, method: bool) -> list[tuple[str, str]]:
        """Every method (or inner function) of those files that name, not in full, may mean."""
        found: list[tuple[str, str]] = []
        for rel in paths:
            source = self.files(rel)
            for definition in source.definitions if source is not None else ():
                if (
                    definition.runs
                    and definition.qualname.endswith("." + name)
                    and (definition.method or not method)
                ):
                    found.append((rel, definition.qualname))
        return found

    def _parameters(self, rel: str, qualname: str) -> tuple[str, ...] | None:
        node = function_of(self.original(rel, qualname))
        return parameters_of(node) if node is not None else None

    def functions(self) -> list[Suspect]:
        """The editable suspects that are functions (a bare body replaces one of their bodies)."""
        found: list[Suspect] = []
        for suspect in self.editable:
            source = self.files(suspect.path)
            definition = source.find(suspect.qualname) if source is not None else None
            if definition is None or definition.kind == "function":
                found += [suspect] if self._runs(suspect.path, suspect.qualname) else []
        return found

    def assignment(
        self, name: str, path: str | None, augmented: bool = False
    ) -> tuple[str, str] | None:
        """(path, qualname) of the assignment called name (plain or qualified) in the suspects'
        files: a suspect, an attribute of a suspect's class, a module-level one, then any."""
        kind: Kind = "augmented" if augmented else "assignment"
        pool = self.editable + [s for s in self.suspects if s not in self.editable]
        if path is not None:
            pool = [s for s in pool if s.path == path]
        paths = [path] if path is not None else list(dict.fromkeys(s.path for s in pool))
        wanted = [(s.path, s.qualname) for s in pool if s.qualname == name]
        if "." not in name:
            owners = [(s.path, s.qualname.rpartition(".")[0]) for s in pool if "." in s.qualname]
            wanted += [(rel, f"{owner}.{name}") for rel, owner in owners]
        wanted += [(rel, name) for rel in paths]
        for rel, qualname in wanted:
            source = self.files(rel)
            if source is not None and source.find(qualname, kind) is not None:
                return rel, qualname
        for rel in paths if "." not in name else ():
            source = self.files(rel)
            for definition in source.definitions if source is not None else ():
                if definition.kind == kind and definition.qualname.rsplit(".", 1)[-1] == name:
                    return rel, definition.qualname
        return None

    def _runs(self, rel: str, qualname: str) -> bool:
        """Whether a def may replace it: a function, a lambda's assignment, or nothing known."""
        source = self.files(rel)
        definition = source.find(qualname) if source is not None else None
        if source is not None and definition is None and qualname in source.classes:
            return False  # a class whose data the prompt showed: its methods are named
        return definition is None or definition.runs

    def _is_method(self, rel: str, qualname: str) -> bool:
        source = self.files(rel)
        definition = source.find(qualname) if source is not None else None
        return definition is not None and definition.method

    def _defined(
        self, pool: Sequence[Suspect], paths: Sequence[str], name: str
    ) -> tuple[str, str] | None:
        # Not a suspect itself: a sibling method in a suspect's class, then any function of that
        # name in the suspects' files, top-level first.
        wanted: list[tuple[str, str]] = []
        if "." not in name:
            owners = [(s.path, s.qualname.rpartition(".")[0]) for s in pool if "." in s.qualname]
            wanted += [(rel, f"{owner}.{name}") for rel, owner in owners]
        wanted += [(rel, name) for rel in paths]
        for rel, qualname in wanted:
            source = self.files(rel)
            definition = source.find(qualname) if source is not None else None
            if definition is not None and definition.runs:
                return rel, qualname
        if "." in name:
            return None
        return self._nested(paths, name)

    def _nested(
        self, paths: Sequence[str], name: str, methods_only: bool = False
    ) -> tuple[str, str] | None:
        """The first definition called name at any depth (a method, an inner function)."""
        for rel in paths:
            source = self.files(rel)
            for definition in source.definitions if source is not None else ():
                if (
                    definition.runs
                    and definition.qualname.rsplit(".", 1)[-1] == name
                    and (definition.method or not methods_only)
                ):
                    return rel, definition.qualname
        return None


def _suspect(pool: Sequence[Suspect], name: str) -> tuple[str, str] | None:
    """The first suspect of that qualified name, else the first whose name ends the same."""
    for suspect in pool:
        if suspect.qualname == name:
            return suspect.path, suspect.qualname
    for suspect in pool:
        if suspect.qualname.rsplit(".", 1)[-1] == name.rsplit(".", 1)[-1] and (
            "." not in name or suspect.qualname.endswith("." + name)
        ):
            return suspect.path, suspect.qualname
    return None


def block_members(cls: ast.ClassDef) -> set[str]:
    """The names a class block defines: its methods and its one-name assignments."""
    found: set[str] = set()
    for node in cls.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            found.add(node.name)
        elif isinstance(node, ast.Assign) and len(node.targets) == 1:
            found |= {node.targets[0].id} if isinstance(node.targets[0], ast.Name) else set()
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            found.add(node.target.id)
    return found
