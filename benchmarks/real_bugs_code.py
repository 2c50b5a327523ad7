"""What a fix changed, read from the Python source before and after it (for real_bugs*.py).

A module is read as named definitions: top-level functions (``f``), methods (``C.m``, nested
classes ``C.D.m``), a class's own statements without its methods (``C``, a *class shell*: bases,
decorators, attributes), module constants (``NAME``), the module's imports (``<imports>``) and its
other top-level statements (``<module>``). Two definitions are the same when their ASTs are,
docstrings aside: a fix that only rewords a docstring or a comment changed nothing that runs.
"""

from __future__ import annotations

import ast
import copy
import textwrap
from collections.abc import Iterator
from dataclasses import dataclass

#: Module constants a release changes, not a fix (a fix commit that bumps the version).
BOOKKEEPING = frozenset({"__version__", "__version_info__", "version_info", "__date__"})
IMPORTS = "<imports>"
MODULE = "<module>"
FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)


@dataclass(frozen=True)
class Definition:
    qualname: str
    kind: str  # "function", "class", "constant", "imports", "module"
    key: str  # the AST, docstrings aside
    text: str  # the source, dedented, decorators included
    line: int  # where it starts (1-based; its first decorator)
    end: int  # its last line


@dataclass(frozen=True)
class Change:
    qualname: str
    kind: str
    status: str  # "changed", "added", "removed"
    old: Definition | None
    new: Definition | None


def without_docstrings(node: ast.AST) -> ast.AST:
    """A copy of node with every docstring taken out."""
    node = copy.deepcopy(node)
    for inner in ast.walk(node):
        body = getattr(inner, "body", None)
        if isinstance(inner, (ast.Module, ast.ClassDef, *FUNCTIONS)) and body:
            first = body[0]
            if (
                isinstance(first, ast.Expr)
                and isinstance(first.value, ast.Constant)
                and isinstance(first.value.value, str)
            ):
                inner.body = body[1:] or [ast.Pass()]
    return node


def key(node: ast.AST) -> str:
    return ast.dump(without_docstrings(node))


def same_code(new: str, old: str) -> bool:
    """Whether two pieces of source are the same code, docstrings and formatting aside."""
    try:
        trees = [ast.parse(textwrap.dedent(text)) for text in (new, old)]
    except SyntaxError:
        return False
    return key(trees[0]) == key(trees[1])


