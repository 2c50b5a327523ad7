"""Settings: every option resolved once into a frozen value (command line > environment > ini).

The options themselves (flags, ini keys, environment variables, parsers, help texts) are the rows
of options.OPTIONS (the culprit search's rows in culprit.py), and their parsers live in parsers;
both are re-exported here, so that the rest of caretaker needs to know only this module.
config.py reads a project's configuration for the front ends outside pytest. Only the standard
library is imported: this module is loaded by every pytest run.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields

from pytest_caretaker.children import WORKER_ENV, is_worker
from pytest_caretaker.settings.options import OPTIONS, Option
from pytest_caretaker.settings.parsers import (
    SCOPES,
    SandboxMode,
    Scope,
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

__all__ = [
    "BUILTIN",
    "CI_VARIABLES",
    "DEFAULT_ATTEMPTS",
    "DEFAULT_BUILTIN_BUDGET",
    "DEFAULT_CHAIN_BUILTIN_BUDGET",
    "DEFAULT_CONCURRENCY",
    "DEFAULT_MAX_TOKENS",
    "DEFAULT_MODEL_TIMEOUT",
    "DEFAULT_SESSION_BUDGET",
    "DEFAULT_SESSION_TOKENS",
    "DEFAULT_TIMEOUT",
    "DEFAULT_TRANSCRIPTS",
    "OPTIONS",
    "SCOPES",
    "WORKER_ENV",
    "Option",
    "RawValues",
    "Scope",
    "SettingError",
    "Settings",
    "detect_ci",
    "parse_api_base",
    "parse_attempts",
    "parse_bool",
    "parse_branch",
    "parse_budget",
    "parse_concurrency",
    "parse_folder",
    "parse_keep",
    "parse_models",
    "parse_scope",
    "parse_sessions",
    "parse_timeout",
    "parse_tokens",
    "resolve",
]

#: The model-free repairer's name in a model chain, and the chain when no model is configured.
BUILTIN = "builtin"
DEFAULT_ATTEMPTS = 3
DEFAULT_TIMEOUT = 60.0
DEFAULT_BUILTIN_BUDGET = 20.0
#: The built-in repairer's budget per problem when a model found here follows it (the default
#: chain), in a quiet machine's seconds of work (builtin/work.py): enough for the small edits it
#: heals, most within a second or two; the rest is the model's.
DEFAULT_CHAIN_BUILTIN_BUDGET = 5.0
#: Seconds a whole session may spend healing when the built-in repairer is in the chain (its
#: search is bounded per failure only; a bug failing 100 tests would otherwise take an hour).
DEFAULT_SESSION_BUDGET = 120.0
DEFAULT_MODEL_TIMEOUT = 120.0
#: Tokens (prompt + completion) one problem (a root cause, however many tests it fails) may use
#: across its attempts and models before caretaker stops asking about it.
DEFAULT_MAX_TOKENS = 200_000
#: Tokens the whole session may use: whoever sets nothing never spends more than this.
DEFAULT_SESSION_TOKENS = 1_000_000
#: Failures repaired at once: model round trips overlap; a few, for providers' rate limits.
DEFAULT_CONCURRENCY = 4
#: Commits --heal-bisect goes back at most (culprit/search.py).
DEFAULT_BISECT_DEPTH = 32
#: Sessions whose transcripts are kept: what `caretaker report` links to, with a bound on disk.
DEFAULT_TRANSCRIPTS = 20


@dataclass(frozen=True)
class Settings:
    heal: bool = False
    models: tuple[str, ...] = (BUILTIN,)
    api_base: str | None = None
    scope: Scope = "code"
    attempts: int = DEFAULT_ATTEMPTS
    timeout: float = DEFAULT_TIMEOUT
    builtin_budget: float = DEFAULT_BUILTIN_BUDGET
    #: Seconds the whole session may spend healing; None: the default (see healing_budget).
    session_budget: float | None = None
    model_timeout: float = DEFAULT_MODEL_TIMEOUT  # seconds one model request may take
    budget: float | None = None  # US dollars the whole session may spend on models
    max_tokens: int = DEFAULT_MAX_TOKENS  # tokens one problem may use
    session_tokens: int = DEFAULT_SESSION_TOKENS  # tokens the session may use
    concurrency: int = DEFAULT_CONCURRENCY  # failures repaired at once
    workers: int | None = None  # the built-in repairer's trials at once; None: one per core
    #: A fix of some of a problem's failing cases, or one that heals by no longer reaching the
    #: line that raised, is a fix (reported so, written with --heal-write); else only reported.
    partial: bool = False
    #: An UNSURE fix (the tests cannot tell it from another) is written and committed with
    #: --heal-write; else it is reported and in the patch, and only review may take it.
    accept_unsure: bool = False
    bisect: bool = False  # find the last green commit by running the tests at earlier ones
    bisect_depth: int = DEFAULT_BISECT_DEPTH
    write: bool = False  # write verified fixes to disk (and commit them unless commit is off)
    review: bool = False  # ask before writing each fix (a terminal only)
    branch: str | None = None  # commit on this branch, created from HEAD if missing
    commit: bool = True
    #: Why this model chain: where it was configured, or how caretaker chose it (models.choose).
    reason: str = ""
    #: Where the model process runs (llm/extra.py): "litellm 1.110.2, caretaker's environment".
    environment: str = ""
    #: A folder of prompt templates that override caretaker's own (--heal-prompt).
    prompt_dir: str | None = None
    #: Run candidate code in the sandbox: where available (auto), always (require), never (off).
    sandbox: SandboxMode = "auto"
    sandbox_network: bool = False  # sandboxed runs keep the network
    cache: bool = True  # reuse remembered fixes (re-verified)
    transcripts: int = DEFAULT_TRANSCRIPTS  # sessions whose transcripts are kept
    #: Seconds the model process stays for the next session; None: the default (llm/kept.py);
    #: 0 in CI unless configured.
    model_keep: float | None = None
    #: Where each value came from, for messages: "--heal-model", "CARETAKER_MODEL", ...
    sources: Mapping[str, str] = field(default_factory=dict, compare=False)

    @property
    def healing_budget(self) -> float | None:
        """Seconds the session may heal: as configured, else DEFAULT_SESSION_BUDGET with the
        built-in repairer in the chain, else no limit (models have --heal-budget)."""
        if self.session_budget is not None:
            return self.session_budget
        return DEFAULT_SESSION_BUDGET if BUILTIN in self.models else None

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


# -- resolution ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class RawValues:
    """The raw values as the three sources gave them, by Settings field; None means "not given
    there". The command line's are the setting's, not the flag's: --heal-no-commit gives False."""

    cli: Mapping[str, object]
    env: Mapping[str, str]
    ini: Mapping[str, object]


