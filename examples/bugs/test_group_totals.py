from group_totals import largest_group_total


def test_groups_each_followed_by_a_blank_line():
    assert largest_group_total(["1", "2", "", "10", ""]) == 10
    assert largest_group_total(["5", "", "1", "1", ""]) == 5


def test_no_lines():
    assert largest_group_total([]) == 0


def test_the_last_group_counts_too():
    assert largest_group_total(["1", "2", "", "4"]) == 4
    assert largest_group_total(["7"]) == 7


def test_a_group_is_compared_by_its_whole_sum():
    assert largest_group_total(["4", "", "9", "-2"]) == 7
