"""Tolerances: an approximate comparison may not accept more than it did; values are numbers."""

from __future__ import annotations

import ast

import pytest

from pytest_caretaker.guard.tolerances import tolerances


def asserting(expression: str) -> ast.FunctionDef:
    function = ast.parse(f"def test_it():\n    assert {expression}\n").body[0]
    assert isinstance(function, ast.FunctionDef)
    return function


@pytest.mark.parametrize(
    ("before", "after", "reason"),
    [
        ("x == 0.3", "x == approx(0.3)", "adds approx to t, which compares approximately"),
        ("x == approx(0.3, rel=1e-6)", "x == approx(0.3, rel=1e-3)", "widens rel= from 1e-06 to"),
        ("x == approx(0.3, 1e-6)", "x == approx(0.3, 1e-3)", "widens rel= from 1e-06 to 0.001"),
        ("x == approx(0.3)", "x == approx(0.3, abs=0.1)", "adds abs= to approx(0.3, abs=0.1)"),
        ("x == approx(0.3, rel=1e-9)", "x == approx(0.3)", "removes rel= from approx(0.3, rel"),
        ("isclose(x, y)", "isclose(x, y, rel_tol=0.1)", "adds rel_tol= to isclose"),
        ("assert_almost_equal(x, y, decimal=7)", "assert_almost_equal(x, y, 2)", "widens decimal="),
        ("assertAlmostEqual(x, y)", "assertAlmostEqual(x, y, places=3)", "adds places="),
        ("x == approx(0.3, rel=tol)", "x == approx(0.3, rel=2 * tol)", "to a value caretaker"),
        ("x == approx(0.3, rel=1e-6)", "x == approx(0.3, rel=tol)", "cannot compare"),
    ],
)
def test_a_looser_comparison_is_refused(before: str, after: str, reason: str) -> None:
    refused = tolerances("t", asserting(before), asserting(after))
    assert refused is not None
    assert reason in refused


@pytest.mark.parametrize(
    ("before", "after"),
    [
        ("x == approx(0.3, rel=1e-3)", "x == approx(0.3, rel=1e-6)"),  # tightened
        ("x == approx(0.3, rel=1e-3)", "x == approx(0.3, rel=0.001)"),  # written another way
        ("x == approx(0.3, rel=1e-3)", "x == approx(0.3, 1e-3)"),  # by position
        ("x == approx(0.3, rel=1e-3)", "x == approx(0.3)"),  # the default is tighter
        ("x == approx(0.3, rel=tol)", "x == approx(0.3, rel=tol)"),  # unknown, unchanged
        ("assertAlmostEqual(x, y, places=3)", "assertAlmostEqual(x, y, places=5)"),
        ("x == approx(0.3)", "x == approx(0.4)"),  # the expected value is not a tolerance
        ("x == approx(0.3)", "x == 0.3"),  # exact is stricter
    ],
)
def test_an_equal_or_stricter_comparison_is_accepted(before: str, after: str) -> None:
    assert tolerances("t", asserting(before), asserting(after)) is None


def test_without_the_original_every_approximate_comparison_is_new() -> None:
    assert tolerances("t", None, asserting("x == approx(0.3)")) is not None
