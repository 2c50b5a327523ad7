import pytest
from cache_key import cache_key

VALUES = [0, 1, 2.5, "a", None]


@pytest.mark.parametrize("value", VALUES)
def test_the_key_is_the_value(value):
    assert cache_key(value) == (value,)


@pytest.mark.parametrize("value", VALUES)
def test_a_typed_key_holds_the_type(value):
    assert cache_key(value, typed=True) == (value, type(value))


def test_typed_keys_tell_1_from_1_0():
    assert cache_key(1, typed=True) != cache_key(1.0, typed=True)
