"""The trial server's own decisions: which code object a candidate swaps in, which function objects
it swaps it into, and that it runs without the parent's side of verification."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

from pytest_caretaker.verify.functions import project_functions
from pytest_caretaker.verify.protocol import TrialRequest
from pytest_caretaker.verify.trial_server import function_code

SOURCE = """\
def mean(xs):
    return sum(xs) / len(xs)


class Stats:
    def spread(self, xs):
        return max(xs) - min(xs)


def outer():
    def inner():
        return 1

    return inner
"""


def request(qualname: str, line: int, source: str = SOURCE) -> TrialRequest:
    return TrialRequest(
        tests=[], path="calc.py", qualname=qualname, line=line, source=source, limit=1
    )


@pytest.mark.parametrize(
    ("qualname", "line"),
    [("mean", 1), ("Stats.spread", 6), ("outer", 10), ("outer.<locals>.inner", 11)],
)
def test_the_code_of_the_named_function_is_found(qualname: str, line: int) -> None:
    code = function_code(request(qualname, line), "calc.py")

    assert code is not None
    assert (code.co_name, code.co_firstlineno) == (qualname.rsplit(".", 1)[-1], line)
    assert code.co_filename == "calc.py"  # tracebacks name the file the function lives in


def test_a_function_not_at_that_line_is_not_found() -> None:
    assert function_code(request("mean", 2), "calc.py") is None


@pytest.mark.skipif(sys.version_info < (3, 11), reason="code objects know their qualname from 3.11")
def test_a_function_of_the_same_name_elsewhere_is_not_found() -> None:
    assert function_code(request("spread", 6), "calc.py") is None


def test_a_candidate_that_does_not_compile_raises() -> None:
    with pytest.raises(SyntaxError):
        function_code(request("mean", 1, "def mean(xs):\n    return sum(xs) /\n"), "calc.py")


def test_the_project_functions_are_indexed_by_real_path_qualname_and_line(tmp_path: Path) -> None:
    root = tmp_path.resolve()
    root.joinpath("calc.py").write_text(SOURCE)
    spec = importlib.util.spec_from_file_location("calc_for_trials", root / "calc.py")
    assert spec is not None and spec.loader is not None
    calc = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(calc)

    functions = project_functions(root)

    path = str(root / "calc.py")
    assert functions[(path, "mean", 1)] == [calc.mean]
    assert functions[(path, "Stats.spread", 6)] == [calc.Stats.spread]
    assert all(where == path for where, _, _ in functions)  # nothing from outside the project


def test_the_children_import_nothing_of_the_parent_side() -> None:
    code = (
        "import sys\n"
        "import pytest_caretaker.verify.trial_server, pytest_caretaker.verify.worker\n"
        "print(*sorted(name for name in sys.modules if name.startswith('pytest_caretaker')))\n"
    )

    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)

    assert done.stdout.split() == [
        "pytest_caretaker",
        "pytest_caretaker.project",
        "pytest_caretaker.project.files",
        "pytest_caretaker.syntax",
        "pytest_caretaker.verify",
        "pytest_caretaker.verify.behaviour",
        "pytest_caretaker.verify.channel",
        "pytest_caretaker.verify.derive",
        "pytest_caretaker.verify.functions",
        "pytest_caretaker.verify.landlock",
        "pytest_caretaker.verify.pids",
        "pytest_caretaker.verify.pool",
        "pytest_caretaker.verify.protocol",
        "pytest_caretaker.verify.pytest_private",
        "pytest_caretaker.verify.sandbox",
        "pytest_caretaker.verify.selecting",
        "pytest_caretaker.verify.swap",
        "pytest_caretaker.verify.timer",
        "pytest_caretaker.verify.trial_server",
        "pytest_caretaker.verify.verdict",
        "pytest_caretaker.verify.view",
        "pytest_caretaker.verify.worker",
    ]
