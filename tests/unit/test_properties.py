"""Property tests: the reply parser never raises, and the libcst applier touches only its target."""

from __future__ import annotations

import ast
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from textwrap import dedent

import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st

from pytest_caretaker.apply.rewrite import apply_edits
from pytest_caretaker.llm.parse import parse_reply
from pytest_caretaker.project.files import ProjectFiles, SourceFile
from pytest_caretaker.project.localize import Suspect
from pytest_caretaker.results import Edit, FileChange, Proposal, Unparsed

# -- parse_reply ------------------------------------------------------------------------------

CALC = dedent(
    '''\
    """A small calculator."""

    import math


    def mean(xs):
        return sum(xs) / (len(xs) + 1)


    def total(xs):
        return sum(xs)


    @staticmethod
    def scaled(xs, k=2):
        # scale every item
        return [x * k for x in xs]


    class Stack:
        def __init__(self):
            self.items = []

        def push(self, x):
            self.items.insert(0, x)

        def pop(self):
            return self.items.pop()
    '''
)
STATS = "def mean(xs):\n    return 0\n\n\ndef spread(xs):\n    return max(xs) - min(xs)\n"
TEST_CALC = "from calc import mean\n\n\ndef test_mean():\n    assert mean([1, 2, 3]) == 2\n"

SUSPECTS = (
    Suspect("test_calc.py", "test_mean", is_test=True, score=1.0),
    Suspect("calc.py", "mean", is_test=False, score=1.0),
    Suspect("calc.py", "Stack.pop", is_test=False, score=0.8),
    Suspect("stats.py", "spread", is_test=False, score=0.5),
)
PATHS = ("calc.py", "stats.py", "test_calc.py", "missing.py", "./calc.py", "../calc.py", "")
NAMES = ("mean", "total", "scaled", "push", "pop", "Stack.push", "spread", "_helper", "nope")


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("project")
    (root / "calc.py").write_text(CALC)
    (root / "stats.py").write_text(STATS)
    (root / "test_calc.py").write_text(TEST_CALC)
    (root / "pkg").mkdir()  # a directory where a file may be asked for
    return root


def editable(suspect: Suspect) -> bool:
    return not suspect.is_test


def parse(root: Path, text: str, tool_arguments: list[str]) -> Proposal | Unparsed:
    files: Callable[[str], SourceFile | None] = ProjectFiles(root).get  # fresh: nothing cached
    return parse_reply(text, tool_arguments, SUSPECTS, editable, files)


def check_given(result: object) -> None:
    """check, counting the outcomes (--hypothesis-show-statistics shows them)."""
    event(type(result).__name__)
    check(result)


def check(result: object) -> None:
    assert isinstance(result, (Proposal, Unparsed)), result
    if isinstance(result, Unparsed):
        assert isinstance(result.reason, str)
        assert result.reason.strip()
        return
    assert result.edits
    assert any(edit.kind == "replace" for edit in result.edits)
    assert len(result.explanation) <= 1_000
    for edit in result.edits:
        assert edit.kind in ("replace", "helper", "import")
        assert edit.source.endswith("\n") or edit.kind == "import"


