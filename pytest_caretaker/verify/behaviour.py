"""Behaviour beyond the tests: the child's side of comparing fixes (judging is builtin/judge.py).

A fix that passes the tests is only as good as the tests. To see what it does beyond them, a
trial runs the problem's tests on the code as it is while a profile hook copies the arguments of
every call of the edited function (``Capture``), then calls the original and each variant of the
function on those arguments and on inputs derived from them (``derived``: empty and one-element
sequences, ``0``, negatives, ``±1``, the function's own numeric constants and their neighbours,
two arguments made equal, a date on its anniversary, ``None`` where a parameter defaults to it)
and tells, per input, what each variant did (``compare``). Two variants whose results are equal
on an input share its group number.

Each call runs on its own deep copy of the arguments, under a limit of CPU time (not wall time:
a busy machine gives the same answers), and a call that runs out says ``timeout``, which the
judge never counts as a difference. Like the trial server, this module imports the standard
library alone.
"""

from __future__ import annotations

import copy
import itertools
import math
import signal
import sys
import types
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from pytest_caretaker.verify.derive import Call, inputs, is_method
from pytest_caretaker.verify.protocol import Compared, Result

#: At most this many calls are captured (the first, in test order), and inputs compared.
MAX_CAPTURED = 24
MAX_INPUTS = 160
#: CPU seconds one call of one variant may take, and how many calls of a variant may run out
#: of it before the variant is run no more.
CALL_LIMIT = 0.1
MAX_HUNG = 2
#: Characters of a value's repr kept for the report.
REPR = 120
_DEPTH = 6  # how deep same() looks into objects


@dataclass
class Capture:
    """A profile hook that copies the arguments of each call of one code object."""

    code: types.CodeType
    origin: str = "passing"
    calls: list[Call] = field(default_factory=list)
    _seen: set[str] = field(default_factory=set)

    def __call__(self, frame: types.FrameType, event: str, arg: object) -> None:
        if event != "call" or frame.f_code is not self.code or len(self.calls) >= MAX_CAPTURED:
            return
        try:
            call = _arguments(self.code, frame.f_locals, self.origin)
            key = _call_text("f", call)
        except Exception:  # an argument that cannot be copied is not compared
            return
        if key not in self._seen:
            self._seen.add(key)
            self.calls.append(call)

    def __enter__(self) -> None:
        sys.setprofile(self)

    def __exit__(self, *exc: object) -> None:
        sys.setprofile(None)


def _arguments(code: types.CodeType, names: dict[str, Any], origin: str) -> Call:
    count = code.co_argcount
    positional = tuple(copy.deepcopy(names[name]) for name in code.co_varnames[:count])
    kwonly = code.co_varnames[count : count + code.co_kwonlyargcount]
    kwargs = {name: copy.deepcopy(names[name]) for name in kwonly}
    at = count + code.co_kwonlyargcount
    if code.co_flags & 0x04:  # *args
        positional += tuple(copy.deepcopy(names[code.co_varnames[at]]))
        at += 1
    if code.co_flags & 0x08:  # **kwargs
        kwargs.update(copy.deepcopy(names[code.co_varnames[at]]))
    return Call(positional, kwargs, origin)


def compare(
    function: types.FunctionType,
    variants: Sequence[types.CodeType],
    calls: Sequence[Call],
) -> list[Compared]:
    """Each input (the calls, then what derives from them) with every variant's result;
    variants[0] is the code as it is."""
    made = [_function(function, code) for code in variants]
    named = function.__qualname__
    method = is_method(function)
    found: list[Compared] = []
    hung = [0] * len(made)  # calls of each variant that ran out of time
    for call in itertools.islice(_unique(inputs(function, calls)), MAX_INPUTS):
        results: list[Result] = []
        outcomes: list[tuple[str, Any]] = []
        for index, variant in enumerate(made):
            # A variant that hangs (a loop whose bound the input breaks) costs its limit each
            # time: after a few, it is not run again, and says "timeout" (it tells nothing).
            outcome = _run(variant, call) if hung[index] < MAX_HUNG else ("timeout", None)
            hung[index] += outcome[0] == "timeout"
            group = next(
                (i for i, seen in enumerate(outcomes) if _same_outcome(seen, outcome)),
                len(outcomes),
            )
            outcomes.append(outcome)
            results.append(_result(outcome, group))
        found.append(
            {"call": _call_text(named, call, method), "origin": call.origin, "results": results}
        )
    return found


