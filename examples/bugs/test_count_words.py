from count_words import word_count


def test_distinct_words():
    assert word_count("one two three") == 3
    assert word_count("") == 0


def test_ignored_words_are_not_counted():
    assert word_count("a b c", ignore={"b"}) == 2


def test_repeated_words_count_every_time():
    assert word_count("to be or not to be") == 6
    assert word_count("a b a", ignore={"b"}) == 2
