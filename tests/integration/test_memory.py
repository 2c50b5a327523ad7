"""Memory: verified fixes kept in pytest's cache, recalled while their functions read the same."""

from __future__ import annotations

import dataclasses
import json
import os
import warnings
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


# -- a damaged or unwritable cache is one line, never a stopped heal (#15) ------------------------


def cache_file(pytester: pytest.Pytester) -> Path:
    """Where pytest's cache keeps the remembered fixes."""
    return pytester.path / ".pytest_cache" / "v" / KEY


def test_a_cache_file_nested_too_deeply_is_ignored_with_a_warning_and_rewritten(
    pytester: pytest.Pytester,
) -> None:
    pytester.path.joinpath("calc.py").write_text(CALC)
    cache_file(pytester).parent.mkdir(parents=True)
    cache_file(pytester).write_text("[" * 100_000 + "]" * 100_000)  # json: RecursionError

    memory = FixMemory(pytester.parseconfigure().cache)

    assert memory.recall(failure(), ProjectFiles(pytester.path)) == []
    assert memory.warning() == (
        f"caretaker: pytest's cache entry {KEY} is damaged (nested too deeply to read); the "
        "remembered fixes that could not be read are ignored and the entry is rewritten"
    )
    assert memory.save() is None
    assert json.loads(cache_file(pytester).read_text()) == {}


def test_a_cache_file_that_is_not_json_is_as_good_as_none(pytester: pytest.Pytester) -> None:
    # pytest's cache itself returns the default for what it cannot decode.
    pytester.path.joinpath("calc.py").write_text(CALC)
    cache_file(pytester).parent.mkdir(parents=True)
    cache_file(pytester).write_bytes(b'{"\xff\x00 not json')

    memory = FixMemory(pytester.parseconfigure().cache)
    memory.remember(failure(), (FIX,), "why", "model", ProjectFiles(pytester.path))

    assert memory.warning() is None
    assert memory.save() is None
    assert len(json.loads(cache_file(pytester).read_text())) == 1


def test_damaged_entries_are_counted_in_the_warning(root: Path) -> None:
    cache = JsonCache()
    cache.set(KEY, {signature(failure()): ["junk", {"edits": 3}], "other": "not a list"})

    assert FixMemory(cache).warning() == (
        f"caretaker: pytest's cache entry {KEY} is damaged (3 entries not as caretaker writes "
        "them); the remembered fixes that could not be read are ignored and the entry is rewritten"
    )


def test_an_entry_with_a_lone_surrogate_is_damaged_not_a_later_crash(root: Path) -> None:
    cache = JsonCache()
    remembered(cache, root)
    cache.data[KEY] = cache.data[KEY].replace("f adds one too few", "\\udcff")

    memory = FixMemory(cache)

    assert memory.recall(failure(), ProjectFiles(root)) == []
    assert "1 entry not as caretaker writes them" in (memory.warning() or "")


def test_a_cache_folder_that_cannot_be_made_is_one_line_even_under_w_error(
    pytester: pytest.Pytester,
) -> None:
    pytester.path.joinpath("calc.py").write_text(CALC)
    cache_file(pytester).parent.parent.mkdir(parents=True)
    cache_file(pytester).parent.write_text("a file where pytest's folder goes")
    memory = FixMemory(pytester.parseconfigure().cache)
    memory.remember(failure(), (FIX,), "why", "model", ProjectFiles(pytester.path))

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a user's filterwarnings = error
        line = memory.save()

    assert line is not None
    assert line.startswith("caretaker: the fixes found were not remembered: could not create")
    assert "[Errno 17] File exists" in line


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="no /dev/full here")
def test_a_full_disk_is_one_line(pytester: pytest.Pytester) -> None:
    pytester.path.joinpath("calc.py").write_text(CALC)
    memory = FixMemory(pytester.parseconfigure().cache)
    memory.remember(failure(), (FIX,), "why", "model", ProjectFiles(pytester.path))
    # After the cache was read: reading /dev/full never ends.
    cache_file(pytester).parent.mkdir(parents=True)
    cache_file(pytester).symlink_to("/dev/full")  # every write to it: ENOSPC

    line = memory.save()

    assert line is not None and "[Errno 28] No space left on device" in line


def test_a_fix_to_a_file_whose_name_is_not_utf8_is_not_remembered(root: Path) -> None:
    name = os.fsdecode(b"calc\xff.py")  # as Python names it: with a lone surrogate
    (root / name).write_text(CALC)
    cache = JsonCache()
    memory = FixMemory(cache)

    memory.remember(
        failure(), (dataclasses.replace(FIX, path=name),), "why", "m", ProjectFiles(root)
    )

    assert memory.changed is False
    assert memory.save() is None and cache.writes == 0


