"""caretaker run's plain parts: reading a Python command, its printed traceback, its output."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

import pytest

from pytest_caretaker.record.redact import Redactor
from pytest_caretaker.run import crash, hook
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


def test_options_and_the_command(tmp_path: Path) -> None:
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

    settings = settings_of(args, {}, tmp_path)

    assert settings.models == ("a/b", "builtin")
    assert (settings.attempts, settings.write, settings.commit) == (2, True, False)
    assert command_of(args.command) == ("python", "x.py", "--model")


def test_the_environment_gives_what_the_flags_do_not(tmp_path: Path) -> None:
    args = parse("--", "python", "x.py")
    settings = settings_of(args, {"CARETAKER_MODEL": "openai/gpt-4o"}, tmp_path)

    assert settings.models == ("openai/gpt-4o",)


def test_the_projects_ini_keys_come_last(tmp_path: Path) -> None:
    (tmp_path / "tox.ini").write_text(
        "[pytest]\nheal_model =\n    a/b\n    builtin\nheal_timeout = 7\n"
    )
    args = parse("--timeout", "9", "--", "python", "x.py")

    settings = settings_of(args, {"CARETAKER_MODEL": "openai/gpt-4o"}, tmp_path)

    assert (settings.models, settings.timeout) == (("openai/gpt-4o",), 9.0)
    assert settings_of(parse("--", "x"), {}, tmp_path).models == ("a/b", "builtin")
    assert settings_of(parse("--", "x"), {}, tmp_path).timeout == 7.0


def test_a_bad_value_names_its_flag(tmp_path: Path) -> None:
    with pytest.raises(SettingError, match=r"^--timeout"):
        settings_of(parse("--timeout", "soon", "--", "python", "x.py"), {}, tmp_path)


def divide(total: int, count: int) -> float:
    api_token = "tok-9c8b7a6f5e4d3c2b"  # a secret local: its value must not be recorded
    return total / (count - len(api_token) + len(api_token) - 1)


def test_the_hook_records_the_crash_with_frames_and_redacted_locals(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    record = tmp_path / "record.json"
    monkeypatch.setenv(hook.RECORD_ENV, str(record))
    monkeypatch.setenv(hook.ROOT_ENV, str(Path(__file__).parent))
    printed: list[BaseException] = []
    monkeypatch.setattr(sys, "excepthook", lambda kind, error, tb: printed.append(error))
    hook.install()
    try:
        divide(10, 1)
    except ZeroDivisionError as error:
        sys.excepthook(type(error), error, error.__traceback__)

    assert hook.RECORD_ENV not in os.environ  # a process the command starts records nothing
    assert len(printed) == 1  # Python's own hook still prints it
    failure = crash.recorded(record, "python x.py", "out", Redactor({}))
    assert failure is not None
    assert (failure.nodeid, failure.exc_type, failure.output) == (
        "python x.py",
        "ZeroDivisionError",
        "out",
    )
    inner = failure.frames[-1]
    assert (inner.path, inner.name) == ("test_run.py", "divide")
    assert ("count", "1") in inner.locals
    assert "tok-9c8b7a6f5e4d3c2b" not in record.read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("argv", "pytest"),
    [
        (["pytest", "-q"], True),
        (["/venv/bin/py.test"], True),
        (["python3", "-m", "pytest", "-x"], True),
        (["python", "-X", "dev", "-m", "pytest"], True),
        (["python", "pytest.py"], False),
        (["python", "-m", "pytest_caretaker"], False),
        (["tox", "-e", "pytest"], False),
    ],
)
def test_a_pytest_command_is_told_from_any_other(argv: list[str], pytest: bool) -> None:
    from pytest_caretaker.run.main import is_pytest

    assert is_pytest(argv) is pytest
