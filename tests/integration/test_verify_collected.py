"""A warm server that collected the session's tests once runs each candidate as a fresh session
would: every shape of import sees the candidate's code, and the outcomes are a cold run's."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from pytest_caretaker.verify.runner import Runner, RunResult

FILES = {
    "calc.py": "def mean(xs):\n    return sum(xs) / (len(xs) + 1)\n",
    "pkg/__init__.py": "from .core import double\n",
    "pkg/core.py": "def double(x):\n    return x * 3\n",
    "pkg/other.py": "def unrelated():\n    return 1\n",
    "helpers.py": "import calc\n\n\ndef helper():\n    return calc.mean([2, 2])\n",
    "lazy.py": "def value():\n    return 1\n",
    "made.py": "def make():\n    return 1\n",
    "shapes.py": "class Shape:\n    def area(self):\n        return 0\n",
    "conftest.py": (
        "import pytest\nfrom made import make\n\n\n"
        "@pytest.fixture\ndef made():\n    return make()\n"
    ),
    "test_things.py": """\
import os

import pytest

import calc
import helpers
import pkg.other
from calc import mean
from pkg import double
from shapes import Shape

with open(os.environ["IMPORTS_LOG"], "a") as log:
    log.write("imported\\n")


def test_attribute():
    assert calc.mean([1, 2, 3]) == 2


def test_from_import():
    assert mean([1, 2, 3]) == 2


def test_package_reexport():
    assert double(2) == 4 and pkg.other.unrelated() == 1


def test_transitive():
    assert helpers.helper() == 2


def test_lazy():
    import lazy

    assert lazy.value() == 2


def test_conftest_fixture(made):
    assert made == 2


@pytest.mark.parametrize("n", [1, 2])
def test_param(n, tmp_path):
    (tmp_path / "x").write_text(str(n))
    assert calc.mean([n, n]) == n


class Square(Shape):
    def area(self):
        return super().area() + 4


class TestClass:
    def test_subclass(self):
        assert Square().area() == 5
""",
}
FIXES = {
    "calc.py": b"def mean(xs):\n    return sum(xs) / len(xs)\n",
    "pkg/core.py": b"def double(x):\n    return x * 2\n",
    "lazy.py": b"def value():\n    return 2\n",
    "made.py": b"def make():\n    return 2\n",
    "shapes.py": b"class Shape:\n    def area(self):\n        return 1\n",
}
TESTS = {
    "calc.py": [
        "test_attribute",
        "test_from_import",
        "test_transitive",
        "test_param[1]",
        "test_param",
    ],
    "pkg/core.py": ["test_package_reexport"],
    "lazy.py": ["test_lazy"],
    "made.py": ["test_conftest_fixture"],  # the conftest is stale: a whole session afresh
    "shapes.py": ["TestClass::test_subclass"],
}


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("collected").resolve()
    for rel, text in FILES.items():
        root.joinpath(rel).parent.mkdir(exist_ok=True)
        root.joinpath(rel).write_text(text)
    return root


def runner(root: Path, warm: bool) -> Runner:
    args = ["-q", "-p", "no:cacheprovider", "-o", "addopts=", "--rootdir", str(root)]
    return Runner(root, root, args, timeout=30.0, warm=warm)


@pytest.fixture(scope="module")
def log(project: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    path = tmp_path_factory.mktemp("log") / "imports.log"
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("IMPORTS_LOG", str(path))
        yield path


@pytest.fixture(scope="module")
def collected(project: Path, log: Path) -> Iterator[Runner]:
    with runner(project, warm=True) as warm:
        warm.collect = ("test_things.py",)
        yield warm


@pytest.fixture(scope="module")
def cold(project: Path, log: Path) -> Iterator[Runner]:
    with runner(project, warm=False) as fresh:
        yield fresh


#: What differs between two runs of the same tests: addresses, and each run's own folder.
WHATEVER = re.compile(r"0x[0-9a-f]+|/[^'\s]*?/caretaker-[^/]+/run-[^/]+")


def outcomes(result: RunResult) -> dict[str, tuple[str, str]]:
    """Each test's outcome and detail, without the addresses of objects."""
    return {k: (v.outcome, WHATEVER.sub("…", v.detail)) for k, v in result.outcomes.items()}


def ids(names: list[str]) -> list[str]:
    return [f"test_things.py::{name}" for name in names]


@pytest.mark.parametrize("changed", sorted(TESTS))
def test_every_import_shape_sees_the_candidate_as_a_fresh_session_does(
    collected: Runner, cold: Runner, changed: str
) -> None:
    nodeids = ids(TESTS[changed])
    patch = {changed: FIXES[changed]}

    before, after = collected.run(nodeids), collected.run(nodeids, patch)
    fresh_before, fresh_after = cold.run(nodeids), cold.run(nodeids, patch)

    assert before.problem is None and after.problem is None, after.output
    assert outcomes(before) == outcomes(fresh_before)
    assert outcomes(after) == outcomes(fresh_after)
    assert after.outcomes and all(o.outcome == "passed" for o in after.outcomes.values())
    assert any(o.outcome == "failed" for o in before.outcomes.values())


def test_tests_are_collected_once_and_again_only_when_a_candidate_makes_them_stale(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    log = tmp_path / "imports.log"
    monkeypatch.setenv("IMPORTS_LOG", str(log))
    with runner(project, warm=True) as warm:
        warm.collect = ("test_things.py",)
        warm.run(ids(["test_attribute"]))
        warm.run(ids(["test_lazy"]), {"lazy.py": FIXES["lazy.py"]})  # not imported: not stale
        once = log.read_text().count("imported")
        warm.run(ids(["test_attribute"]), {"calc.py": FIXES["calc.py"]})
        again = log.read_text().count("imported")

    assert (once, again) == (1, 2)


def test_a_node_id_no_test_has_now_is_not_run_and_the_others_are(
    collected: Runner, cold: Runner
) -> None:
    # Parameters made at collection (`datetime.now()`) give a test another id in the next
    # collection; pytest, given the id the session ran, stops the whole run ("not found").
    nodeids = ids(["test_attribute", "test_nothing_here", "test_param[3]", "test_from_import"])

    found, fresh = collected.run(nodeids), cold.run(nodeids)

    assert outcomes(found) == outcomes(fresh)
    assert list(found.outcomes) == ids(["test_attribute", "test_from_import"])
    assert found.problem is None and "not found" not in found.output


def test_tests_run_in_the_order_of_their_node_ids(collected: Runner, cold: Runner) -> None:
    nodeids = ids(
        ["test_transitive", "TestClass::test_subclass", "test_param[2]", "test_attribute"]
    )

    found, fresh = collected.run(nodeids), cold.run(nodeids)

    assert list(found.outcomes) == list(fresh.outcomes) == nodeids


def test_a_candidate_that_breaks_the_import_is_a_collection_error(
    collected: Runner, cold: Runner
) -> None:
    nodeids = ids(["test_attribute"])
    broken = {"calc.py": b"def mean(xs):\n    return 1 / 0\n\nraise ImportError('no')\n"}

    found, fresh = collected.run(nodeids, broken), cold.run(nodeids, broken)

    assert found.outcomes == fresh.outcomes == {}
    assert len(found.collect_errors) == len(fresh.collect_errors) == 1
    assert "ImportError: no" in found.collect_errors[0]
