"""Where a reply's edit lands: a method goes to the class the reply names, never to the first
method of that name in the file; a reply that leaves it open is refused with the places it could
mean, and the model's next reply, naming the class, heals (#47)."""

from __future__ import annotations

from textwrap import dedent

import pytest
from helpers import TEXT_MODEL, heal_args

from pytest_caretaker.testing import ScriptedServer, text, tool_call

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


UNITS = dedent(
    """\
    def unit_of(size):
        units = ["B", "KB", "MB"]
        index = 0
        while size > 1024 and index < len(units) - 1:
            size /= 1024
            index += 1
        return size, units[index]
    """
)
FMT = dedent(
    """\
    from units import unit_of


    def human(size):
        value, unit = unit_of(size)
        return f"{value} {unit}"
    """
)
TEST_FMT = dedent(
    """\
    from fmt import human


    def test_kilobytes_to_one_decimal():
        assert human(1024) == "1.0 KB"
        assert human(1100) == "1.1 KB"


    def test_bytes():
        assert human(1000) == "1000 B"
    """
)
FIXED_UNITS = dedent(
    """\
    STEP = 1024


    def unit_of(size):
        units = ["B", "KB", "MB"]
        index = 0
        while size >= STEP and index < len(units) - 1:
            size /= STEP
            index += 1
        return size, units[index]
    """
)
FIXED_FMT = dedent(
    """\
    import math


    def _rounded(value):
        return math.floor(value * 10 + 0.5) / 10 if isinstance(value, float) else value


    def human(size):
        value, unit = unit_of(size)
        return f"{_rounded(value)} {unit}"
    """
)


def test_one_reply_changing_two_files_with_a_constant_an_import_and_a_helper_is_one_fix(
    pytester: pytest.Pytester, llm: ScriptedServer
) -> None:
    pytester.makepyfile(units=UNITS, fmt=FMT, test_fmt=TEST_FMT)
    llm.script(
        tool_call(
            "Step at 1024 inclusive, and show one decimal.",
            [
                {"path": "units.py", "function": "unit_of", "code": FIXED_UNITS},
                {"path": "fmt.py", "function": "human", "code": FIXED_FMT},
            ],
        )
    )

    result = pytester.runpytest(*heal_args(llm))

    result.stdout.fnmatch_lines(["HEALED test_fmt.py::test_kilobytes_to_one_decimal"])
    assert len(llm.requests) == 1
    patch = (pytester.path / ".caretaker" / "heal.patch").read_text()
    for line in (
        "+STEP = 1024",
        "+import math",
        "+def _rounded(value):",
        "+    while size >= STEP",
    ):
        assert line in patch, line
    assert "--- a/units.py" in patch and "--- a/fmt.py" in patch
