"""Code without a definition in a reply, as a function's new body: whether it reads like one
(not an example, a call, a print or an output), and the function's own definition around it.
"""

from __future__ import annotations

import ast

from pytest_caretaker.llm.restated import function_of


def wrap_body(body: str, original: str | None) -> str | None:
    """The original definition (decorators, comments after the colon) around a new body."""
    if original is None:
        return None
    import libcst as cst

    try:
        definition = cst.parse_module(original).body[0]
        statements = cst.parse_module(body).body
    except (cst.ParserSyntaxError, IndexError):
        return None
    if not isinstance(definition, cst.FunctionDef) or not isinstance(
        definition.body, cst.IndentedBlock
    ):
        return None
    replaced = definition.with_changes(body=definition.body.with_changes(body=statements))
    return cst.Module(body=[replaced]).code


def reads_like_body(tree: ast.Module, original: str | None) -> bool:
    """Whether statements without a definition are a function's new body: more than
    expressions (a call, a print, an output), and reading a parameter of the function before
    assigning it (an example sets up its own values)."""
    statements = [s for s in tree.body if not isinstance(s, (ast.Import, ast.ImportFrom))]
    if all(isinstance(s, (ast.Expr, ast.Pass)) or _bare_annotation(s) for s in statements):
        return False
    if any(_is_main_guard(s) for s in statements):
        return False
    parameters = _parameters(original)
    if not parameters:
        return any(isinstance(n, (ast.Return, ast.Raise)) for n in ast.walk(tree))
    assigned: set[str] = set()
    for statement in statements:
        read = {
            n.id
            for n in ast.walk(statement)
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)
        }
        if read & parameters - assigned:
            return True
        assigned |= {
            n.id
            for n in ast.walk(statement)
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)
        }
    return False


def _bare_annotation(statement: ast.stmt) -> bool:
    return isinstance(statement, ast.AnnAssign) and statement.value is None


def _is_main_guard(statement: ast.stmt) -> bool:
    return isinstance(statement, ast.If) and "__name__" in ast.dump(statement.test)


def _parameters(original: str | None) -> set[str]:
    node = function_of(original)
    if node is None:
        return set()
    args = node.args
    every = [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]
    return {a.arg for a in every if a is not None} - {"self", "cls"}
