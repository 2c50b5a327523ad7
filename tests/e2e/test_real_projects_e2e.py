"""What real projects broke (#47 item 6): caretaker run on bugs that the developers of real
projects fixed in their histories met what no small example had shown.

- A test that replaced ``subprocess.Popen`` with a fake stopped the heal with "internal error:
  UnsupportedOperation('fileno')": caretaker works in the process that runs the tests, and used
  what the test had patched. Its references are its own now, taken before any test (own.py).
- Failures whose tracebacks run through the project's package were said to be "in test code (no
  code under test ran)": the package's code had run in a thread no trace saw, and the failure
  pytest raised was raised from the package's exception (record/failure.py, verify/swap.py).
- The sandbox broke real imports: a package that reads its version from ``.git`` at import failed
  collection in every proof, and a test that loads CA certificates could not read them. The view
  shows the repository (its config without credentials) and the certificates (verify/policy.py).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import CALC, git

from pytest_caretaker.verify.probe import unavailable

SANDBOX = pytest.mark.skipif(
    unavailable(False) is not None, reason=f"no sandbox here: {unavailable(False)}"
)

#: A fake Popen as a project's test has one: its pipes are in memory, and have no file number.
FAKE_POPEN = """\
import io
from unittest import mock

import pytest

MADE = []


class FakePopen:
    def __init__(self, args, **kwargs):
        MADE.append(args)
        self.args, self.pid, self.returncode = args, 4242, 0
        self.stdin, self.stdout, self.stderr = io.BytesIO(), io.BytesIO(b"ok\\n"), io.BytesIO()

    def communicate(self, *args, **kwargs):
        return b"ok\\n", b""

    def wait(self, timeout=None):
        return 0

    def poll(self):
        return 0

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        return None


@pytest.fixture(scope="session", autouse=True)
def no_real_processes():
    with mock.patch("subprocess.Popen", FakePopen):
        yield


def pytest_unconfigure():
    print("FAKE POPEN MADE:", len(MADE))
"""
#: The failing test runs first: the session's fixture is still in place when its failure is
#: recorded and caretaker starts its verification server.
TEST_CALC_FIRST = """\
import subprocess

from calc import mean, total


def test_mean():
    assert mean([1, 2, 3]) == 2


def test_total():
    assert subprocess.run(["anything"], capture_output=True).stdout == b"ok\\n"
    assert total([1, 2, 3]) == 6
"""


def test_a_session_fixtures_fake_popen_does_not_reach_caretaker(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(calc=CALC, test_calc=TEST_CALC_FIRST)
    pytester.makeconftest(FAKE_POPEN)

    result = pytester.runpytest("--heal", "--heal-model", "builtin")

    result.assert_outcomes(failed=1, passed=1)
    result.stdout.no_fnmatch_line("*internal error*")
    result.stdout.fnmatch_lines(["HEALED test_calc.py::test_mean", "FAKE POPEN MADE: 1"])


#: A test that leaves what caretaker's machinery runs on replaced, as a careless test does.
LEAVES_PATCHES = """\
import os
import select
import shutil
import socket
import subprocess
import tempfile
import time


def refuse(*args, **kwargs):
    raise AssertionError("patched by a test")


def test_leaves_its_patches(pytestconfig):
    for module, names in (
        (subprocess, ["Popen", "run", "check_output"]),
        (os, ["read", "write", "pipe", "fork", "waitpid", "killpg", "kill"]),
        (time, ["monotonic", "sleep", "time", "perf_counter"]),
        (select, ["select", "poll"]),
        (socket, ["socket"]),
        (tempfile, ["mkdtemp", "mkstemp"]),
        (shutil, ["rmtree", "copy2"]),
    ):
        for name in names:
            setattr(module, name, refuse)
"""


def test_patches_a_test_leaves_behind_do_not_reach_the_heal_or_its_commit(
    pytester: pytest.Pytester,
) -> None:
    # The test's patches stay in the run's process until it ends: the heal, git (GitPython
    # starts it with subprocess.Popen) and the summary run beside them. A process of its own:
    # this one goes on after the run.
    pytester.makepyfile(
        calc=CALC,
        test_calc="from calc import mean\n\n\ndef test_mean():\n    assert mean([1, 2, 3]) == 2\n",
        test_leak=LEAVES_PATCHES,
    )
    git(pytester.path, "init", "-q")
    git(pytester.path, "add", "-A")
    git(pytester.path, "commit", "-qm", "start")

    result = pytester.runpytest_subprocess(
        "--heal-write", "--heal-model", "builtin", "-p", "no:cacheprovider", timeout=300
    )

    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.no_fnmatch_line("*internal error*")
    result.stdout.no_fnmatch_line("*INTERNALERROR*")
    result.stdout.fnmatch_lines(
        ["HEALED test_calc.py::test_mean", "  committed * fix: heal test_calc.py::test_mean"]
    )
    assert "return total(xs) / len(xs)" in (pytester.path / "calc.py").read_text()
    assert len(git(pytester.path, "log", "--oneline").splitlines()) == 2


STOCK = """\
def restock(shelf, amounts):
    for amount in amounts:
        if amount < 0:
            raise ValueError(f"cannot restock {amount}")
        shelf.append(amount)
    return shelf


