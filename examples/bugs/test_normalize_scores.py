from normalize_scores import normalize


def test_shares_add_up_to_one():
    assert normalize([1, 3]) == [0.25, 0.75]
    assert normalize([2, 2, 4]) == [0.25, 0.25, 0.5]


def test_no_scores_at_all():
    assert normalize([0, 0]) == [0.0, 0.0]
    assert normalize([]) == []