def definitions(source: str) -> dict[str, Definition]:
    """The named definitions of a module's source (empty when it does not parse)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return {}
    lines = source.splitlines(keepends=True)
    found: dict[str, Definition] = {}
    imports: list[ast.stmt] = []
    other: list[ast.stmt] = []
    for index, node in enumerate(tree.body):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            imports.append(node)
        elif named := _top_level(node, lines):
            found.update(named)
        elif not (index == 0 and _is_docstring(node)) and not _is_main(node):
            other.append(node)
    for name, kind, nodes in ((IMPORTS, "imports", imports), (MODULE, "module", other)):
        if nodes:
            text = "".join(_segment(lines, n) for n in nodes)
            dumps = "\n".join(key(n) for n in nodes)
            found[name] = Definition(name, kind, dumps, text, nodes[0].lineno, _end(nodes[-1]))
    return found


def changes(old_source: str, new_source: str) -> list[Change]:
    """What differs between two versions of a module, definition by definition, in the order
    of the new version (removed ones last)."""
    old, new = definitions(old_source), definitions(new_source)
    for name in BOOKKEEPING:
        old.pop(name, None), new.pop(name, None)
    found = []
    for name, after in new.items():
        before = old.get(name)
        if before is None:
            found.append(Change(name, after.kind, "added", None, after))
        elif before.key != after.key:
            found.append(Change(name, after.kind, "changed", before, after))
    for name, before in old.items():
        if name not in new:
            found.append(Change(name, before.kind, "removed", before, None))
    return found


def added_statements(old_source: str, new_source: str) -> tuple[str, bool]:
    """The other top-level statements (``<module>``'s) new_source adds, as source, and whether
    it also changes or removes any of old_source's."""
    old, new = _others(old_source), _others(new_source)
    added = "".join(text + "\n" for dump, text in new.items() if dump not in old)
    return added, any(dump not in new for dump in old)


def _others(source: str) -> dict[str, str]:
    """The other top-level statements of a module (neither imports nor definitions), by AST."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return {}
    lines = source.splitlines(keepends=True)
    found = {}
    for index, node in enumerate(tree.body):
        if isinstance(node, (ast.Import, ast.ImportFrom)) or _top_level(node, lines):
            continue
        if not (index == 0 and _is_docstring(node)) and not _is_main(node):
            found[key(node)] = _segment(lines, node)
    return found


def test_functions(source: str) -> dict[str, str]:
    """The test functions of a test module, by the tail of their pytest node id
    (``test_x``, ``TestC::test_x``), each with its AST (decorators, parameters included)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return {}
    return dict(_tests(tree.body, ""))


def _tests(body: list[ast.stmt], prefix: str) -> Iterator[tuple[str, str]]:
    for node in body:
        if isinstance(node, FUNCTIONS) and node.name.startswith("test"):
            yield prefix + node.name, ast.dump(node)
        elif isinstance(node, ast.ClassDef):
            yield from _tests(node.body, f"{prefix}{node.name}::")


def _top_level(node: ast.stmt, lines: list[str]) -> dict[str, Definition]:
    """The definitions a top-level def, class or assignment makes (empty for anything else)."""
    if isinstance(node, (*FUNCTIONS, ast.ClassDef)):
        found: dict[str, Definition] = {}
        for name, kind, part, whole in _named(node, ""):
            made = _definition(name, kind, part, whole, lines)
            had = found.get(name)
            if had is not None and _accessor(whole):  # a property's setter: with its getter
                text = f"{had.text.rstrip()}\n\n{made.text}"
                made = Definition(name, kind, had.key + made.key, text, had.line, made.end)
            found[name] = made
        return found
    return {name: _definition(name, "constant", node, node, lines) for name in _assigned(node)}


def _accessor(node: ast.stmt) -> bool:
    """Whether a def is its property's setter, deleter or getter (``@major.setter``)."""
    return isinstance(node, FUNCTIONS) and any(
        isinstance(d, ast.Attribute)
        and d.attr in ("setter", "deleter", "getter")
        and isinstance(d.value, ast.Name)
        and d.value.id == node.name
        for d in node.decorator_list
    )


def _named(node: ast.stmt, prefix: str) -> Iterator[tuple[str, str, ast.AST, ast.stmt]]:
    """(qualname, kind, the node compared, the node shown) of a def or class and its members."""
    name = prefix + node.name  # type: ignore[attr-defined]
    if isinstance(node, FUNCTIONS):
        yield name, "function", node, node
        return
    assert isinstance(node, ast.ClassDef)
    shell = copy.copy(node)
    shell.body = [n for n in node.body if not isinstance(n, (*FUNCTIONS, ast.ClassDef))]
    yield name, "class", shell, node
    for member in node.body:
        if isinstance(member, (*FUNCTIONS, ast.ClassDef)):
            yield from _named(member, name + ".")


def _definition(
    name: str, kind: str, part: ast.AST, whole: ast.stmt, lines: list[str]
) -> Definition:
    text = _outdented(_segment(lines, whole), whole.col_offset)
    return Definition(name, kind, key(part), text, _start(whole), _end(whole))


def _outdented(text: str, column: int) -> str:
    """A definition's lines without the indentation of its first line: each line that has it
    loses it (a line of a string that is less indented keeps what it has, which dedent would
    not strip at all)."""
    indent = " " * column
    lines = text.splitlines(keepends=True)
    return "".join(line[column:] if line.startswith(indent) else line for line in lines)


def _assigned(node: ast.stmt) -> list[str]:
    if isinstance(node, ast.Assign):
        targets = node.targets
    elif isinstance(node, ast.AnnAssign):
        targets = [node.target]
    else:
        return []
    names: list[str] = []
    for target in targets:
        elements = target.elts if isinstance(target, ast.Tuple) else [target]
        if not all(isinstance(e, ast.Name) for e in elements):
            return []
        names += [e.id for e in elements]  # type: ignore[attr-defined]
    return names


def _is_docstring(node: ast.stmt) -> bool:
    return isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)


def _is_main(node: ast.stmt) -> bool:
    return isinstance(node, ast.If) and "__main__" in ast.dump(node.test)


def _start(node: ast.stmt) -> int:
    decorators = getattr(node, "decorator_list", [])
    return min([node.lineno, *(d.lineno for d in decorators)])


def _end(node: ast.stmt) -> int:
    return node.end_lineno or node.lineno


def _segment(lines: list[str], node: ast.stmt) -> str:
    return "".join(lines[_start(node) - 1 : _end(node)])
