"""URL slugs for blog posts."""


def make_slug(title):
    """A URL slug: lowercase, spaces become hyphens, other punctuation is dropped."""
    slug = title.strip().lower().replace("-", " ")
    return "".join(ch for ch in slug if ch.isalnum() or ch == "-")
