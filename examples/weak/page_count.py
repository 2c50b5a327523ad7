"""Paging a list of search results."""

import math


def page_count(results: int, per_page: int) -> int:
    """How many pages it takes to show results, per_page of them on each (the last page may
    be short)."""
    if per_page < 1:
        raise ValueError("per_page must be at least 1")
    return math.floor(results / per_page)
