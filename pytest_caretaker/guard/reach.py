"""Reach: everything a piece of code reaches of the verifier, pytest or the interpreter.

``reaches(tree)`` reads code once and returns what it reaches, each as a key (what, e.g.
``sys.modules``) and the half-sentence that says why that is refused. The forgery guard
(forgery.py) compares the keys of a candidate with those of the code it replaces, so code that
already did such a thing stays editable. Code given to exec, eval or compile as a string caretaker
can compute is read too; a string it cannot compute is a reach of its own.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping

from pytest_caretaker import syntax
from pytest_caretaker.guard.equality import comparisons
from pytest_caretaker.guard.names import (
    ATTRIBUTES,
    BARE,
    DOTTED,
    DYNAMIC,
    FROZEN,
    MODULES,
    RAW_OPEN,
    SENSITIVE,
    SPELLED,
    STAND_IN,
    STAND_INS,
    STORED,
    aliases,
    dotted,
    fold,
)

Found = dict[str, str]  # key -> why (a phrase after "the fix reaches")
_SETTERS = frozenset({"setattr", "delattr"})
_GETTERS = frozenset({"getattr", "hasattr", "setattr", "delattr"})
_NAMESPACES = frozenset({"globals", "vars", "locals"})


def reaches(tree: ast.AST, imported: Mapping[str, str] | None = None) -> Found:
    """What tree reaches; imported: names bound by imports elsewhere in the same candidate."""
    # A local variable named like a module (signal = read(), a parameter os) is not the module.
    local = {
        n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)
    }
    local |= {a.arg for a in ast.walk(tree) if isinstance(a, ast.arg)}
    names = {**dict.fromkeys(local, "<local>"), **(imported or {}), **aliases(tree)}
    found: Found = {}
    parents = {id(child): node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            _imports(node, found)
        elif isinstance(node, (ast.Name, ast.Attribute)):
            _name(node, names, parents, found)
        elif isinstance(node, ast.Call):
            _call(node, names, parents, found)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            _spelled(node.value, found)
        elif isinstance(node, (ast.ClassDef, ast.Dict, ast.Module)):
            found.update(comparisons(node))
    return found


def _module(name: str, found: Found) -> None:
    for module, why in MODULES.items():
        if name == module or name.startswith(module + "."):
            found[module] = why
    for module, why in STAND_INS.items():
        if name == module or name.startswith(module + "."):
            found[STAND_IN + module] = why
    if name in DOTTED:
        found[name] = DOTTED[name]


def _imports(node: ast.Import | ast.ImportFrom, found: Found) -> None:
    if isinstance(node, ast.Import):
        for alias in node.names:
            _module(alias.name, found)
    elif node.module and node.level == 0:
        _module(node.module, found)
        for alias in node.names:
            _module(f"{node.module}.{alias.name}", found)


def _name(
    node: ast.Name | ast.Attribute,
    names: Mapping[str, str],
    parents: Mapping[int, ast.AST],
    found: Found,
) -> None:
    if isinstance(node, ast.Attribute):
        if node.attr in ATTRIBUTES:
            found[node.attr] = ATTRIBUTES[node.attr]
        if not isinstance(node.ctx, ast.Load):
            _stored(node, names, found)
    elif node.id == "__builtins__":
        found[node.id] = ATTRIBUTES[node.id]
    elif node.id in BARE and node.id not in names:
        found[node.id] = BARE[node.id]
    name = dotted(node, names)
    if name is not None:
        _module(name, found)
        parent = parents.get(id(node))
        if name in SENSITIVE and not isinstance(parent, ast.Attribute) and not _looked_up(parent):
            found[f"{name} as a value"] = (
                f"the {name} module itself (handed on as a value), which caretaker cannot follow"
            )


def _looked_up(parent: ast.AST | None) -> bool:
    """The module is the object of getattr/hasattr/setattr/delattr (judged by the name)."""
    return isinstance(parent, ast.Call) and _bare(parent) in _GETTERS


def _bare(call: ast.Call) -> str | None:
    return call.func.id if isinstance(call.func, ast.Name) else None


def _stored(node: ast.Attribute, names: Mapping[str, str], found: Found) -> None:
    """An attribute assigned or deleted: a frozen module's, or one of the STORED names."""
    if node.attr in STORED:
        found[f"{node.attr} write"] = f"an assignment to {STORED[node.attr]}"
    base = dotted(node.value, names)
    root = base.split(".")[0] if base is not None else None
    if root in FROZEN:
        found[f"{root} write"] = f"an assignment to {FROZEN[root]}"


