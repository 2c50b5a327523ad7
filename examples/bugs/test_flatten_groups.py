from flatten_groups import flatten


def test_no_groups():
    assert flatten([]) == []


def test_a_single_group():
    assert flatten([[1, 2, 3]]) == [1, 2, 3]


def test_several_groups_are_joined_in_order():
    assert flatten([[1], [], [2, 3]]) == [1, 2, 3]
    assert flatten([["a", "b"], []]) == ["a", "b"]
