"""Mirror: whether a comparison method says yes only by comparing its object with the other.

A comparison method that a fix adds (equality.py) may answer yes only through a comparison of a
field of the object (``self``) with a field of what it is compared with (``other``), with the
method's own operator: ``self.x == other.x``, ``(self.a, self.b) < (other.a, other.b)``,
``vars(self) == vars(other)``, ``float(self) == float(other)``, ``self.amount == other``, or
``math.isclose``/``operator.eq``/``x.__eq__(y)`` of two such fields. ``not`` of the opposite
operator counts too (``not self.x != other.x``); in an ``and`` one such comparison is enough (the
rest only narrows when it is true), in an ``or`` every part must be one.

A field is the object itself (``super()`` is ``self``), an attribute, a call of a method, an
item at a constant key, or a conversion that keeps the value (``str``, ``tuple``, ``vars``,
``astuple``, ...), read from one side only. What keeps less than the value is no field: ``bool``,
``len``, ``type``, ``hash``, a slice, ``real``/``imag``, a dunder (but ``__dict__``), a name
computed at run time; nor is a method of the built-in types or an item read from the object
itself (``other.isdigit()``, ``other[0]``: true of many values a test may expect), unless the
way to it passes through a name of the project's own (``other.name.lower()``). So a tautology
(``other is other``, ``self.n == self.n``, ``True or other``, ``not False``) never says yes, and
neither does a tolerance (``abs(self - other) < 1e9``).
"""

from __future__ import annotations

import ast
from collections.abc import Mapping
from dataclasses import dataclass

from pytest_caretaker import syntax
from pytest_caretaker.guard.nodes import own_nodes

_BUILTIN_TYPES = (int, float, complex, str, bytes, bool, list, tuple, dict, set, frozenset)
#: Methods of the built-in types: on the value a test expects they tell few values apart.
_BUILTIN_METHODS = frozenset(name for kind in _BUILTIN_TYPES for name in dir(kind))
#: Data attributes of the built-in numbers: real and imag of any float are the same two.
_NUMBER_PARTS = frozenset({"real", "imag", "numerator", "denominator"})
#: Conversions that keep the value (each maps different values to different results).
_KEEPING = frozenset({"float", "complex", "str", "repr", "bytes", "tuple", "list", "dict"})
_KEEPING |= {"vars", "astuple", "asdict", "id", "Decimal", "Fraction"}
#: Functions that compare their two arguments, as the operator they stand for.
_COMPARING = {"isclose": ast.Eq, "eq": ast.Eq, "ne": ast.NotEq, "lt": ast.Lt, "le": ast.LtE}
_COMPARING |= {"gt": ast.Gt, "ge": ast.GtE, "is_": ast.Is, "is_not": ast.IsNot}
_DUNDERS = {"__eq__": ast.Eq, "__ne__": ast.NotEq, "__lt__": ast.Lt, "__le__": ast.LtE}
_DUNDERS |= {"__gt__": ast.Gt, "__ge__": ast.GtE}
#: The operators whose truth means each method's answer is yes.
ALLOWED: Mapping[str, frozenset[type[ast.cmpop]]] = {
    "__eq__": frozenset({ast.Eq, ast.Is}),
    "__ne__": frozenset({ast.NotEq, ast.IsNot}),
    "__lt__": frozenset({ast.Lt}),
    "__le__": frozenset({ast.Lt, ast.LtE, ast.Eq, ast.Is}),
    "__gt__": frozenset({ast.Gt}),
    "__ge__": frozenset({ast.Gt, ast.GtE, ast.Eq, ast.Is}),
}
_SWAPPED = {ast.Lt: ast.Gt, ast.Gt: ast.Lt, ast.LtE: ast.GtE, ast.GtE: ast.LtE}
_NEGATED = {ast.Eq: ast.NotEq, ast.Is: ast.IsNot, ast.Lt: ast.GtE, ast.LtE: ast.Gt}
_NEGATED |= {value: key for key, value in _NEGATED.items()}
_DEPTH = 8  # names followed through assignments, at most


Function = ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda


