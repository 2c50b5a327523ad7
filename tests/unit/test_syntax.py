"""syntax.parse beside a thread that parses without its lock (as pytest's assertion rewriting
does when a repair thread imports a module), and pytest's own parses while a heal holds the lock:
CPython 3.11 shares the AST constructor's recursion counter between threads (gh-106905)."""

from __future__ import annotations

import ast
import gc
import sys
import threading
from collections.abc import Iterator

import pytest

from pytest_caretaker import syntax

SOURCE = "\n".join(f"def f{i}(x):\n    return [y * {i} for y in range(x)]" for i in range(30))


@pytest.fixture
def switching() -> Iterator[None]:
    """Thread switches inside a parse: the collector runs Python code (a callback) every few
    dozen allocations, and the interpreter may switch threads there."""

    def callback(phase: str, info: dict[str, int]) -> None:
        for _ in range(20):
            pass

    threshold, interval = gc.get_threshold(), sys.getswitchinterval()
    gc.callbacks.append(callback)
    gc.set_threshold(50, 1, 1)
    sys.setswitchinterval(1e-6)
    try:
        yield
    finally:
        gc.callbacks.remove(callback)
        gc.set_threshold(*threshold)
        sys.setswitchinterval(interval)


def test_a_parse_beside_another_threads_parse_is_done_again_not_failed(switching: None) -> None:
    theirs: list[SystemError] = []
    done = threading.Event()

    def other() -> None:  # parses without caretaker's lock, as pytest's rewriting does
        while not done.is_set():
            try:
                ast.parse(SOURCE)
            except SystemError as error:
                theirs.append(error)

    thread = threading.Thread(target=other, daemon=True)
    thread.start()
    ours = 0
    try:
        # Until the other thread has met ours often enough to show the race is real (CPython
        # 3.11), or a bounded number of parses (where it is fixed, or on a machine that
        # switches threads seldom: the race is then shown by at least one meeting).
        while ours < 2_000 and (ours < 20 or len(theirs) < 30):
            assert isinstance(syntax.parse(SOURCE), ast.Module)
            ours += 1
    finally:
        done.set()
        thread.join()

    if syntax.SHARED_COUNTER:
        assert theirs, ours  # the race happened: this test can fail
        assert "recursion depth mismatch" in str(theirs[0])


def test_any_other_system_error_is_raised_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = []

    def broken(source: str | bytes, filename: str = "<unknown>") -> ast.Module:
        calls.append(source)
        raise SystemError("something else")

    monkeypatch.setattr(ast, "parse", broken)
    with pytest.raises(SystemError, match="something else"):
        syntax.parse("x = 1")
    assert len(calls) == 1


def _pytests_parses_beside_a_repair(rounds: int) -> list[SystemError]:
    """What pytest's main thread meets: its own ast.parse (a failure's traceback being
    formatted) beside a repair thread's parses."""
    met: list[SystemError] = []
    done = threading.Event()

    def repair() -> None:
        while not done.is_set():
            syntax.parse(SOURCE)

    thread = threading.Thread(target=repair, daemon=True)
    thread.start()
    try:
        for _ in range(rounds):
            try:
                ast.parse(SOURCE)
            except SystemError as error:
                met.append(error)
    finally:
        done.set()
        thread.join()
    return met


def test_while_a_heal_holds_the_lock_pytests_own_parses_meet_no_repairs(switching: None) -> None:
    original = ast.parse
    if syntax.SHARED_COUNTER:  # unheld, the race is real here: this test can fail
        # A busy machine switches threads seldom: the race is shown by some of ten tries.
        assert any(_pytests_parses_beside_a_repair(400) for _ in range(10))
    syntax.hold()
    try:
        assert (ast.parse is not original) == syntax.SHARED_COUNTER
        assert _pytests_parses_beside_a_repair(400) == []
        assert isinstance(ast.parse("x = 1", "f.py", "exec", type_comments=True), ast.Module)
    finally:
        syntax.release()
    assert ast.parse is original


def test_holds_nest_and_the_last_release_gives_ast_parse_back() -> None:
    original = ast.parse
    syntax.hold()
    syntax.hold()
    syntax.release()
    held = ast.parse
    syntax.release()
    assert (held is not original) == syntax.SHARED_COUNTER
    assert ast.parse is original