def newest(shelf):
    return shelf[len(shelf)]
"""
#: The package's code runs in a thread; what it raises there, pytest raises again when the test
#: ends as a warning, which the project's ``-W error`` makes the failure (tqdm's tests do).
TEST_STOCK = """\
import threading

from shop.stock import newest, restock


def in_thread(check):
    thread = threading.Thread(target=check)
    thread.start()
    thread.join()


def test_restock():
    def check():
        assert restock([], [1, 2]) == [1, 2]

    in_thread(check)


def test_newest():
    def check():
        assert newest([1, 2, 3]) == 3

    in_thread(check)
"""
PYPROJECT = """\
[build-system]
requires = ["setuptools"]
build-backend = "setuptools.build_meta"

[project]
name = "shop"
version = "0.1"

[tool.setuptools.packages.find]
where = ["{where}"]

[tool.pytest.ini_options]
filterwarnings = ["error"]
{pythonpath}
"""


def shop(root: Path, layout: str) -> Path:
    """A project whose package is shop/ (flat), src/shop/ (src, on pytest's pythonpath) or
    src/shop/ installed in editable mode (editable); its tests in tests/."""
    package = root / ("shop" if layout == "flat" else "src/shop")
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "stock.py").write_text(STOCK)
    (root / "tests").mkdir()
    (root / "tests" / "test_stock.py").write_text(TEST_STOCK)
    where = "." if layout == "flat" else "src"
    pythonpath = {"flat": 'pythonpath = ["."]', "src": 'pythonpath = ["src"]'}.get(layout, "")
    (root / "pyproject.toml").write_text(PYPROJECT.format(where=where, pythonpath=pythonpath))
    return package


def editable_venv(root: Path, folder: Path) -> Path:
    """A virtual environment whose packages are this one's, with root installed in editable
    mode as pip and setuptools install it (a .pth file or an editable finder); its python."""
    pytest.importorskip("setuptools", reason="an editable install is made with setuptools")
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(folder)], check=True)
    python = folder / "bin" / "python"
    purelib = subprocess.run(
        [python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    ours = next(p for p in sys.path if p.endswith("site-packages"))
    Path(purelib, "inherit.pth").write_text(f"import site; site.addsitedir({ours!r})\n")
    install = [python, "-m", "pip", "install", "-q", "--no-deps", "--no-build-isolation"]
    subprocess.run([*install, "--no-index", "-e", str(root)], check=True, capture_output=True)
    return python


@pytest.mark.parametrize("layout", ["flat", "src", "editable"])
def test_a_failure_whose_traceback_runs_through_the_package_is_healed_there(
    tmp_path: Path, layout: str
) -> None:
    # Through the package, in a thread: nothing of the package ran in the test's own thread, and
    # the failure pytest raised is raised from the package's IndexError. On every layout the
    # package's code is the code under test; the built-in repairer heals newest().
    root = tmp_path / "project"
    package = shop(root, layout)
    python = Path(sys.executable)
    if layout == "editable":
        python = editable_venv(root, tmp_path / "venv")
    done = subprocess.run(
        [python, "-m", "pytest", "--heal", "--heal-model", "builtin", "-p", "no:cacheprovider"],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=300,
    )

    assert "FAILED tests/test_stock.py::test_newest" in done.stdout
    assert "no code under test ran" not in done.stdout
    rel = package.relative_to(root).as_posix()
    healed = f"HEALED tests/test_stock.py::test_newest\n  patched {rel}/stock.py::newest\n"
    assert healed in done.stdout


#: A package that reads its version from git when imported, as many _version.py files do: the
#: branch from .git/HEAD, and its remotes from .git/config.
GIT_VERSION = """\
import os

_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _version():
    with open(os.path.join(_ROOT, ".git", "HEAD")) as head:
        branch = head.read().split("/")[-1].strip()
    with open(os.path.join(_ROOT, ".git", "config")) as config:
        remotes = [line for line in config if line.strip().startswith("url")]
    return f"0.1+{branch}.{len(remotes)}"


__version__ = _version()
"""
TOKEN = "ghp_Hq4wL7zN2xR9vT5mK8bC3dF6gJ1sP0aY"


@SANDBOX
def test_a_package_that_reads_its_version_from_git_at_import_heals_in_the_sandbox(
    pytester: pytest.Pytester,
) -> None:
    (pytester.path / "calcpkg").mkdir()
    (pytester.path / "calcpkg" / "__init__.py").write_text(GIT_VERSION)
    (pytester.path / "calcpkg" / "calc.py").write_text(CALC)
    pytester.makepyfile(
        test_calc="from calcpkg import __version__\nfrom calcpkg.calc import mean, total\n\n\n"
        "def test_total():\n    assert __version__.startswith('0.1+main.1')\n"
        "    assert total([1, 2, 3]) == 6\n\n\n"
        "def test_mean():\n    assert mean([1, 2, 3]) == 2\n"
    )
    git(pytester.path, "init", "-q", "-b", "main")
    git(pytester.path, "remote", "add", "origin", f"https://me:{TOKEN}@example.invalid/c.git")
    git(pytester.path, "add", "-A")
    git(pytester.path, "commit", "-qm", "start")

    # In a process of its own: the plain run of a copy without .git that judges every patch of
    # an in-process run here (conftest.py) could not import the package.
    result = pytester.runpytest_subprocess(
        "--heal", "--heal-model", "builtin", "--heal-sandbox", "require", timeout=300
    )

    result.assert_outcomes(failed=1, passed=1)
    result.stdout.fnmatch_lines(
        ["HEALED test_calc.py::test_mean", "  patched calcpkg/calc.py::mean"]
    )
    result.stdout.no_fnmatch_line("*PermissionError*")
    assert TOKEN not in (pytester.path / ".caretaker" / "heal.patch").read_text()


#: Code under test beside which the test makes TLS contexts, as a download library's tests do:
#: the system's store (here SSL_CERT_FILE, a bundle outside the project) and certifi's bundle.
MIRRORS = """\
def mirrors(urls):
    return [url for url in urls if url.startswith("https://")][1:]
"""
TEST_MIRRORS = """\
import ssl

import certifi

from fetch import mirrors


def test_mirrors():
    system = ssl.create_default_context()
    bundled = ssl.create_default_context(cafile=certifi.where())
    assert system.cert_store_stats()["x509_ca"] > 0
    assert bundled.cert_store_stats()["x509_ca"] > 0
    assert mirrors(["https://a", "http://b", "https://c"]) == ["https://a", "https://c"]
"""


@SANDBOX
def test_a_test_that_loads_ca_certificates_passes_in_the_proof(
    pytester: pytest.Pytester, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    certifi = pytest.importorskip("certifi")
    bundle = tmp_path / "certificates" / "authorities.pem"  # the machine's, outside the project
    bundle.parent.mkdir()
    shutil.copy(certifi.where(), bundle)
    monkeypatch.setenv("SSL_CERT_FILE", str(bundle))
    pytester.makepyfile(fetch=MIRRORS, test_fetch=TEST_MIRRORS)

    result = pytester.runpytest("--heal", "--heal-model", "builtin", "--heal-sandbox", "require")

    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        ["HEALED test_fetch.py::test_mirrors", "  patched fetch.py::mirrors"]
    )


#: A neighbour whose parameters are made at collection (marshmallow's `datetime.now()` cases):
#: caretaker's rerun collects it under another id than the session ran.
MADE_AT_COLLECTION = """\
import itertools
import time

import pytest

from calc import mean

COUNT = itertools.count()


def test_mean():
    assert mean([1, 2, 3]) == 2


@pytest.mark.parametrize("stamp", [f"{time.time_ns()}-{next(COUNT)}"])
def test_stamp(stamp):
    assert stamp
"""


def test_a_neighbour_whose_id_changes_between_collections_does_not_stop_the_heal(
    pytester: pytest.Pytester,
) -> None:
    # pytest, given the id the session ran, stopped the traced rerun with "not found", and
    # nothing was known of any test: "its rerun traced nothing (it did not run there)".
    pytester.makepyfile(calc=CALC, test_calc=MADE_AT_COLLECTION)

    # In a subprocess: the suite's check that a patch delivers what the summary says compares
    # tests by id, and this test's id is another in every collection by design.
    result = pytester.runpytest_subprocess("--heal", "--heal-model", "builtin")

    result.assert_outcomes(failed=1, passed=1)
    result.stdout.fnmatch_lines(["HEALED test_calc.py::test_mean"])
    result.stdout.no_fnmatch_line("*not found*")


#: A test no time limit stops (pytest-subtests' cases each catch what stops them, and the test
#: goes on: more-itertools' 9,839-case prime test ran past --heal-timeout).
STUBBORN = """\
import time

from calc import mean


def test_mean():
    assert mean([1, 2, 3]) == 2


def test_stubborn():
    end = time.monotonic() + 6
    while time.monotonic() < end:
        try:
            time.sleep(0.05)
        except BaseException:
            pass
"""


def test_a_neighbour_slower_than_the_heal_timeout_leaves_the_failing_test_to_heal_alone(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(calc=CALC, test_calc=STUBBORN)

    # In a subprocess: the suite's patch-delivery check would rerun the 6 s test twice more.
    result = pytester.runpytest_subprocess(
        "--heal", "--heal-model", "builtin", "--heal-timeout", "3"
    )

    result.stdout.fnmatch_lines(
        [
            "HEALED test_calc.py::test_mean*",
            "caretaker: the other tests of the failing tests' modules did not finish within 3 s*",
        ]
    )