@dataclass(frozen=True)
class Sides:
    """How a comparison method names its two objects, and what its locals hold."""

    roles: Mapping[str, str]  # ast.dump of an expression -> "self" or "other"
    values: Mapping[str, ast.expr]  # a local assigned once -> its value
    derived: frozenset[str]  # the parameters, and locals whose value is read from them

    @classmethod
    def of(cls, function: Function) -> Sides | None:
        """The sides of function, or None when it has no parameter for the other object."""
        arguments = function.args
        positional = [a.arg for a in (*arguments.posonlyargs, *arguments.args)]
        rest = arguments.vararg.arg if arguments.vararg is not None else None
        if len(positional) >= 2:
            mine, theirs = positional[0], positional[1]
        elif positional and rest is not None:
            mine, theirs = positional[0], f"{rest}[0]"
        elif rest is not None:
            mine, theirs = f"{rest}[0]", f"{rest}[1]"
        else:
            return None
        roles = {_dump(mine): "self", _dump(theirs): "other"}
        values, sources = _bindings(function)
        derived = {*positional[:2], *([rest] if rest is not None else [])}
        sides = cls(roles, values, frozenset(derived))
        while True:
            more = {n for n, froms in sources.items() if _reads(froms, sides) and n not in derived}
            if not more:
                return sides
            derived |= more
            sides = cls(roles, values, frozenset(derived))

    def role(self, node: ast.expr) -> str | None:
        if isinstance(node, ast.Call) and _name(node.func) == "super" and not node.args:
            return "self"
        return self.roles.get(ast.dump(node))


def _dump(source: str) -> str:
    statement = syntax.parse(source).body[0]
    assert isinstance(statement, ast.Expr)
    return ast.dump(statement.value)


def _bindings(function: Function) -> tuple[dict[str, ast.expr], dict[str, list[ast.expr]]]:
    """The locals assigned exactly once (to their value), and every local with what it is
    bound from (an assignment's value, a loop's iterable, a with's context)."""
    stores: dict[str, int] = {}
    single: dict[str, ast.expr] = {}
    sources: dict[str, list[ast.expr]] = {}
    for node in own_nodes(function):
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            stores[node.id] = stores.get(node.id, 0) + 1
        pairs: list[tuple[ast.expr, ast.expr | None]] = []
        if isinstance(node, ast.Assign):
            pairs = [(target, node.value) for target in node.targets]
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign, ast.NamedExpr)):
            pairs = [(node.target, node.value)]
        elif isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension)):
            pairs = [(node.target, node.iter)]
        elif isinstance(node, ast.withitem) and node.optional_vars is not None:
            pairs = [(node.optional_vars, node.context_expr)]
        for target, value in pairs:
            plain = isinstance(node, (ast.Assign, ast.AnnAssign, ast.NamedExpr))
            if plain and isinstance(target, ast.Name) and value is not None:
                single[target.id] = value
            for name in (n for n in ast.walk(target) if isinstance(n, ast.Name)):
                sources.setdefault(name.id, []).extend([value] if value is not None else [])
    values = {name: value for name, value in single.items() if stores.get(name) == 1}
    return values, sources


def decides(node: ast.expr, method: str, sides: Sides, yes: bool = True, depth: int = 0) -> bool:
    """Whether node is truthy (falsy, when yes is False) only when a field of one object
    stands in the method's own relation to a field of the other."""
    if depth > _DEPTH:
        return False
    if isinstance(node, ast.Name) and node.id in sides.values:
        return decides(sides.values[node.id], method, sides, yes, depth + 1)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        return decides(node.operand, method, sides, not yes, depth + 1)
    if isinstance(node, ast.Call) and _name(node.func) == "bool" and len(node.args) == 1:
        return decides(node.args[0], method, sides, yes, depth + 1)
    if isinstance(node, ast.BoolOp):
        parts = [decides(v, method, sides, yes, depth + 1) for v in node.values]
        if isinstance(node.op, ast.And) == yes:  # `a and b` is true only when both are
            return any(parts)
        return any(parts) and all(p or no(v, yes) for p, v in zip(parts, node.values, strict=True))
    if isinstance(node, ast.IfExp):
        body, orelse = (decides(b, method, sides, yes, depth + 1) for b in (node.body, node.orelse))
        if yes and identity(node.test, sides) and isinstance(node.body, ast.Constant):
            body = True  # `True if self is other else ...`: the same object
        return (
            (body or no(node.body, yes)) and (orelse or no(node.orelse, yes)) and (body or orelse)
        )
    return any(_relates(left, op, right, method, sides, yes) for left, op, right in _pairs(node))


def no(node: ast.expr, yes: bool = True) -> bool:
    """node is NotImplemented, or a constant that answers no (falsy; truthy under `not`)."""
    if isinstance(node, ast.Name) and node.id == "NotImplemented":
        return True
    return isinstance(node, ast.Constant) and bool(node.value) != yes


def identity(test: ast.expr, sides: Sides) -> bool:
    """test is `self is other` (or `other is self`): true only for the very same object."""
    if not isinstance(test, ast.Compare) or len(test.ops) != 1:
        return False
    roles = {sides.role(test.left), sides.role(test.comparators[0])}
    return isinstance(test.ops[0], ast.Is) and roles == {"self", "other"}


