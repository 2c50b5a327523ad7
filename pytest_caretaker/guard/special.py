"""Special: refuse a fix of the code that special-cases the failing test instead of fixing the code.

Three shapes, each read against the failing tests' own literals (their inputs and expected values,
parametrize cases included), and only where the fix adds them:

- a new branch that compares an argument with one of the test's literals and returns another
  (``if x == 17: return 42``): refused; the comparison alone (``elif op == "mul":``) is a notice;
- a function that computed its result and now returns the test's expected constant: refused;
- a new try/except that returns a default: refused when it catches every exception or returns
  the test's expected value; a notice when it catches the exception the test failed with.

Literals that mean little on their own (None, booleans, -1, 0, 1, empty strings and containers)
are never taken for the test's.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from pytest_caretaker.guard.failing import Failing, key
from pytest_caretaker.guard.nodes import Function, own_nodes, shorten

_BROAD = frozenset({"Exception", "BaseException"})
_EVERY = "make the code right for every input, not for the test's"


def special_cases(
    name: str, old: Function | None, new: Function, failing: Failing, notices: list[str]
) -> str | None:
    """Why new special-cases the failing test (a refusal sentence), or None; doubts are noticed."""
    if not failing.sources:
        return None
    literals = failing.literals
    return (
        _branches(name, old, new, literals, notices)
        or _returns(name, old, new, literals)
        or _handlers(name, old, new, failing, notices)
    )


def _branches(
    name: str, old: Function | None, new: Function, literals: frozenset[str], notices: list[str]
) -> str | None:
    before = {ast.dump(n) for n in _walk(old) if isinstance(n, ast.Compare)}
    parameters = _parameters(new)
    for branch in _walk(new):
        if not isinstance(branch, (ast.If, ast.IfExp)):
            continue
        for test in ast.walk(branch.test):
            if not isinstance(test, ast.Compare) or ast.dump(test) in before:
                continue
            if not _pins(test, parameters, literals):
                continue
            returned = _returned_literal(branch, literals)
            if returned is not None:
                return (
                    f"the fix special-cases the failing test in {name}: when `{shorten(test)}` "
                    f"it returns {returned}, the test's own values; {_EVERY}"
                )
            notices.append(
                f"compares `{shorten(test)}` in {name}, an input of the failing test; "
                "check that it is not a special case for the test"
            )
    return None


def _pins(test: ast.Compare, parameters: set[str], literals: frozenset[str]) -> bool:
    """An equality (==, is, in) between an argument and one of the test's literals."""
    if not all(isinstance(op, (ast.Eq, ast.Is, ast.In)) for op in test.ops):
        return False
    sides = [test.left, *test.comparators]
    uses = any(
        isinstance(n, ast.Name) and n.id in parameters for side in sides for n in ast.walk(side)
    )
    literal = any(_literal_in(side, literals) for side in sides)
    return uses and literal


def _literal_in(node: ast.expr, literals: frozenset[str]) -> bool:
    if key(node) in literals:
        return True
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return any(key(element) in literals for element in node.elts)
    return False


def _returned_literal(branch: ast.If | ast.IfExp, literals: frozenset[str]) -> str | None:
    if isinstance(branch, ast.IfExp):
        return shorten(branch.body) if key(branch.body) in literals else None
    for statement in branch.body:
        value = statement.value if isinstance(statement, ast.Return) else None
        if value is not None and key(value) in literals:
            return shorten(value)
    return None


def _returns(
    name: str, old: Function | None, new: Function, literals: frozenset[str]
) -> str | None:
    """The function stops computing its result and returns the test's expected constant."""
    if old is None:
        return None
    was = _own_returns(old)
    now = _own_returns(new)
    computed = [r for r in was if r is not None and not _constant(r)]
    if not computed:
        return None  # a function of constants (1, n + 1) may change its constants
    old_keys = {key(r) for r in was if r is not None}
    top = [s.value for s in new.body if isinstance(s, ast.Return) and s.value is not None]
    every = bool(now) and all(r is not None and key(r) is not None for r in now)
    for value in top if not every else [r for r in now if r is not None]:
        if key(value) in literals and key(value) not in old_keys:
            return (
                f"the fix makes {name} return {shorten(value)}, the value the failing test "
                f"expects, instead of computing it; {_EVERY}"
            )
    return None


