"""Settings: one parser per kind of value, and resolution CLI > environment > ini."""

from __future__ import annotations

from collections.abc import Callable, Mapping

import pytest

from pytest_caretaker.plugin import refuse_review
from pytest_caretaker.settings import (
    DEFAULT_ATTEMPTS,
    DEFAULT_TIMEOUT,
    SettingError,
    Settings,
    Sources,
    detect_ci,
    parse_api_base,
    parse_attempts,
    parse_bool,
    parse_branch,
    parse_budget,
    parse_concurrency,
    parse_models,
    parse_scope,
    parse_timeout,
    parse_tokens,
    resolve,
)

WHERE = "--some-flag"

# -- parsers -------------------------------------------------------------------------------------


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


# -- resolution ----------------------------------------------------------------------------------


def sources(
    cli: Mapping[str, object] | None = None,
    env: Mapping[str, str] | None = None,
    ini: Mapping[str, object] | None = None,
) -> Sources:
    return Sources(cli=cli or {}, env=env or {}, ini=ini or {})


def test_resolve_defaults_when_nothing_is_given() -> None:
    settings = resolve(sources())
    assert settings == Settings()
    assert settings.heal is False
    assert settings.models == ("builtin",)  # no model configured: the built-in repairer
    assert settings.api_base is None
    assert settings.scope == "code"
    assert settings.attempts == 3 == DEFAULT_ATTEMPTS
    assert settings.timeout == 60.0 == DEFAULT_TIMEOUT
    assert dict(settings.sources) == {}


def test_resolve_defaults_with_pytest_empty_values() -> None:
    # What pytest hands over when no option, no env var and no ini key is set.
    cli: dict[str, object] = {
        "heal": None,
        "models": [],
        "api_base": None,
        "scope": None,
        "attempts": None,
        "timeout": None,
    }
    ini: dict[str, object] = {
        "heal": None,
        "models": [],
        "api_base": "",
        "scope": "",
        "attempts": "",
        "timeout": "",
    }
    settings = resolve(sources(cli=cli, env={"CARETAKER_HEAL": "  "}, ini=ini))
    assert settings == Settings()
    assert dict(settings.sources) == {}


# (setting, CLI value, env value, ini value, resolved from each of them)
ENV_BACKED = [
    ("heal", True, "0", True, (True, False, True)),
    (
        "models",
        ["cli-model"],
        "env-a,env-b",
        ["ini-model"],
        (
            ("cli-model",),
            ("env-a", "env-b"),
            ("ini-model",),
        ),
    ),
    (
        "api_base",
        "http://cli/",
        "http://env/",
        "http://ini/",
        (
            "http://cli",
            "http://env",
            "http://ini",
        ),
    ),
]
ENV_NAMES = {
    "heal": "CARETAKER_HEAL",
    "models": "CARETAKER_MODEL",
    "api_base": "CARETAKER_API_BASE",
}
FLAGS = {"heal": "--heal", "models": "--heal-model", "api_base": "--heal-api-base"}
INI_NAMES = {"heal": "heal", "models": "heal_model", "api_base": "heal_api_base"}


@pytest.mark.parametrize(("name", "cli", "env", "ini", "expected"), ENV_BACKED)
def test_resolve_cli_beats_env_beats_ini(
    name: str, cli: object, env: str, ini: object, expected: tuple[object, object, object]
) -> None:
    from_cli, from_env, from_ini = expected
    env_name = ENV_NAMES[name]

    everything = resolve(sources(cli={name: cli}, env={env_name: env}, ini={name: ini}))
    assert getattr(everything, name) == from_cli
    assert everything.sources[name] == FLAGS[name]

    no_cli = resolve(sources(env={env_name: env}, ini={name: ini}))
    assert getattr(no_cli, name) == from_env
    assert no_cli.sources[name] == env_name

    ini_only = resolve(sources(ini={name: ini}))
    assert getattr(ini_only, name) == from_ini
    assert ini_only.sources[name] == f"ini option {INI_NAMES[name]}"


def test_resolve_env_false_beats_ini_true() -> None:
    settings = resolve(sources(env={"CARETAKER_HEAL": "no"}, ini={"heal": True}))
    assert settings.heal is False
    assert settings.sources["heal"] == "CARETAKER_HEAL"


def test_resolve_ini_heal_false_stays_off() -> None:
    settings = resolve(sources(ini={"heal": False}))
    assert settings.heal is False
    assert settings.sources["heal"] == "ini option heal"


