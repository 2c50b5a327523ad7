"""Reads: the module- and class-level assignments a function reads, where a wrong constant hides.

A test that fails because ``VAT = 0.25`` should be ``0.2`` executes ``price`` and never the line of
``VAT`` (it ran at import, before the test). So the constants a suspect function reads are suspects
too, found by reading its code, not by tracing it: the names it loads that its file assigns at
module level (unless the function binds them itself), ``self.X``, ``cls.X`` and ``Class.X`` of its
own class, and names it takes from another project module (``from config import VAT`` or
``import config`` … ``config.VAT``). A name read through any other object is not followed.

What a module does to such a name at import, besides assigning it, hides a bug just as well:
``RATES["gold"] = 0.3``, ``RATES.update(gold=0.3)``, ``register("gold", 0.3)`` where
``register`` stores into ``RATES``. ``changers`` finds those statements of the file.
"""

from __future__ import annotations

import ast
import functools
import textwrap
from collections.abc import Callable
from pathlib import PurePosixPath

from pytest_caretaker import syntax
from pytest_caretaker.project.files import Definition, SourceFile

#: A project file by its path relative to the root, or None when it cannot be read.
Files = Callable[[str], SourceFile | None]


def reads(source: SourceFile, definition: Definition, files: Files) -> dict[tuple[str, str], int]:
    """(path, qualname) of each project assignment the definition reads, in order of reading,
    with the line of the definition's file where it is first read."""
    try:
        tree = syntax.parse(textwrap.dedent(source.source_of(definition)))
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return {}
    imported = _imports(source, files)
    owner = definition.qualname.rpartition(".")[0] if definition.method else ""
    local = {
        node.id
        for node in ast.walk(tree)
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store)
    } | {
        arg.arg for node in ast.walk(tree) if isinstance(node, ast.arguments) for arg in _args(node)
    }
    declared = {
        name for node in ast.walk(tree) if isinstance(node, ast.Global) for name in node.names
    }
    found: dict[tuple[str, str], int] = {}
    nodes = [n for n in ast.walk(tree) if isinstance(n, (ast.Name, ast.Attribute))]
    for node in sorted(nodes, key=lambda n: (n.lineno, n.col_offset)):
        wanted: list[tuple[str, str]] = []
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            if node.id not in local or node.id in declared:
                wanted.append((source.path, node.id))
                wanted += [imported[node.id]] if node.id in imported else []
        elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            wanted += _attribute(node.value.id, node.attr, source.path, owner, imported)
        for rel, qualname in wanted:
            home = _assigned_in(rel, qualname, files)
            if home is not None:
                found.setdefault((home, qualname), definition.start + node.lineno - 1)
    found.pop((source.path, definition.qualname), None)
    return found


def _assigned_in(rel: str, name: str, files: Files, hops: int = 3) -> str | None:
    """The file that assigns name at module level: rel, or a module rel star-imports
    (``from .special import *`` in a package's ``__init__.py``) that does."""
    target = files(rel)
    if target is None:
        return None
    if target.find(name, "assignment") is not None:
        return rel
    for node in _top_imports(target.data) if hops else ():
        if isinstance(node, ast.ImportFrom) and [a.name for a in node.names] == ["*"]:
            module = module_file(rel, node.module or "", node.level, files)
            home = _assigned_in(module, name, files, hops - 1) if module else None
            if home is not None:
                return home
    return None


def made_at_import(
    constants: list[tuple[str, str]], files: Files, limit: int = 12
) -> list[tuple[str, str]]:
    """What ran at import to make these constants: the constants their values read and the
    project functions they call by name (``CYRILLIC = add_uppercase_char(_CYRILLIC)``), and
    theirs in turn, breadth first, at most limit."""
    found: list[tuple[str, str]] = []
    queue = list(constants)
    while queue and len(found) < limit:
        rel, name = queue.pop(0)
        source = files(rel)
        definition = source.find(name, "assignment") if source is not None else None
        if source is None or definition is None:
            continue
        more = list(reads(source, definition, files)) + _calls(source, definition, files)
        for key in more:
            if key not in found and key not in constants and len(found) < limit:
                found.append(key)
                queue.append(key)
    return found


