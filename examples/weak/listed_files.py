"""Listing a folder's files."""


def visible(names, show_hidden=False):
    """The names to list: all of them with show_hidden, else those not starting with a dot.

    >>> visible([".env", "app.py"])
    ['app.py']
    """
    return [name for name in names if not show_hidden or not name.startswith(".")]