# Settings' field order, not --help's: which of two bad values is reported must not depend on how
# the help is laid out.
_FIELDS = [item.name for item in fields(Settings)]
_BY_FIELD = sorted(OPTIONS, key=lambda option: _FIELDS.index(option.name))


def _pick(option: Option, raw: RawValues) -> tuple[object, str] | None:
    """The first source that gives the setting, and its name for messages."""
    cli = raw.cli.get(option.name)
    if cli is not None and cli != []:
        return cli, option.flag
    if option.env is not None and raw.env.get(option.env, "").strip():
        return raw.env[option.env], option.env
    ini = raw.ini.get(option.name) if option.ini is not None else None
    if ini is not None and ini != [] and ini != "":
        return ini, f"ini option {option.ini}"
    return None


def resolve(raw: RawValues) -> Settings:
    """Resolve the raw values into Settings; a SettingError names the bad value's origin."""
    if is_worker(raw.env):  # caretaker's own child (children.py): never heals itself
        return Settings()
    values: dict[str, object] = {}
    origin: dict[str, str] = {}
    for option in _BY_FIELD:
        picked = _pick(option, raw)
        if picked is None:
            continue
        given, where = picked
        origin[option.name] = where
        values[option.name] = option.convert(given, where)
    if values.get("models") == ():
        del values["models"], origin["models"]  # e.g. CARETAKER_MODEL=",": the default
    # Each mode implies the ones below it: review > write > heal.
    values["write"] = bool(values.get("write") or values.get("review"))
    values["heal"] = bool(values.get("heal") or values["write"])
    if "model_keep" not in values and detect_ci(raw.env):
        values["model_keep"] = 0.0  # one session per job: a process kept for the next would wait
    return Settings(**values, sources=origin)  # type: ignore[arg-type]
