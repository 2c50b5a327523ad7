"""The sample of good calls (#45): bounded, replaced over time, cheap (most calls are not
pickled), unpicklable and secret-bearing calls left out, written beside the crash records, merged
across processes and started anew when the function's code changes."""

from __future__ import annotations

import itertools
import json
import os
import random
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from pytest_caretaker.runtime import goodcalls, heal, sample
from pytest_caretaker.runtime.sample import SIZE, Sample


@pytest.fixture
def root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("CARETAKER_ROOT", str(tmp_path))
    monkeypatch.delenv("CARETAKER_RUNTIME", raising=False)
    monkeypatch.delenv("CARETAKER_WORKER", raising=False)
    random.seed(45)
    return tmp_path


def kept(function: Any) -> list[Any]:
    """The arguments of the calls function's sample holds, as they came in."""
    import pickle

    return [pickle.loads(k.call)[0] for k in function.__caretaker__.sample.kept if k.call]


def written(root: Path, id: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(goodcalls.path_of(root, id).read_text(encoding="utf-8"))
    return data


def test_the_sample_is_bounded_and_replaced_over_time(root: Path) -> None:
    @heal(id="double")
    def double(n: int) -> int:
        return 2 * n

    for n in range(20_000):
        assert double(n) == 2 * n

    calls = sorted(args[0] for args in kept(double))
    assert len(calls) == SIZE
    assert calls != list(range(SIZE))  # later calls took the first ones' places
    assert max(calls) > 1_000
    # Uniform over the calls: not crowded at the start (the first SIZE calls are 0.04 %).
    assert sum(1 for n in calls if n < 1_000) <= 3


@pytest.mark.parametrize("other", [1, threading.Lock()], ids=["pickles", "does-not-pickle"])
def test_only_the_calls_the_countdown_takes_are_pickled(
    root: Path, monkeypatch: pytest.MonkeyPatch, other: object
) -> None:
    offered = []
    original = Sample.offer

    def counting(self: Sample, call: Any, result: Any) -> bool:
        offered.append(call)
        return original(self, call, result)

    monkeypatch.setattr(Sample, "offer", counting)

    @heal
    def first(a: int, b: object) -> int:
        return a

    for n in range(100_000):
        first(n, other)

    # About SIZE * (1 + ln(100_000 / SIZE)) = 84 calls are taken of 100,000, whether they
    # pickle or not (a call that does not holds its place in the sample unwritten).
    assert SIZE <= len(offered) < 300


def test_calls_that_do_not_pickle_are_left_out(root: Path) -> None:
    @heal(id="hold")
    def hold(value: Any) -> Any:
        return value

    lock = threading.Lock()
    hold(lock)  # its argument does not pickle
    hold(b"x" * (sample.MAX_PICKLE + 1))  # pickles, but too big
    assert kept(hold) == []

    @heal(id="make-lock")
    def make_lock(name: str) -> Any:
        return threading.Lock()  # its result does not pickle

    make_lock("a")
    assert kept(make_lock) == []
    hold(1)
    assert kept(hold) == [(1,)]


def test_a_call_is_kept_with_its_arguments_as_they_came_in(root: Path) -> None:
    @heal(id="first")
    def first(items: list[int]) -> int:
        return items.pop(0)

    assert first([7, 8]) == 7
    assert kept(first) == [([7, 8],)]  # not [8]: the call as it came in can be replayed


def test_a_crash_writes_the_good_calls_beside_its_record_redacted(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    secret = "sk-" + "live-" + "Zq8v2Lr5Xw1Tn4Jm7Kp0"
    monkeypatch.setenv("STRIPE_SECRET_KEY", secret)

    @heal(id="mean-gap")
    def mean_gap(values: list[int], label: str = "") -> float:
        gaps = [b - a for a, b in itertools.pairwise(values)]
        return sum(gaps) / len(gaps)

    @heal(id="charge")
    def charge(amount: int, api_key: str) -> int:
        return amount

    assert mean_gap([1, 4, 9]) == 4.0
    assert mean_gap([1, 2], label=secret) == 1.0  # a secret in an argument: not written
    charge(5, "not-a-secret-but-named-like-one")
    with pytest.raises(ZeroDivisionError):
        mean_gap([5])

    data = written(root, "mean-gap")
    assert (data["version"], data["id"]) == (1, "mean-gap")
    assert data["function"].endswith(".<locals>.mean_gap")
    ((call, result),) = [(c["call"], c["result"]) for c in data["calls"]]
    assert (call, result) == ("mean_gap([1, 4, 9])", "4.0")
    assert secret not in goodcalls.path_of(root, "mean-gap").read_text()
    (good,) = goodcalls.load(root, "mean-gap")
    assert (good.call, good.result) == ("mean_gap([1, 4, 9])", "4.0")
    assert not goodcalls.path_of(root, "charge").exists()  # no crash of its own, no exit yet
    goodcalls.write(charge.__caretaker__.sample, root)  # type: ignore[attr-defined]
    assert written(root, "charge")["calls"] == []  # a parameter named like a secret


def test_samples_merge_into_the_lowest_priorities_of_both_without_twins(root: Path) -> None:
    def square(n: int) -> int:
        return n * n

    first, second = Sample("square", square), Sample("square", square)
    for n in range(10):
        first.offer(_pickled((n,)), n * n)
    for n in range(5, 15):
        second.offer(_pickled((n,)), n * n)
    goodcalls.write(first, root)
    goodcalls.write(second, root)

    priorities = sorted(k.priority for k in [*first.kept, *second.kept])
    calls = written(root, "square")["calls"]
    assert [c["priority"] for c in calls] == sorted(c["priority"] for c in calls)
    assert len(calls) == SIZE
    assert [c["priority"] for c in calls] == _distinct_lowest(first, second)
    assert all(c["priority"] in priorities for c in calls)
    goodcalls.write(second, root)  # written again: the same file
    assert written(root, "square")["calls"] == calls


def test_a_changed_function_starts_its_sample_anew(root: Path) -> None:
    def before(n: int) -> int:
        return n + 1

    def after(n: int) -> int:
        return n + 2

    old, new = Sample("f", before), Sample("f", after)
    old.offer(_pickled((1,)), 2)
    goodcalls.write(old, root)
    new.offer(_pickled((1,)), 3)
    goodcalls.write(new, root)

    assert [c["result"] for c in written(root, "f")["calls"]] == ["3"]
    assert goodcalls.fingerprint(before.__code__) != goodcalls.fingerprint(after.__code__)


def test_the_sample_is_written_at_exit(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'p'\n")
    (tmp_path / "main.py").write_text(
        "from pytest_caretaker.runtime import heal\n\n"
        "@heal(id='triple')\n"
        "def triple(n):\n"
        "    return 3 * n\n\n"
        "for n in range(3):\n"
        "    triple(n)\n"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("CARETAKER_")}

    done = subprocess.run([sys.executable, "main.py"], cwd=tmp_path, env=env, capture_output=True)

    assert done.returncode == 0, done.stderr
    assert done.stderr == b""
    shown = [(c["call"], c["result"]) for c in written(tmp_path, "triple")["calls"]]
    assert sorted(shown) == [("triple(0)", "0"), ("triple(1)", "3"), ("triple(2)", "6")]
    assert (tmp_path / ".caretaker" / ".gitignore").is_file()


def _pickled(args: tuple[Any, ...]) -> bytes:
    import pickle

    return pickle.dumps((args, {}))


def _distinct_lowest(*samples: Sample) -> list[float]:
    """The SIZE lowest priorities of the samples, the same call once (at its lowest)."""
    lowest: dict[tuple[bytes, bytes], float] = {}
    for k in sorted((k for s in samples for k in s.kept), key=lambda k: k.priority):
        lowest.setdefault((k.call, k.result), k.priority)
    return sorted(lowest.values())[:SIZE]


def test_a_function_dropped_at_run_time_takes_its_sample_with_it(root: Path) -> None:
    import gc

    from pytest_caretaker.runtime import decorator

    def made() -> Any:
        return heal(lambda n: n + 1)

    function = made()
    function(1)
    sample = function.__caretaker__.sample
    assert sample in decorator._unwritten  # written at exit while it lives
    name = sample.id
    del function, sample
    gc.collect()
    assert name not in {s.id for s in decorator._unwritten}
