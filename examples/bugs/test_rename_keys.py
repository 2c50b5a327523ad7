from rename_keys import rename_keys


def test_no_renames_copies_the_record():
    record = {"id": 1, "name": "Ada"}
    copy = rename_keys(record, {})
    assert copy == record
    assert copy is not record


def test_renamed_keys():
    assert rename_keys({"id": 1, "name": "Ada"}, {"name": "full_name"}) == {
        "id": 1,
        "full_name": "Ada",
    }


def test_renames_of_missing_keys_are_ignored():
    assert rename_keys({"id": 1}, {"name": "full_name"}) == {"id": 1}
