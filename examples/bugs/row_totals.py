"""Sums for a spreadsheet-like table."""


def row_totals(rows):
    """The sum of each row of a table of numbers."""
    totals = []
    total = 0
    for row in rows:
        for cell in row:
            total += cell
        totals.append(total)
    return totals
