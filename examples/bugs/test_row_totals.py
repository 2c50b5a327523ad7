from row_totals import row_totals


def test_no_rows():
    assert row_totals([]) == []


def test_a_single_row():
    assert row_totals([[1, 2, 3]]) == [6]


def test_every_row_has_its_own_total():
    assert row_totals([[1, 2], [3, 4]]) == [3, 7]
    assert row_totals([[5], [], [1]]) == [5, 0, 1]