@pytest.mark.parametrize(
    ("name", "cli", "ini", "from_cli", "from_ini"),
    [
        ("scope", "any", "tests", "any", "tests"),
        ("attempts", "5", "2", 5, 2),
        ("timeout", "12.5", "30", 12.5, 30.0),
    ],
)
def test_resolve_cli_beats_ini_for_settings_without_env(
    name: str, cli: str, ini: str, from_cli: object, from_ini: object
) -> None:
    both = resolve(sources(cli={name: cli}, ini={name: ini}))
    assert getattr(both, name) == from_cli
    assert both.sources[name] == f"--heal-{name}"

    ini_only = resolve(sources(ini={name: ini}))
    assert getattr(ini_only, name) == from_ini
    assert ini_only.sources[name] == f"ini option heal_{name}"


def test_resolve_ignores_env_for_settings_without_env_var() -> None:
    env = {"CARETAKER_SCOPE": "any", "CARETAKER_ATTEMPTS": "9", "CARETAKER_TIMEOUT": "5"}
    settings = resolve(sources(env=env))
    assert (settings.scope, settings.attempts, settings.timeout) == ("code", 3, 60.0)


def test_resolve_worker_env_forces_heal_off() -> None:
    settings = resolve(
        sources(
            cli={"heal": True, "models": ["m"], "attempts": "5"},
            env={"CARETAKER_WORKER": "1", "CARETAKER_HEAL": "1"},
            ini={"heal": True},
        )
    )
    assert settings.heal is False
    assert settings == Settings()


def test_resolve_bad_ini_value_names_the_ini_option() -> None:
    with pytest.raises(SettingError) as excinfo:
        resolve(sources(ini={"attempts": "lots"}))
    message = str(excinfo.value)
    assert message.startswith("ini option heal_attempts: ")
    assert "'lots'" in message


def test_resolve_bad_env_value_names_the_variable() -> None:
    with pytest.raises(SettingError, match=r"^CARETAKER_API_BASE: .*'localhost'"):
        resolve(sources(env={"CARETAKER_API_BASE": "localhost"}))


def test_resolve_good_cli_value_hides_a_bad_env_value() -> None:
    settings = resolve(sources(cli={"heal": True}, env={"CARETAKER_HEAL": "maybe"}))
    assert settings.heal is True


# -- through pytest ------------------------------------------------------------------------------


def test_bad_cli_attempts_is_a_usage_error(pytester: pytest.Pytester) -> None:
    pytester.makepyfile("def test_ok():\n    pass\n")
    result = pytester.runpytest("--heal", "--heal-attempts", "zero")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*caretaker: --heal-attempts: *'zero'*"])


