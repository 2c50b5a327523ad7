"""Where a reply's edit lands: a method goes to the class the reply names, never to the first
method of that name in the file; a reply that leaves it open is refused with the places it could
mean, and the model's next reply, naming the class, heals (#47)."""

from __future__ import annotations

from textwrap import dedent

import pytest
from helpers import TEXT_MODEL, heal_args

from pytest_caretaker.testing import ScriptedServer, text

ERRORS = dedent(
    """\
    class ParseError(Exception):
        def __init__(self, message, position):
            super().__init__(message)
            self.position = position


    class RangeError(Exception):
        def __init__(self, message, position):
            super().__init__(message)
            self.where = position


    def check(value, low, high):
        if not low <= value <= high:
            raise ValueError(f"{value} is out of range")
        return value
    """
)
TEST_ERRORS = dedent(
    """\
    import pytest
    from errors import ParseError, RangeError, check


    def test_out_of_range_is_a_range_error_at_its_position():
        with pytest.raises(RangeError) as caught:
            check(12, 0, 10)
        assert caught.value.position == 12


    def test_in_range():
        assert check(5, 0, 10) == 5


    def test_parse_error_keeps_its_position():
        assert ParseError("bad", 3).position == 3
    """
)
CHECK = dedent(
    """\
    def check(value, low, high):
        if not low <= value <= high:
            raise RangeError(f"{value} is out of range", value)
        return value
    """
)
INIT = dedent(
    """\
    def __init__(self, message, position):
        super().__init__(message)
        self.position = position
    """
)


def test_a_bare_method_of_two_classes_is_refused_and_the_named_class_gets_the_fix(
    pytester: pytest.Pytester, llm: ScriptedServer
) -> None:
    pytester.makepyfile(errors=ERRORS, test_errors=TEST_ERRORS)
    indented = "".join(f"    {line}\n" for line in INIT.splitlines())
    llm.script(
        text(
            "Raise RangeError with the value's position, and keep it.\n\n"
            f"```python\n# file: errors.py\n{CHECK}```\n\n```python\n# file: errors.py\n{INIT}```"
        ),
        text(
            "The same fix, with the class named.\n\n"
            f"```python\n# file: errors.py\n{CHECK}\n\nclass RangeError(Exception):\n{indented}```"
        ),
    )

    result = pytester.runpytest(*heal_args(llm, TEXT_MODEL))

    result.stdout.fnmatch_lines(["HEALED test_errors.py::test_out_of_range*"])
    assert len(llm.requests) == 2
    retry = str(llm.requests[1]["messages"][-1]["content"])
    assert "errors.py::ParseError.__init__, errors.py::RangeError.__init__" in retry
    patch = (pytester.path / ".caretaker" / "heal.patch").read_text()
    assert "-        self.where = position\n+        self.position = position" in patch
    assert patch.count("self.position = position") == 1  # ParseError's own line is untouched
    assert "raise RangeError(" in patch
