"""Percentages typed by people: "45%" or "45"."""


def parse_percent(text):
    """The share as a fraction (0.45); None when text is not a percentage from 0 to 100."""
    try:
        value = float(text.rstrip("%"))
        return value / 100
    except ValueError:
        return None