def test_bad_ini_scope_is_a_usage_error(pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\nheal_scope = everything\n")
    pytester.makepyfile("def test_ok():\n    pass\n")
    result = pytester.runpytest()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*caretaker: ini option heal_scope: *'everything'*"])


def test_bad_env_heal_is_a_usage_error(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CARETAKER_HEAL", "maybe")
    pytester.makepyfile("def test_ok():\n    pass\n")
    result = pytester.runpytest()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*caretaker: CARETAKER_HEAL: *'maybe'*"])


# -- branch, write and review ----------------------------------------------------------------------


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


def test_resolve_review_implies_write_and_heal() -> None:
    settings = resolve(sources(cli={"review": True}))
    assert (settings.review, settings.write, settings.heal) == (True, True, True)
    assert settings.sources["review"] == "--heal-review"


def test_resolve_write_implies_heal() -> None:
    settings = resolve(sources(cli={"write": True}))
    assert (settings.review, settings.write, settings.heal) == (False, True, True)
    assert settings.sources["write"] == "--heal-write"


def test_resolve_write_from_the_environment_implies_heal() -> None:
    settings = resolve(sources(env={"CARETAKER_WRITE": "1"}))
    assert (settings.write, settings.heal) == (True, True)
    assert settings.sources["write"] == "CARETAKER_WRITE"


def test_resolve_heal_alone_writes_nothing() -> None:
    settings = resolve(sources(cli={"heal": True}))
    assert (settings.heal, settings.write, settings.review) == (True, False, False)


def test_resolve_commit_is_on_unless_turned_off() -> None:
    assert resolve(sources(cli={"write": True})).commit is True

    from_ini = resolve(sources(cli={"write": True}, ini={"commit": False}))
    assert from_ini.commit is False
    assert from_ini.sources["commit"] == "ini option heal_commit"

    from_cli = resolve(sources(cli={"write": True, "commit": False}, ini={"commit": True}))
    assert from_cli.commit is False
    assert from_cli.sources["commit"] == "--heal-no-commit"


def test_resolve_branch_cli_beats_ini() -> None:
    from_ini = resolve(sources(ini={"branch": "heal/ini"}))
    assert from_ini.branch == "heal/ini"
    assert from_ini.sources["branch"] == "ini option heal_branch"

    both = resolve(sources(cli={"branch": "heal/cli"}, ini={"branch": "heal/ini"}))
    assert both.branch == "heal/cli"
    assert both.sources["branch"] == "--heal-branch"


def test_resolve_bad_branch_names_the_flag() -> None:
    with pytest.raises(SettingError, match=r"^--heal-branch: 'a\.\.b'"):
        resolve(sources(cli={"branch": "a..b"}))


@pytest.mark.parametrize(
    ("settings", "mode"),
    [
        (Settings(heal=True), "heal (in memory)"),
        (Settings(heal=True, write=True), "heal (write and commit)"),
        (Settings(heal=True, write=True, branch="heal/x"), "heal (write and commit on heal/x)"),
        (Settings(heal=True, write=True, commit=False), "heal (write, no commit)"),
        (
            Settings(heal=True, write=True, commit=False, branch="heal/x"),
            "heal (write, no commit on heal/x)",
        ),
        (Settings(heal=True, write=True, review=True), "heal (review, write and commit)"),
    ],
)
def test_settings_mode(settings: Settings, mode: str) -> None:
    assert settings.mode == mode


@pytest.mark.parametrize(
    ("env", "expected"),
    [
        ({"CI": "true"}, "CI"),
        ({"CI": "1"}, "CI"),
        ({"GITHUB_ACTIONS": "true"}, "GITHUB_ACTIONS"),
        ({"CI": "false", "GITLAB_CI": "true"}, "GITLAB_CI"),
        ({"JENKINS_URL": "https://jenkins.example/"}, "JENKINS_URL"),
        ({"CI": "false"}, None),
        ({"CI": "0"}, None),
        ({"CI": ""}, None),
        ({"CI": " No "}, None),
        ({"HOME": "/home/me"}, None),
    ],
)
def test_detect_ci(env: dict[str, str], expected: str | None) -> None:
    assert detect_ci(env) == expected


def test_refuse_review_in_ci() -> None:
    with pytest.raises(pytest.UsageError, match=r"refused in CI \(GITHUB_ACTIONS is set\)"):
        refuse_review({"GITHUB_ACTIONS": "true"}, stdin_is_tty=True)


def test_refuse_review_without_a_terminal() -> None:
    with pytest.raises(pytest.UsageError, match="needs a terminal"):
        refuse_review({}, stdin_is_tty=False)


def test_refuse_review_allows_a_terminal_outside_ci() -> None:
    assert refuse_review({"CI": "false"}, stdin_is_tty=True) is None


@pytest.mark.parametrize(("text", "expected"), [("0.50", 0.5), ("$2", 2.0), (" 0 ", 0.0)])
def test_parse_budget_good(text: str, expected: float) -> None:
    assert parse_budget(text, "--heal-budget") == expected


@pytest.mark.parametrize(
    ("text", "expected"), [("1000", 1000), ("50_000", 50_000), ("2,000", 2000)]
)
def test_parse_tokens_good(text: str, expected: int) -> None:
    assert parse_tokens(text, "--heal-max-tokens") == expected


def test_resolve_budget_tokens_and_model_timeout() -> None:
    settings = resolve(
        sources(
            cli={"budget": "0.25", "model_timeout": "5"},
            env={"CARETAKER_BUDGET": "9"},
            ini={"max_tokens": "40000"},
        )
    )
    assert (settings.budget, settings.max_tokens, settings.model_timeout) == (0.25, 40_000, 5.0)
    assert settings.sources["budget"] == "--heal-budget"
    assert resolve(sources(env={"CARETAKER_BUDGET": "9"})).budget == 9.0
    defaults = resolve(sources())
    assert (defaults.budget, defaults.max_tokens, defaults.model_timeout) == (None, 200_000, 120.0)


def test_bad_budget_is_a_usage_error(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest("--heal", "--heal-budget", "free")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        ["*caretaker: --heal-budget: expected an amount of US dollars, e.g. 0.50, got 'free'"]
    )


def test_resolve_concurrency() -> None:
    assert resolve(sources()).concurrency == 4
    assert resolve(sources(cli={"concurrency": "1"})).concurrency == 1
    assert resolve(sources(ini={"concurrency": "8"})).concurrency == 8
