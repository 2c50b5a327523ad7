"""Parse targets: a name in a reply becomes the function it replaces, in the documented order."""

from __future__ import annotations

from textwrap import dedent

import pytest

from pytest_caretaker.llm.parse_targets import Targets
from pytest_caretaker.llm.same_names import Ambiguous
from pytest_caretaker.project.files import SourceFile
from pytest_caretaker.project.localize import Suspect

SHAPES = dedent(
    """\
    def area(shape):
        return shape.area()


    class Square:
        def area(self):
            return self.side


        def scale(self, k):
            def grow(x):
                return x * k

            return grow(self.side)


    class Circle:
        def area(self):
            return 3 * self.r
    """
)
OTHER = dedent(
    """\
    def area(shape):
        return 0
    """
)
SOURCES = {"shapes.py": SHAPES, "other.py": OTHER, "test_shapes.py": "def test_area():\n    pass\n"}


def files(path: str) -> SourceFile | None:
    text = SOURCES.get(path)
    return SourceFile(path, text.encode()) if text is not None else None


def suspect(path: str, qualname: str, is_test: bool = False) -> Suspect:
    return Suspect(path, qualname, is_test=is_test, score=1.0)


def targets(*suspects: Suspect) -> Targets:
    return Targets(suspects, lambda s: not s.is_test, files)


@pytest.mark.parametrize(
    ("suspects", "name", "path", "expected"),
    [
        pytest.param(
            [suspect("other.py", "area"), suspect("shapes.py", "area")],
            "area",
            None,
            ("other.py", "area"),
            id="exact-name-in-rank-order",
        ),
        pytest.param(
            [suspect("other.py", "area"), suspect("shapes.py", "area")],
            "area",
            "shapes.py",
            ("shapes.py", "area"),
            id="a-path-narrows-the-suspects",
        ),
        pytest.param(
            [suspect("shapes.py", "Circle.area")],
            "area",
            None,
            ("shapes.py", "Circle.area"),
            id="plain-name-matches-a-suspect-method",
        ),
        pytest.param(
            [suspect("shapes.py", "Square.area"), suspect("shapes.py", "Circle.area")],
            "Circle.area",
            None,
            ("shapes.py", "Circle.area"),
            id="qualified-name-matches-its-class-only",
        ),
        pytest.param(
            [suspect("shapes.py", "Square.area")],
            "scale",
            None,
            ("shapes.py", "Square.scale"),
            id="sibling-method-of-a-suspect",
        ),
        pytest.param(
            [suspect("other.py", "area"), suspect("shapes.py", "Circle.area")],
            "area",
            "shapes.py",
            ("shapes.py", "Circle.area"),
            id="suspect-before-a-top-level-function-of-its-file",
        ),
        pytest.param(
            [suspect("shapes.py", "Circle.area")],
            "grow",
            None,
            ("shapes.py", "Square.scale.grow"),
            id="nested-function-of-a-suspects-file",
        ),
        pytest.param(
            [suspect("shapes.py", "Circle.area")],
            "Square.grow",
            None,
            None,
            id="qualified-name-is-not-searched-at-any-depth",
        ),
        pytest.param(
            [suspect("shapes.py", "Circle.area")],
            "perimeter",
            None,
            None,
            id="unknown-name-is-a-new-function",
        ),
        pytest.param(
            [suspect("test_shapes.py", "test_area", is_test=True), suspect("other.py", "area")],
            "area",
            None,
            ("other.py", "area"),
            id="editable-suspects-first",
        ),
    ],
)
def test_resolve(
    suspects: list[Suspect], name: str, path: str | None, expected: tuple[str, str] | None
) -> None:
    assert targets(*suspects).resolve(name, path) == expected


def test_allowed_names_the_editable_suspects_first_six() -> None:
    ranked = [suspect("test_shapes.py", "test_area", is_test=True)]
    ranked += [suspect("shapes.py", f"f{i}") for i in range(8)]
    assert targets(*ranked).allowed() == ", ".join(f"shapes.py::f{i}" for i in range(6))


def test_allowed_falls_back_to_any_suspect_then_to_none() -> None:
    assert targets(suspect("test_shapes.py", "test_area", True)).allowed() == (
        "test_shapes.py::test_area"
    )
    assert targets().allowed() == "(none)"


def test_a_def_that_takes_self_replaces_a_method_never_a_function_of_that_name() -> None:
    text = (
        "def findall(text, word):\n    return []\n\n\n"
        "class Finder:\n    def findall(self, word):\n        return findall(self.text, word)\n"
    )
    source = SourceFile("words.py", text.encode())
    ranked = [
        Suspect("words.py", "findall", False, 1.0),
        Suspect("words.py", "Finder.findall", False, 0.5),
    ]
    targets = Targets(
        ranked, lambda suspect: True, lambda rel: source if rel == "words.py" else None
    )

    assert targets.resolve("findall", None) == ("words.py", "findall")
    assert targets.resolve("findall", None, method=True) == ("words.py", "Finder.findall")
    # Not a suspect at all: still a method, found in the suspects' files.
    only_function = Targets(ranked[:1], lambda suspect: True, targets.files)
    assert only_function.resolve("findall", None, method=True) == ("words.py", "Finder.findall")


