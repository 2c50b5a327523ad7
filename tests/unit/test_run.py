"""caretaker run's plain parts: reading a Python command, its printed traceback, its output."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import pytest

from pytest_caretaker.record.redact import Redactor
from pytest_caretaker.run import crash
from pytest_caretaker.run.command import MAX_OUTPUT, Target, launch, python_target, shown
from pytest_caretaker.run.main import add_arguments, command_of, settings_of
from pytest_caretaker.settings import SettingError


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["python", "x.py", "-v"], Target("python", (), "path", "x.py", ("-v",))),
        (
            ["/usr/bin/python3.12", "-u", "x.py"],
            Target("/usr/bin/python3.12", ("-u",), "path", "x.py", ()),
        ),
        (
            ["python3", "-X", "dev", "-m", "pkg.tool", "a"],
            Target("python3", ("-X", "dev"), "module", "pkg.tool", ("a",)),
        ),
        (["python", "-c", "print(1)"], None),
        (["python", "--version"], None),
        (["python"], None),
        (["python", "-"], None),
        (["mypy", "src"], None),
        (["pythonista", "x.py"], None),
    ],
)
def test_python_target(argv: list[str], expected: Target | None) -> None:
    assert python_target(argv) == expected


def test_shown_names_the_interpreter_not_its_path() -> None:
    assert shown(["/venv/bin/python3", "my script.py"]) == "python3 'my script.py'"
    assert shown(["./check.sh", "a"]) == "./check.sh a"


TRACEBACK = """\
starting
Traceback (most recent call last):
  File "{root}/main.py", line 3, in <module>
    print(unit_price(10, 1))
  File "/usr/lib/python3.11/decimal.py", line 9, in helper
    pass
  File "{root}/shop/prices.py", line 2, in unit_price
    return total / (count - 1)
           ~~~~~~^~~~~~~~~~~~~
ZeroDivisionError: division by zero
"""


def test_a_printed_traceback_becomes_a_failure_with_the_projects_frames(tmp_path: Path) -> None:
    output = TRACEBACK.format(root=tmp_path)

    failure = crash.parsed(output, tmp_path, "python main.py", "main.py", Redactor({}))

    assert failure is not None
    assert (failure.exc_type, failure.message) == ("ZeroDivisionError", "division by zero")
    assert [(f.path, f.lineno, f.name) for f in failure.frames] == [
        ("main.py", 3, "<module>"),
        ("shop/prices.py", 2, "unit_price"),
    ]
    assert failure.longrepr.startswith("Traceback")


def test_output_without_a_traceback_is_no_failure(tmp_path: Path) -> None:
    assert crash.parsed("error: bad\n", tmp_path, "x", "x.py", Redactor({})) is None


def test_a_missing_record_is_none(tmp_path: Path) -> None:
    assert crash.recorded(tmp_path / "none.json", "x", "", Redactor({})) is None


def test_only_the_end_of_a_large_output_is_kept(tmp_path: Path) -> None:
    code = "import sys; sys.stdout.write('a' * 3_000_000 + 'END')"

    ran = launch([sys.executable, "-c", code], tmp_path, {}, 30)

    assert ran.status == 0
    assert len(ran.output) == MAX_OUTPUT and ran.output.endswith("END")


def test_stdin_is_empty(tmp_path: Path) -> None:
    ran = launch([sys.executable, "-c", "print(repr(input()))"], tmp_path, {}, 30)

    assert ran.status == 1 and "EOFError" in ran.output


def parse(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    return parser.parse_args(argv)


def test_options_and_the_command() -> None:
    args = parse(
        "--model",
        "a/b",
        "--model",
        "builtin",
        "--attempts",
        "2",
        "--write",
        "--no-commit",
        "--",
        "python",
        "x.py",
        "--model",
    )

    settings = settings_of(args, {})

    assert settings.models == ("a/b", "builtin")
    assert (settings.attempts, settings.write, settings.commit) == (2, True, False)
    assert command_of(args.command) == ("python", "x.py", "--model")


def test_the_environment_gives_what_the_flags_do_not() -> None:
    settings = settings_of(parse("--", "python", "x.py"), {"CARETAKER_MODEL": "openai/gpt-4o"})

    assert settings.models == ("openai/gpt-4o",)


def test_a_bad_value_names_its_flag() -> None:
    with pytest.raises(SettingError, match=r"^--timeout"):
        settings_of(parse("--timeout", "soon", "--", "python", "x.py"), {})
