"""`pytest --heal` end to end: pytester projects, litellm over HTTP to the scripted server."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import threading
from dataclasses import dataclass
from typing import Any

import pytest
from helpers import (
    CALC,
    GOOD_MEAN,
    TEST_CALC,
    TEST_ENV,
    TEXT_MODEL,
    TOOLS_MODEL,
    block,
    heal_args,
    snapshot,
)

from pytest_caretaker.testing import Scripted, ScriptedServer, fault, text, tool_call


@pytest.fixture
def calc(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makepyfile(calc=CALC, test_calc=TEST_CALC)
    return pytester


def git(cwd: object, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=True)
    return done.stdout


def test_flat_module_bug_is_healed_in_memory(calc: pytest.Pytester, llm: ScriptedServer) -> None:
    git(calc.path, "init", "-q")
    before = snapshot(calc.path)
    llm.script(
        tool_call(
            "mean divides by one too many.",
            [
                {"path": "calc.py", "function": "mean", "code": GOOD_MEAN},
            ],
        )
    )

    result = calc.runpytest(*heal_args(llm))

    assert result.ret == 1  # the run tested the code as it was
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(
        [
            f"caretaker: heal (in memory) · model openai/gpt-4o-mini {TEST_ENV} · scope code",
            "HEALED test_calc.py::test_mean",
            "  patched calc.py::mean",
            "  -    return total(xs) / (len(xs) + 1)",
            "  +    return total(xs) / len(xs)",
            "  mean divides by one too many.",
            "  1 attempt · 150 tokens · $0.0000 · * s · openai/gpt-4o-mini",
            "caretaker: 1 healed, 0 not healed · 150 tokens · $0.0000 · "
            "fixes in .caretaker/heal.patch",
        ]
    )
    assert snapshot(calc.path) == before
    status = git(calc.path, "status", "--porcelain", "--untracked-files=all").split()
    assert "calc.py" in status and not [path for path in status if ".caretaker" in path]
    git(calc.path, "apply", "--check", ".caretaker/heal.patch")
    git(calc.path, "apply", ".caretaker/heal.patch")
    calc.runpytest("-p", "no:cacheprovider").assert_outcomes(passed=2)


def test_request_carries_the_test_and_the_called_function(
    calc: pytest.Pytester, llm: ScriptedServer
) -> None:
    llm.script(tool_call("fix", [{"path": "calc.py", "function": "mean", "code": GOOD_MEAN}]))
    calc.runpytest(*heal_args(llm))

    (request,) = llm.requests
    assert request["tools"][0]["function"]["name"] == "propose_fix"
    prompt = request["messages"][1]["content"]
    assert "## calc.py::mean (editable)" in prompt  # found by tracing, not in the traceback
    assert "return total(xs) / (len(xs) + 1)" in prompt
    assert "## test_calc.py::test_mean (read only, test)" in prompt
    assert "assert 1.5 == 2" in prompt


SRC_SHAPES = """\
class Rectangle:
    def __init__(self, width, height):
        self.width = width
        self.height = height

    def area(self):
        return self.width + self.height
"""


MODES = ("lenient", "strict")  # a path entry; a tree of symlinks
TEST_SHAPES = """\
from shapes_{mode} import Rectangle


def test_area():
    assert Rectangle(2, 3).area() == 6


def test_square():
    assert Rectangle(2, 2).area() == 4
