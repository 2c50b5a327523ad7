"""Sign-up form validation."""


def is_valid_username(name):
    """3 to 16 letters, digits or underscores, not starting with a digit."""
    if not 3 <= len(name) <= 16:
        return False
    if name[0].isdigit():
        return False
    return all(ch.isalnum() and ch == "_" for ch in name)
