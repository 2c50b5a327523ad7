import pytest

from flag_value import parse_flag


def test_true_spellings():
    assert parse_flag("yes") is True
    assert parse_flag(" ON ") is True


def test_false_spellings():
    assert parse_flag("off") is False
    assert parse_flag("0") is False


def test_anything_else_is_refused():
    with pytest.raises(ValueError):
        parse_flag("maybe")
