"""Totals of blank-line separated groups of numbers."""


def largest_group_total(lines):
    """Lines hold numbers in groups separated by blank lines; the largest sum of a group."""
    best = 0
    total = 0
    for line in lines:
        if line.strip():
            total += int(line)
        else:
            best = max(best, total)
            total = 0
    return best
