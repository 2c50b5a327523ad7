"""The table of options: one row per setting, naming it in every source and in every help text.

A setting is a flag, usually an ini key, sometimes an environment variable, a parser, and the texts
``pytest --help`` shows (a parsers.Option). Keeping them in one row means adding a setting is
adding a row (and a field on Settings): the plugin adds the flags and ini keys by walking the
table, settings.resolve reads the three sources by walking it, and a unit test walks it to check
every row is wired end to end.
Only the standard library and parsers are imported: every pytest run loads this.
"""

from __future__ import annotations

from pytest_caretaker.settings.culprit import CULPRIT
from pytest_caretaker.settings.parsers import (
    Option,
    parse_api_base,
    parse_attempts,
    parse_bool,
    parse_branch,
    parse_budget,
    parse_concurrency,
    parse_folder,
    parse_keep,
    parse_models,
    parse_sandbox,
    parse_scope,
    parse_sessions,
    parse_timeout,
    parse_tokens,
)

__all__ = ["OPTIONS", "Option"]

# In the order ``pytest --help`` lists them; --heal-models, an action rather than a setting, is
# added by the plugin after these.
OPTIONS: tuple[Option, ...] = (
    Option(
        "heal",
        "--heal",
        parse_bool,
        "Repair failing tests in memory: propose, verify and report fixes; no file is changed",
        ini="heal",
        ini_help="Repair failing tests in memory (like --heal)",
        env="CARETAKER_HEAL",
        kind="bool",
    ),
    Option(
        "write",
        "--heal-write",
        parse_bool,
        "Like --heal, then write the verified fixes to disk and commit each one with git",
        ini="heal_write",
        ini_help="Write verified fixes and commit them (like --heal-write)",
        env="CARETAKER_WRITE",
        kind="bool",
    ),
    Option(
        "review",
        "--heal-review",
        parse_bool,
        "Like --heal-write, but show each verified fix and ask before writing it "
        "(needs a terminal)",
        # No ini key: review needs a person at a terminal, which a project file cannot promise.
        kind="bool",
    ),
    Option(
        "branch",
        "--heal-branch",
        parse_branch,
        "Commit the fixes on this git branch, created from HEAD if missing",
        ini="heal_branch",
        ini_help="git branch to commit fixes on",
        metavar="NAME",
    ),
    Option(
        "commit",
        "--heal-no-commit",
        parse_bool,
        "Write the fixes but do not commit them",
        ini="heal_commit",
        ini_help="Commit written fixes (default true)",
        kind="bool",
        negated=True,
    ),
    Option(
        "models",
        "--heal-model",
        parse_models,
        "litellm model to ask, e.g. openai/gpt-4o-mini, or builtin (the model-free "
        "repairer); repeat for a chain, asked in order. Default: builtin, then a model found "
        "here (a provider key, a local Ollama) for what builtin cannot heal",
        ini="heal_model",
        ini_help="litellm model(s) to ask, one per line",
        env="CARETAKER_MODEL",
        kind="linelist",
        metavar="MODEL",
    ),
    Option(
        "api_base",
        "--heal-api-base",
        parse_api_base,
        "Base URL of an OpenAI-compatible or Ollama server",
        ini="heal_api_base",
        ini_help="Base URL of an OpenAI-compatible or Ollama server",
        env="CARETAKER_API_BASE",
        metavar="URL",
    ),
    Option(
        "scope",
        "--heal-scope",
        parse_scope,
        "What may be edited: code (default; tests are the specification), tests, or any",
        ini="heal_scope",
        ini_help="What may be edited: code, tests or any",
        metavar="code|tests|any",
    ),
    Option(
        "attempts",
        "--heal-attempts",
        parse_attempts,
        "Model rounds per failure, each told why the previous one was rejected (default 3)",
        ini="heal_attempts",
        ini_help="Model rounds per failure",
        metavar="N",
    ),
    Option(
        "timeout",
        "--heal-timeout",
        parse_timeout,
        "Seconds one verification run may take (default 60)",
        ini="heal_timeout",
        ini_help="Seconds one verification run may take",
        metavar="SECONDS",
    ),
    Option(
        "builtin_budget",
        "--heal-builtin-budget",
        parse_timeout,
        "Built-in repairer's work per failure, in a quiet machine's seconds (x 100 candidates, "
        "x 4 CPU s of trials); ten times as many cap the clock (default 20; 5 before a model)",
        ini="heal_builtin_budget",
        ini_help="Work the built-in repairer may do on one failure, in a quiet machine's seconds",
        metavar="SECONDS",
    ),
    Option(
        "partial",
        "--heal-partial",
        parse_bool,
        "Take a fix that heals only some of a problem's failing cases, or heals by no longer "
        "reaching the line that failed, as a fix (written with --heal-write); by default it is "
        "reported, not written",
        ini="heal_partial",
        ini_help="Take partial fixes as fixes (like --heal-partial)",
        kind="bool",
    ),
    Option(
        "accept_unsure",
        "--heal-accept-unsure",
        parse_bool,
        "Write and commit UNSURE fixes too (fixes the tests cannot tell from another that "
        "behaves differently) with --heal-write; by default they are reported and in the "
        "patch, and only --heal-review may take them",
        ini="heal_accept_unsure",
        ini_help="Write and commit UNSURE fixes (like --heal-accept-unsure)",
        kind="bool",
    ),
    Option(
        "session_budget",
        "--heal-session-budget",
        parse_timeout,
        "Seconds the whole session may spend healing; failures not reached by then are not "
        "attempted (default 120 with the built-in repairer, else no limit)",
        ini="heal_session_budget",
        ini_help="Seconds the whole session may spend healing",
        metavar="SECONDS",
    ),
    Option(
        "model_timeout",
        "--heal-model-timeout",
        parse_timeout,
        "Seconds one model request may take (default 120)",
        ini="heal_model_timeout",
        ini_help="Seconds one model request may take",
        metavar="SECONDS",
    ),
    Option(
        "model_keep",
        "--heal-model-keep",
        parse_keep,
        "Seconds the model process (litellm, imported once) stays after the session for the "
        "next heal; 0 ends it with the session (default 600 on Linux outside CI, else 0)",
        ini="heal_model_keep",
        ini_help="Seconds the model process stays after the session for the next heal",
        env="CARETAKER_MODEL_KEEP",
        metavar="SECONDS",
    ),
    Option(
        "budget",
        "--heal-budget",
        parse_budget,
        "US dollars the session may spend on model calls; once spent, the remaining "
        "failures are not attempted (default: no limit)",
        ini="heal_budget",
        ini_help="US dollars the session may spend on model calls",
        env="CARETAKER_BUDGET",
        metavar="USD",
    ),
    Option(
        "max_tokens",
        "--heal-max-tokens",
        parse_tokens,
        "Tokens one problem (a root cause, however many tests fail from it) may use across its "
        "attempts and models (default 200000)",
        ini="heal_max_tokens",
        ini_help="Tokens one problem may use across its attempts and models",
        metavar="N",
    ),
    Option(
        "session_tokens",
        "--heal-session-tokens",
        parse_tokens,
        "Tokens the whole session may use on models; once used, nothing more is asked "
        "(default 1000000)",
        ini="heal_session_tokens",
        ini_help="Tokens the whole session may use on models",
        env="CARETAKER_SESSION_TOKENS",
        metavar="N",
    ),
    Option(
        "concurrency",
        "--heal-concurrency",
        parse_concurrency,
        "Failures repaired at once (default 4); their model calls overlap",
        ini="heal_concurrency",
        ini_help="Failures repaired at once",
        metavar="N",
    ),
    Option(
        "workers",
        "--heal-workers",
        parse_concurrency,
        "Candidate trials the built-in repairer runs at once, each in a process of its own "
        "(default: one per core, at most 8)",
        ini="heal_workers",
        ini_help="Candidate trials the built-in repairer runs at once",
        metavar="N",
    ),
    Option(
        "prompt_dir",
        "--heal-prompt",
        parse_folder,
        "A folder of Jinja2 prompt templates that override caretaker's own "
        "(system.j2, user.j2, retry.j2, rules.j2; see docs/pages/prompts.md)",
        ini="heal_prompt",
        ini_help="A folder of prompt templates overriding caretaker's own",
        metavar="DIR",
    ),
    Option(
        "sandbox",
        "--heal-sandbox",
        parse_sandbox,
        "Run candidate code in a sandbox: auto (default: where available), require (refuse "
        "to run candidates without it) or off",
        ini="heal_sandbox",
        ini_help="Run candidate code in a sandbox: auto, require or off",
        env="CARETAKER_SANDBOX",
        metavar="auto|require|off",
    ),
    Option(
        "sandbox_network",
        "--heal-sandbox-network",
        parse_bool,
        "Let sandboxed candidate runs use the network (for suites that need it)",
        ini="heal_sandbox_network",
        ini_help="Let sandboxed candidate runs use the network",
        kind="bool",
    ),
    Option(
        "transcripts",
        "--heal-transcripts",
        parse_sessions,
        "Sessions whose transcripts stay in .caretaker/transcripts/, the latest ones "
        "(default 20; 0 keeps none)",
        ini="heal_transcripts",
        ini_help="Sessions whose transcripts stay in .caretaker/transcripts/",
        env="CARETAKER_TRANSCRIPTS",
        metavar="N",
    ),
    Option(
        "cache",
        "--heal-no-cache",
        parse_bool,
        "Do not reuse remembered fixes from earlier runs (they are re-verified otherwise)",
        ini="heal_cache",
        ini_help="Reuse remembered fixes, re-verified (default true)",
        kind="bool",
        negated=True,
    ),
    *CULPRIT,
)
