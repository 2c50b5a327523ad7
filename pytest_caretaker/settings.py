"""Settings: every option resolved once into a frozen value (command line > environment > ini).

Only the standard library is imported here: this module is loaded by every pytest run.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal
from urllib.parse import urlsplit

Scope = Literal["code", "tests", "any"]
SCOPES: tuple[Scope, ...] = ("code", "tests", "any")

#: Set in the environment of caretaker's own verification runs so that they never heal themselves.
WORKER_ENV = "CARETAKER_WORKER"

#: The model-free repairer's name in a model chain, and the chain when no model is configured.
BUILTIN = "builtin"
DEFAULT_ATTEMPTS = 3
DEFAULT_TIMEOUT = 60.0
DEFAULT_BUILTIN_BUDGET = 20.0
DEFAULT_MODEL_TIMEOUT = 120.0
#: Tokens (prompt + completion) one failure may use across its attempts before caretaker stops.
DEFAULT_MAX_TOKENS = 200_000
#: Failures repaired at once: model round trips overlap; a few, for providers' rate limits.
DEFAULT_CONCURRENCY = 4


class SettingError(ValueError):
    """A value that cannot be used; the message names where it came from and what to do."""


@dataclass(frozen=True)
class Settings:
    heal: bool = False
    models: tuple[str, ...] = (BUILTIN,)
    api_base: str | None = None
    scope: Scope = "code"
    attempts: int = DEFAULT_ATTEMPTS
    timeout: float = DEFAULT_TIMEOUT
    builtin_budget: float = DEFAULT_BUILTIN_BUDGET
    model_timeout: float = DEFAULT_MODEL_TIMEOUT  # seconds one model request may take
    budget: float | None = None  # US dollars the whole session may spend on models
    max_tokens: int = DEFAULT_MAX_TOKENS  # tokens one failure may use
    concurrency: int = DEFAULT_CONCURRENCY  # failures repaired at once
    write: bool = False  # write verified fixes to disk (and commit them unless commit is off)
    review: bool = False  # ask before writing each fix (a terminal only)
    branch: str | None = None  # commit on this branch, created from HEAD if missing
    commit: bool = True
    #: Why this model chain: where it was configured, or how caretaker chose it (models.choose).
    reason: str = ""
    #: A folder of prompt templates that override caretaker's own (--heal-prompt).
    prompt_dir: str | None = None
    #: Where each value came from, for messages: "--heal-model", "CARETAKER_MODEL", ...
    sources: Mapping[str, str] = field(default_factory=dict, compare=False)

    @property
    def mode(self) -> str:
        if not self.write:
            return "heal (in memory)"
        text = "review, write" if self.review else "write"
        text += " and commit" if self.commit else ", no commit"
        if self.branch:
            text += f" on {self.branch}"
        return f"heal ({text})"


#: Environment variables that CI services set; review mode is refused when one is.
CI_VARIABLES = (
    "CI",
    "GITHUB_ACTIONS",
    "GITLAB_CI",
    "BUILDKITE",
    "CIRCLECI",
    "JENKINS_URL",
    "TF_BUILD",
    "BUILD_NUMBER",
)


def detect_ci(env: Mapping[str, str]) -> str | None:
    """The first CI variable set in env (to name it in a message), or None outside CI."""
    for name in CI_VARIABLES:
        if env.get(name, "").strip().lower() not in ("", "0", "false", "no"):
            return name
    return None


# -- parsers: plain functions, one per kind of value ------------------------------------------

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}


def parse_bool(text: str, where: str) -> bool:
    value = text.strip().lower()
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise SettingError(f"{where}: expected true or false, got {text!r}")


def parse_scope(text: str, where: str) -> Scope:
    value = text.strip().lower()
    for scope in SCOPES:
        if value == scope:
            return scope
    raise SettingError(f"{where}: expected one of code, tests, any, got {text!r}")


def _whole_number(text: str, where: str, low: int, high: int) -> int:
    try:
        value = int(text.strip())
    except ValueError:
        value = low - 1
    if not low <= value <= high:
        raise SettingError(f"{where}: expected a whole number from {low} to {high}, got {text!r}")
    return value


def parse_attempts(text: str, where: str) -> int:
    return _whole_number(text, where, 1, 20)


def parse_concurrency(text: str, where: str) -> int:
    return _whole_number(text, where, 1, 64)


def parse_timeout(text: str, where: str) -> float:
    try:
        value = float(text.strip())
    except ValueError:
        value = -1.0
    if not 0 < value <= 3600:
        raise SettingError(f"{where}: expected seconds between 0 and 3600, e.g. 60, got {text!r}")
    return value


def parse_budget(text: str, where: str) -> float:
    try:
        value = float(text.strip().removeprefix("$"))
    except ValueError:
        value = -1.0
    if not 0 <= value < 1e6:
        raise SettingError(f"{where}: expected an amount of US dollars, e.g. 0.50, got {text!r}")
    return value


def parse_tokens(text: str, where: str) -> int:
    try:
        value = int(text.strip().replace("_", "").replace(",", ""))
    except ValueError:
        value = 0
    if value < 1_000:
        raise SettingError(f"{where}: expected a number of tokens of 1000 or more, got {text!r}")
    return value


def parse_models(values: Sequence[str], where: str) -> tuple[str, ...]:
    models: list[str] = []
    for value in values:
        for part in value.replace(",", "\n").splitlines():
            part = part.strip()
            if not part:
                continue
            if any(ch.isspace() for ch in part):
                raise SettingError(f"{where}: a model name has no spaces, got {part!r}")
            models.append(part)
    return tuple(models)


def parse_api_base(text: str, where: str) -> str | None:
    value = text.strip()
    if not value:
        return None
    parsed = urlsplit(value)
    if parsed.scheme not in ("http", "https") or not parsed.netloc:
        raise SettingError(f"{where}: expected an http:// or https:// URL, got {text!r}")
    return value.rstrip("/")


_BRANCH_FORBIDDEN = re.compile(r"[\x00-\x20\x7f~^:?*\[\\]|\.\.|@\{|//")


def parse_branch(text: str, where: str) -> str | None:
    """A branch name git accepts (the rules of ``git check-ref-format --branch``), or None."""
    value = text.strip()
    if not value:
        return None
    parts = value.split("/")
    bad = (
        _BRANCH_FORBIDDEN.search(value)
        or value.startswith("-")
        or value.endswith(".")
        or value == "@"
        or any(not part or part.startswith(".") or part.endswith(".lock") for part in parts)
    )
    if bad:
        raise SettingError(f"{where}: {value!r} is not a valid git branch name, e.g. heal/fixes")
    return value


# -- resolution ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Sources:
    """The raw values as the three sources gave them; None means "not given there"."""

    cli: Mapping[str, object]
    env: Mapping[str, str]
    ini: Mapping[str, object]


_ENV = {
    "heal": "CARETAKER_HEAL",
    "write": "CARETAKER_WRITE",
    "models": "CARETAKER_MODEL",
    "api_base": "CARETAKER_API_BASE",
    "budget": "CARETAKER_BUDGET",
}
_FLAGS = {
    "heal": "--heal",
    "models": "--heal-model",
    "api_base": "--heal-api-base",
    "scope": "--heal-scope",
    "attempts": "--heal-attempts",
    "timeout": "--heal-timeout",
    "builtin_budget": "--heal-builtin-budget",
    "model_timeout": "--heal-model-timeout",
    "budget": "--heal-budget",
    "max_tokens": "--heal-max-tokens",
    "concurrency": "--heal-concurrency",
    "write": "--heal-write",
    "review": "--heal-review",
    "branch": "--heal-branch",
    "commit": "--heal-no-commit",
    "prompt_dir": "--heal-prompt",
}
_INI = {
    "heal": "heal",
    "models": "heal_model",
    "api_base": "heal_api_base",
    "scope": "heal_scope",
    "attempts": "heal_attempts",
    "timeout": "heal_timeout",
    "builtin_budget": "heal_builtin_budget",
    "model_timeout": "heal_model_timeout",
    "budget": "heal_budget",
    "max_tokens": "heal_max_tokens",
    "concurrency": "heal_concurrency",
    "write": "heal_write",
    "review": "heal_review",  # command line only: review needs a person at a terminal
    "branch": "heal_branch",
    "commit": "heal_commit",
    "prompt_dir": "heal_prompt",
}
_BOOLEANS = {"heal", "write", "review", "commit"}


def _pick(name: str, sources: Sources) -> tuple[object, str] | None:
    cli = sources.cli.get(name)
    if cli is not None and cli != []:
        return cli, _FLAGS[name]
    env_name = _ENV.get(name)
    if env_name is not None and sources.env.get(env_name, "").strip():
        return sources.env[env_name], env_name
    ini = sources.ini.get(name)
    if ini is not None and ini != [] and ini != "":
        return ini, f"ini option {_INI[name]}"
    return None


def resolve(sources: Sources) -> Settings:
    """Resolve the sources into Settings; a SettingError names the bad value's origin."""
    if sources.env.get(WORKER_ENV):
        return Settings()
    values: dict[str, object] = {}
    origin: dict[str, str] = {}
    for name in _FLAGS:
        picked = _pick(name, sources)
        if picked is None:
            continue
        raw, where = picked
        origin[name] = where
        values[name] = _convert(name, raw, where)
    if values.get("models") == ():
        del values["models"], origin["models"]  # e.g. CARETAKER_MODEL=",": the default
    # Each mode implies the ones below it: review > write > heal.
    values["write"] = bool(values.get("write") or values.get("review"))
    values["heal"] = bool(values.get("heal") or values["write"])
    return Settings(**values, sources=origin)  # type: ignore[arg-type]


def _convert(name: str, raw: object, where: str) -> object:
    if name in _BOOLEANS:
        return raw if isinstance(raw, bool) else parse_bool(str(raw), where)
    if name == "models":
        listed = raw if isinstance(raw, list) else [str(raw)]
        return parse_models([str(item) for item in listed], where)
    text = str(raw)
    if name == "api_base":
        return parse_api_base(text, where)
    if name == "scope":
        return parse_scope(text, where)
    if name == "branch":
        return parse_branch(text, where)
    if name == "prompt_dir":
        return text.strip() or None
    if name == "attempts":
        return parse_attempts(text, where)
    if name == "budget":
        return parse_budget(text, where)
    if name == "max_tokens":
        return parse_tokens(text, where)
    if name == "concurrency":
        return parse_concurrency(text, where)
    return parse_timeout(text, where)
