"""Word counts for an editor's status bar."""


def word_count(text, ignore=()):
    """How many words text has (separated by whitespace), not counting words in `ignore`."""
    words = [word for word in text.split() if word not in ignore]
    return len(set(words))
