from thermostat import Thermostat


def test_a_cold_room_is_heated():
    assert Thermostat(20).heating(18)


def test_a_warm_room_is_not_heated():
    assert not Thermostat(20).heating(23)


def test_a_room_at_the_target_is_not_heated():
    assert not Thermostat(20).heating(20)
