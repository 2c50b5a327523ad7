"""Inputs derived from the calls the tests made, for comparing fixes beyond the tests
(behaviour.py): each argument made empty, one element, longer, ``0``, ``±1``, negated, the
function's own numeric constants and their neighbours, ``None`` where the parameter defaults to
it or its annotation names it, a date a day off; two arguments of a kind made equal or one apart,
a date on the other's anniversary (the boundary of everything counted in years); and one
argument taken from another call of the same shape. The standard library alone, like the
trial server that runs it.
"""

from __future__ import annotations

import contextlib
import copy
import datetime
import itertools
import math
import types
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any


@dataclass
class Call:
    args: tuple[Any, ...]
    kwargs: dict[str, Any]
    origin: str


def inputs(function: types.FunctionType, calls: Sequence[Call]) -> Iterator[Call]:
    """The captured calls first (failing, then passing), then inputs derived from each."""
    ordered = sorted(calls, key=lambda call: call.origin != "failing")
    yield from ordered
    constants = _constants(function.__code__)
    nullable = _nullable(function)
    skip = 1 if is_method(function) else 0  # self is varied by its attributes
    for call in ordered:
        if skip and call.args:
            for how, changed in _attributes(call.args[0], constants):
                yield Call((changed, *call.args[1:]), call.kwargs, f"derived: {how}")
        for index in range(skip, len(call.args)):
            for how, value in _values(call.args[index], constants, nullable.get(index, False)):
                args = (*call.args[:index], value, *call.args[index + 1 :])
                yield Call(args, call.kwargs, f"derived: {how}")
        yield from _pairs(call, skip)
    # One argument taken from another call of the same shape: combinations the tests skipped.
    for first, second in itertools.permutations(ordered[:6], 2):
        if len(first.args) == len(second.args) and first.kwargs.keys() == second.kwargs.keys():
            for index in range(skip, len(first.args)):
                args = (*first.args[:index], second.args[index], *first.args[index + 1 :])
                yield Call(args, first.kwargs, "derived: arguments of two calls mixed")


def _values(value: Any, constants: Sequence[float], nullable: bool) -> Iterator[tuple[str, Any]]:
    if nullable and value is not None:
        yield "None", None
    if isinstance(value, bool):
        yield "the other truth value", not value
    elif isinstance(value, (int, float)):
        yield from _numbers(value, constants)
    elif isinstance(value, (str, list, tuple)):
        sequence: Any = value
        yield "empty", type(value)()
        yield "one element", value[:1]
        yield "longer", sequence + sequence
        yield "without its first element", value[1:]
        if not isinstance(value, str):
            yield "reversed", value[::-1]
            yield from _fields(value)
    elif isinstance(value, (set, frozenset, dict)):
        yield "empty", type(value)()
    elif isinstance(value, datetime.date):
        day = datetime.timedelta(days=1)
        yield "a day later", value + day
        yield "a day earlier", value - day


def _numbers(value: float, constants: Sequence[float]) -> Iterator[tuple[str, Any]]:
    if isinstance(value, float) and not math.isfinite(value):
        return
    kind = type(value)
    for how, other in (("0", 0), ("1", 1), ("-1", -1), ("+1", value + 1), ("-1", value - 1)):
        yield how, kind(other)
    yield "negated", -value
    for constant in constants:
        if isinstance(constant, int) or kind is float:
            for near in (constant - 1, constant, constant + 1):
                yield "a constant of the function, or one off it", kind(near)
        # Between two whole numbers: where exactly a boundary lies (`< 50` or `<= 49`).
        for near in (constant - 0.5, constant + 0.5):
            yield "half a unit off a constant of the function", float(near)


def _fields(items: list[Any] | tuple[Any, ...]) -> Iterator[tuple[str, Any]]:
    """Records (dicts) whose numeric field is made the largest, then the smallest, in the first
    one: orders the tests' data may hide (a list by price that is also one by units sold)."""
    if len(items) < 2 or not all(isinstance(item, dict) for item in items):
        return
    for key, value in list(items[0].items())[:6]:
        numbers = [item.get(key) for item in items]
        if isinstance(value, bool) or not all(
            isinstance(n, (int, float)) and not isinstance(n, bool) for n in numbers
        ):
            continue
        for how, new in (("largest", max(numbers) + 1), ("smallest", min(numbers) - 1)):
            first = {**items[0], key: new}
            yield f"the first record's {key!r} made the {how}", type(items)([first, *items[1:]])


def _attributes(instance: Any, constants: Sequence[float]) -> Iterator[tuple[str, Any]]:
    """The instance a method is called on, with one attribute changed at a time (a tolerance,
    a limit: what the tests left at its default)."""
    fields = getattr(instance, "__dict__", None)
    if not isinstance(fields, dict):
        return
    for name, value in list(fields.items())[:8]:
        for how, new in itertools.islice(_values(value, constants, False), 6):
            try:
                changed = copy.copy(instance)
                setattr(changed, name, new)
            except Exception:  # a frozen or slotted object: not varied
                return
            yield f"its {name} {how}", changed


def _pairs(call: Call, skip: int) -> Iterator[Call]:
    """Boundaries between two arguments: made equal, one apart, and a date on the other's
    anniversary (the boundary of everything counted in years)."""
    args = call.args
    for i, j in itertools.permutations(range(skip, len(args)), 2):
        a, b = args[i], args[j]
        if type(a) is not type(b) or isinstance(a, bool):
            continue
        changed: list[tuple[str, Any]] = []
        if isinstance(a, datetime.date) and hasattr(b, "replace"):
            with contextlib.suppress(ValueError):  # 29 February
                changed.append(("on the other's anniversary", b.replace(month=a.month, day=a.day)))
        if isinstance(a, (int, float, str, datetime.date)):
            changed.append(("two arguments equal", a))
        if isinstance(a, (int, float)) and not isinstance(a, bool):
            changed += [("one above another", a + 1), ("one below another", a - 1)]
        for how, value in changed:
            yield Call((*args[:j], value, *args[j + 1 :]), call.kwargs, f"derived: {how}")


def _constants(code: types.CodeType) -> list[float]:
    found = [c for c in code.co_consts if isinstance(c, (int, float)) and not isinstance(c, bool)]
    return [c for c in dict.fromkeys(found) if c not in (0, 1, -1) and math.isfinite(c)][:4]


def _nullable(function: types.FunctionType) -> dict[int, bool]:
    """Parameters (by position) that default to None or whose annotation names None."""
    code = function.__code__
    names = code.co_varnames[: code.co_argcount]
    defaults = function.__defaults__ or ()
    first = len(names) - len(defaults)
    found = {first + i: True for i, value in enumerate(defaults) if value is None}
    annotations = getattr(function, "__annotations__", {}) or {}
    for index, name in enumerate(names):
        said = str(annotations.get(name, ""))
        if "None" in said or "Optional" in said:
            found[index] = True
    return found


def is_method(function: types.FunctionType) -> bool:
    names = function.__code__.co_varnames[:1]
    return "." in function.__qualname__ and names in (("self",), ("cls",))
