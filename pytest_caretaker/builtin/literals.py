"""Literals: the edits of a constant's value that a wrong rate or threshold needs.

A wrong constant is most often a decimal with a digit too many or a last digit off by one
(``0.25`` for ``0.2``, ``0.19`` for ``0.2``). These apply only to the values of module- and
class-level assignments (sites.py, ``literals``): inside a function, the integer ±1 of
``operators.constant`` is the common bug, and every extra edit there is one more trial.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

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
