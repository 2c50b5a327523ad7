from longest_streak import longest_streak


def test_nothing_has_no_streak():
    assert longest_streak([]) == (None, 0)


def test_one_value_is_a_streak_of_one():
    assert longest_streak(["a"]) == ("a", 1)


def test_the_longest_run_wins():
    assert longest_streak([1, 2, 2, 3, 3, 3, 1]) == (3, 3)


def test_the_first_run_wins_a_tie():
    assert longest_streak("aabb") == ("a", 2)


def test_no_neighbours_alike():
    assert longest_streak([1, 2, 3]) == (1, 1)
