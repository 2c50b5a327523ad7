"""Context: which ranked definitions the first prompt shows, within its budget."""

from __future__ import annotations

from pathlib import Path

from pytest_caretaker.llm import context
from pytest_caretaker.project.files import ProjectFiles, SourceFile
from pytest_caretaker.project.localize import Suspect
from pytest_caretaker.results import Failure

FAILURE = Failure("test_app.py::test_it", "call", "test_app.py", "AssertionError", "", "", ())


def project(tmp_path: Path, functions: int, body_lines: int = 1) -> ProjectFiles:
    """app.py with functions f0…fN (each body_lines long), test_app.py with a test and fixtures."""
    body = "".join(f"    x = {line}\n" for line in range(body_lines - 1)) + "    return 1\n"
    (tmp_path / "app.py").write_text("".join(f"def f{i}():\n{body}\n\n" for i in range(functions)))
    tests = "".join(f"def given{i}():\n    return {i}\n\n\n" for i in range(5))
    (tmp_path / "test_app.py").write_text(tests + "def test_it():\n    assert False\n")
    return ProjectFiles(tmp_path)


def ranked(functions: int, tests: int = 0) -> list[Suspect]:
    """The test and its fixtures first (as the traceback and trace rank them), then f0…fN."""
    found = [Suspect("test_app.py", "test_it", is_test=True, score=1.0)]
    found += [Suspect("test_app.py", f"given{i}", is_test=True, score=1.0) for i in range(tests)]
    return found + [Suspect("app.py", f"f{i}", is_test=False, score=0.5) for i in range(functions)]


def shown(material: context.Context) -> list[str]:
    return [f.qualname for f in material.functions]


def code_only(suspect: Suspect) -> bool:
    return not suspect.is_test


def test_the_test_and_its_fixtures_do_not_take_the_slots_of_the_code(tmp_path: Path) -> None:
    # Before: six definitions in all, so a test with three fixtures left two for the code.
    files = project(tmp_path, functions=10)

    material = context.build(FAILURE, ranked(10, tests=4), files, code_only)

    tests = [name for name in shown(material) if not name.startswith("f")]
    assert tests == ["test_it", "given0", "given1"]  # MAX_TESTS
    assert shown(material)[3:] == [f"f{i}" for i in range(10)]  # every function, in rank order


def test_functions_are_shown_in_rank_order_up_to_the_count(tmp_path: Path) -> None:
    files = project(tmp_path, functions=20)

    material = context.build(FAILURE, ranked(20), files, code_only)

    assert shown(material) == ["test_it", *(f"f{i}" for i in range(context.MAX_FUNCTIONS))]


def test_long_functions_stop_at_the_characters_of_code(tmp_path: Path) -> None:
    # Each function is about 3,000 characters: five fit in CODE_CHARS (16,000), not six.
    files = project(tmp_path, functions=10, body_lines=250)
    size = len(files.get("app.py").source_of(files.get("app.py").find("f0")))  # type: ignore[union-attr]

    material = context.build(FAILURE, ranked(10), files, code_only)

    assert shown(material) == ["test_it", *(f"f{i}" for i in range(context.CODE_CHARS // size))]


def test_a_small_window_shows_what_fits_and_always_the_first_function(tmp_path: Path) -> None:
    files = project(tmp_path, functions=10, body_lines=250)

    material = context.build(FAILURE, ranked(10)[1:], files, code_only, budget=1_000)

    assert shown(material) == ["f0"]


def test_editable_test_code_is_a_candidate_like_code(tmp_path: Path) -> None:
    # --heal-scope=tests: the test code is what may change, so it has the functions' slots.
    files = project(tmp_path, functions=2)

    material = context.build(FAILURE, ranked(2, tests=5), files, lambda suspect: True)

    assert shown(material)[:6] == ["test_it", *(f"given{i}" for i in range(5))]


def test_a_function_with_overload_stubs_is_shown_by_its_implementation(tmp_path: Path) -> None:
    (tmp_path / "app.py").write_text(
        "import typing\n\n\n@typing.overload\ndef get() -> int: ...\n\n\n"
        "@typing.overload\ndef get(x: int) -> int: ...\n\n\ndef get(x=0):\n    return x - 1\n"
    )
    files = ProjectFiles(tmp_path)

    material = context.build(FAILURE, [Suspect("app.py", "get", False, 1.0)], files, code_only)

    assert material.functions[0].code == "def get(x=0):\n    return x - 1\n"


def test_a_class_source_is_found_by_its_qualified_name() -> None:
    source = SourceFile(
        "m.py", b"@dataclass\nclass A:\n    x = 1\n\n    class B:\n        y = 2\n\n\nz = 3\n"
    )

    assert (
        source.class_source("A")
        == "@dataclass\nclass A:\n    x = 1\n\n    class B:\n        y = 2\n"
    )
    assert source.class_source("A.B") == "    class B:\n        y = 2\n"
    assert source.class_source("z") is None


def test_a_class_is_shown_as_its_data_and_its_constants_not_again(tmp_path: Path) -> None:
    (tmp_path / "shop.py").write_text(
        "class Shop:\n    RATE = 0.2\n    NAME = 'x'\n\n    def price(self):\n"
        "        return self.RATE\n"
    )
    (tmp_path / "test_app.py").write_text("def test_it():\n    assert False\n")
    ranked = [
        Suspect("test_app.py", "test_it", is_test=True, score=1.0),
        Suspect("shop.py", "Shop.price", is_test=False, score=1.0),
        Suspect("shop.py", "Shop", is_test=False, score=1.0),
        Suspect("shop.py", "Shop.RATE", is_test=False, score=1.0),
    ]

    material = context.build(FAILURE, ranked, ProjectFiles(tmp_path), code_only)

    assert shown(material) == ["test_it", "Shop.price", "Shop"]
    assert material.functions[2].code == (
        "class Shop:\n    RATE = 0.2\n    NAME = 'x'\n    # methods: price\n"
    )
    assert material.functions[2].editable


def test_a_function_of_300_lines_is_shown_and_one_longer_than_max_function_is_not(
    tmp_path: Path,
) -> None:
    # inflect's _sinoun: 334 lines, 11,329 characters, the one function its fix changes.
    project(tmp_path, functions=0)
    (tmp_path / "app.py").write_text(
        "def f0():\n" + "    x = 'abcdefghijklmnopqrstuvwxyz'\n" * 300 + "    return 1\n\n\n"
        "def f1():\n" + "    x = 1\n" * 2_000 + "    return 1\n"
    )
    files = ProjectFiles(tmp_path)

    material = context.build(FAILURE, ranked(2), files, code_only)

    assert 11_000 < len(material.functions[1].code) <= context.MAX_FUNCTION
    assert shown(material) == ["test_it", "f0"]
