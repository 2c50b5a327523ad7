"""A room thermostat."""


class Thermostat:
    def __init__(self, target: float, tolerance: float = 0.5) -> None:
        self.target = target
        self.tolerance = tolerance

    def heating(self, temperature: float) -> bool:
        """Whether the heating should be on: when the room is colder than the target by
        more than the tolerance."""
        return temperature < self.target + self.tolerance
