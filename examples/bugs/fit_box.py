"""Thumbnail sizes."""


def fit_within(width, height, max_width, max_height):
    """The largest size with the same aspect ratio that fits inside max_width x max_height."""
    scale = max(max_width / width, max_height / height)
    return round(width * scale), round(height * scale)
