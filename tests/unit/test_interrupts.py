"""Ctrl-C held while a step of writing runs: raised once the step is done, never lost, never
held outside the main thread."""

from __future__ import annotations

import os
import signal
import threading

import pytest

from pytest_caretaker.write.interrupts import held

pytestmark = pytest.mark.skipif(os.name != "posix", reason="signals sent with os.kill")


def ctrl_c() -> None:
    os.kill(os.getpid(), signal.SIGINT)


def test_ctrl_c_is_raised_when_the_step_is_done() -> None:
    done = []

    with pytest.raises(KeyboardInterrupt), held():
        ctrl_c()
        done.append("the rest of the step")

    assert done == ["the rest of the step"]
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_nested_steps_raise_once_at_the_outermost() -> None:
    reached = []

    with pytest.raises(KeyboardInterrupt), held():
        with held():
            ctrl_c()
            ctrl_c()
        reached.append("after the inner step")

    assert reached == ["after the inner step"]


def test_without_ctrl_c_nothing_is_raised() -> None:
    with held():
        pass

    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_outside_the_main_thread_nothing_is_held() -> None:
    handlers = []

    def step() -> None:
        with held():
            handlers.append(signal.getsignal(signal.SIGINT))

    thread = threading.Thread(target=step)
    thread.start()
    thread.join()

    assert handlers == [signal.default_int_handler]
