"""Adapting records from one schema to another."""


def rename_keys(record, renames):
    """A copy of record with keys renamed as `renames` says; other keys are kept."""
    result = {}
    for key, value in record.items():
        new_key = renames.get(key, key)
        result[key] = value
    return result
