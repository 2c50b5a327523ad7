from pad_column import pad_column


def test_cells_of_different_widths():
    assert pad_column(["a", "bbb", "cc"]) == ["a  ", "bbb", "cc "]


def test_cells_of_the_same_width():
    assert pad_column(["ab", "cd"]) == ["ab", "cd"]


def test_no_cells():
    assert pad_column([]) == []


def test_two_cells():
    assert pad_column(["a", "bbb"]) == ["a  ", "bbb"]
