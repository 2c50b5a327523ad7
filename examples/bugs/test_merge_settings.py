from merge_settings import merge_settings


def test_overrides_win():
    assert merge_settings({"a": 1, "b": 2}, {"b": 3}) == {"a": 1, "b": 3}
    assert merge_settings({"a": 1}, {"c": 4}) == {"a": 1, "c": 4}


def test_the_defaults_are_not_modified():
    defaults = {"a": 1}
    merge_settings(defaults, {"a": 2})
    assert defaults == {"a": 1}


def test_a_none_override_keeps_the_default():
    assert merge_settings({"a": 1, "b": 2}, {"b": None}) == {"a": 1, "b": 2}
    assert merge_settings({"a": 1, "b": 2, "c": 3}, {"b": None, "c": 4}) == {"a": 1, "b": 2, "c": 4}
