"""The run's options in baseline and verification runs, but for those that must not repeat there.

A verification run is pytest in another process on the tests caretaker names. It must see the
project as the run saw it: a plugin loaded with ``-p``, an ini value set with ``-o``, a per-test
``--timeout``, ``--import-mode``, ``--doctest-modules`` given through ``addopts``. Dropping the
whole of ``addopts`` misread failures (a test that needs its plugin fails "in test code"), so the
run's options — ini ``addopts``, ``PYTEST_ADDOPTS``, then the command line, pytest's own order —
are kept but for the ones listed in DROPPED, each with its reason, and positional arguments (the
child runs the tests caretaker names, not the run's paths).

Which token is an option's value is pytest's own parser's decision (``consumes``): plugin options
such as ``--reruns 3`` or ``--timeout 5`` take values this module cannot know of.
"""

from __future__ import annotations

import itertools
import os
import shlex
from collections.abc import Callable, Iterator, Mapping, Sequence

import pytest

from pytest_caretaker.verify.runner import Confinement, Runner

#: How many of the tokens that follow an option (up to the next option) are its values.
Consumes = Callable[[str, Sequence[str]], int]

#: The options a verification run leaves out, each group with the reason it does.
DROPPED: tuple[tuple[tuple[str, ...], str], ...] = (
    (("--heal", "--heal-*"), "caretaker's own: the child verifies, it does not heal"),
    (
        ("-n", "--numprocesses", "--maxprocesses", "--dist", "-d", "--tx", "--rsyncdir"),
        "pytest-xdist: a verification run is one process",
    ),
    (
        ("--rsyncignore", "--max-worker-restart", "--maxschedchunk", "-f", "--looponfail"),
        "pytest-xdist: a verification run is one process, run once",
    ),
    (("--cov*", "--no-cov*"), "coverage of a candidate is not the project's coverage"),
    (
        ("--lf", "--last-failed", "--ff", "--failed-first", "--nf", "--new-first", "--lfnf"),
        "the cache is off in the child (-p no:cacheprovider); these would be unknown there",
    ),
    (
        ("--last-failed-no-failures", "--cache-clear", "--cache-show"),
        "the cache is off in the child: unknown options there",
    ),
    (("--sw", "--stepwise*", "--sw-*"), "stepwise selection: the child runs what it is given"),
    (("-x", "--exitfirst", "--maxfail"), "every named test must run, not stop at a failure"),
    (("-k", "-m", "--deselect"), "selection: the child runs exactly the tests it is given"),
    (("--count", "--repeat-scope", "--flake-finder", "--flake-runs"), "repeats rename the tests"),
    (("--reruns*", "--only-rerun", "--rerun-except"), "a failing candidate must fail at once"),
    (
        ("--junitxml", "--junit-xml", "--html", "--result-log", "--report-log", "--json-report*"),
        "reports of the run would be overwritten by every verification",
    ),
    (("--alluredir", "--log-file", "--debug", "--pastebin"), "files and uploads of the run"),
    (("--pdb", "--pdbcls", "--trace"), "interactive: nobody is at the child's terminal"),
    (("-s", "--capture"), "the failing test's output belongs in its report, sent to the model"),
    (("-l", "--showlocals"), "locals the recorder redacted would reach the model unredacted"),
    (("-v", "--verbose", "-q", "--quiet", "--verbosity"), "the child's output is not shown"),
    (("--basetemp", "--rootdir", "-c", "--config-file", "--inifile"), "set per run by caretaker"),
    (
        ("--co", "--collect-only", "--collectonly", "--setup-only", "--setup-plan", "--fixtures"),
        "the child would run no test",
    ),
    (
        ("--funcargs", "--fixtures-per-test", "--markers", "-V", "--version", "-h", "--help"),
        "these print and exit: the child would run no test",
    ),
)

_NAMES = frozenset(name for names, _ in DROPPED for name in names if not name.endswith("*"))
_PREFIXES = tuple(name[:-1] for names, _ in DROPPED for name in names if name.endswith("*"))


