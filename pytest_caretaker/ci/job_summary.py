"""``caretaker summary``: the last session's results (last-run.json) as Markdown, for a CI job's
summary (GitHub Actions' ``$GITHUB_STEP_SUMMARY``) or a pull request's body: a table of the
problems, then each fix with its explanation and diff."""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pytest_caretaker.text import plural

MARK = {
    "healed": "✅ healed",
    "from cache": "✅ from cache",
    "unsure": "⚠️ unsure",
    "not healed": "❌ not healed",
}
SOURCE = {"pytest": "pytest --heal", "run": "caretaker run", "runtime": "caretaker crashes heal"}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    root = "The project's folder (the nearest one up with pyproject.toml…)"
    parser.add_argument("--root", type=Path, help=root)
    where = "The file to read (default .caretaker/last-run.json of the project)"
    parser.add_argument("--input", type=Path, metavar="PATH", help=where)


def summary_command(args: argparse.Namespace, root: Path) -> int:
    from pytest_caretaker.ci.last_run import read_last_run

    try:
        data = read_last_run(root, args.input)
    except ValueError as error:
        print(f"caretaker: {error}", file=sys.stderr)
        return 1
    sys.stdout.write(markdown(data))
    return 0


def markdown(data: Mapping[str, Any]) -> str:
    """The session as Markdown."""
    totals, problems = data["totals"], data["problems"]
    lines = [f"## caretaker: {headline(totals)}", "", figures(data), ""]
    if problems:
        lines += ["| | Problem | Tests | Repairer | Outcome |", "|---|---|---|---|---|"]
        lines += [row(problem) for problem in problems]
        lines.append("")
    fixes = [problem for problem in problems if problem["diff"]]
    if fixes:
        lines += ["### Fixes", ""]
        for problem in fixes:
            lines += fix(problem)
    if data["notes"]:
        lines += ["### Notes", "", *(f"- {cell(note)}" for note in data["notes"]), ""]
    return "\n".join(lines)


def headline(totals: Mapping[str, Any]) -> str:
    if not totals["problems"]:
        return "nothing to heal"
    unsure = totals.get("problems_unsure", 0)  # absent from files written before it was added
    return (
        f"{totals['problems_healed']} of {plural(totals['problems'], 'problem')} healed"
        + (f", {unsure} unsure" if unsure else "")
        + f" ({totals['tests_healed']} of {plural(totals['tests'], 'failing test')})"
    )


def figures(data: Mapping[str, Any]) -> str:
    totals = data["totals"]
    spent = (
        f"{plural(totals['tokens'], 'token')} · ${totals['cost']:.4f}"
        if totals["tokens"] or totals["cost"]
        else "no tokens spent"
    )
    said = [
        f"{SOURCE.get(data['source'], data['source'])}, {data['mode']}",
        f"models {' → '.join(data['models'])}",
        spent,
        f"{totals['seconds']:.1f} s",
    ]
    if data["patch"]:
        said.append(f"fixes in `{data['patch']}`")
    if data["interrupted"]:
        said.append("**interrupted**")
    return " · ".join(said)


def row(problem: Mapping[str, Any]) -> str:
    tests = problem["tests"]
    more = f" (+{len(tests) - 1} more)" if len(tests) > 1 else ""
    lead = f"{code(tests[0]['id'])}{more}"
    return (
        f"| {MARK.get(problem['outcome'], problem['outcome'])} | {lead} | {len(tests)} | "
        f"{cell(problem['repairer'])} | {outcome(problem)} |"
    )


def outcome(problem: Mapping[str, Any]) -> str:
    """The last cell: the commit of the fix, what became of it, or why it is not healed."""
    commit = problem["commit"]
    if problem["outcome"] == "not healed":
        return cell(problem["reason"])
    if commit is None:
        return "in the patch"
    if commit["sha"]:
        return f"{code(commit['sha'][:7])} {cell(commit['subject'])}"
    return cell(commit["detail"])


def fix(problem: Mapping[str, Any]) -> list[str]:
    """A fix, folded: the problem's first test and the functions patched, then the explanation,
    the other tests it heals and the diff."""
    patched = ", ".join(problem["patched"]) or "the code"
    lines = [
        "<details>",
        f"<summary>{code(problem['tests'][0]['id'])}: patched {cell(patched)}</summary>",
        "",
    ]
    if problem["explanation"]:
        lines += [_inert(problem["explanation"]), ""]
    for notice in problem["notices"]:
        lines += [f"> **The fix {cell(notice)}**", ""]
    lines += _doubt(problem.get("doubt"))
    others = [test["id"] for test in problem["tests"][1:]]
    if others:
        lines += ["Heals too: " + ", ".join(code(other) for other in others), ""]
    fence = "`" * max(3, _longest_backticks(problem["diff"]) + 1)  # longer than any inside
    lines += [f"{fence}diff", problem["diff"].rstrip("\n"), fence, "", "</details>", ""]
    return lines


def _doubt(said: Mapping[str, str] | None) -> list[str]:
    """Why an unsure fix is one: the reason, the input that separates it from the other, and
    the test that would decide."""
    if not said:
        return []
    from pytest_caretaker.report.doubt import because, separating
    from pytest_caretaker.results import Doubt

    doubt = Doubt(**said)
    lines = [f"> ⚠️ **Unsure: the tests cannot tell:** {cell(because(doubt.reason))}"]
    if doubt.call:
        lines += [">", f"> Separating input: {cell(separating(doubt))}"]
    lines.append("")
    if said["test"].strip():
        fence = "`" * max(3, _longest_backticks(said["test"]) + 1)
        lines += [f"{fence}python", said["test"].rstrip("\n"), fence, ""]
    return lines


def cell(text: str) -> str:
    """Text for one line of a Markdown table: no line breaks, pipes escaped, HTML inert."""
    return _inert(" ".join(str(text).split())).replace("|", "\\|")


def code(text: str) -> str:
    """Inline code that holds any text (a test id with backticks or pipes)."""
    flat = " ".join(str(text).split()).replace("|", "\\|")
    ticks = "`" * (_longest_backticks(flat) + 1)
    pad = " " if flat.startswith("`") or flat.endswith("`") else ""
    return f"{ticks}{pad}{flat}{pad}{ticks}"


def _inert(text: str) -> str:
    """text with no HTML in effect (a model's explanation must not close the <details>)."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _longest_backticks(text: str) -> int:
    return max((len(run) for run in re.findall(r"`+", text)), default=0)
