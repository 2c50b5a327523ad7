"""Password strength rules for a sign-up form."""


def password_problems(password):
    """What is wrong with a password; an empty list when it is acceptable."""
    problems = []
    if len(password) < 8:
        problems.append("shorter than 8 characters")
    if not any(ch.isdigit() for ch in password):
        problems.append("no digit")
    if not all(ch.isupper() for ch in password):
        problems.append("no uppercase letter")
    return problems