SNIPPETS = st.builds(
    "def {}({}):\n{}    return {}\n".format,
    st.sampled_from(["mean", "total", "push", "pop", "_helper", "spread", "unknown"]),
    st.sampled_from(["", "xs", "self, x", "*args, **kw"]),
    st.sampled_from(
        ["", "    # a comment\n", "    '''Doc.'''\n", "    if not xs:\n        return 0\n"]
    ),
    st.sampled_from(["sum(xs) / len(xs)", "_helper(xs)", "None", "(", "self.items.pop(0)"]),
)
FRAGMENTS = st.sampled_from(
    [
        "```",
        "```python\n",
        "```py\n",
        "```console\n",
        "```Python title=calc.py\n",
        "def f(",
        "def mean(xs):\n",
        "async def total(xs):\n",
        "    return sum(xs) / len(xs)\n",
        "return 1\n",
        "pass\n",
        "class",
        "class Stack:\n",
        "    def push(self, x):\n",
        "        self.items.append(x)\n",
        "import x\n",
        "import math\n",
        "from os import path\n",
        "# file: calc.py\n",
        "# path: stats.py\n",
        "# file: missing.py\n",
        "# file: ../../etc/passwd.py\n",
        "@",
        "@decorator\n",
        "\x00",
        "\r\n",
        "\n",
        "\n\n",
        "    ",
        "\t",
        '"""',
        "'''",
        "(",
        ")",
        ":",
        "é☃🐍",
        "\ufeff",
        "lambda: 0",
        "Here is the fix:\n",
    ]
)
REPLIES = st.builds(
    "{}```{}\n{}{}```{}".format,
    st.sampled_from(["", "The divisor is off by one.\n\n", "Fix:\r\n"]),
    st.sampled_from(["python", "py", "", "console"]),
    st.sampled_from(["", "# file: calc.py\n", "# path: stats.py\n", "import statistics\n\n"]),
    st.lists(SNIPPETS, min_size=1, max_size=3).map("\n\n".join),
    st.sampled_from(["", "\nThat fixes it.", "\n```python\nreturn 0\n```"]),
)
TEXTS = st.one_of(
    st.text(),
    st.lists(st.one_of(FRAGMENTS, SNIPPETS, st.text(max_size=12)), max_size=14).map("".join),
    REPLIES,
    REPLIES.map(lambda text: text.replace("\n", "\r\n")),
)


def _no_str(value: object) -> bool:
    return not isinstance(value, str)


JSONISH = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=15,
)
EDIT_ITEMS = st.one_of(
    st.fixed_dictionaries(
        {},
        optional={
            "path": st.one_of(
                st.sampled_from(PATHS), st.text(max_size=30), JSONISH.filter(_no_str)
            ),
            "function": st.one_of(st.sampled_from(NAMES), st.text(max_size=20), JSONISH),
            "code": st.one_of(TEXTS, SNIPPETS, JSONISH),
        },
    ),
    JSONISH,
)


TOOL_CALLS = st.fixed_dictionaries(
    {"edits": st.one_of(st.lists(EDIT_ITEMS, max_size=4), JSONISH)},
    optional={"explanation": JSONISH},
).map(json.dumps)
TOOL_ARGUMENTS = st.lists(
    st.one_of(st.text(), JSONISH.map(json.dumps), TOOL_CALLS), min_size=1, max_size=3
)


@settings(max_examples=300, deadline=None)
@given(text=TEXTS)
def test_text_reply_never_raises(project: Path, text: str) -> None:
    check_given(parse(project, text, []))


@settings(max_examples=250, deadline=None)
@given(text=TEXTS, tool_arguments=TOOL_ARGUMENTS)
def test_tool_arguments_never_raise(project: Path, text: str, tool_arguments: list[str]) -> None:
    check_given(parse(project, text, tool_arguments))


@settings(max_examples=150, deadline=None)
@given(
    path=st.one_of(st.sampled_from(PATHS), st.text(max_size=30)),
    function=st.one_of(st.sampled_from(NAMES), st.text(max_size=20)),
    code=st.one_of(SNIPPETS, TEXTS),
)
def test_well_formed_tool_call_never_raises(
    project: Path, path: str, function: str, code: str
) -> None:
    arguments = json.dumps({"edits": [{"path": path, "function": function, "code": code}]})
    check_given(parse(project, "", [arguments]))


@pytest.mark.parametrize(
    "path",
    ["calc\x00.py", "\ud800.py", "/etc/calc.py", "../calc.py", "pkg", ""],
    ids=["nul", "surrogate", "absolute", "parent", "directory", "empty"],
)
@pytest.mark.parametrize(
    "code", ["return 1", "def f():\n    return 1\n", "def mean(xs):\n    pass"]
)
def test_tool_call_path_that_is_no_project_file_never_raises(
    project: Path, path: str, code: str
) -> None:
    arguments = json.dumps({"edits": [{"path": path, "function": "f", "code": code}]})
    check(parse(project, "", [arguments]))


DEEP = 100_000


