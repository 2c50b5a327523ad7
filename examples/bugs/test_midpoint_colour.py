from midpoint_colour import blend, is_grey


def test_blend_black_and_a_colour():
    assert blend((0, 0, 0), (100, 200, 50)) == (50, 100, 25)


def test_blend_two_colours():
    assert blend((10, 20, 30), (30, 40, 50)) == (20, 30, 40)


def test_blend_black_with_itself():
    assert blend((0, 0, 0), (0, 0, 0)) == (0, 0, 0)


def test_is_grey():
    assert is_grey((7, 7, 7))
    assert not is_grey((7, 8, 7))
