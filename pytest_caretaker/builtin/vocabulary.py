"""Vocabulary: the attribute names and dict keys an edit may take beyond its function's own.

From the module: every attribute read or written on any object (called ones apart), the fields
a class body declares, every string key of a subscript, a ``get``, an ``in`` or a dict display,
and the names its imports bind (a module's attributes are never swapped). From the failure: the
keys of each dict its frames' locals held (``{'qty': 2, …}``, by the local's name), the fields of
each object shown as ``Parcel(length=…, width=…)``, and the attributes and methods of each class
whose objects it held (``<shop.Task object at 0x…>``, ``Task('a')``), looked up in the project
files of the failure's frames.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable, Sequence
from functools import lru_cache

from pytest_caretaker.builtin.reach import Vocabulary
from pytest_caretaker.project.files import ProjectFiles, SourceFile
from pytest_caretaker.results import Failure
from pytest_caretaker.syntax import parse

#: At most this many keys or attributes from one source (a huge dict in a local is no vocabulary).
MOST = 40
_DICT_KEY = re.compile(r"[{,]\s*(['\"])((?:(?!\1)[^\\\n]){1,60})\1\s*:")
_FIELD = re.compile(r"[(,]\s*([A-Za-z_]\w*)=(?!=)")
_CLASS = re.compile(r"<(?:[\w.]+\.)?([A-Za-z_]\w*) object at 0x|\b([A-Z]\w*)\(")
_KEY_METHODS = {"get", "pop", "setdefault"}


def of_module(source: SourceFile) -> Vocabulary:
    return _of_module(source.path, source.data)


@lru_cache(maxsize=64)
def _of_module(path: str, data: bytes) -> Vocabulary:
    try:
        tree = parse(data)
    except (SyntaxError, ValueError):
        return Vocabulary()
    called = {id(n.func) for n in ast.walk(tree) if isinstance(n, ast.Call)}
    attributes: dict[str, None] = {}
    methods: dict[str, None] = {}
    keys: dict[str, None] = {}
    modules: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute):
            (methods if id(node) in called else attributes).setdefault(node.attr)
        elif isinstance(node, ast.ClassDef):
            attributes.update(dict.fromkeys(_fields(node)))
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            modules.update((a.asname or a.name).split(".")[0] for a in node.names)
        for key in _keys(node):
            keys.setdefault(key)
    return Vocabulary(
        tuple(attributes)[:MOST], tuple(methods)[:MOST], tuple(keys)[:MOST], (), frozenset(modules)
    )


def _keys(node: ast.AST) -> Iterable[str]:
    """The string keys node uses: d["k"], d.get("k"), "k" in d, {"k": …}."""
    found: list[ast.expr | None] = []
    if isinstance(node, ast.Subscript):
        found.append(node.slice)
    elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.args:
        if node.func.attr in _KEY_METHODS:
            found.append(node.args[0])
    elif isinstance(node, ast.Compare) and isinstance(node.ops[0], (ast.In, ast.NotIn)):
        found.append(node.left)
    elif isinstance(node, ast.Dict):
        found.extend(node.keys)
    for key in found:
        if isinstance(key, ast.Constant) and isinstance(key.value, str):
            yield key.value


def _fields(node: ast.ClassDef) -> list[str]:
    """The names a class body binds that are not methods: fields, class constants."""
    names: list[str] = []
    for statement in node.body:
        if isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name):
            names.append(statement.target.id)
        elif isinstance(statement, ast.Assign):
            names += [t.id for t in statement.targets if isinstance(t, ast.Name)]
    return names


def of_failure(cases: Sequence[Failure], files: ProjectFiles) -> Vocabulary:
    """What the failing cases' locals held: dicts' keys, objects' fields and classes."""
    keys: dict[str, None] = {}
    local_keys: dict[str, tuple[str, ...]] = {}
    fields: dict[str, None] = {}
    classes: dict[str, None] = {}
    for frame in (frame for case in cases for frame in case.frames):
        for name, shown in frame.locals:
            found = tuple(dict.fromkeys(m.group(2) for m in _DICT_KEY.finditer(shown)))[:MOST]
            keys.update(dict.fromkeys(found))
            if found and shown.startswith("{"):
                local_keys.setdefault(name, found)
            fields.update(dict.fromkeys(_FIELD.findall(shown)))
            classes.update(dict.fromkeys(a or b for a, b in _CLASS.findall(shown)))
    paths = dict.fromkeys(frame.path for case in cases for frame in case.frames)
    attributes, methods = _class_members(list(classes), list(paths), files)
    return Vocabulary(
        tuple(dict.fromkeys([*fields, *attributes]))[:MOST],
        tuple(methods)[:MOST],
        tuple(keys)[:MOST],
        tuple(local_keys.items()),
    )


def _class_members(
    classes: Sequence[str], paths: Sequence[str], files: ProjectFiles
) -> tuple[list[str], list[str]]:
    """The data attributes (fields, self.x) and methods of the named classes, as the project
    files at paths define them."""
    attributes: dict[str, None] = {}
    methods: dict[str, None] = {}
    wanted = set(classes)
    for path in paths:
        source = files.get(path)
        tree = _parsed(source.data) if source is not None else None
        for node in ast.walk(tree) if tree is not None else ():
            if not isinstance(node, ast.ClassDef) or node.name not in wanted:
                continue
            attributes.update(dict.fromkeys(_fields(node)))
            for inner in ast.walk(node):
                if isinstance(inner, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    methods.setdefault(inner.name)
                elif _on_self(inner):
                    attributes.setdefault(inner.attr)  # type: ignore[attr-defined]
    return list(attributes), [m for m in methods if not m.startswith("__")]


def _on_self(node: ast.AST) -> bool:
    return (
        isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
        and node.value.id == "self"
        and isinstance(node.ctx, ast.Store)
    )


@lru_cache(maxsize=64)
def _parsed(data: bytes) -> ast.Module | None:
    try:
        return parse(data)
    except (SyntaxError, ValueError):
        return None