# -- assignments ---------------------------------------------------------------------------------

RATES = dedent(
    """\
    VAT = 0.25
    VAT += 0.01


    class Shop:
        RATE = 0.1

        def price(self):
            return self.RATE


    class Other:
        RATE = 0.5


    def total():
        return 0
    """
)


def rates_targets(*suspects: Suspect) -> Targets:
    sources = {"rates.py": RATES}

    def rates_files(path: str) -> SourceFile | None:
        text = sources.get(path)
        return SourceFile(path, text.encode()) if text is not None else None

    return Targets(suspects, lambda s: not s.is_test, rates_files)


@pytest.mark.parametrize(
    ("name", "augmented", "expected"),
    [
        pytest.param("VAT", False, ("rates.py", "VAT"), id="module-level"),
        pytest.param("VAT", True, ("rates.py", "VAT"), id="augmented"),
        pytest.param("RATE", False, ("rates.py", "Shop.RATE"), id="the-suspect-class-first"),
        pytest.param("Other.RATE", False, ("rates.py", "Other.RATE"), id="qualified"),
        pytest.param("total", False, None, id="never-a-function"),
        pytest.param("RATE", True, None, id="no-augmented-form"),
        pytest.param("Shop.price.x", False, None, id="nothing-inside-functions"),
    ],
)
def test_assignment_targets(name: str, augmented: bool, expected: tuple[str, str] | None) -> None:
    found = rates_targets(suspect("rates.py", "Shop.price")).assignment(name, None, augmented)

    assert found == expected


def test_a_def_never_resolves_to_a_constant_and_a_body_goes_to_a_function() -> None:
    found = rates_targets(suspect("rates.py", "VAT"), suspect("rates.py", "total"))

    assert found.resolve("VAT", None) is None
    assert [s.qualname for s in found.functions()] == ["total"]


# -- same-named methods --------------------------------------------------------------------------

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


    class Span:
        def __init__(self, low, high):
            self.low, self.high = low, high


    def check(value, low, high):
        if not low <= value <= high:
            raise ParseError(f"{value} is out of range", value)
        return value
    """
)


def errors_targets(*suspects: Suspect, shown: list[tuple[str, str]] | None = None) -> Targets:
    source = SourceFile("errors.py", ERRORS.encode())
    return Targets(
        suspects, lambda s: True, lambda rel: source if rel == "errors.py" else None, shown
    )


SAME = ("self", "message", "position")


@pytest.mark.parametrize(
    ("suspects", "shown", "parameters", "expected"),
    [
        pytest.param(
            ["check"],
            [],
            SAME,
            ("ParseError.__init__", "RangeError.__init__"),
            id="neither-shown-never-the-first-of-the-file",
        ),
        pytest.param(
            ["check", "ParseError.__init__", "RangeError.__init__"],
            ["check", "ParseError.__init__", "RangeError.__init__"],
            SAME,
            ("ParseError.__init__", "RangeError.__init__"),
            id="both-shown",
        ),
        pytest.param(
            ["check", "RangeError.__init__", "ParseError.__init__"],
            ["check", "RangeError.__init__"],
            SAME,
            "RangeError.__init__",
            id="the-one-the-prompt-showed",
        ),
        pytest.param(
            ["check"],
            [],
            ("self", "low", "high"),
            "Span.__init__",
            id="the-one-whose-parameters-it-keeps",
        ),
        pytest.param(
            ["RangeError.__init__"],
            None,
            SAME,
            "RangeError.__init__",
            id="every-suspect-when-not-told",
        ),
    ],
)
def test_a_bare_method_name_is_the_one_the_reply_or_prompt_names_or_ambiguous(
    suspects: list[str],
    shown: list[str] | None,
    parameters: tuple[str, ...],
    expected: str | tuple[str, ...],
) -> None:
    found = errors_targets(
        *(suspect("errors.py", q) for q in suspects),
        shown=None if shown is None else [("errors.py", q) for q in shown],
    ).resolve("__init__", "errors.py", method=True, parameters=parameters)

    if isinstance(expected, str):
        assert found == ("errors.py", expected)
    else:
        assert isinstance(found, Ambiguous)
        assert [q for _, q in found.places] == list(expected)
        assert "RangeError" in found.reason and "class RangeError:" in found.reason


def test_a_name_given_in_full_or_a_module_function_is_never_ambiguous() -> None:
    targets = errors_targets(suspect("errors.py", "check"), shown=[])

    assert targets.resolve("RangeError.__init__", None, method=True) == (
        "errors.py",
        "RangeError.__init__",
    )
    assert targets.resolve("check", None) == ("errors.py", "check")
