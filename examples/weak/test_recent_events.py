from recent_events import recent


def test_no_events():
    assert recent([]) == []


def test_the_last_three_of_five():
    assert recent(["boot", "login", "upload", "share", "logout"]) == ["upload", "share", "logout"]
