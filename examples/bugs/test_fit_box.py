from fit_box import fit_within


def test_same_aspect_ratio():
    assert fit_within(100, 100, 50, 50) == (50, 50)
    assert fit_within(200, 100, 400, 200) == (400, 200)


def test_a_wide_image_is_limited_by_the_width():
    assert fit_within(200, 100, 100, 100) == (100, 50)
    assert fit_within(1920, 1080, 1280, 1280) == (1280, 720)


def test_a_tall_image_is_limited_by_the_height():
    assert fit_within(100, 400, 300, 200) == (50, 200)
