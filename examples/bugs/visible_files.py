"""Listing a directory the way `ls` does."""


def visible_files(names, show_hidden=False):
    """The names in order, leaving out those starting with "." unless show_hidden."""
    result = []
    for name in names:
        if not name.startswith(".") and not show_hidden:
            continue
        result.append(name)
    return result
