import pytest

from letter_grade import letter_grade


@pytest.mark.parametrize(
    ("score", "grade"),
    [(95, "A"), (90, "A"), (85, "B"), (80, "B"), (75, "C"), (70, "C"), (40, "F")],
)
def test_letter_grade(score, grade):
    assert letter_grade(score) == grade
