from frame_area import Frame


def test_a_square_frame_needs_a_square_of_glass():
    assert Frame(30, 30).glass_area == 900


def test_a_wide_frame_needs_a_wide_pane():
    assert Frame(40, 30, border=5).glass_area == 1200


def test_a_tall_frame_needs_a_tall_pane():
    assert Frame(20, 50).glass_area == 1000


def test_the_border_adds_to_both_sides():
    frame = Frame(40, 30, border=5)
    assert (frame.outer_width, frame.outer_height) == (50, 40)


def test_a_frame_fits_a_wall_as_large_as_it():
    assert Frame(40, 30, border=5).fits(50, 40)
    assert not Frame(40, 30, border=5).fits(49, 40)