@pytest.mark.parametrize(
    ("text", "tool_arguments"),
    [
        pytest.param("", ["[" * DEEP + "]" * DEEP], id="json-arrays"),
        pytest.param("", ['{"edits": ' + "[" * DEEP + "]" * DEEP + "}"], id="json-edits"),
        pytest.param(
            "```python\ndef mean(xs):\n    return " + "-" * DEEP + "1\n```", [], id="ast-unary"
        ),
        pytest.param("```python\nreturn " + "-" * 1_000 + "1\n```", [], id="libcst-body"),
    ],
)
def test_deeply_nested_reply_is_unparsed(
    project: Path, text: str, tool_arguments: list[str]
) -> None:
    check(parse(project, text, tool_arguments))


# -- apply_edits ------------------------------------------------------------------------------

FUNCTION_NAMES = ("alpha", "beta", "gamma", "delta", "epsilon", "zeta")
DECORATORS = ("@decorator", "@functools.cache", "@wrap(1, key='k')", "@a.b.c")
ARITHMETIC = st.sampled_from(
    [
        f"{left} {operator} {right}"
        for left in ("x", "y", "1", "2.5", "(x - 1)")
        for operator in ("+", "-", "*", "/", "//", "%", "**")
        for right in ("x", "y", "3", "(y + 2)")
    ]
)


@st.composite
def statements(draw: st.DrawFn, depth: int = 0) -> list[str]:
    """Lines (unindented, relative) of one statement or comment."""
    kind = draw(st.sampled_from(["return", "assign", "comment", "if"] if depth < 2 else ["assign"]))
    if kind == "return":
        return [f"return {draw(ARITHMETIC)}"]
    if kind == "assign":
        return [f"{draw(st.sampled_from(['x', 'y', 'z']))} = {draw(ARITHMETIC)}"]
    if kind == "comment":
        return [f"# {draw(st.sampled_from(['note', 'TODO: later', 'é ☃']))}", "pass"]
    lines = [f"if x > {draw(st.integers(0, 9))}:"]
    lines += ["    " + line for line in draw(block(depth + 1))]
    if draw(st.booleans()):
        lines.append("else:")
        lines += ["    " + line for line in draw(block(depth + 1))]
    return lines


@st.composite
def block(draw: st.DrawFn, depth: int = 0) -> list[str]:
    """A statement list ending in a statement (never a comment or a blank line)."""
    lines: list[str] = []
    for index, statement in enumerate(draw(st.lists(statements(depth), min_size=1, max_size=3))):
        if index and draw(st.integers(0, 3)) == 0:
            lines.append("")
        lines += statement
    return lines


@st.composite
def functions(draw: st.DrawFn, name: str, marker: str = "") -> list[str]:
    lines = list(draw(st.lists(st.sampled_from(DECORATORS), max_size=2, unique=True)))
    prefix = "async def" if draw(st.integers(0, 5)) == 0 else "def"
    args = draw(st.sampled_from(["x", "x, y=2", "x, *, y=0", "x: int, y: int = 1"]))
    returns = draw(st.sampled_from(["", " -> int", " -> float"]))
    header_comment = draw(st.sampled_from(["", "  # header"]))
    lines.append(f"{prefix} {name}({args}){returns}:{header_comment}")
    body: list[str] = []
    if draw(st.booleans()):
        # A string literal keeps its own newlines (\n) whatever the file's style, so only the
        # original functions hold one that spans lines.
        docstrings = ['"""Docstring."""'] + ([] if marker else ["'''Two\n\nlines.'''"])
        body.append(draw(st.sampled_from(docstrings)))
    if marker:
        body.append(f"marker = {marker!r}")
    if draw(st.integers(0, 4)) == 0:
        body += ["def inner(z):", "    return z * 2"]
    body += draw(block())
    lines += ["    " + line if line else "" for text in body for line in text.split("\n")]
    return lines


@st.composite
def classes(draw: st.DrawFn) -> list[str]:
    lines = ["class Box:", '    """A class whose methods share names with the functions."""']
    for name in draw(
        st.lists(st.sampled_from(FUNCTION_NAMES), min_size=1, max_size=2, unique=True)
    ):
        lines.append("")
        lines += ["    " + line for line in draw(functions(name))]
    return [line if line.strip() else "" for line in lines]


