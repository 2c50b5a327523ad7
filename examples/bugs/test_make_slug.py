from make_slug import make_slug


def test_a_single_word():
    assert make_slug("Hello") == "hello"


def test_punctuation_and_surrounding_spaces_are_dropped():
    assert make_slug("Python!") == "python"
    assert make_slug("  Why?  ") == "why"


def test_spaces_become_hyphens():
    assert make_slug("Hello World") == "hello-world"
    assert make_slug("Ten Tips, Ranked!") == "ten-tips-ranked"
