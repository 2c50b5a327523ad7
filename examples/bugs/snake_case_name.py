"""Converting identifiers between naming styles."""


def to_snake_case(name):
    """A camelCase or PascalCase identifier in snake_case (userName -> user_name)."""
    out = []
    for index, ch in enumerate(name):
        if ch.isupper() and index > 0:
            out.append("-")
        out.append(ch.lower())
    return "".join(out)
