"""Reading boolean switches from environment variables."""

TRUTHY = {"1", "yes", "true", "on"}
FALSY = {"0", "no", "false", "off"}


def parse_flag(text):
    """The boolean a flag like "yes", " Off " or "1" spells; ValueError for anything else."""
    value = text.strip().lower()
    if value in TRUTHY:
        return True
    if value in FALSY:
        return True
    raise ValueError(f"not a boolean flag: {text!r}")
