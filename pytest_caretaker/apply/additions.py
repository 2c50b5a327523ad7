"""What a fix adds to a file beside the definitions it replaces: new helpers (a function, a
class or a constant the fix needs), placed before the first definition the fix replaces, and new
imports, after the file's own."""

from __future__ import annotations

from collections.abc import Sequence

import libcst as cst

Statement = cst.SimpleStatementLine | cst.BaseCompoundStatement
#: A new definition added beside the fix: a function, a class or a constant the fix needs, or an
#: if/try block that binds new names (llm/parse_new.py).
Helper = cst.FunctionDef | cst.ClassDef | cst.SimpleStatementLine | cst.If | cst.Try


def helper_of(source: str) -> Helper | None:
    """The function, class, constant or block a helper edit's source defines (its first)."""
    try:
        body = cst.parse_module(source).body
    except cst.ParserSyntaxError:
        return None
    for statement in body:
        if isinstance(statement, (cst.FunctionDef, cst.ClassDef, cst.If, cst.Try)):
            return statement
        if isinstance(statement, cst.SimpleStatementLine) and isinstance(
            statement.body[0], (cst.Assign, cst.AnnAssign)
        ):
            return statement
    return None


def add_statements(
    module: cst.Module,
    helpers: Sequence[Helper],
    imports: Sequence[cst.SimpleStatementLine],
    first_target: Sequence[str],
) -> cst.Module:
    if not helpers and not imports:
        return module
    body = list(module.body)
    existing = {module.code_for_node(s).strip() for s in body if _is_import(s)}
    new_imports = [s for s in imports if module.code_for_node(s).strip() not in existing]
    if helpers:
        top_names = [name.split(".", 1)[0] for name in first_target]
        at = next(
            (
                index
                for index, statement in enumerate(body)
                if isinstance(statement, (cst.FunctionDef, cst.ClassDef))
                and statement.name.value in top_names
            ),
            len(body),
        )
        spaced = [h.with_changes(leading_lines=[cst.EmptyLine(), cst.EmptyLine()]) for h in helpers]
        if at < len(body):
            body[at : at + 1] = [*spaced, _two_blank_lines(body[at])]
        else:
            body.extend(spaced)
    if new_imports:
        at = 0
        for index, statement in enumerate(body):
            if _is_import(statement) or (index == 0 and _is_docstring(statement)):
                at = index + 1
        body[at:at] = new_imports
    return module.with_changes(body=body)


def _two_blank_lines(statement: Statement) -> Statement:
    if isinstance(statement, (cst.FunctionDef, cst.ClassDef)):
        blank = [line for line in statement.leading_lines if line.comment is None]
        if len(blank) < 2:
            return statement.with_changes(
                leading_lines=[cst.EmptyLine()] * (2 - len(blank)) + list(statement.leading_lines)
            )
    return statement


def _is_import(statement: cst.BaseStatement) -> bool:
    return isinstance(statement, cst.SimpleStatementLine) and any(
        isinstance(part, (cst.Import, cst.ImportFrom)) for part in statement.body
    )


def _is_docstring(statement: cst.BaseStatement) -> bool:
    return (
        isinstance(statement, cst.SimpleStatementLine)
        and len(statement.body) == 1
        and isinstance(statement.body[0], cst.Expr)
        and isinstance(statement.body[0].value, (cst.SimpleString, cst.ConcatenatedString))
    )
