from count_lines import count_lines


def test_an_empty_text_has_no_lines():
    assert count_lines("") == 0


def test_a_single_line():
    assert count_lines("x") == 1


def test_three_lines():
    assert count_lines("a\nb\nc") == 3
