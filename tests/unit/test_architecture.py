"""The shape of the package, checked rather than hoped for: modules of one responsibility stay
small, functions stay short, and nothing imports in a circle. (Stages depending downward only, the
engine never importing pytest and the child processes never importing the parent side are
import-linter contracts in pyproject.toml, run by `tox -e lint` and .ci/run.)"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "pytest_caretaker"
MAX_MODULE_LINES = 300
MAX_FUNCTION_LINES = 60
MODULES = sorted(PACKAGE.rglob("*.py"))


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


@pytest.mark.parametrize("path", MODULES, ids=[module_name(p) for p in MODULES])
def test_every_module_is_small(path: Path) -> None:
    lines = len(path.read_text(encoding="utf-8").splitlines())

    assert lines <= MAX_MODULE_LINES, f"{module_name(path)} has {lines} lines; split it"


def test_every_function_is_short() -> None:
    long = [
        f"{module_name(path)}.{node.name} ({node.end_lineno - node.lineno + 1} lines)"
        for path in MODULES
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
        and node.end_lineno is not None
        and node.end_lineno - node.lineno + 1 > MAX_FUNCTION_LINES
    ]

    assert long == []


def imports_of(path: Path, known: set[str]) -> set[str]:
    """The package's modules path imports, at any depth (TYPE_CHECKING and function-local
    imports count: a cycle held apart by them is still one)."""
    name = module_name(path)
    base = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            root = ".".join(base[: len(base) - node.level + 1]) if node.level else ""
            module = ".".join(part for part in (root, node.module or "") if part)
            targets = [module, *(f"{module}.{alias.name}" for alias in node.names)]
        for target in targets:
            while target and target not in known:
                target = target.rpartition(".")[0]
            if target and target != name:
                found.add(target)
    return found


def test_no_module_imports_itself_through_others() -> None:
    known = {module_name(path) for path in MODULES}
    graph = {module_name(path): imports_of(path, known) for path in MODULES}

    def reaches(start: str) -> set[str]:
        seen: set[str] = set()
        todo = list(graph[start])
        while todo:
            current = todo.pop()
            if current not in seen:
                seen.add(current)
                todo += graph[current]
        return seen

    packages = {name for name in known if (PACKAGE.parent / name.replace(".", "/")).is_dir()}
    cycles = sorted(name for name in known - packages if name in reaches(name) - packages)

    assert cycles == []


#: Single-threaded child processes, which may parse with ast directly.
CHILDREN = {"verify/worker.py", "verify/swap.py", "run/child.py"}


def test_the_parent_parses_through_the_shared_lock() -> None:
    # Repairs run in threads; CPython before 3.12 can raise "AST constructor recursion depth
    # mismatch" when two threads build ASTs at once. syntax.parse holds one lock for them all.
    direct = []
    for path in MODULES:
        rel = path.relative_to(PACKAGE).as_posix()
        if rel in CHILDREN or rel == "syntax.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            called = node.func if isinstance(node, ast.Call) else None
            if (
                isinstance(called, ast.Attribute)
                and called.attr == "parse"
                and isinstance(called.value, ast.Name)
                and called.value.id == "ast"
            ):
                direct.append(f"{rel}:{node.lineno}")
    assert direct == []
