"""Caretaker's own references (own.py): what a test replaced is put back for the span of
caretaker's work, and the test's replacement after it. (Names no other thread of this process
uses are patched here: the swap is process-wide.)"""

from __future__ import annotations

import os
import socket
import subprocess
import tempfile
import time

import pytest

from pytest_caretaker import own

REAL = (subprocess.Popen, time.get_clock_info, os.getloadavg)
REAL_SOCKET = socket.socket


def refuse(*args: object, **kwargs: object) -> None:
    raise AssertionError("patched by a test")


def test_within_restored_the_real_ones_are_back_and_the_tests_after(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(subprocess, "Popen", refuse)
    monkeypatch.setattr(time, "get_clock_info", refuse)
    monkeypatch.setattr(os, "getloadavg", refuse)

    with own.restored():
        seen = (subprocess.Popen, time.get_clock_info, os.getloadavg)
        assert own.replaced() == []

    assert seen == REAL
    assert (subprocess.Popen, time.get_clock_info, os.getloadavg) == (refuse, refuse, refuse)
    assert {"subprocess.Popen", "time.get_clock_info", "os.getloadavg"} <= set(own.replaced())


def test_a_name_a_test_deleted_is_deleted_again_and_one_set_meanwhile_is_kept(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delattr(time, "thread_time_ns")
    monkeypatch.setattr(tempfile, "gettempprefix", refuse)

    with own.restored():
        assert callable(time.thread_time_ns)
        tempfile.gettempprefix = len  # type: ignore[assignment]  # replaced again meanwhile

    assert not hasattr(time, "thread_time_ns")
    assert tempfile.gettempprefix is len  # not the test's: what was put there meanwhile stays


def test_nothing_replaced_changes_nothing() -> None:
    before = dict(vars(subprocess))

    with own.restored():
        inside = dict(vars(subprocess))

    assert before == inside == dict(vars(subprocess))


def test_the_references_for_threads_beside_the_tests_are_the_real_ones(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(subprocess, "Popen", refuse)

    assert own.Popen is REAL[0]
    assert own.socket is REAL_SOCKET
