"""Plain-text tables."""


def pad_column(cells):
    """Every cell left-aligned to the width of the widest one."""
    if not cells:
        return []
    width = max(len(cell) for cell in cells)
    return [cell.ljust(len(cell)) for cell in cells]
