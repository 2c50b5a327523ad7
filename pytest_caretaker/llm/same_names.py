"""Same-named methods: which one a reply's bare ``def run`` means, or that it leaves it open.

Several classes of a file often have a method of one name (``__init__``, ``run``, ``area``). A
reply that gives the def without its class means the one whose parameters it keeps, else the
one the prompt showed, else a method of a class the prompt showed; what is still open after
that is ``Ambiguous``, and the reply is refused with the places it could mean.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass

Place = tuple[str, str]  # (path, qualname)


@dataclass(frozen=True)
class Ambiguous:
    """A bare method name that methods of several classes answer to, none of them named by the
    reply or the prompt."""

    name: str
    places: tuple[tuple[str, str], ...]  # (path, qualname)

    @property
    def reason(self) -> str:
        refs = ", ".join(f"{rel}::{qualname}" for rel, qualname in self.places[:4])
        rel, qualname = self.places[-1]
        owner = qualname.rpartition(".")[0]
        return (
            f"`def {self.name.rsplit('.', 1)[-1]}` could replace any of {refs}, and the reply "
            f"does not say which: reply with the method inside its class block (`class {owner}:` "
            f"with only the changed methods), or name it in full ({rel}::{qualname})."
        )


def one_of(
    name: str,
    rivals: Sequence[Place],
    parameters: Sequence[str] | None,
    shown: Collection[Place],
    parameters_at: Callable[[str, str], tuple[str, ...] | None],
) -> Place | Ambiguous | None:
    """The one of several same-named definitions the reply means (its def's parameters given);
    None when there is no choice to make."""
    if len(rivals) < 2:
        return None
    owners = {qualname.rpartition(".")[0] for _, qualname in shown}
    narrowings: list[Callable[[Place], bool]] = [
        lambda place: parameters is None or parameters_at(*place) == tuple(parameters),
        lambda place: place in shown,
        lambda place: place[1].rpartition(".")[0] in owners,
    ]
    for keeps in narrowings:
        kept = [place for place in rivals if keeps(place)]
        if len(kept) == 1:
            return kept[0]
        rivals = kept or rivals
    return Ambiguous(name, tuple(rivals))


def parameters_of(node: ast.FunctionDef | ast.AsyncFunctionDef) -> tuple[str, ...]:
    """A def's parameter names, in order (``*args`` and ``**kwargs`` marked)."""
    args = node.args
    names = [a.arg for a in (*args.posonlyargs, *args.args)]
    names += [f"*{args.vararg.arg}"] if args.vararg else []
    names += [a.arg for a in args.kwonlyargs]
    names += [f"**{args.kwarg.arg}"] if args.kwarg else []
    return tuple(names)
