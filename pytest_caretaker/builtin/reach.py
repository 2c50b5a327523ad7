"""Reach: an attribute or a dict key for another the code or the failure names.

- ``attribute``: ``obj.attr`` for another attribute named in the function on any object, then
  one named anywhere in the module or held by an object of the failure's locals (the
  ``Vocabulary``): ``nextnode.outgoing_nodes`` -> ``nextnode.incoming_nodes`` when another node's
  ``incoming_nodes`` is read two lines above, ``parcel.width`` -> ``parcel.height`` when the failure
  held a ``Parcel(length=…, width=…, height=…)``. A called attribute becomes another called one,
  a data attribute another data attribute; a module's (``math.floor``) is never changed here.
- ``key``: a string key in ``d["k"]``, ``d.get("k")`` (``pop``, ``setdefault``) or ``"k" in d`` for
  a key the failure's dicts held (the same variable's first) or the module names elsewhere.

Each site gets the likeliest few (``NEAREST``): the names most alike the old one first, so a
``quantity`` becomes ``qty`` before ``price``.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

import libcst as cst
from libcst.metadata import ExpressionContext, ExpressionContextProvider, PositionProvider

from pytest_caretaker.builtin.nodes import STATEMENTS
from pytest_caretaker.builtin.sites import Replacement

#: How many other attributes or keys one site may become.
NEAREST = 5
_KEY_METHODS = ("get", "pop", "setdefault")


@dataclass(frozen=True)
class Vocabulary:
    """Names an edit may take beyond the function's own: the module's and the failure's."""

    attributes: tuple[str, ...] = ()  # data attributes, read or written on any object
    methods: tuple[str, ...] = ()  # attributes that are called: obj.name(...)
    keys: tuple[str, ...] = ()  # string keys: the failure's dicts' and the module's
    local_keys: tuple[tuple[str, tuple[str, ...]], ...] = ()  # a local's name -> its dict's keys
    modules: frozenset[str] = field(default_factory=frozenset)  # imported names

    def __or__(self, other: Vocabulary) -> Vocabulary:
        return Vocabulary(
            _joined(self.attributes, other.attributes),
            _joined(self.methods, other.methods),
            _joined(self.keys, other.keys),
            self.local_keys + other.local_keys,
            self.modules | other.modules,
        )


def _joined(first: tuple[str, ...], then: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(first + then))


def _alike(old: str) -> Callable[[str], float]:
    return lambda new: -difflib.SequenceMatcher(None, old, new).ratio()


class Reach(cst.CSTVisitor):
    """Collects the attribute and key sites of one function's body and proposes for each."""

    METADATA_DEPENDENCIES = (PositionProvider, ExpressionContextProvider)

    def __init__(self, vocabulary: Vocabulary) -> None:
        super().__init__()
        self.vocabulary = vocabulary
        self._lines: list[int] = []
        self._called: set[int] = set()  # ids of the Attribute nodes that are called
        self._own: dict[str, bool] = {}  # attributes the function names -> called
        self._attributes: list[tuple[cst.Attribute, int]] = []
        self._keys: list[tuple[cst.SimpleString, str, int]] = []  # the key, its dict's name

    def replacements(self) -> Iterator[Replacement]:
        for node, line in self._attributes:
            for name, prior in self._other_attributes(node):
                renamed = node.with_changes(attr=node.attr.with_changes(value=name))
                yield Replacement(node, line, "attribute", renamed, prior)
        local = dict(self.vocabulary.local_keys)
        for string, base, line in self._keys:
            old = str(string.evaluated_value)
            own = [k for k in local.get(base, ()) if k != old]
            rest = sorted((k for k in self.vocabulary.keys if k != old), key=_alike(old))
            quote = string.quote
            for key in list(dict.fromkeys(own + rest))[:NEAREST]:
                if _writable(key, quote):
                    new = string.with_changes(value=f"{string.prefix}{quote}{key}{quote}")
                    yield Replacement(string, line, "key", new, 0.5 if key in own else 0.4)

    def _other_attributes(self, node: cst.Attribute) -> Iterator[tuple[str, float]]:
        old, called = node.attr.value, id(node) in self._called
        own = [name for name, c in self._own.items() if c == called and name != old]
        wider = self.vocabulary.methods if called else self.vocabulary.attributes
        rest = sorted((n for n in wider if n != old and n not in own), key=_alike(old))
        found = [(n, 0.4) for n in sorted(own, key=_alike(old))] + [(n, 0.3) for n in rest]
        yield from [(n, p) for n, p in found if not n.startswith("__")][:NEAREST]

    # the visit -----------------------------------------------------------------------------------

    def on_visit(self, node: cst.CSTNode) -> bool:
        if isinstance(node, STATEMENTS):
            self._lines.append(self.get_metadata(PositionProvider, node).start.line)
        return super().on_visit(node)

    def on_leave(self, original_node: cst.CSTNode) -> None:
        super().on_leave(original_node)
        if isinstance(original_node, STATEMENTS):
            self._lines.pop()

    def visit_Decorator(self, node: cst.Decorator) -> bool:
        return False

    def visit_Annotation(self, node: cst.Annotation) -> bool:
        return False

    def visit_Call(self, node: cst.Call) -> bool:
        self._called.add(id(node.func))
        func = node.func
        if isinstance(func, cst.Attribute) and func.attr.value in _KEY_METHODS and node.args:
            self._key(node.args[0].value, func.value)
        return True

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        base = node.value
        if isinstance(base, cst.Name) and base.value in self.vocabulary.modules:
            return True
        self._own.setdefault(node.attr.value, id(node) in self._called)
        context = self.get_metadata(ExpressionContextProvider, node, None)
        if context in (ExpressionContext.LOAD, ExpressionContext.STORE) and self._lines:
            self._attributes.append((node, self._lines[-1]))
        return True

    def visit_Subscript(self, node: cst.Subscript) -> bool:
        if len(node.slice) == 1 and isinstance(node.slice[0].slice, cst.Index):
            self._key(node.slice[0].slice.value, node.value)
        return True

    def visit_Comparison(self, node: cst.Comparison) -> bool:
        first = node.comparisons[0]
        if isinstance(first.operator, (cst.In, cst.NotIn)):
            self._key(node.left, first.comparator)
        return True

    def _key(self, node: cst.BaseExpression, container: cst.BaseExpression) -> None:
        if not isinstance(node, cst.SimpleString) or "b" in node.prefix.lower():
            return
        if self._lines and isinstance(node.evaluated_value, str):
            base = container.value if isinstance(container, cst.Name) else ""
            self._keys.append((node, base, self._lines[-1]))


def _writable(key: str, quote: str) -> bool:
    """Whether key can be written between these quotes as it is (no escapes to get wrong)."""
    return bool(key) and quote not in key and "\\" not in key and key.isprintable()
