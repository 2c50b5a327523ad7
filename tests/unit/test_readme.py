"""The README stays the short version (#32 item 5): under 250 lines, its quick start the one that
.ci/run runs, and every link it has into the repository — the docs pages above all — pointing at
a file that exists, and at a heading of that page when it names one. The docs site's own links
are checked by `mkdocs build --strict` in .ci/run; the outputs both show, by
tests/e2e/test_terminal_e2e.py."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
PAGES = ROOT / "docs" / "pages"
#: A Markdown link or image: the target, up to its closing parenthesis.
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")


def readme() -> str:
    return README.read_text(encoding="utf-8")


def local_links() -> list[str]:
    """The README's links into the repository (not to a web address)."""
    return [target for target in LINK.findall(readme()) if not re.match(r"[a-z]+:", target)]


def slug(heading: str) -> str:
    """A heading's anchor as GitHub makes it, where the README is read."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def anchors(page: Path) -> set[str]:
    text = re.sub(r"```.*?```", "", page.read_text(encoding="utf-8"), flags=re.S)
    return {slug(heading) for heading in re.findall(r"^#+ (.+)$", text, re.M)}


def test_the_readme_is_the_short_version() -> None:
    lines = readme().splitlines()

    assert len(lines) < 250, f"README.md has {len(lines)} lines; move the detail into docs/pages"


def test_the_readme_links_into_the_docs_and_every_page_is_linked() -> None:
    linked = {
        (ROOT / target.split("#")[0]).resolve()
        for target in local_links()
        if target.startswith("docs/")
    }

    assert linked >= {page.resolve() for page in PAGES.glob("*.md")}


@pytest.mark.parametrize("target", local_links())
def test_each_link_of_the_readme_leads_somewhere(target: str) -> None:
    path, _, anchor = target.partition("#")

    assert (ROOT / path).is_file(), f"README.md links {target}, which is not a file"
    if anchor:
        assert anchor in anchors(ROOT / path), f"README.md links {target}: no such heading"


def test_the_quick_start_is_what_ci_runs() -> None:
    text = readme()
    start = text.index("## Quick start")
    commands = re.search(r"```bash\n(.*?)```", text[start:], re.S)
    assert commands is not None
    shown = [line.split("  #")[0].strip() for line in commands.group(1).splitlines()]
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")

    assert shown == [
        "python -m venv .venv && . .venv/bin/activate && pip install -e .",
        "pytest examples/quickstart --heal",
        'pip install -e ".[test]" && python -m pytest -n auto --dist worksteal',
    ]
    assert "python -m pip install --quiet -e .\n" in ci
    assert "\npytest examples/quickstart --heal -p no:cacheprovider" in ci
    assert "\npython -m pytest -n auto --dist worksteal -p no:cacheprovider" in ci
    # What .ci/run looks for in the quick start's output is what the README shows.
    output = text[text.index("$ pytest examples/quickstart --heal\n") :]
    assert re.search(r"^HEALED .*test_textstats\.py::test_moving_average$", output, re.M)
    assert "\ncaretaker: 1 healed, 0 not healed" in output
