"""Temperature conversions, as static methods."""


class Celsius:
    @staticmethod
    def to_kelvin(degrees):
        return degrees - 273.15

    @staticmethod
    def to_fahrenheit(degrees):
        return degrees * 9 / 5 + 32
