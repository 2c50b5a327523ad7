"""Memory: verified fixes kept in pytest's cache, recalled while their functions read the same."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pytest_caretaker.project.files import ProjectFiles
from pytest_caretaker.repair.memory import KEY, PER_FAILURE, FixMemory, Remembered, signature
from pytest_caretaker.results import Edit, Failure

CALC = "import math\n\n\ndef f(x):\n    return x + 1\n\n\ndef g(x):\n    return x\n"
FIX = Edit("replace", "calc.py", "f", "def f(x):\n    return x + 2\n")
NODEID = "test_calc.py::test_f"


class JsonCache:
    """What pytest's cache does with a value: it keeps the JSON of it."""

    def __init__(self) -> None:
        self.data: dict[str, str] = {}
        self.writes = 0

    def get(self, key: str, default: Any) -> Any:
        return json.loads(self.data[key]) if key in self.data else default

    def set(self, key: str, value: object) -> None:
        self.data[key] = json.dumps(value)
        self.writes += 1


def failure(nodeid: str = NODEID, exc_type: str = "AssertionError") -> Failure:
    return Failure(
        nodeid=nodeid,
        when="call",
        path="test_x.py",
        exc_type=exc_type,
        message="assert 2 == 3",
        longrepr="E   assert 2 == 3",
        frames=(),
    )


@pytest.fixture
def root(tmp_path: Path) -> Path:
    tmp_path.joinpath("calc.py").write_text(CALC)
    return tmp_path


def remembered(cache: JsonCache, root: Path, edits: tuple[Edit, ...] = (FIX,)) -> None:
    memory = FixMemory(cache)
    memory.remember(failure(), edits, "f adds one too few", "some/model", ProjectFiles(root))
    memory.save()


def test_recall_in_a_new_memory_returns_the_fix(root: Path) -> None:
    cache = JsonCache()
    remembered(cache, root)

    found = FixMemory(cache).recall(failure(), ProjectFiles(root))

    assert found == [Remembered((FIX,), "f adds one too few", "some/model")]


def test_the_fix_survives_in_pytests_cache(pytester: pytest.Pytester) -> None:
    pytester.path.joinpath("calc.py").write_text(CALC)
    first = FixMemory(pytester.parseconfigure().cache)
    first.remember(
        failure(), (FIX,), "f adds one too few", "some/model", ProjectFiles(pytester.path)
    )
    first.save()

    # A new configuration reads the cache from disk again.
    found = FixMemory(pytester.parseconfigure().cache).recall(
        failure(), ProjectFiles(pytester.path)
    )

    assert found == [Remembered((FIX,), "f adds one too few", "some/model")]


def test_recall_needs_the_function_to_read_as_it_did(root: Path) -> None:
    cache = JsonCache()
    remembered(cache, root)

    root.joinpath("calc.py").write_text(CALC.replace("return x + 1", "return x + 1  # hm"))

    assert FixMemory(cache).recall(failure(), ProjectFiles(root)) == []


def test_recall_ignores_changes_outside_the_function(root: Path) -> None:
    cache = JsonCache()
    remembered(cache, root)

    root.joinpath("calc.py").write_text(CALC.replace("return x\n", "return -x\n") + "\nY = 2\n")

    assert len(FixMemory(cache).recall(failure(), ProjectFiles(root))) == 1


def test_recall_needs_the_function_to_exist(root: Path) -> None:
    cache = JsonCache()
    remembered(cache, root)

    root.joinpath("calc.py").write_text(CALC.replace("def f(x)", "def h(x)"))

    assert FixMemory(cache).recall(failure(), ProjectFiles(root)) == []


@pytest.mark.parametrize(
    "other",
    [failure(nodeid="test_calc.py::test_g"), failure(exc_type="ValueError")],
    ids=["test id", "exception type"],
)
def test_recall_needs_the_same_failure(root: Path, other: Failure) -> None:
    cache = JsonCache()
    remembered(cache, root)

    assert signature(other) != signature(failure())
    assert FixMemory(cache).recall(other, ProjectFiles(root)) == []
    assert len(FixMemory(cache).recall(failure(), ProjectFiles(root))) == 1


