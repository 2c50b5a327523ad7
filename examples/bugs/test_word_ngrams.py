import pytest

from word_ngrams import ngrams


def test_bigrams():
    assert ngrams(["to", "be", "or", "not"], 2) == [("to", "be"), ("be", "or"), ("or", "not")]


def test_the_whole_text_is_one_ngram():
    assert ngrams(["a", "b", "c"], 3) == [("a", "b", "c")]


def test_fewer_words_than_n():
    assert ngrams(["a", "b"], 3) == []
    assert ngrams([], 1) == []


def test_n_must_be_positive():
    with pytest.raises(ValueError):
        ngrams(["a"], 0)