@st.composite
def separators(draw: st.DrawFn) -> list[str]:
    """Blank lines and column-0 comments between two top-level statements."""
    return draw(
        st.lists(st.sampled_from(["", "", "# section", "#", "# -- é --"]), min_size=0, max_size=4)
    )


@dataclass(frozen=True)
class Module:
    data: bytes
    newline: str
    target: str
    new_source: str
    new_has_decorators: bool


@st.composite
def modules(draw: st.DrawFn) -> Module:
    lines: list[str] = []
    if draw(st.booleans()):
        lines += ['"""Module docstring."""', ""]
    if draw(st.booleans()):
        lines += ["import functools", "from os import path", ""]
    names = draw(st.lists(st.sampled_from(FUNCTION_NAMES), min_size=1, max_size=4, unique=True))
    items: list[list[str]] = [draw(functions(name)) for name in names]
    if draw(st.booleans()):
        items.insert(draw(st.integers(0, len(items))), draw(classes()))
    if draw(st.booleans()):
        items.append(['if __name__ == "__main__":', f"    print({names[0]}(1))"])
    for index, item in enumerate(items):
        if index:
            lines += draw(separators())
        lines += item
    lines += draw(separators())
    newline = draw(st.sampled_from(["\n", "\r\n"]))
    text = newline.join(lines)
    if draw(st.integers(0, 5)):  # mostly, a final newline
        text += newline
    target = draw(st.sampled_from(names))
    new_lines = draw(functions(target, marker="replaced"))
    new_source = "\n".join(new_lines) + "\n"
    return Module(text.encode("utf-8"), newline, target, new_source, new_lines[0].startswith("@"))


def span(data: bytes, name: str) -> tuple[int, int, int]:
    """First line (decorators included), def line and last line of top-level function name."""
    for node in ast.parse(data).body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == name:
            start = min([node.lineno] + [d.lineno for d in node.decorator_list])
            assert node.end_lineno is not None
            return start, node.lineno, node.end_lineno
    raise AssertionError(f"no function {name}")


@settings(max_examples=150, deadline=None)
@given(module=modules())
def test_replacing_a_top_level_function_keeps_every_other_byte(module: Module) -> None:
    edit = Edit("replace", "m.py", module.target, module.new_source)

    result = apply_edits("m.py", module.data, [edit])

    assert isinstance(result, FileChange), result
    assert result.before == module.data
    ast.parse(result.after)
    before = module.data.splitlines(keepends=True)
    after = result.after.splitlines(keepends=True)
    start, def_line, end = span(module.data, module.target)
    assert after[: start - 1] == before[: start - 1]
    tail = before[end:]
    assert after[len(after) - len(tail) :] == tail
    # In between: the new definition (under the old decorators when it brings none of its own).
    middle = b"".join(after[start - 1 : len(after) - len(tail)]).decode("utf-8")
    kept = (
        ""
        if module.new_has_decorators
        else "".join(line.decode("utf-8") for line in before[start - 1 : def_line - 1])
    )
    expected = (kept.replace(module.newline, "\n") + module.new_source).replace(
        "\n", module.newline
    )
    if not tail and not module.data.endswith(module.newline.encode()):
        expected = expected.removesuffix(module.newline)  # the file had no final newline
    assert middle == expected
    assert module.new_source.replace("\n", module.newline).rstrip() in result.after.decode()
    # The newline style holds throughout, the new lines included.
    if module.newline == "\n":
        assert b"\r" not in result.after
    else:
        assert result.after.count(b"\n") == result.after.count(b"\r\n")


@pytest.mark.parametrize("newline", ["\n", "\r\n"], ids=["lf", "crlf"])
def test_whitespace_only_line_after_the_replaced_function_is_kept(newline: str) -> None:
    before = "def f():\n    return 1\n\n    \n\ndef g():\n    return 2\n".replace("\n", newline)

    result = apply_edits(
        "m.py", before.encode(), [Edit("replace", "m.py", "f", "def f():\n    return 0\n")]
    )

    assert isinstance(result, FileChange), result
    assert result.after == before.replace("return 1", "return 0").encode()
