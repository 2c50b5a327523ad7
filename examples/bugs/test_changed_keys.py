from changed_keys import changed_keys


def test_keys_with_new_values_are_reported():
    old = {"host": "localhost", "port": 8000, "debug": True}
    new = {"host": "localhost", "port": 8080, "debug": False}
    assert changed_keys(old, new) == ["debug", "port"]


def test_identical_dicts_have_no_changes():
    settings = {"host": "localhost", "port": 8000}
    assert changed_keys(settings, dict(settings)) == []


def test_added_and_removed_keys_are_not_changes():
    assert changed_keys({"a": 1}, {"b": 1}) == []
    assert changed_keys({}, {"a": 1}) == []
