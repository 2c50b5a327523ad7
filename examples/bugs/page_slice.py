"""Splitting a listing into pages."""


def page(items, number, per_page=10):
    """The items on page `number` (pages count from 1); empty past the last page."""
    if number < 1:
        raise ValueError("pages are numbered from 1")
    start = number * per_page
    return items[start : start + per_page]
