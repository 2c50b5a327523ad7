"""derive.py: the inputs derived from the tests' calls, for comparing fixes beyond the tests."""

from __future__ import annotations

import datetime

from pytest_caretaker.verify.derive import Call, inputs


def shipping(total):
    if total < 49:
        return 4.95
    return 0.0


def top(products, count=3):
    return products[:count]


def age(born, today):
    return today.year - born.year


class Thermostat:
    def __init__(self) -> None:
        self.target = 20
        self.tolerance = 0.5

    def heats(self, temperature):
        return temperature < self.target - self.tolerance


def derived(function, *args) -> list[tuple[str, tuple]]:
    made = inputs(function, [Call(args, {}, "failing")])
    return [(call.origin, call.args) for call in made]


def test_the_captured_call_comes_first_then_what_derives_from_it() -> None:
    found = derived(shipping, 30)
    assert found[0] == ("failing", (30,))
    values = [args[0] for _, args in found]
    assert {0, 1, -1, 31, 29, -30} <= set(values)
    # The function's constant, one off it, and half a unit off it: where the boundary lies.
    assert {48, 49, 50, 48.5, 49.5} <= set(values)


def test_records_whose_order_the_tests_data_hides() -> None:
    products = [{"name": "a", "price": 8.0, "sold": 120}, {"name": "b", "price": 15.0, "sold": 40}]
    found = dict(derived(top, products))
    largest = found["derived: the first record's 'price' made the largest"][0]
    assert largest[0]["price"] == 16.0 and largest[1] == products[1]
    assert found["derived: the first record's 'sold' made the smallest"][0][0]["sold"] == 39
    assert "derived: empty" in found and "derived: reversed" in found


def test_two_dates_meet_on_the_anniversary() -> None:
    born, today = datetime.date(1990, 6, 1), datetime.date(2024, 5, 1)
    found = [args for how, args in derived(age, born, today) if "anniversary" in how]
    assert (born, datetime.date(2024, 6, 1)) in found


def test_a_methods_object_is_varied_by_its_attributes() -> None:
    thermostat = Thermostat()
    found = derived(Thermostat.heats, thermostat, 19)
    tolerances = [args[0].tolerance for how, args in found if how.startswith("derived: its tol")]
    assert 0.0 in tolerances and 1.5 in tolerances
    assert thermostat.tolerance == 0.5  # the captured object itself is left as it was
