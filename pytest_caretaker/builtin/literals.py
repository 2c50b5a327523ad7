"""Literals: the edits of a constant's value that a wrong rate or threshold needs.

A wrong constant is most often a decimal with a digit too many or a last digit off by one
(``0.25`` for ``0.2``, ``0.19`` for ``0.2``). These apply only to the values of module- and
class-level assignments (sites.py, ``literals``): inside a function, the integer ±1 of
``operators.constant`` is the common bug, and every extra edit there is one more trial.

A number off by a power of ten (a zero too many or too few: ``VAT_RATE = 0.02`` for ``0.2``,
``FREE_FROM = 500`` for ``50``, ``km * 100`` for ``km * 1000``) is ``magnitude``'s: a constant's
every number, and in code a number that has a magnitude to get wrong (10 and up, or a decimal).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from decimal import Decimal, InvalidOperation

import libcst as cst

from pytest_caretaker.builtin.operators import NodeEdit

_DECIMAL = re.compile(r"(\d+)\.(\d+)")


def decimal(node: cst.Float) -> Iterator[NodeEdit]:
    """A plain decimal (``0.25``) without its last digit, then with that digit ±1."""
    found = _DECIMAL.fullmatch(node.value)
    if found is None:
        return
    whole, digits = found.groups()
    if len(digits) > 1:
        yield node.with_changes(value=f"{whole}.{digits[:-1]}"), 0.7
    last = int(digits[-1])
    for new in (last - 1, last + 1):
        if 0 <= new <= 9 and (new or len(digits) == 1):  # never a trailing zero (0.20)
            yield node.with_changes(value=f"{whole}.{digits[:-1]}{new}"), 0.6


_EXPONENT = re.compile(r"(?P<mantissa>[\d.]+)[eE](?P<exponent>[+-]?\d+)")


def magnitude(node: cst.Integer | cst.Float, constant: bool = True) -> Iterator[NodeEdit]:
    """The number ten times larger, then ten times smaller (``500`` -> ``5000``, ``50``;
    ``0.02`` -> ``0.2``, ``0.002``; ``1e3`` -> ``1e4``, ``1e2``), written as the old one was:
    an integer stays an integer (``5`` is never ``0.5``). Outside a constant (constant False),
    only numbers of 10 and more and decimals: a 0, 1 or 2 in code is rarely a magnitude."""
    text = node.value.replace("_", "")
    if not constant and isinstance(node, cst.Integer) and not (text.isdigit() and int(text) >= 10):
        return
    exponent = _EXPONENT.fullmatch(text)
    for shift in (1, -1):
        new: str | None
        if exponent is not None:
            power = int(exponent["exponent"]) + shift
            new = f"{exponent['mantissa']}{node.value[len(exponent['mantissa'])]}{power}"
        else:
            new = _shifted(text, shift, isinstance(node, cst.Float))
        if new is not None and new != text:
            yield node.with_changes(value=_grouped(new, node.value)), 0.5


def _shifted(text: str, shift: int, decimal_point: bool) -> str | None:
    """text (plain digits, perhaps with a point) times 10**shift; None when it cannot be
    written the same way (an integer that is not a multiple of ten, a hexadecimal)."""
    try:
        value = Decimal(text).scaleb(shift)
    except InvalidOperation:
        return None
    if not decimal_point:
        return str(int(value)) if value == value.to_integral_value() and value else None
    written = format(value.normalize(), "f")
    return written if "." in written else f"{written}.0"


def _grouped(new: str, old: str) -> str:
    """new with thousands separated by _ when old was (``1_000`` -> ``10_000``)."""
    if "_" not in old or not new.isdigit():
        return new
    return f"{int(new):_}"
