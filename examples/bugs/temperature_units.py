"""Converting temperatures between scales."""


def to_celsius(fahrenheit):
    """Degrees Fahrenheit in degrees Celsius."""
    return fahrenheit - 32 * 5 / 9


def to_fahrenheit(celsius):
    """Degrees Celsius in degrees Fahrenheit."""
    return celsius * 9 / 5 + 32