def _function(original: types.FunctionType, code: types.CodeType) -> types.FunctionType:
    made = types.FunctionType(
        code, original.__globals__, original.__name__, original.__defaults__, original.__closure__
    )
    made.__kwdefaults__ = original.__kwdefaults__
    return made


class _OutOfTime(BaseException):
    pass


def _alarm(signum: int, frame: types.FrameType | None) -> None:
    raise _OutOfTime


def _run(function: Callable[..., Any], call: Call) -> tuple[str, Any]:
    """("return", (value, the arguments after the call)), ("raise", (type, the line of the
    function it came through last)) or ("timeout", None)."""
    try:
        args, kwargs = copy.deepcopy((call.args, call.kwargs))
    except Exception:
        return ("timeout", None)
    previous = signal.signal(signal.SIGPROF, _alarm)
    # Repeats: a function that catches the first alarm (a bare except) gets the next one.
    signal.setitimer(signal.ITIMER_PROF, CALL_LIMIT, CALL_LIMIT / 4)
    try:
        try:
            value = function(*args, **kwargs)
        finally:
            signal.setitimer(signal.ITIMER_PROF, 0)
        return ("return", (value, args, kwargs))
    except _OutOfTime:
        return ("timeout", None)
    except RecursionError:
        return ("raise", (RecursionError, 0))
    except Exception as error:  # what the variant raises is its result
        return ("raise", (type(error), _line(error, function)))
    finally:
        signal.signal(signal.SIGPROF, previous)


def _line(error: BaseException, function: Callable[..., Any]) -> int:
    """The line of function (its own frame, the last one) the error passed through; 0: none."""
    code = getattr(function, "__code__", None)
    line, trace = 0, error.__traceback__
    while trace is not None:
        if trace.tb_frame.f_code is code:
            line = trace.tb_lineno
        trace = trace.tb_next
    return line


def _same_outcome(a: tuple[str, Any], b: tuple[str, Any]) -> bool:
    if a[0] != b[0] or a[0] == "timeout":
        return False
    if a[0] == "raise":
        return bool(a[1][0] is b[1][0])
    try:
        return same(a[1], b[1])
    except Exception:  # an __eq__ that raises: not known to be equal
        return False


def same(a: Any, b: Any, depth: int = 0) -> bool:
    """Equal in value: ==, and for objects without an __eq__ of their own, equal attributes;
    floats within a relative 1e-9, NaN equal to NaN."""
    if type(a) is not type(b):
        return False
    if isinstance(a, float):
        return (math.isnan(a) and math.isnan(b)) or math.isclose(a, b, rel_tol=1e-9)
    if depth > _DEPTH:
        return bool(a == b)
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(same(x, y, depth + 1) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k], depth + 1) for k in a)
    if getattr(type(a), "__eq__", None) is object.__eq__ and hasattr(a, "__dict__"):
        return same(vars(a), vars(b), depth + 1)
    return bool(a == b)


def _result(outcome: tuple[str, Any], group: int) -> Result:
    kind, value = outcome
    if kind == "raise":
        error, line = value
        return {"kind": "raise", "type": error.__name__, "repr": "", "group": group, "line": line}
    if kind == "timeout":
        return {"kind": "timeout", "type": "", "repr": "", "group": group, "line": 0}
    returned = value[0]
    return {
        "kind": "return",
        "type": type(returned).__name__,
        "repr": _repr(returned),
        "group": group,
        "line": 0,
    }


def _repr(value: Any) -> str:
    try:
        text = repr(value)
        if text.startswith("<") and " object at 0x" in text and isinstance(vars(value), dict):
            # An object without a repr of its own: its class and fields, as it would be built.
            fields = ", ".join(f"{k}={v!r}" for k, v in vars(value).items() if k[:1] != "_")
            text = f"{type(value).__name__}({fields})"
    except Exception:
        return f"<{type(value).__name__}>"
    return text if len(text) <= REPR else text[: REPR - 1] + "…"


def _call_text(name: str, call: Call, method: bool = False) -> str:
    """The call as Python: ``f(1, x=2)``; a method's ``Thermostat(target=20).heats(21)``."""
    args = call.args
    if method and args:
        name, args = f"{_repr(args[0])}.{name.rsplit('.', 1)[-1]}", args[1:]
    parts = [_repr(value) for value in args]
    parts += [f"{key}={_repr(value)}" for key, value in call.kwargs.items()]
    return f"{name}({', '.join(parts)})"


def _unique(calls: Iterator[Call]) -> Iterator[Call]:
    seen: set[str] = set()
    for call in calls:
        key = _call_text("f", call)
        if key not in seen:
            seen.add(key)
            yield call