def test_nothing_is_remembered_without_a_cache(root: Path) -> None:
    memory = FixMemory(None)
    memory.remember(failure(), (FIX,), "why", "model", ProjectFiles(root))
    memory.save()

    assert memory.entries == {}
    assert memory.changed is False
    assert memory.recall(failure(), ProjectFiles(root)) == []


def test_nothing_is_remembered_when_the_replaced_function_is_missing(root: Path) -> None:
    cache = JsonCache()
    gone = Edit("replace", "calc.py", "nowhere", "def nowhere():\n    pass\n")

    remembered(cache, root, (gone,))

    assert cache.writes == 0
    assert FixMemory(cache).recall(failure(), ProjectFiles(root)) == []


@pytest.mark.parametrize("stored", ["junk", 7, None, ["a", "list"], {"x": "not a list"}])
def test_a_damaged_cache_value_is_ignored(root: Path, stored: object) -> None:
    cache = JsonCache()
    cache.set(KEY, stored)

    memory = FixMemory(cache)

    assert memory.recall(failure(), ProjectFiles(root)) == []
    memory.remember(failure(), (FIX,), "why", "model", ProjectFiles(root))
    assert len(memory.recall(failure(), ProjectFiles(root))) == 1


def test_damaged_entries_are_skipped_and_good_ones_still_recalled(root: Path) -> None:
    cache = JsonCache()
    remembered(cache, root)
    good = cache.get(KEY, {})[signature(failure())][0]
    damaged: list[object] = [
        "junk",
        5,
        None,
        [],
        {},
        {"edits": [["replace", "calc.py", "f", "def f(x): ..."]]},  # no explanation, model, ...
        {"edits": [["replace"]], "explanation": "", "model": "", "functions": {}},
        {"edits": 3, "explanation": "", "model": "", "functions": {}},
        {"edits": [], "explanation": "", "model": "", "functions": {}},  # no edits at all
    ]
    cache.set(KEY, {signature(failure()): [*damaged, good]})

    found = FixMemory(cache).recall(failure(), ProjectFiles(root))

    assert found == [Remembered((FIX,), "f adds one too few", "some/model")]


def test_remember_over_damaged_entries_does_not_raise(root: Path) -> None:
    cache = JsonCache()
    cache.set(KEY, {signature(failure()): ["junk"]})
    memory = FixMemory(cache)

    memory.remember(failure(), (FIX,), "why", "model", ProjectFiles(root))

    assert len(memory.recall(failure(), ProjectFiles(root))) == 1


def test_recall_of_an_edit_with_a_damaged_path_does_not_raise(root: Path) -> None:
    cache = JsonCache()
    damaged = {
        "edits": [["replace", 5, "f", "def f(x): ..."]],
        "explanation": "",
        "model": "",
        "functions": {},
    }
    cache.set(KEY, {signature(failure()): [damaged]})

    assert FixMemory(cache).recall(failure(), ProjectFiles(root)) == []


def test_at_most_three_fixes_per_failure_newest_first(root: Path) -> None:
    cache = JsonCache()
    edits = [Edit("replace", "calc.py", "f", f"def f(x):\n    return x + {n}\n") for n in range(5)]
    memory = FixMemory(cache)
    for edit in edits[:4]:
        memory.remember(failure(), (edit,), f"plus {edit.source[-2]}", "model", ProjectFiles(root))
    memory.remember(
        failure(), (edits[1],), "again", "model", ProjectFiles(root)
    )  # moves to the front
    memory.save()

    found = FixMemory(cache).recall(failure(), ProjectFiles(root))

    assert PER_FAILURE == 3
    assert [r.edits for r in found] == [(edits[1],), (edits[3],), (edits[2],)]
    assert found[0].explanation == "again"


def test_save_writes_only_when_something_changed(root: Path) -> None:
    cache = JsonCache()
    memory = FixMemory(cache)

    memory.save()
    assert cache.writes == 0

    memory.recall(failure(), ProjectFiles(root))
    memory.save()
    assert cache.writes == 0

    memory.remember(failure(), (FIX,), "why", "model", ProjectFiles(root))
    memory.save()
    assert cache.writes == 1

    memory.save()
    assert cache.writes == 1