def _calls(source: SourceFile, definition: Definition, files: Files) -> list[tuple[str, str]]:
    """The project functions an assignment's value calls by their bare name."""
    try:
        tree = syntax.parse(textwrap.dedent(source.source_of(definition)))
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return []
    imported = _imports(source, files)
    found: list[tuple[str, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            rel, name = imported.get(node.func.id, (source.path, node.func.id))
            target = files(rel) if name else None
            function = target.find(name) if target is not None else None
            if function is not None and function.runs and (rel, name) not in found:
                found.append((rel, name))
    return found


def _args(arguments: ast.arguments) -> list[ast.arg]:
    extra = [a for a in (arguments.vararg, arguments.kwarg) if a is not None]
    return [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs, *extra]


def _attribute(
    base: str, attr: str, path: str, owner: str, imported: dict[str, tuple[str, str]]
) -> list[tuple[str, str]]:
    """Where base.attr may be assigned: in the function's own class, or in an imported module."""
    if owner and (base in ("self", "cls") or base == owner.rsplit(".", 1)[-1]):
        return [(path, f"{owner}.{attr}")]
    if base in imported and imported[base][1] == "":  # `import config`: a module
        return [(imported[base][0], attr)]
    return []


@functools.lru_cache(maxsize=256)
def _top_imports(data: bytes) -> tuple[ast.Import | ast.ImportFrom, ...]:
    """A module's top-level imports; parsed once per text (a search reads a module's imports
    for every definition it looks at: parsing them each time was most of a search's own time
    where many problems share a module)."""
    try:
        tree = syntax.parse(data)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return ()
    return tuple(node for node in tree.body if isinstance(node, ast.Import | ast.ImportFrom))


def _imports(source: SourceFile, files: Files) -> dict[str, tuple[str, str]]:
    """Names the file imports from project modules: name -> (module's path, name there), with
    "" for a module imported whole."""
    found: dict[str, tuple[str, str]] = {}
    for node in _top_imports(source.data):
        if isinstance(node, ast.ImportFrom):
            module = module_file(source.path, node.module or "", node.level, files)
            for alias in node.names if module is not None else ():
                found[alias.asname or alias.name] = (module or "", alias.name)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                module = module_file("", alias.name, 0, files)
                if module is not None and (alias.asname is not None or "." not in alias.name):
                    found[alias.asname or alias.name] = (module, "")
    return found


def module_file(path: str, module: str, level: int, files: Files) -> str | None:
    """The project file of a module: next to the importing file for a relative import, else
    under the root or src/; a package's __init__.py. None when it is none of the project's."""
    parts = module.split(".") if module else []
    here = PurePosixPath(path).parent
    if level - 1 > len(here.parts):
        return None
    bases = (
        [here.parents[level - 2] if level > 1 else here]
        if level
        else [PurePosixPath(), PurePosixPath("src")]
    )
    for base in bases:
        stem = base.joinpath(*parts)
        for rel in (f"{stem.as_posix()}.py", f"{stem.as_posix()}/__init__.py"):
            if parts and files(rel.removeprefix("./")) is not None:
                return rel.removeprefix("./")
    return None


def changers(source: SourceFile, name: str) -> list[Definition]:
    """The module-level statements of the file that change ``name`` without binding it, in
    order, each as a "statement" definition of ``name``: an assignment to an item or attribute
    of it, a call of one of its methods, or a call of a function of the file that names it.
    They ran once, at import."""
    try:
        tree = syntax.parse(source.data)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return []
    naming = {
        node.name
        for node in tree.body
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
        and any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(node))
    }
    found: list[Definition] = []
    for node in tree.body:
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
            root = _root(node.value.func)
            changes = root == name or (root in naming and isinstance(node.value.func, ast.Name))
        elif isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            changes = any(
                isinstance(t, (ast.Subscript, ast.Attribute)) and _root(t) == name for t in targets
            )
        else:
            changes = False
        if changes:
            end = node.end_lineno or node.lineno
            found.append(Definition(name, node.lineno, end, node.lineno, kind="statement"))
    return found


def _root(node: ast.expr) -> str | None:
    """The name an expression starts from: ``RATES`` of ``RATES["a"].b`` or ``RATES.update``."""
    while isinstance(node, (ast.Attribute, ast.Subscript, ast.Call)):
        node = node.func if isinstance(node, ast.Call) else node.value
    return node.id if isinstance(node, ast.Name) else None