def dropped(option: str, values: Sequence[str] = ()) -> bool:
    """Whether a verification run leaves option out (its values with it); a ``-p`` stays but for
    caretaker itself, which the child must not load as a plugin again."""
    if option == "-p":
        return any("caretaker" in value for value in values)
    return option in _NAMES or option.startswith(_PREFIXES)


def kept(args: Sequence[str], consumes: Consumes) -> list[str]:
    """args without the dropped options (and their values) and without positional arguments."""
    out: list[str] = []
    for option, tokens, values in _options(list(args), consumes):
        if option and not dropped(option, values):
            out += tokens
    return out


def _options(args: list[str], consumes: Consumes) -> Iterator[tuple[str, list[str], list[str]]]:
    """(option, its tokens, its values) in order; a positional argument is ("", [it], [])."""
    index = 0
    while index < len(args):
        token = args[index]
        if token == "--":  # everything after it is positional
            return
        if not token.startswith("-") or token == "-":
            yield "", [token], []
            index += 1
        elif token.startswith("--") and "=" in token:
            option, _, value = token.partition("=")
            yield option, [token], [value]
            index += 1
        elif token.startswith("--") or len(token) == 2:
            count = consumes(token, args[index + 1 :])
            yield token, args[index : index + 1 + count], args[index + 1 : index + 1 + count]
            index += 1 + count
        else:  # a cluster (-vx, -kexpr, -pno:x), read as argparse reads it
            option, rest = token[:2], token[2:]
            if consumes(option, [rest]) > 0:  # the letter takes the rest of the token
                yield option, [token], [rest]
                index += 1
            else:  # a flag; the letters after it are read next
                yield option, [option], []
                args[index] = f"-{rest}"


def user_args(config: pytest.Config, env: Mapping[str, str] = os.environ) -> list[str]:
    """The run's options as pytest read them: ini addopts, PYTEST_ADDOPTS, the command line."""
    ini = [str(arg) for arg in config.getini("addopts")]
    return [*ini, *shlex.split(env.get("PYTEST_ADDOPTS", "")), *config.invocation_params.args]


def parser_consumes(parser: pytest.Parser) -> Consumes:
    """consumes as pytest's parser decides it: the tokens it does not take as positional."""

    def consumes(option: str, following: Sequence[str]) -> int:
        chunk = list(itertools.takewhile(lambda token: not token.startswith("-"), following))
        try:
            namespace, _ = parser.parse_known_and_unknown_args([option, *chunk])
        except (Exception, SystemExit):  # a value it refuses: pytest refused the run already
            return min(1, len(chunk))
        return len(chunk) - len(getattr(namespace, "file_or_dir", None) or ())

    return consumes


def runner_for(
    config: pytest.Config,
    timeout: float,
    confinement: Confinement | None = None,
    parser: pytest.Parser | None = None,
) -> Runner:
    """A Runner that reruns tests the way this session ran them (sandboxed with confinement):
    the run's options but the DROPPED ones (all of them without parser), then caretaker's."""
    args = kept(user_args(config), parser_consumes(parser)) if parser is not None else []
    # After the user's, so these win: -q for the count options, -o addopts= so the ini's are
    # not read twice, --tb and -W for the reports and warnings the parent reads.
    args += ["-q", "--no-header", "--tb=short", "-p", "no:cacheprovider", "-o", "addopts="]
    # Plugins are preloaded by the warm server, so pytest cannot rewrite their asserts; that
    # warning must not become an error under a user's filterwarnings = error.
    args += ["-W", "ignore::pytest.PytestAssertRewriteWarning"]
    args += ["--rootdir", str(config.rootpath)]
    if config.inipath is not None:
        args += ["-c", str(config.inipath)]
    args += ["--import-mode", str(config.getoption("importmode"))]
    for plugin in config.getoption("plugins") or ():
        if "caretaker" not in plugin:
            args += ["-p", plugin]
    root = config.rootpath.resolve()
    return Runner(root, config.invocation_params.dir, args, timeout, confinement=confinement)
