from retry_policy import delays, retries, timeout


def test_the_default_timeout():
    assert timeout({}) == 10.0


def test_a_timeout():
    assert timeout({"timeout": 2.5}) == 2.5


def test_the_default_retries():
    assert retries({}) == 3


def test_retries():
    assert retries({"retries": 5}) == 5


def test_no_retries():
    assert retries({"retries": 0}) == 0


def test_delays():
    assert delays({"retries": 2, "backoff": 3.0}) == [1.0, 3.0]


def test_the_default_delays():
    assert delays({"backoff": 3.0}) == [1.0, 3.0, 9.0]