# -- reused end to end, and not under --heal-no-cache ------------------------------------------

BUGGY = "def add(a, b):\n    return a - b\n"
TESTS = "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n"


def test_a_remembered_fix_is_reused_from_cache_and_not_under_heal_no_cache(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(calc=BUGGY, test_calc=TESTS)

    first = pytester.runpytest("--heal", "--heal-model", "builtin")
    first.stdout.fnmatch_lines(["HEALED test_calc.py::test_add", "*candidate tried*builtin"])
    assert "(from cache)" not in first.stdout.str()

    again = pytester.runpytest("--heal", "--heal-model", "builtin")
    again.stdout.fnmatch_lines(
        [
            "HEALED test_calc.py::test_add (from cache)",
            "*from cache (first found by builtin) · no tokens*",
        ]
    )

    fresh = pytester.runpytest("--heal", "--heal-model", "builtin", "--heal-no-cache")
    fresh.stdout.fnmatch_lines(["HEALED test_calc.py::test_add", "*candidate tried*builtin"])
    assert "from cache" not in fresh.stdout.str()
    assert "(from cache)" in pytester.runpytest("--heal").stdout.str()  # still remembered


AUGMENTED = "RATE = 2\nRATE += 1\n\n\ndef f(x):\n    return x * RATE\n"
AUGMENT = Edit("replace", "calc.py", "RATE", "RATE += 2\n")


def test_a_fix_of_an_augmented_assignment_is_keyed_by_that_statement(root: Path) -> None:
    root.joinpath("calc.py").write_text(AUGMENTED)
    cache = JsonCache()
    remembered(cache, root, (AUGMENT,))

    # The definition RATE = 2 changes: the fix replaced the `RATE += 1` line, which did not.
    root.joinpath("calc.py").write_text(AUGMENTED.replace("RATE = 2", "RATE = 3"))
    kept = FixMemory(cache).recall(failure(), ProjectFiles(root))
    # The statement it replaced changes: the remembered fix no longer applies.
    root.joinpath("calc.py").write_text(AUGMENTED.replace("RATE += 1", "RATE += 5"))
    gone = FixMemory(cache).recall(failure(), ProjectFiles(root))

    assert kept == [Remembered((AUGMENT,), "f adds one too few", "some/model")]
    assert gone == []


def test_a_fix_of_a_statement_run_at_import_is_not_remembered(root: Path) -> None:
    # `RATES.update(zero=0)` binds no name: a fix of it could only be found again by a name that
    # is RATES's definition, which it would then replace.
    root.joinpath("calc.py").write_text("RATES = {}\nRATES.update(zero=0)\n")
    cache = JsonCache()
    statement = Edit("replace", "calc.py", "RATES", "RATES.update(zero=1)\n")

    remembered(cache, root, (statement,))

    assert cache.writes == 0
    assert FixMemory(cache).recall(failure(), ProjectFiles(root)) == []


def test_another_tests_fix_is_recalled_only_for_a_failure_it_replaced_suspects_of(
    root: Path,
) -> None:
    cache = JsonCache()
    remembered(cache, root)  # f's fix, remembered for NODEID
    memory = FixMemory(cache)
    other = failure("test_calc.py::test_f_again")  # another test of the same bug

    assert memory.recall(other, ProjectFiles(root)) == []  # no suspects said: its own only
    assert memory.recall(other, ProjectFiles(root), ["calc.py::g"]) == []  # f is no suspect
    (found,) = memory.recall(other, ProjectFiles(root), ["calc.py::g", "calc.py::f"])
    assert found.edits == (FIX,)
    (own,) = memory.recall(failure(), ProjectFiles(root), ["calc.py::f"])  # once, not twice
    assert own == found


def test_shards_sharing_a_folder_keep_each_others_fixes(root: Path, tmp_path: Path) -> None:
    from pytest_caretaker.repair.shared_memory import shared

    env = {"CARETAKER_FIX_MEMORY": str(tmp_path / "shared")}
    first, second = FixMemory(shared(env)), FixMemory(shared(env))  # both read it empty
    first.remember(failure(), (FIX,), "f", "m", ProjectFiles(root))
    fix_g = Edit("replace", "calc.py", "g", "def g(x):\n    return -x\n")
    second.remember(failure("test_calc.py::test_g"), (fix_g,), "g", "m", ProjectFiles(root))
    assert first.save() is None and second.save() is None

    later = FixMemory(shared(env))

    assert [r.edits for r in later.recall(failure(), ProjectFiles(root))] == [(FIX,)]
    g = later.recall(failure("test_calc.py::test_g"), ProjectFiles(root))
    assert [r.edits for r in g] == [(fix_g,)]
    assert shared({}) is None  # not named: pytest's cache, as before