def _pairs(node: ast.expr) -> list[tuple[ast.expr, type[ast.cmpop], ast.expr]]:
    """The comparisons node makes: (left, operator, right)."""
    if isinstance(node, ast.Compare):
        operands = [node.left, *node.comparators]
        return [(operands[i], type(op), operands[i + 1]) for i, op in enumerate(node.ops)]
    if not isinstance(node, ast.Call) or (node.keywords and _name(node.func) != "isclose"):
        return []
    name, args = _name(node.func), node.args
    if name in _DUNDERS and isinstance(node.func, ast.Attribute):
        if len(args) == 1:
            return [(node.func.value, _DUNDERS[name], args[0])]
        if len(args) == 2:  # float.__eq__(self, other)
            return [(args[0], _DUNDERS[name], args[1])]
    if name in _COMPARING and len(args) == 2:
        return [(args[0], _COMPARING[name], args[1])]
    return []


def _relates(
    left: ast.expr,
    op: type[ast.cmpop],
    right: ast.expr,
    method: str,
    sides: Sides,
    yes: bool,
) -> bool:
    first, second = field(left, sides), field(right, sides)
    if first is None or second is None or first[0] == second[0]:
        return False
    if first[0] == "other":
        op = _SWAPPED.get(op, op)  # other.x > self.x says self.x < other.x
    if not yes:
        op = _NEGATED.get(op, op)
    return op in ALLOWED[method]


#: A field: the object it is read from ("self" or "other"), and whether the way to it passes
#: through a name of the project's own (an attribute or method no built-in type has), so that
#: it cannot be read from the plain value a test expects.
Field = tuple[str, bool]


def field(node: ast.expr, sides: Sides, depth: int = 0) -> Field | None:
    """The field node reads, or None when it is none."""
    role = sides.role(node)
    if role is not None:
        return role, False
    if depth > _DEPTH:
        return None
    if isinstance(node, ast.Name) and node.id in sides.values:
        return field(sides.values[node.id], sides, depth + 1)
    if isinstance(node, ast.Attribute):
        return _attribute(node.value, node.attr, sides, depth)
    if isinstance(node, ast.Subscript):
        if isinstance(node.slice, ast.Slice) or _reads(node.slice, sides):
            return None
        item = field(node.value, sides, depth + 1)
        return item if item is not None and item[1] else None  # not self[0]: a part
    if isinstance(node, (ast.Tuple, ast.List)):
        parts = [field(e, sides, depth + 1) for e in node.elts if not isinstance(e, ast.Constant)]
        found = [part for part in parts if part is not None]
        if not found or len(found) != len(parts) or len({role for role, _ in found}) != 1:
            return None
        return found[0][0], all(custom for _, custom in found)
    if isinstance(node, ast.Call):
        return _called(node, sides, depth)
    return None


def _attribute(value: ast.expr, name: str, sides: Sides, depth: int) -> Field | None:
    if name == "__dict__":
        found = field(value, sides, depth + 1)
        return (found[0], True) if found is not None else None
    if _hidden(name):
        return None
    found = field(value, sides, depth + 1)
    if found is None:
        return None
    return found[0], found[1] or name not in _BUILTIN_METHODS


def _called(node: ast.Call, sides: Sides, depth: int) -> Field | None:
    arguments = [*node.args, *(k.value for k in node.keywords)]
    if isinstance(node.func, ast.Attribute) and not _reads(arguments, sides):
        method = node.func.attr
        found = None if _hidden(method) else field(node.func.value, sides, depth + 1)
        if found is None or (method in _BUILTIN_METHODS and not found[1]):
            return None  # other.isdigit(): true of every digit string a test expects
        return found[0], True
    name = _name(node.func)
    if name == "getattr" and len(node.args) == 2 and not node.keywords:
        attribute = node.args[1]
        if not isinstance(attribute, ast.Constant) or not isinstance(attribute.value, str):
            return None  # a name computed at run time: caretaker cannot tell which field
        return _attribute(node.args[0], attribute.value, sides, depth)
    if name in _KEEPING and len(node.args) == 1 and not node.keywords:
        return field(node.args[0], sides, depth + 1)
    return None


def _hidden(name: str) -> bool:
    """A dunder or a number's part: an attribute that says little about the value."""
    return name.startswith("__") or name in _NUMBER_PARTS


def _reads(nodes: ast.AST | list[ast.expr], sides: Sides) -> bool:
    """Whether any of nodes reads either object (then it is no constant key or argument)."""
    for node in nodes if isinstance(nodes, list) else [nodes]:
        for part in ast.walk(node):
            if isinstance(part, ast.expr) and sides.role(part) is not None:
                return True
            if isinstance(part, ast.Name) and part.id in sides.derived:
                return True
    return False


def _name(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None
