"""Option parsers: one plain function per kind of value, good and bad cases for each."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from pytest_caretaker.settings import (
    SettingError,
    parse_api_base,
    parse_attempts,
    parse_bool,
    parse_branch,
    parse_budget,
    parse_concurrency,
    parse_folder,
    parse_keep,
    parse_models,
    parse_scope,
    parse_sessions,
    parse_timeout,
    parse_tokens,
)

WHERE = "--some-flag"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("1", True),
        ("true", True),
        ("True", True),
        (" YES ", True),
        ("on", True),
        ("0", False),
        ("false", False),
        ("FALSE", False),
        ("no", False),
        ("off", False),
        ("", False),
    ],
)
def test_parse_bool_good(text: str, expected: bool) -> None:
    assert parse_bool(text, WHERE) is expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("code", "code"),
        ("tests", "tests"),
        ("any", "any"),
        (" Tests ", "tests"),
        ("ANY", "any"),
    ],
)
def test_parse_scope_good(text: str, expected: str) -> None:
    assert parse_scope(text, WHERE) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [("1", 1), ("3", 3), (" 7 ", 7), ("20", 20)],
)
def test_parse_attempts_good(text: str, expected: int) -> None:
    value = parse_attempts(text, WHERE)
    assert value == expected
    assert type(value) is int


@pytest.mark.parametrize(
    ("text", "expected"),
    [("60", 60.0), ("0.5", 0.5), (" 10 ", 10.0), ("3600", 3600.0), ("1e2", 100.0)],
)
def test_parse_timeout_good(text: str, expected: float) -> None:
    assert parse_timeout(text, WHERE) == expected


@pytest.mark.parametrize(("text", "expected"), [("0", 0.0), (" 600 ", 600.0), ("86400", 86400.0)])
def test_parse_keep_good(text: str, expected: float) -> None:
    assert parse_keep(text, WHERE) == expected


@pytest.mark.parametrize(("text", "expected"), [("0", 0), (" 20 ", 20), ("10000", 10_000)])
def test_parse_sessions_good(text: str, expected: int) -> None:
    assert parse_sessions(text, WHERE) == expected


@pytest.mark.parametrize(
    ("values", "expected"),
    [
        ([], ()),
        (["openai/gpt-4o-mini"], ("openai/gpt-4o-mini",)),
        (["a", "b"], ("a", "b")),
        (["a, b"], ("a", "b")),
        (["a\nb\n"], ("a", "b")),
        (["a,,b", ""], ("a", "b")),
        ([" builtin "], ("builtin",)),
    ],
)
def test_parse_models_good(values: list[str], expected: tuple[str, ...]) -> None:
    assert parse_models(values, WHERE) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("http://localhost:11434", "http://localhost:11434"),
        ("https://api.example.com/v1/", "https://api.example.com/v1"),
        (" http://127.0.0.1:8000/v1 ", "http://127.0.0.1:8000/v1"),
        ("http://[::1]:8000/v1", "http://[::1]:8000/v1"),
        ("", None),
        ("   ", None),
    ],
)
def test_parse_api_base_good(text: str, expected: str | None) -> None:
    assert parse_api_base(text, WHERE) == expected


BAD_VALUES: list[tuple[Callable[[str, str], object], str]] = [
    (parse_bool, "maybe"),
    (parse_bool, "2"),
    (parse_bool, "yes please"),
    (parse_scope, "everything"),
    (parse_scope, "test"),
    (parse_scope, ""),
    (parse_attempts, "zero"),
    (parse_attempts, "0"),
    (parse_attempts, "-1"),
    (parse_attempts, "21"),
    (parse_attempts, "2.5"),
    (parse_attempts, ""),
    (parse_timeout, "soon"),
    (parse_timeout, "0"),
    (parse_timeout, "-5"),
    (parse_timeout, "3601"),
    (parse_timeout, "nan"),
    (parse_timeout, "inf"),
    (parse_timeout, ""),
    (parse_sessions, "-1"),
    (parse_sessions, "10001"),
    (parse_sessions, "all"),
    (parse_sessions, "2.5"),
    (parse_keep, "-1"),
    (parse_keep, "86401"),
    (parse_keep, "nan"),
    (parse_keep, "forever"),
    (parse_budget, "-1"),
    (parse_budget, "ten dollars"),
    (parse_budget, "nan"),
    (parse_tokens, "999"),
    (parse_concurrency, "0"),
    (parse_concurrency, "65"),
    (parse_concurrency, "two"),
    (parse_tokens, "lots"),
    (parse_api_base, "localhost:11434"),
    (parse_api_base, "ftp://example.com"),
    (parse_api_base, "example.com/v1"),
    # urlsplit raises ValueError for these (an INTERNALERROR before they were caught)
    (parse_api_base, "http://[::1"),
    (parse_api_base, "http://[::1]:99999"),
    (parse_api_base, "http://localhost:port"),
    # accepted by urlsplit, yet no URL to send a request to
    (parse_api_base, "http://:8000"),
    (parse_api_base, "http://local host:8000"),
    (parse_api_base, "http://local\nhost:8000"),
]


@pytest.mark.parametrize(
    ("parser", "text"),
    BAD_VALUES,
    ids=[f"{parser.__name__}-{text!r}" for parser, text in BAD_VALUES],
)
def test_parser_bad_value_names_source_and_value(
    parser: Callable[[str, str], object], text: str
) -> None:
    with pytest.raises(SettingError) as excinfo:
        parser(text, "CARETAKER_SOMETHING")
    message = str(excinfo.value)
    assert message.startswith("CARETAKER_SOMETHING: ")
    assert repr(text) in message


@pytest.mark.parametrize(
    ("values", "bad"),
    [(["gpt 4"], "gpt 4"), (["ok", "a b,c"], "a b"), (["x,\tmodel name\n"], "model name")],
)
def test_parse_models_bad_value_names_source_and_value(values: list[str], bad: str) -> None:
    with pytest.raises(SettingError) as excinfo:
        parse_models(values, "ini option heal_model")
    message = str(excinfo.value)
    assert message.startswith("ini option heal_model: ")
    assert repr(bad) in message


def test_parse_api_base_refuses_a_url_without_host() -> None:
    # "http://" has no host; stripping the trailing slashes turns it into "http:", which is not
    # an http:// URL at all, yet it is accepted.
    with pytest.raises(SettingError, match="--heal-api-base"):
        parse_api_base("http://", "--heal-api-base")


@pytest.mark.parametrize("text", ["heal/x", "fix-1", "a.b", " heal/fixes "])
def test_parse_branch_good(text: str) -> None:
    assert parse_branch(text, "--heal-branch") == text.strip()


def test_parse_branch_empty_is_no_branch() -> None:
    assert parse_branch("  ", "--heal-branch") is None


@pytest.mark.parametrize(
    "text", ["has space", "-x", "a..b", "x.lock", "a/", "@", "a~b", "a:b", "a^b", "a//b", "a@{1}"]
)
def test_parse_branch_bad_names_the_source(text: str) -> None:
    with pytest.raises(SettingError) as excinfo:
        parse_branch(text, "ini option heal_branch")
    message = str(excinfo.value)
    assert message.startswith("ini option heal_branch: ")
    assert repr(text) in message


@pytest.mark.parametrize("text", ["heal/.x", "a.lock/b", "a\x01b", "a\x7fb"])
def test_parse_branch_refuses_what_git_refuses(text: str) -> None:
    with pytest.raises(SettingError):
        parse_branch(text, "--heal-branch")


@pytest.mark.parametrize(("text", "expected"), [("0.50", 0.5), ("$2", 2.0), (" 0 ", 0.0)])
def test_parse_budget_good(text: str, expected: float) -> None:
    assert parse_budget(text, "--heal-budget") == expected


@pytest.mark.parametrize(
    ("text", "expected"), [("1000", 1000), ("50_000", 50_000), ("2,000", 2000)]
)
def test_parse_tokens_good(text: str, expected: int) -> None:
    assert parse_tokens(text, "--heal-max-tokens") == expected


@pytest.mark.parametrize(
    ("text", "expected"), [("prompts", "prompts"), (" a/b ", "a/b"), ("  ", None)]
)
def test_parse_folder(text: str, expected: str | None) -> None:
    assert parse_folder(text, "--heal-prompt") == expected
