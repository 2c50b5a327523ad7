from percent_label import finished, percent_label


def test_label_of_a_job_under_way():
    assert percent_label(42, 100) == "42%"
    assert percent_label(1, 3) == "33%"


def test_label_of_an_empty_job():
    assert percent_label(0, 0) == "100%"


def test_finished():
    assert finished(3, 3)
    assert not finished(2, 3)
