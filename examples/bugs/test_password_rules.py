from password_rules import password_problems


def test_everything_wrong():
    assert password_problems("abc") == [
        "shorter than 8 characters",
        "no digit",
        "no uppercase letter",
    ]


def test_missing_uppercase_or_digit():
    assert password_problems("lowercase1") == ["no uppercase letter"]
    assert password_problems("UPPERCASE") == ["no digit"]


def test_a_good_password():
    assert password_problems("Secret123") == []


def test_only_too_short():
    assert password_problems("Ab1") == ["shorter than 8 characters"]
