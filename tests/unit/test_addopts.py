"""Which of the run's options a verification run keeps: a table of arguments and what is kept,
read with pytest's own parser (which tokens are values is its decision, plugins' options too)."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from pytest_caretaker.plugin.addopts import DROPPED, Consumes, dropped, kept, parser_consumes


class GrabParser:
    """A plugin registered late: pytest hands it its parser, as it does the session."""

    parser: pytest.Parser | None = None

    def pytest_addoption(self, parser: pytest.Parser) -> None:
        self.parser = parser


@pytest.fixture(scope="module")
def consumes(pytestconfig: pytest.Config) -> Consumes:
    grab = GrabParser()
    pytestconfig.pluginmanager.register(grab, "test-addopts-grab")
    try:
        assert grab.parser is not None
        return parser_consumes(grab.parser)
    finally:
        pytestconfig.pluginmanager.unregister(grab)


CASES: list[tuple[str, list[str], list[str]]] = [
    # What the tests need stays.
    ("plugin", ["-p", "myplugin"], ["-p", "myplugin"]),
    ("plugin attached", ["-pmyplugin"], ["-pmyplugin"]),
    ("blocked plugin", ["-p", "no:randomly"], ["-p", "no:randomly"]),
    ("ini override", ["-o", "xfail_strict=true"], ["-o", "xfail_strict=true"]),
    ("import mode", ["--import-mode=importlib"], ["--import-mode=importlib"]),
    ("import mode apart", ["--import-mode", "importlib"], ["--import-mode", "importlib"]),
    ("doctests", ["--doctest-modules"], ["--doctest-modules"]),
    ("warnings", ["-W", "error"], ["-W", "error"]),
    ("strict markers", ["--strict-markers"], ["--strict-markers"]),
    ("report chars", ["-rA"], ["-rA"]),
    ("report chars apart", ["-r", "fE"], ["-r", "fE"]),
    ("a plugin's value option", ["--timeout", "5"], ["--timeout", "5"]),
    ("runxfail", ["--runxfail"], ["--runxfail"]),
    ("ignore", ["--ignore=build"], ["--ignore=build"]),
    # caretaker's own.
    ("heal", ["--heal", "-p", "x"], ["-p", "x"]),
    ("heal model", ["--heal-model", "builtin", "-p", "x"], ["-p", "x"]),
    ("heal model =", ["--heal-model=builtin"], []),
    ("caretaker as a plugin", ["-p", "pytest_caretaker.plugin.hooks", "-p", "x"], ["-p", "x"]),
    # pytest-xdist.
    ("-n", ["-n", "4", "-p", "x"], ["-p", "x"]),
    ("-n attached", ["-n4"], []),
    ("-n auto", ["-nauto", "--strict-markers"], ["--strict-markers"]),
    ("numprocesses", ["--numprocesses=2"], []),
    ("dist", ["--dist", "loadfile", "--maxprocesses", "3"], []),
    # Coverage (pytest-cov need not be installed: these are refused by name).
    ("cov", ["--cov=src", "--cov-report=term", "--no-cov-on-fail"], []),
    # Selection and stopping.
    ("-k", ["-k", "area and not slow", "-p", "x"], ["-p", "x"]),
    ("-k attached", ["-karea"], []),
    ("-m", ["-m", "not slow"], []),
    ("deselect", ["--deselect", "t.py::test_a", "--deselect=t.py::test_b"], []),
    ("lf", ["--lf", "--ff", "--nf", "--sw", "--sw-skip"], []),
    ("-x", ["-x", "--maxfail", "2", "--maxfail=3", "--exitfirst"], []),
    ("cluster with -x", ["-vx", "-rA"], ["-rA"]),
    ("cluster with -k", ["-xkarea", "-W", "error"], ["-W", "error"]),
    # Output, files, interaction.
    ("verbosity", ["-v", "-vv", "-q", "--verbose", "--quiet"], []),
    ("capture", ["-s", "--capture=no", "--capture", "sys"], []),
    ("showlocals", ["-l", "--showlocals"], []),
    ("junit", ["--junitxml", "out.xml", "--junit-xml=o.xml"], []),
    ("pdb", ["--pdb", "--trace", "--pdbcls=IPython.terminal.debugger:Pdb"], []),
    ("basetemp", ["--basetemp", "/tmp/b", "--rootdir=.", "-c", "tox.ini"], []),
    ("collect only", ["--co", "--collect-only"], []),
    # Positional arguments: the child runs the tests caretaker names.
    ("paths", ["tests", "-p", "x", "tests/test_a.py::test_b"], ["-p", "x"]),
    ("after --", ["-p", "x", "--", "-v", "tests"], ["-p", "x"]),
]


@pytest.mark.parametrize(("args", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_kept(consumes: Consumes, args: Sequence[str], expected: list[str]) -> None:
    assert kept(args, consumes) == expected


def test_an_unknown_option_keeps_its_values_as_pytest_reads_them(consumes: Consumes) -> None:
    # Not registered here: pytest would take "3" for a path; so is it dropped as one.
    assert kept(["--not-an-option", "3", "-W", "error"], consumes) == [
        "--not-an-option",
        "-W",
        "error",
    ]


@pytest.mark.parametrize("option", ["--heal-write", "--cov-branch", "--stepwise-reset", "--lf"])
def test_dropped_by_name_or_prefix(option: str) -> None:
    assert dropped(option)


@pytest.mark.parametrize("option", ["--timeout", "-p", "-o", "--import-mode", "--healthy"])
def test_kept_by_name(option: str) -> None:
    assert not dropped(option, ["x"])


def test_every_dropped_group_says_why() -> None:
    assert all(names and reason and reason[0].islower() for names, reason in DROPPED)