def _call(
    node: ast.Call, names: Mapping[str, str], parents: Mapping[int, ast.AST], found: Found
) -> None:
    callee = _bare(node) or dotted(node.func, names)
    if callee in _GETTERS and len(node.args) >= 2:
        _attribute_call(node, callee, names, found)
    elif callee in DYNAMIC or callee in ("builtins.exec", "builtins.eval", "builtins.compile"):
        _dynamic(node, names, found)
    elif callee in ("__import__", "importlib.import_module", "builtins.__import__"):
        module = fold(node.args[0]) if node.args else None
        if module is None:
            found["dynamic import"] = (
                "a module whose name is computed, which caretaker cannot check"
            )
        else:
            _module(module, found)
    elif callee in _NAMESPACES:
        _namespace(node, callee, names, parents, found)
    elif callee in ("open", "io.open", "builtins.open") and _descriptor(node):
        found["open(fd)"] = RAW_OPEN


def _descriptor(node: ast.Call) -> bool:
    """open() given a number: a descriptor the process already holds, not a file by its name."""
    first = (
        node.args[0]
        if node.args
        else next((k.value for k in node.keywords if k.arg == "file"), None)
    )
    return isinstance(first, ast.Constant) and type(first.value) is int


def _attribute_call(node: ast.Call, callee: str, names: Mapping[str, str], found: Found) -> None:
    """getattr(obj, "name"), setattr(obj, "name", value): read as obj.name."""
    base, attribute = dotted(node.args[0], names), fold(node.args[1])
    root = base.split(".")[0] if base is not None else None
    if attribute is None:
        if root in SENSITIVE:
            found[f"computed {root}"] = (
                f"an attribute of {root} by a computed name, which caretaker cannot check"
            )
        return
    if attribute in ATTRIBUTES:
        found[attribute] = ATTRIBUTES[attribute]
    if callee in _SETTERS:
        if attribute in STORED:
            found[f"{attribute} write"] = f"an assignment to {STORED[attribute]}"
        if root in FROZEN:
            found[f"{root} write"] = f"an assignment to {FROZEN[root]}"
    if base is not None:
        _module(f"{base}.{attribute}", found)


def _dynamic(node: ast.Call, names: Mapping[str, str], found: Found) -> None:
    """exec/eval/compile: the code is read when it is a string caretaker can compute."""
    code = fold(node.args[0]) if node.args else None
    if code is None:
        found["dynamic code"] = "code built at run time (exec, eval, compile), which caretaker "
        found["dynamic code"] += "cannot check"
        return
    try:
        tree = syntax.parse(code)
    except (SyntaxError, ValueError):
        return  # it fails when it runs; nothing ran
    found.update(reaches(tree, names))


def _namespace(
    node: ast.Call,
    callee: str,
    names: Mapping[str, str],
    parents: Mapping[int, ast.AST],
    found: Found,
) -> None:
    """globals() and vars() may be read (subscript, .get, `in`), not written or handed on."""
    if callee == "vars" and node.args:
        target = dotted(node.args[0], names)
        if target is not None and target.split(".")[0] in SENSITIVE:
            found[f"vars {target}"] = f"the namespace of {target}, which caretaker cannot follow"
        return
    if callee == "locals":
        return
    parent = parents.get(id(node))
    if isinstance(parent, ast.Subscript) and isinstance(parent.ctx, ast.Load):
        return
    if isinstance(parent, ast.Attribute) and parent.attr in ("get", "keys", "items", "values"):
        return
    if isinstance(parent, ast.Compare) and node is not parent.left:
        return
    found[f"{callee}()"] = f"the module's namespace through {callee}() (to write or hand on), "
    found[f"{callee}()"] += "which can swap the code under test for a stand-in"


def _spelled(value: str, found: Found) -> None:
    """A string that names pytest's or caretaker's modules or a refused attribute."""
    if value.split(".")[0] in ("_pytest", "pytest_caretaker"):
        _module(value, found)
    if value in SPELLED:
        why = ATTRIBUTES.get(value) or STORED.get(value) or BARE[value]
        found[f"'{value}'"] = f"{why} (spelled as a string)"
