"""A failure's frames (record/failure.py) come from every exception its traceback shows: what it
was raised from or while handling, and an exception group's members. pytest raises its warning
of an exception in a thread or in ``__del__`` (an error under ``-W error``) in its own code, from
the exception the project's code raised: those frames are the code under test that ran."""

from __future__ import annotations

import builtins
import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

from pytest_caretaker.record.failure import MAX_CHAIN, chain, record

CODE = """\
def clear(shelf, keep):
    while len(shelf) >= keep:
        shelf.pop()
    if len(shelf) != keep:
        raise ValueError(f"{len(shelf)} left, not {keep}")


def warned(shelf):
    try:
        clear(shelf, 1)
    except ValueError as error:
        raise RuntimeWarning("an exception in a thread") from error


def caught(shelf):
    try:
        clear(shelf, 1)
    except ValueError:
        raise AssertionError("the test's own check")
"""


@pytest.fixture
def stock(tmp_path: Path) -> ModuleType:
    (tmp_path / "stock.py").write_text(CODE)
    spec = importlib.util.spec_from_file_location("stock_chain_case", tmp_path / "stock.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def raised(function: object, *args: object) -> BaseException:
    try:
        function(*args)  # type: ignore[operator]
    except BaseException as error:  # whatever it raised is the case
        return error
    raise AssertionError("nothing raised")


def test_the_frames_of_what_an_exception_was_raised_from_are_recorded(
    stock: ModuleType, tmp_path: Path
) -> None:
    error = raised(stock.warned, [1, 2, 3])

    failure = record("t::x", "call", tmp_path / "test_x.py", error, "", "", tmp_path)

    assert [(f.path, f.name) for f in failure.frames] == [
        ("stock.py", "clear"),
        ("stock.py", "warned"),
    ]


def test_a_frame_in_both_counts_where_it_is_last_and_the_innermost_is_the_raisers(
    stock: ModuleType, tmp_path: Path
) -> None:
    # caught() ran clear(), which raised; then caught() raised its own: the innermost frame is
    # caught()'s, at the line that raised the failure.
    error = raised(stock.caught, [1, 2, 3])

    failure = record("t::x", "call", tmp_path / "test_x.py", error, "", "", tmp_path)

    assert [(f.name, f.lineno) for f in failure.frames] == [("clear", 5), ("caught", 19)]
    assert failure.innermost is not None and failure.innermost.name == "caught"


@pytest.mark.skipif(sys.version_info < (3, 11), reason="exception groups are Python 3.11's")
def test_the_chain_is_in_the_order_raised_and_ends_with_the_failure() -> None:
    first = ValueError("first")
    second = KeyError("second")
    second.__context__ = first
    group = builtins.ExceptionGroup("two", [TypeError("a"), OSError("b")])
    group.__cause__ = second
    hidden = RuntimeError("hidden")
    shown = LookupError("shown")
    shown.__context__ = hidden
    shown.__suppress_context__ = True

    assert [str(e) for e in chain(group)] == [
        "first",
        "'second'",
        "a",
        "b",
        "two (2 sub-exceptions)",
    ]
    assert chain(shown) == [shown]


def test_a_cycle_or_a_long_chain_ends() -> None:
    a, b = ValueError("a"), ValueError("b")
    a.__context__, b.__context__ = b, a
    last = ValueError(0)
    for n in range(1, 100):
        earlier, last = last, ValueError(n)
        last.__context__ = earlier

    assert chain(a) == [b, a]
    assert len(chain(last)) == MAX_CHAIN and chain(last)[-1] is last