"""


@dataclass
class EditableRuns:
    """The two heal runs of a project that installs one package in each editable mode."""

    model: pytest.RunResult
    builtin: pytest.RunResult
    requests: list[dict[str, Any]]
    unchanged: bool


@pytest.fixture(scope="module")
def _editable_runs() -> list[EditableRuns]:
    return []


@pytest.fixture
def editable_runs(
    pytester: pytest.Pytester,
    llm: ScriptedServer,
    tmp_path_factory: pytest.TempPathFactory,
    monkeypatch: pytest.MonkeyPatch,
    _editable_runs: list[EditableRuns],
) -> EditableRuns:
    """One project with a src-layout package per editable mode (shapes_lenient, shapes_strict),
    each installed by pip in its mode, and its two heal runs (the model's, then the built-in
    repairer's): a project and runs of their own per mode cost ~15 s of CPU a mode, half of it
    the model process's import of litellm in the model run. Made by the first test that needs
    them; each mode's test asserts on its own package's lines and requests."""
    if _editable_runs:
        return _editable_runs[0]
    outside = tmp_path_factory.mktemp("editable")
    prefix = outside / "prefix"
    for mode in MODES:
        project = pytester.path / mode
        package = project / "src" / f"shapes_{mode}"
        package.mkdir(parents=True)
        package.joinpath("__init__.py").write_text(SRC_SHAPES)
        project.joinpath("pyproject.toml").write_text(
            f'[project]\nname = "shapes_{mode}"\nversion = "0.1"\n[build-system]\n'
            'requires = ["setuptools>=64"]\nbuild-backend = "setuptools.build_meta"\n'
        )
        pytester.makepyfile(**{f"test_{mode}": TEST_SHAPES.format(mode=mode)})
        subprocess.run(
            [
                sys.executable,
                "-m",
                "pip",
                "install",
                "-q",
                "--no-deps",
                "--no-build-isolation",
                "--prefix",
                str(prefix),
                "--config-settings",
                f"editable_mode={mode}",
                "-e",
                str(project),
            ],
            check=True,
            capture_output=True,
        )
    (site,) = prefix.glob("lib/python*/site-packages")
    hook = outside / "hook"
    hook.mkdir()
    hook.joinpath("sitecustomize.py").write_text(f"import site\nsite.addsitedir({str(site)!r})\n")
    monkeypatch.setenv("PYTHONPATH", str(hook))
    # A wrong fix, then the right one, for each test: the verdicts differ only if the candidate
    # in memory is what the worker imports through the editable install.
    replies = {
        f"test_{mode}.py::test_area": [
            text("```python\ndef area(self):\n    return self.width * self.width\n```"),
            text("```python\ndef area(self):\n    return self.width * self.height\n```"),
        ]
        for mode in MODES
    }
    lock = threading.Lock()

    def respond(body: dict[str, Any]) -> Scripted:
        found = re.match(r"The test `([^`]+)` fails", str(body["messages"][1]["content"]))
        assert found is not None
        with lock:
            return replies[found.group(1)].pop(0)

    llm.responder = respond
    before = snapshot(pytester.path)

    model = pytester.runpytest_subprocess(*heal_args(llm, TEXT_MODEL))

    after = snapshot(pytester.path)
    for capture in ("stdout", "stderr"):  # runpytest_subprocess's own capture files
        after.pop(capture)
    # The built-in repairer heals through the editable install too.
    # --cache-clear: otherwise the model's fix, remembered from the run above, heals it.
    builtin = pytester.runpytest_subprocess("--heal", "--cache-clear")
    _editable_runs.append(EditableRuns(model, builtin, list(llm.requests), after == before))
    return _editable_runs[0]


@pytest.mark.parametrize("mode", MODES)
def test_method_in_editable_src_package(editable_runs: EditableRuns, mode: str) -> None:
    model = editable_runs.model
    assert model.ret == 1
    pytest.LineMatcher(
        block(model.stdout.lines, f"HEALED test_{mode}.py::test_area")
    ).fnmatch_lines(
        [
            f"HEALED test_{mode}.py::test_area",
            f"  patched {mode}/src/shapes_{mode}/__init__.py::Rectangle.area",
            "  2 attempts · *",
        ]
    )
    assert editable_runs.unchanged
    asked = [
        r
        for r in editable_runs.requests
        if r["messages"][1]["content"].startswith(f"The test `test_{mode}.py::test_area` fails")
    ]
    assert len(asked) == 2
    retry = asked[1]["messages"][-1]["content"]
    assert f"test_{mode}.py::test_area still fails" in retry
    assert "assert 4 == 6" in retry  # the worker really ran the first candidate

    # The built-in repairer heals through the editable install too. (Its plausible fix may be
    # `self.width = height` in __init__: these two tests cannot tell it from the real one.)
    healed = block(editable_runs.builtin.stdout.lines, f"HEALED test_{mode}.py::test_area")
    pytest.LineMatcher(healed).fnmatch_lines(
        [
            f"HEALED test_{mode}.py::test_area",
            f"  patched {mode}/src/shapes_{mode}/__init__.py::Rectangle.*",
            "  * tried · no model, no tokens · * s · builtin",
        ]
    )


TEST_BODY_BUG = """\
def test_sum_of_squares():
    total = 0
    for x in [1, 2, 3]:
        total += x * 2
    assert total == 14
"""


def test_bug_in_test_body_needs_scope_tests(pytester: pytest.Pytester, llm: ScriptedServer) -> None:
    pytester.makepyfile(test_body=TEST_BODY_BUG)

    result = pytester.runpytest(*heal_args(llm))

    result.stdout.fnmatch_lines(
        [
            "NOT HEALED test_body.py::test_sum_of_squares: the failure is in test code * "
            "rerun with --heal-scope=tests *",
        ]
    )
    assert llm.requests == []


def test_a_test_that_runs_the_code_in_another_process_is_not_said_to_run_no_code(
    calc: pytest.Pytester,
) -> None:
    calc.makepyfile(
        test_cli=(
            "import subprocess, sys\n\n\n"
            "def test_mean_from_the_command_line():\n"
            "    code = 'import calc; assert calc.mean([1, 2, 3]) == 2'\n"
            "    subprocess.run([sys.executable, '-c', code], check=True)\n"
        )
    )

    result = calc.runpytest("--heal", "--heal-model", "builtin", "test_cli.py")

    result.stdout.fnmatch_lines(
        [
            "NOT HEALED test_cli.py::test_mean_from_the_command_line: no code under test ran in"
            " the test's own process, and the test started another program (`python* -c import"
            " calc; assert calc.mean(*) == 2`), whose code caretaker cannot trace; call the"
            " code under test in the test's process to let caretaker heal it, or if the test is"
            " wrong, rerun with --heal-scope=tests *",
        ]
    )
    assert "no code under test ran in it" not in result.stdout.str()


def test_bug_in_test_body_healed_with_scope_tests(
    pytester: pytest.Pytester, llm: ScriptedServer
) -> None:
    pytester.makepyfile(test_body=TEST_BODY_BUG)
    fixed = TEST_BODY_BUG.replace("x * 2", "x ** 2")
    llm.script(
        tool_call(
            "squares, not doubles",
            [
                {"path": "test_body.py", "function": "test_sum_of_squares", "code": fixed},
            ],
        )
    )

    result = pytester.runpytest(*heal_args(llm, TOOLS_MODEL, "--heal-scope=tests"))

    result.stdout.fnmatch_lines(
        ["HEALED test_body.py::test_sum_of_squares", "*+        total += x ** 2"]
    )
    assert "x * 2" in pytester.path.joinpath("test_body.py").read_text()


REPLY_STYLES = {
    "fenced": f"```python\n{GOOD_MEAN}```",
    "prose and fence": f"The mean divides by n + 1.\n\n```python\n# file: calc.py\n{GOOD_MEAN}```\n"
    "That fixes it.",
    "bare code": GOOD_MEAN,
    "indented bare code": "    def mean(xs):\n        return total(xs) / len(xs)\n",
}


#: Where each style's case lives in the shared run: calc_<n>.py and test_calc_<n>.py.
STYLE_NUMBERS = {style: number for number, style in enumerate(REPLY_STYLES)}


@pytest.fixture(scope="module")
def _styles_run() -> dict[str, tuple[list[str], list[dict[str, Any]]]]:
    return {}


@pytest.fixture
def styles_run(
    pytester: pytest.Pytester,
    llm: ScriptedServer,
    _styles_run: dict[str, tuple[list[str], list[dict[str, Any]]]],
) -> tuple[list[str], list[dict[str, Any]]]:
    """One heal run for every reply style (each style a `pytest --heal` of its own cost ~2 s of
    CPU, nearly all of it the same run's start, verification server and patch check): style n's
    project is calc_<n>.py and test_calc_<n>.py, and the model answers each request with the
    reply of the style whose test it names. Made by the first test that needs it, in its
    pytester (its patch is judged at that test's end); its output and requests are kept."""
    if not _styles_run:
        for number in STYLE_NUMBERS.values():
            test = TEST_CALC.replace("from calc import", f"from calc_{number} import")
            pytester.makepyfile(**{f"calc_{number}": CALC, f"test_calc_{number}": test})
        # A reply that names its file (`# file: calc.py`) names the style's own.
        replies = {
            f"test_calc_{n}.py::test_mean": text(REPLY_STYLES[s].replace("calc.py", f"calc_{n}.py"))
            for s, n in STYLE_NUMBERS.items()
        }

        def respond(body: dict[str, Any]) -> Scripted:
            found = re.match(r"The test `([^`]+)` fails", str(body["messages"][1]["content"]))
            assert found is not None
            return replies[found.group(1)]

        llm.responder = respond
        result = pytester.runpytest(*heal_args(llm, TEXT_MODEL))
        _styles_run["run"] = (result.stdout.lines, list(llm.requests))
    return _styles_run["run"]


@pytest.mark.parametrize("style", REPLY_STYLES, ids=REPLY_STYLES.keys())
def test_text_reply_styles_heal(
    styles_run: tuple[list[str], list[dict[str, Any]]], style: str
) -> None:
    lines, requests = styles_run
    nodeid = f"test_calc_{STYLE_NUMBERS[style]}.py::test_mean"
    healed = block(lines, f"HEALED {nodeid}")
    pytest.LineMatcher(healed).fnmatch_lines([f"HEALED {nodeid}", "  1 attempt · *"])
    request = next(
        r for r in requests if f"The test `{nodeid}` fails" in r["messages"][1]["content"]
    )
    assert "tools" not in request
    assert "```python" in request["messages"][0]["content"]  # the text format is asked for


def test_text_reply_to_a_tool_model_is_parsed(calc: pytest.Pytester, llm: ScriptedServer) -> None:
    llm.script(text(f"Here is the fix:\n```python\n{GOOD_MEAN}```"))

    result = calc.runpytest(*heal_args(llm, TOOLS_MODEL))

    result.stdout.fnmatch_lines(["HEALED test_calc.py::test_mean"])
    assert "tools" in llm.requests[0]


def test_unparseable_reply_then_good_one(calc: pytest.Pytester, llm: ScriptedServer) -> None:
    llm.script(
        text("I think the problem is in the mean function, but I am not sure."),
        text(f"```python\n{GOOD_MEAN}```"),
    )

    result = calc.runpytest(*heal_args(llm, TEXT_MODEL))

    result.stdout.fnmatch_lines(["HEALED test_calc.py::test_mean", "  2 attempts · 300 tokens *"])
    second = llm.requests[1]["messages"]
    assert second[-2] == {
        "role": "assistant",
        "content": "I think the problem is in the mean function, but I am not sure.",
    }
    assert "That fix (attempt 1) was rejected: model output did not parse" in second[-1]["content"]


def test_rejected_tool_call_is_answered_with_a_tool_message(
    calc: pytest.Pytester, llm: ScriptedServer
) -> None:
    llm.script(
        tool_call(
            "oops", [{"path": "calc.py", "function": "mean", "code": "def mean(xs):\n  return (\n"}]
        ),
        tool_call("fix", [{"path": "calc.py", "function": "mean", "code": GOOD_MEAN}]),
    )

    result = calc.runpytest(*heal_args(llm))

    result.stdout.fnmatch_lines(["HEALED test_calc.py::test_mean", "  2 attempts *"])
    assistant, answer = llm.requests[1]["messages"][-2:]
    assert assistant["tool_calls"][0]["id"] == "call_1"
    assert answer["role"] == "tool" and answer["tool_call_id"] == "call_1"
    assert "The code does not parse" in answer["content"]


def test_fix_that_breaks_a_neighbour_is_rejected(
    calc: pytest.Pytester, llm: ScriptedServer
) -> None:
    breaks_total = "def total(xs):\n    return 2 * sum(xs) - sum(xs) + 1\n"  # total([1,2,3]) == 7
    # Passes test_mean on its own sum (a bare `return 2` is refused as a special case first).
    cheat = "def mean(xs):\n    return sum(xs) / len(xs)\n"
    llm.script(
        *[
            tool_call(
                "t",
                [
                    {"path": "calc.py", "function": "total", "code": breaks_total},
                    {"path": "calc.py", "function": "mean", "code": cheat},
                ],
            )
        ]
        * 3
    )

    result = calc.runpytest(*heal_args(llm))

    result.stdout.fnmatch_lines(
        [
            "NOT HEALED test_calc.py::test_mean: fix broke test_calc.py::test_total",
            "caretaker: 0 healed, 1 not healed · 450 tokens · *",
        ]
    )
    assert len(llm.requests) == 3
    assert "fix broke test_calc.py::test_total" in llm.requests[1]["messages"][-1]["content"]
    assert not calc.path.joinpath(".caretaker", "heal.patch").exists()


def test_model_error_is_one_line_and_status_unchanged(
    calc: pytest.Pytester, llm: ScriptedServer
) -> None:
    llm.responder = lambda body: text(
        "",
        status=400,
        body=json.dumps(
            {"error": {"message": "model overloaded", "type": "invalid_request_error"}}
        ).encode(),
    )

    result = calc.runpytest(*heal_args(llm))

    assert result.ret == 1
    result.stdout.fnmatch_lines(["NOT HEALED test_calc.py::test_mean: model error: *"])
    result.stdout.no_fnmatch_line("*INTERNALERROR*")
    result.stdout.no_fnmatch_line("*Traceback*")


def test_no_model_configured_uses_the_builtin_repairer(calc: pytest.Pytester) -> None:
    plain = calc.runpytest("-p", "no:caretaker")
    probe = calc.makeconftest("""
        import sys
        def pytest_unconfigure():
            heavy = sorted(m for m in ("litellm", "libcst", "git") if m in sys.modules)
            print("HEAVY:", heavy)
    """)

    result = calc.runpytest_subprocess("--heal", timeout=60)

    assert result.ret == plain.ret == 1
    result.stdout.fnmatch_lines(
        [
            "caretaker: heal (in memory) · model builtin · scope code",
            "HEALED test_calc.py::test_mean",
            "caretaker: 1 healed, 0 not healed · no tokens spent · fixes in .caretaker/heal.patch",
            "HEAVY: ['libcst']",  # nothing was asked of any model: litellm was never imported
        ]
    )
    assert probe.exists()


def test_a_model_is_asked_from_a_process_of_its_own_which_ends_with_the_session(
    calc: pytest.Pytester, llm: ScriptedServer
) -> None:
    # litellm's import and first request (seconds) happen in the model process, on another core,
    # while the run goes on; the run's own process never imports it, and leaves nothing behind.
    edit = {"path": "calc.py", "function": "mean", "code": GOOD_MEAN}
    llm.script(tool_call("off by one", [edit]))
    calc.makeconftest("""
        import os, sys
        def pytest_unconfigure():
            me = os.getpid()
            children = open(f"/proc/{me}/task/{me}/children").read().split()
            print("LITELLM HERE:", "litellm" in sys.modules, "CHILDREN:", children)
    """)

    result = calc.runpytest_subprocess(*heal_args(llm), timeout=120)

    result.stdout.fnmatch_lines(
        [
            "HEALED test_calc.py::test_mean",
            "caretaker: 1 healed, 0 not healed · * tokens · * · fixes in .caretaker/heal.patch",
            "LITELLM HERE: False CHILDREN: []",
        ]
    )
    assert len(llm.requests) == 1


def test_passing_run_does_no_work(calc: pytest.Pytester, llm: ScriptedServer) -> None:
    calc.makepyfile(
        test_calc="from calc import total\ndef test_total():\n    assert total([1]) == 1\n"
    )

    result = calc.runpytest(*heal_args(llm))

    assert result.ret == 0
    assert llm.requests == []
    result.stdout.no_fnmatch_line("*caretaker: 0 healed*")


def test_second_model_heals_when_the_first_fails(
    calc: pytest.Pytester, llm: ScriptedServer
) -> None:
    def respond(body: dict[str, object]) -> Scripted:
        if body["model"] == "gpt-4o-mini":
            return fault(400)
        return text(f"```python\n{GOOD_MEAN}```", prompt_tokens=40, completion_tokens=2)

    llm.responder = respond

    result = calc.runpytest(*heal_args(llm), "--heal-model", TEXT_MODEL)

    result.stdout.fnmatch_lines(
        [
            "caretaker: heal (in memory) · models openai/gpt-4o-mini → * · scope code",
            "HEALED test_calc.py::test_mean",
            f"  1 attempt · 42 tokens · * · {TEXT_MODEL}",
        ]
    )
    assert [request["model"] for request in llm.requests] == ["gpt-4o-mini", TEXT_MODEL[7:]]


@pytest.mark.parametrize(("flags", "shown"), [((), True), (("-q",), False)])
def test_progress_line_per_failure_quiet_under_q(
    calc: pytest.Pytester, llm: ScriptedServer, flags: tuple[str, ...], shown: bool
) -> None:
    llm.script(tool_call("fix", [{"path": "calc.py", "function": "mean", "code": GOOD_MEAN}]))

    result = calc.runpytest(*heal_args(llm), *flags)

    result.stdout.fnmatch_lines(["HEALED test_calc.py::test_mean*"])  # -q: "… → calc.py::mean"
    progress = "healing 1/1 test_calc.py::test_mean …"
    assert (progress in result.stdout.lines) is shown


def test_ctrl_c_while_waiting_for_the_model_stops_cleanly(
    calc: pytest.Pytester, llm: ScriptedServer
) -> None:
    def interrupt(body: dict[str, object]) -> Scripted:
        os.kill(os.getpid(), signal.SIGINT)  # the in-process run is waiting for this reply
        return text(f"```python\n{GOOD_MEAN}```")

    llm.responder = interrupt
    before = snapshot(calc.path)

    result = calc.runpytest(*heal_args(llm))

    assert result.ret == 1  # the run's own outcome
    result.stdout.fnmatch_lines(["caretaker: healing interrupted; 0 of 1 failures were done"])
    result.stdout.no_fnmatch_line("*Traceback*")
    result.stdout.no_fnmatch_line("*KeyboardInterrupt*")
    assert snapshot(calc.path) == before


def test_importlib_import_mode(calc: pytest.Pytester, llm: ScriptedServer) -> None:
    calc.makeini("[pytest]\npythonpath = .\naddopts = --import-mode=importlib\n")
    wrong = "def mean(xs):\n    return total(xs) / (len(xs) - 1)\n"
    llm.script(
        tool_call("w", [{"path": "calc.py", "function": "mean", "code": wrong}]),
        tool_call("fix", [{"path": "calc.py", "function": "mean", "code": GOOD_MEAN}]),
    )

    result = calc.runpytest(*heal_args(llm))

    result.stdout.fnmatch_lines(["HEALED test_calc.py::test_mean", "  2 attempts · *"])
    assert "assert 3.0 == 2" in llm.requests[1]["messages"][-1]["content"]


def test_a_bare_method_reply_binds_to_a_method_not_a_function_of_that_name(
    pytester: pytest.Pytester, llm: ScriptedServer
) -> None:
    # The exception is raised in the module-level findall (ranked first), the bug is in the
    # method that calls it; the model answers a bare `def findall(self, ...)`.
    pytester.makepyfile(
        words="def findall(text, word):\n"
        "    return [i for i in range(len(text)) if text[i] == word]\n"
        "\n\nclass Finder:\n    def __init__(self, text):\n        self.text = text\n\n"
        "    def findall(self, word):\n        return findall(self.text.split(), word)[5]\n",
        test_words="from words import Finder, findall\n\n\n"
        "def test_findall():\n    assert Finder('a b a').findall('a') == [0, 2]\n\n\n"
        "def test_function():\n    assert findall(['x', 'y'], 'y') == [1]\n",
    )
    method = "def findall(self, word):\n    return findall(self.text.split(), word)\n"
    llm.script(tool_call("the index picks one item", [{"code": method}]))

    result = pytester.runpytest(*heal_args(llm), "-p", "no:cacheprovider")

    result.stdout.fnmatch_lines(
        ["HEALED test_words.py::test_findall", "  patched words.py::Finder.findall"]
    )