#: What an expression of constants alone is made of: literals and the operators between them.
_CONSTANT_PARTS = (
    ast.Constant,
    ast.BinOp,
    ast.UnaryOp,
    ast.BoolOp,
    ast.Compare,
    ast.Tuple,
    ast.List,
    ast.Set,
    ast.Dict,
    ast.expr_context,
    ast.operator,
    ast.unaryop,
    ast.boolop,
    ast.cmpop,
)


def _constant(node: ast.expr) -> bool:
    """Whether node computes nothing from its inputs: `1`, `n + 1` with n a literal, `(2, 3)`."""
    return all(isinstance(part, _CONSTANT_PARTS) for part in ast.walk(node))


def _handlers(
    name: str, old: Function | None, new: Function, failing: Failing, notices: list[str]
) -> str | None:
    """A new except that hands back a default instead of letting the failure out. What the
    function had already (the same exceptions caught, the same default) is not the fix's doing,
    whatever else changed around it."""
    handlers = [n for n in _walk(old) if isinstance(n, ast.ExceptHandler)]
    before = {ast.dump(n) for n in handlers}
    had = {(_caught(n.type), _shown(_default(n))) for n in handlers if _default(n) is not None}
    for handler in _walk(new):
        if not isinstance(handler, ast.ExceptHandler) or ast.dump(handler) in before:
            continue
        default = _default(handler)
        if default is None:
            continue
        caught = _caught(handler.type)
        shown = shorten(default) if isinstance(default, ast.AST) else default
        if (caught, _shown(default)) in had:
            continue
        if not caught or caught & _BROAD:
            return (
                f"the fix in {name} catches every exception and returns {shown}, which hides "
                "the failure instead of fixing it; catch only what the code should handle"
            )
        if isinstance(default, ast.AST) and key(default) in failing.literals:
            return (
                f"the fix in {name} returns {shown}, the value the failing test expects, when "
                f"{', '.join(sorted(caught))} is raised; fix what raises it, {_EVERY}"
            )
        failed = caught & {e.rsplit(".", 1)[-1] for e in failing.exceptions}
        if failed:
            notices.append(
                f"catches {sorted(failed)[0]}, the failing test's exception, in {name} and "
                f"returns {shown}; check that this is the intended behaviour"
            )
    return None


def _shown(default: ast.expr | str | None) -> str:
    return ast.dump(default) if isinstance(default, ast.AST) else str(default)


def _default(handler: ast.ExceptHandler) -> ast.expr | str | None:
    """What a handler hands back when all it does is return a constant (or nothing)."""
    body = [s for s in handler.body if not _docstring(s)]
    if len(body) != 1:
        return None
    statement = body[0]
    if isinstance(statement, ast.Pass):
        return "nothing"
    if isinstance(statement, ast.Return):
        if statement.value is None:
            return "None"
        if isinstance(statement.value, ast.Constant) or key(statement.value) is not None:
            return statement.value
    return None


def _caught(node: ast.expr | None) -> frozenset[str]:
    if node is None:
        return frozenset()
    elements = node.elts if isinstance(node, ast.Tuple) else [node]
    return frozenset(
        e.attr if isinstance(e, ast.Attribute) else e.id if isinstance(e, ast.Name) else "?"
        for e in elements
    )


def _docstring(statement: ast.stmt) -> bool:
    return isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant)


def _parameters(function: Function) -> set[str]:
    arguments = function.args
    every = [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]
    every += [a for a in (arguments.vararg, arguments.kwarg) if a is not None]
    return {a.arg for a in every}


def _walk(function: Function | None) -> Iterator[ast.AST]:
    if function is not None:
        yield from ast.walk(function)


def _own_returns(function: Function) -> list[ast.expr | None]:
    """The values of the function's own return statements (None for a bare return)."""
    return [node.value for node in own_nodes(function) if isinstance(node, ast.Return)]
