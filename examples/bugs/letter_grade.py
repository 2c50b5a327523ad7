"""Letter grades from scores."""


def letter_grade(score):
    """"A" from 90 on, "B" from 80, "C" from 70, else "F"."""
    if score > 90:
        return "A"
    if score > 80:
        return "B"
    if score > 70:
        return "C"
    return "F"
