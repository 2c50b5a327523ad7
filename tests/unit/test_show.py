"""What a model may ask to see (#47, item 4): how a name is resolved in the project (show.py),
what is refused, how an answer is cut to its budget and redacted, and how a reply's requests are
read (asking.py). The conversation's rounds are test_model_repairer.py's; the real HTTP path is
tests/e2e/test_show_e2e.py's."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from pytest_caretaker.llm import asking
from pytest_caretaker.llm.client import Reply
from pytest_caretaker.llm.show import Index, Shown, refusal
from pytest_caretaker.project.files import ProjectFiles
from pytest_caretaker.record.redact import Redactor

CALC = """\
from util import parse_header


class Stack:
    def __init__(self):
        self.items = []

    def push(self, item):
        self.items.append(item)


def mean(xs):
    return sum(xs) / len(xs)
"""
UTIL = """\
TOKEN = "tok-9f8e7d6c5b4a39281706"


class Header:
    def __init__(self, line):
        self.line = line


def parse_header(line):
    name, _, value = line.partition(":")
    return name.strip(), value.strip()
"""
#: Another parse_header, in a file the prompt's files do not import: the near one wins.
DEEP = (
    "def parse_header(line):\n    return line\n\n\nclass Queue:\n    def put(self):\n        pass\n"
)
LONG = "def long():\n" + "".join(f"    x{n} = {n}\n" for n in range(100)) + "    return x0\n"
SECRET = "Numbat-Db-Pass-2207"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    (root / "pkg").mkdir(parents=True)
    (root / "calc.py").write_text(CALC)
    (root / "util.py").write_text(UTIL)
    (root / "pkg" / "__init__.py").write_text("")
    (root / "pkg" / "deep.py").write_text(DEEP)
    (root / "pkg" / "long.py").write_text(LONG)
    (root / ".env").write_text(f"DB_PASSWORD={SECRET}\n")
    (root / ".caretaker").mkdir()
    (root / ".caretaker" / "state.py").write_text(f"PASSWORD = {SECRET!r}\n")
    (root / "venv" / "lib").mkdir(parents=True)
    (root / "venv" / "lib" / "site.py").write_text("def installed():\n    pass\n")
    (root / "README.md").write_text("# readme\n")
    (tmp_path / "outside.py").write_text(f"PASSWORD = {SECRET!r}\n")
    os.symlink(".env", root / "settings_local.py")
    return root


def index(root: Path, env: dict[str, str] | None = None) -> Index:
    return Index(ProjectFiles(root), Redactor(env or {}), ["calc.py"])


def show(root: Path, name: str, path: str | None = None, budget: int = 10_000) -> Shown:
    return index(root).answer(name, path, budget)


@pytest.mark.parametrize(
    ("name", "path", "ref"),
    [
        ("parse_header", None, "util.py::parse_header"),  # imported by the prompt's file
        ("Stack.push", None, "calc.py::Stack.push"),
        ("push", None, "calc.py::Stack.push"),  # a method by its own name
        ("Stack", None, "calc.py::Stack"),  # a class, whole
        ("Queue", None, "pkg/deep.py::Queue"),  # found in the rest of the project
        ("parse_header", "pkg/deep.py", "pkg/deep.py::parse_header"),
        ("pkg/deep.py::parse_header", None, "pkg/deep.py::parse_header"),  # as the prompt names
        ("pkg.deep.parse_header", None, "pkg/deep.py::parse_header"),  # dotted, as imported
        ("util.py", None, "util.py"),  # a whole file
        ("pkg.deep", None, "pkg/deep.py"),  # a module
    ],
)
def test_a_name_is_resolved_to_the_definition_it_means(
    project: Path, name: str, path: str | None, ref: str
) -> None:
    shown = show(project, name, path)

    assert shown.outcome == "shown", shown.answer
    assert shown.answer.startswith(f"`{ref}` (")
    assert shown.place is not None and shown.place.ref == ref


def test_the_answer_is_the_source_fenced_with_its_lines(project: Path) -> None:
    shown = show(project, "Stack.push")

    assert shown.answer == (
        "`calc.py::Stack.push` (lines 8–9 of calc.py):\n```python\n"
        "    def push(self, item):\n        self.items.append(item)\n```"
    )
    assert shown.said == "Stack.push (shown)"
    # What a fix may replace next, like a suspect: a definition, not a class or a file.
    kinds = [show(project, name).place for name in ("Stack.push", "Stack", "util.py")]
    assert [place.kind for place in kinds if place is not None] == ["definition", "class", "file"]


def test_an_ambiguous_name_lists_where_it_is_defined(project: Path) -> None:
    shown = show(project, "__init__")

    assert shown.outcome == "ambiguous"
    assert shown.answer == (
        "`__init__` is defined in 2 places: `calc.py::Stack.__init__`, `util.py::Header.__init__`"
        "; ask for one by its file and name (`path::Class.name`)."
    )


@pytest.mark.parametrize(
    ("name", "path", "nearest"),
    [
        ("parse_headers", None, "`util.py::parse_header`"),
        ("Stack.pop", None, "`calc.py::Stack.push`"),
        ("utill.py", None, "`util.py`"),
        ("mean", "pkg/deep.py", ""),
    ],
)
def test_an_unknown_name_gets_the_nearest_candidates(
    project: Path, name: str, path: str | None, nearest: str
) -> None:
    shown = show(project, name, path)

    assert shown.outcome == "not found"
    assert "cannot be shown" in shown.answer and nearest in shown.answer
    assert shown.said.endswith("(not found)")


@pytest.mark.parametrize(
    ("name", "path", "why"),
    [
        (".env", None, "hidden files and folders"),
        ("settings_local.py", None, "hidden files and folders"),  # a link to .env
        (".caretaker/state.py", None, "hidden files and folders"),  # caretaker's own state
        ("../outside.py", None, "outside the project root"),
        ("PASSWORD", "../outside.py", "outside the project root"),
        ("PASSWORD", "/etc/passwd", "outside the project root"),
        ("pkg/../.env", None, "outside the project root"),
        ("venv/lib/site.py", None, "a virtual environment or a build"),
        ("README.md", None, "only the project's Python files"),
    ],
)
def test_show_refuses_what_no_prompt_may_show_and_reads_none_of_it(
    project: Path, name: str, path: str | None, why: str
) -> None:
    shown = show(project, name, path)

    assert shown.outcome == "refused"
    assert why in shown.answer
    assert SECRET not in shown.answer and "DB_PASSWORD" not in shown.answer


def test_outside_the_root_is_refused_however_it_is_reached(project: Path) -> None:
    (project / "pkg" / "away.py").symlink_to(project.parent / "outside.py")

    assert refusal("pkg/away.py", project) == "it lies outside the project root"
    assert refusal("pkg/deep.py", project) is None


def test_a_virtual_environment_is_refused_by_its_marker_whatever_its_name(project: Path) -> None:
    (project / "tools" / "lib").mkdir(parents=True)
    (project / "tools" / "pyvenv.cfg").write_text("home = /usr/bin\n")
    (project / "tools" / "lib" / "x.py").write_text("def x():\n    pass\n")

    assert refusal("tools/lib/x.py", project) == "a virtual environment is not the project's code"


@pytest.mark.parametrize("budget", [600, 100, 0])
def test_an_answer_is_cut_to_its_budget_in_whole_lines_and_says_so(
    project: Path, budget: int
) -> None:
    shown = show(project, "long", budget=budget)

    assert shown.outcome == "cut" and shown.said == "long (shown, cut)"
    assert len(shown.answer) <= max(budget, 0) + 150  # the title and the note
    kept = shown.answer.count("\n    x")
    assert f"Cut to fit the token budget: {kept + (kept > 0)} of 102 lines shown." in shown.answer


def test_what_is_shown_is_redacted(project: Path) -> None:
    shown = index(project, {"SERVICE_TOKEN": "tok-9f8e7d6c5b4a39281706"}).answer(
        "util.py", None, 10_000
    )

    assert shown.outcome == "shown"
    assert "tok-9f8e7d6c5b4a39281706" not in shown.answer
    assert "[redacted #1: value of $SERVICE_TOKEN]" in shown.answer


# -- what a reply asks for -----------------------------------------------------------------------


def test_show_lines_are_read_in_their_usual_dresses() -> None:
    text = "I need more.\n\nSHOW: parse_header\n- SHOW: `Stack.push`\n**SHOW:** pkg/util.py\n"
    text += "show: x.\n"

    assert [r.name for r in asking.explicit(Reply("m", text, (), ()))] == [
        "parse_header",
        "Stack.push",
        "pkg/util.py",
        "x",
    ]


def test_show_calls_are_read_each_with_its_call() -> None:
    arguments = (json.dumps({"name": "Stack.push", "path": "calc.py"}), "{not json", "{}")
    reply = Reply("m", "", (), (), show_arguments=arguments, show_call_ids=("a", "b", "c"))

    first, broken, empty = asking.explicit(reply)

    assert (first.name, first.path, first.call_id, first.error) == (
        "Stack.push",
        "calc.py",
        "a",
        "",
    )
    assert broken.call_id == "b" and broken.error.startswith("the arguments are not valid JSON")
    assert empty.call_id == "c" and empty.error == 'the call needs a "name" string'


def test_a_reply_that_names_what_it_needs_asks_for_what_it_was_not_shown() -> None:
    text = (
        "The bug is not in `mean` but in `parse_header()`, or in Stack.push(item); "
        "print(len(x)) and `self.items` say nothing, and `unknown_thing` is not the project's."
    )
    defined = {"parse_header", "Stack.push", "items"}

    found = asking.named(text, {"mean"}, lambda name: name in defined)

    assert [r.name for r in found] == ["parse_header", "Stack.push"]


def test_the_answers_of_a_round_say_what_the_model_may_do_next() -> None:
    requests = [asking.Request("a", call_id="1"), asking.Request("b", call_id="2")]
    answers = [Shown("a", "shown", "A"), Shown("b", "not found", "B")]

    tool = asking.messages(requests, answers, 2, tools=True)
    last = asking.messages([asking.Request("a")], answers[:1], 0, tools=False)

    assert [(m["role"], m["tool_call_id"]) for m in tool] == [("tool", "1"), ("tool", "2")]
    assert tool[0]["content"] == "A"
    assert tool[1]["content"] == (
        "B\n\nCall `propose_fix` with the fix, or call `show` again (2 more rounds of it before "
        "a fix)."
    )
    assert last == [
        {
            "role": "user",
            "content": "A\n\nThat was the last round of showing code before a fix: reply with "
            "the fix as asked now.",
        }
    ]


def test_more_requests_than_a_round_answers_are_told_to_ask_again(project: Path) -> None:
    requests = [asking.Request("mean")] * (asking.MAX_REQUESTS + 1)

    answers = asking.answer(requests, index(project), 10_000)

    assert [a.outcome for a in answers] == ["shown"] * asking.MAX_REQUESTS + ["not shown"]


def test_a_name_no_project_has_is_answered_short_and_said_on_one_line(project: Path) -> None:
    shown = show(project, "x" * 5_000)
    assert shown.outcome == "not found" and len(shown.answer) < 300
    assert len(shown.said) < 250

    said = Shown("a\nb  c", "not found", "").said
    assert said == "a b c (not found)"
