"""Neighbours: which passing tests are rerun with the failing ones (the spectrum's passing side and
every fix's regression set), so that a 10,000-test module does not outgrow --heal-timeout."""

from __future__ import annotations

from pytest_caretaker.project.neighbours import NEIGHBOURS, neighbours


def test_all_of_a_small_module_and_nothing_of_other_modules() -> None:
    passed = ["test_a.py::test_1", "test_b.py::test_2", "test_a.py::test_3"]

    assert neighbours(["test_a.py::test_x"], passed) == ["test_a.py::test_1", "test_a.py::test_3"]


def test_a_big_module_gives_at_most_the_limit_in_the_order_they_ran() -> None:
    passed = [f"test_big.py::test_{n}" for n in range(10_000)]

    chosen = neighbours(["test_big.py::test_fails"], passed)

    assert NEIGHBOURS == 200
    assert len(chosen) == NEIGHBOURS
    assert chosen == sorted(chosen, key=passed.index)
    # Spread over the whole module, not its first 200.
    assert chosen[0] == "test_big.py::test_0"
    assert int(chosen[-1].rsplit("_", 1)[1]) > 9_900


def test_parametrized_siblings_then_the_class_come_first() -> None:
    siblings = [f"test_big.py::TestPrice::test_round[{n}]" for n in range(3)]
    same_class = ["test_big.py::TestPrice::test_add", "test_big.py::TestPrice::test_sub"]
    others = [f"test_big.py::test_{n}" for n in range(50)]
    passed = others[:25] + same_class + siblings + others[25:]

    chosen = neighbours(["test_big.py::TestPrice::test_round[9]"], passed, limit=10)

    assert len(chosen) == 10
    assert set(siblings + same_class) <= set(chosen)
    assert len(set(chosen) & set(others)) == 5


def test_the_limit_holds_for_each_module_of_a_failure() -> None:
    passed = [f"test_{m}.py::test_{n}" for m in "ab" for n in range(30)] + ["test_c.py::test_0"]

    chosen = neighbours(["test_a.py::test_x", "test_b.py::test_y"], passed, limit=10)

    assert sum(1 for nodeid in chosen if nodeid.startswith("test_a.py")) == 10
    assert sum(1 for nodeid in chosen if nodeid.startswith("test_b.py")) == 10
    assert "test_c.py::test_0" not in chosen


def test_more_siblings_than_the_limit_keeps_the_limit() -> None:
    passed = [f"test_p.py::test_case[{n}]" for n in range(500)]

    chosen = neighbours(["test_p.py::test_case[500]"], passed, limit=20)

    assert chosen == passed[:20]
