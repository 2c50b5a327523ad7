"""How much ordinary text the redactor takes for a secret: the README's examples run by pytest
(verbose, long tracebacks, their locals), their sources and caretaker's own modules, redacted by a
redactor that has learnt everything it learns from those projects (config and .env files, the
literals of every file: record/code.py) and an environment without secrets. Every line it changes
is a false positive, and the rate is printed; the measured rate is in the docs' Safety page
(docs/pages/safety.md). (The test data of ``examples/bugs/password_rules.py`` — passwords given to a
``password`` parameter — are redacted on purpose and counted here all the same.)"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from pytest_caretaker.record.redact import Redactor

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = ("bugs", "quickstart", "runtime", "check", "script")
#: Lines of ordinary text the redactor may change, at most (the measured rate is far below).
MAX_RATE = 0.005
ORDINARY_ENV = {
    "PATH": "/usr/local/bin:/usr/bin:/bin",
    "LANG": "C.UTF-8",
    "SHELL": "/bin/bash",
    "USER": "dev",
    "TERM": "xterm-256color",
    "XDG_SESSION_TYPE": "wayland",
}


#: Put in each copied example: its looping bugs hit their ``timeout(1)`` marks a tenth as late
#: (the same timeout report, with its stack dumps; examples/bugs has fifteen such cases).
QUICK_TIMEOUTS = """
import pytest

def pytest_collection_modifyitems(items):
    for item in items:
        if item.get_closest_marker("timeout") is not None:
            item.add_marker(pytest.mark.timeout(0.1))
"""


def pytest_output(root: Path) -> str:
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    env = {k: v for k, v in env.items() if not k.startswith(("CARETAKER_", "PYTEST_"))}
    done = subprocess.run(
        [
            *(sys.executable, "-m", "pytest", "-p", "no:caretaker", "-p", "no:cacheprovider"),
            *("-vv", "-l", "-rA", "--tb=long", "-o", "addopts="),
            # Without the plugins of the test extra the suite's own runs go without
            # (conftest.py): hypothesis' alone cost each run 0.5 s of CPU at its start.
            *("-p", "no:hypothesispytest", "-p", "no:anyio"),
        ],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    return done.stdout + done.stderr


def test_the_false_positive_rate_on_ordinary_output_and_source(tmp_path: Path) -> None:
    texts: dict[str, str] = {}
    # One redactor that knows what each project's redactor learnt: its rules for shapes, names
    # and entropy are the same in each, so a line one of five project redactors would change
    # is exactly a line this one changes, in one pass over the corpus instead of five (12 s of
    # CPU, now 4).
    redactor = Redactor(ORDINARY_ENV)
    for name in EXAMPLES:
        root = tmp_path / name
        shutil.copytree(REPO / "examples" / name, root)
        assert not (root / "conftest.py").exists()
        (root / "conftest.py").write_text(QUICK_TIMEOUTS, encoding="utf-8")
        learnt = Redactor.for_project(root, ORDINARY_ENV, tmp_path / "home")
        ours = root / "conftest.py"
        sources = sorted(p.relative_to(root).as_posix() for p in root.rglob("*.py") if p != ours)
        learnt.learn_code(root, sources)
        for value, what in learnt.learnt():
            redactor.remember(value, what)
        texts[f"pytest output of {name}"] = pytest_output(root).replace(str(tmp_path), "/work")
        for rel in sources:
            texts[f"{name}/{rel}"] = (root / rel).read_text(encoding="utf-8")
    own = REPO / "pytest_caretaker"
    for path in sorted(own.rglob("*.py")):
        if path.parent.name != "record":  # the redactor's own word lists name secrets
            texts[f"pytest_caretaker/{path.relative_to(own)}"] = path.read_text(encoding="utf-8")

    counts = {"pytest output": [0, 0], "source": [0, 0]}  # lines, lines changed
    examples: list[str] = []
    for name, text in texts.items():
        count = counts["pytest output" if name.startswith("pytest output") else "source"]
        for line in text.splitlines():
            count[0] += 1
            shown = redactor(line)
            if shown != line:
                count[1] += 1
                examples.append(shown.strip()[:120])

    lines, changed = (sum(count[i] for count in counts.values()) for i in (0, 1))
    print(f"\nfalse positives: {changed} of {lines:,} lines ({changed / lines:.3%})")
    for kind, (total, hit) in counts.items():
        print(f"  {kind}: {hit} of {total:,} lines ({hit / total:.3%})")
    print("\n".join(examples))
    assert counts["pytest output"][0] > 2_000 and lines > 20_000
    assert changed / lines <= MAX_RATE, examples
