"""Layered configuration."""


def merge_settings(defaults, overrides):
    """defaults updated by overrides; an override of None keeps the default."""
    merged = dict(defaults)
    for key, value in overrides.items():
        if value is None:
            continue
        merged[key] = value
    merged.update(overrides)
    return merged
