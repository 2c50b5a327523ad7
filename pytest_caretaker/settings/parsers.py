"""Option parsers: one plain function per kind of value, from the text a source gave to the value.

Each takes where the text came from (a flag, an environment variable, an ini key) so that a bad
value is refused with a message naming it; the command line, the environment and the ini file all
go through the same function. Option, a row of options.py's table, names one setting in every
source. Only the standard library is imported: every pytest run loads this.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal
from urllib.parse import urlsplit

Scope = Literal["code", "tests", "any"]
SCOPES: tuple[Scope, ...] = ("code", "tests", "any")
SandboxMode = Literal["auto", "require", "off"]
SANDBOX_MODES: tuple[SandboxMode, ...] = ("auto", "require", "off")


class SettingError(ValueError):
    """A value that cannot be used; the message names where it came from and what to do."""


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


def parse_sandbox(text: str, where: str) -> SandboxMode:
    value = text.strip().lower()
    for mode in SANDBOX_MODES:
        if value == mode:
            return mode
    raise SettingError(f"{where}: expected one of auto, require, off, got {text!r}")


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


def parse_sessions(text: str, where: str) -> int:
    return _whole_number(text, where, 0, 10_000)


def parse_depth(text: str, where: str) -> int:
    return _whole_number(text, where, 1, 1000)


def parse_timeout(text: str, where: str) -> float:
    try:
        value = float(text.strip())
    except ValueError:
        value = -1.0
    if not 0 < value <= 3600:
        raise SettingError(f"{where}: expected seconds between 0 and 3600, e.g. 60, got {text!r}")
    return value


def parse_keep(text: str, where: str) -> float:
    try:
        value = float(text.strip())
    except ValueError:
        value = -1.0
    if not 0 <= value <= 86_400:
        raise SettingError(
            f"{where}: expected seconds between 0 (end with the session) and 86400, e.g. 600, "
            f"got {text!r}"
        )
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
    try:
        parsed = urlsplit(value)
        parsed.port  # noqa: B018 -- raises ValueError for a port that is not one
    except ValueError as error:  # an unclosed [ of an IPv6 host, a port out of range
        raise SettingError(
            f"{where}: {text!r} is not a URL ({error}); write it like http://[::1]:8000/v1"
        ) from None
    if parsed.scheme not in ("http", "https") or not parsed.hostname:
        raise SettingError(f"{where}: expected an http:// or https:// URL, got {text!r}")
    if any(ch.isspace() or not ch.isprintable() for ch in value):  # urlsplit drops some
        raise SettingError(f"{where}: a URL has no spaces or control characters, got {text!r}")
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


def parse_folder(text: str, where: str) -> str | None:
    """A folder as given (the plugin makes it absolute; prompts.check_folder checks it), or None.

    where is unused: any text can name a folder, and a missing one is refused later, by name.
    """
    return text.strip() or None


#: The value's shape, and so its ini type: a "bool" flag is store_true, a "linelist" one appends.
Kind = Literal["bool", "linelist", "string"]
IniType = Literal["bool", "linelist", "string", "int", "float"]
#: The ini type of the keys each parser reads, for pytest to show in --help and to read from TOML
#: as numbers (pytest 8.4 and later; before, they are strings parsed the same way). The budget
#: stays a string: "$0.50" is a value it takes.
NUMBERS: dict[Callable[[str, str], object], IniType] = {
    parse_attempts: "int",
    parse_concurrency: "int",
    parse_depth: "int",
    parse_sessions: "int",
    parse_tokens: "int",
    parse_timeout: "float",
    parse_keep: "float",
}


@dataclass(frozen=True)
class Option:
    """One setting: the Settings field it fills, its names in the three sources, its parser, and
    what ``pytest --help`` says of its flag and of its ini key."""

    name: str
    flag: str
    #: Takes the text (a list of lines for a "linelist") and where it came from, for messages.
    parse: Callable[[Any, str], object]
    help: str
    ini: str | None = None  # None: command line only
    ini_help: str = ""
    env: str | None = None
    kind: Kind = "string"
    metavar: str | None = None
    #: The flag turns the setting off (--heal-no-commit): given, it means False.
    negated: bool = False

    @property
    def ini_type(self) -> IniType:
        """The type pytest reads the ini key as (``addini``'s)."""
        if self.kind != "string":
            return self.kind
        return NUMBERS.get(self.parse, "string")

    @property
    def dest(self) -> str:
        """The name pytest gives the flag's value (``--heal-no-commit``: ``heal_no_commit``)."""
        return self.flag.removeprefix("--").replace("-", "_")

    def arguments(self) -> dict[str, object]:
        """The flag's argparse details, for ``addoption``."""
        # The default is None (or no lines), never False: "not given" lets the environment and the
        # ini file decide.
        arguments: dict[str, object] = {"default": [] if self.kind == "linelist" else None}
        if self.kind == "bool":
            arguments["action"] = "store_true"
        elif self.kind == "linelist":
            arguments["action"] = "append"
        if self.metavar is not None:  # argparse refuses a metavar on store_true
            arguments["metavar"] = self.metavar
        arguments["help"] = self.help
        return arguments

    def from_flag(self, value: object) -> object:
        """What the command line says of the setting, given what argparse stored for the flag."""
        if self.negated:
            return False if value else None
        return value

    def convert(self, raw: object, where: str) -> object:
        """The setting's value from what a source gave: text, or what pytest already parsed."""
        if self.kind == "bool" and isinstance(raw, bool):
            return raw
        if self.kind == "linelist":
            listed = raw if isinstance(raw, list) else [raw]
            return self.parse([str(item) for item in listed], where)
        return self.parse(str(raw), where)
