from truncate_text import truncate


def test_short_text_is_unchanged():
    assert truncate("hello", 10) == "hello"
    assert truncate("hello", 5) == "hello"


def test_long_text_is_cut_with_an_ellipsis():
    assert truncate("hello world", 6) == "hello…"


def test_the_result_respects_the_limit():
    assert len(truncate("abcdefgh", 4)) == 4
