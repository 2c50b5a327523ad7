"""Comparing two versions of a settings dictionary."""


def changed_keys(old, new):
    """Keys present in both dicts whose values differ, sorted."""
    changed = []
    for key in old:
        if key in new and old[key] == new[key]:
            changed.append(key)
    return sorted(changed)
