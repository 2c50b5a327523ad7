from speaker_volume import Speaker


def test_a_new_speaker_plays_quietly():
    assert Speaker().volume == 3


def test_turning_it_up():
    speaker = Speaker()
    speaker.set_volume(7)
    assert speaker.volume == 7


def test_full_volume():
    assert Speaker().set_volume(10) == 10
