"""What --heal-write costs over --heal, and what the cache of fixes saves (not a test).

    python benchmarks/heal_write.py

On three copies of examples/bugs, each a fresh git repository, side by side in one run:
1. `pytest --heal` (built-in repairer, in memory);
2. `pytest --heal-write` (the same, then each fix verified together with the others, written and
   committed): the difference, per commit;
3. the same failures again after `git revert` of every fix commit, healed from pytest's cache:
   the time against run 1, and that no candidate was tried.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BUGS = ROOT / "examples" / "bugs"
CLOSING = re.compile(r"^caretaker: (\d+) healed, (\d+) not healed.*$", re.M)


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=cwd, capture_output=True, text=True, check=True
    ).stdout


def fresh_copy(parent: Path, name: str) -> Path:
    project = parent / name
    shutil.copytree(BUGS, project, ignore=shutil.ignore_patterns("__pycache__", ".pytest_cache"))
    git(project, "init", "-q", "-b", "main")
    git(project, "config", "user.name", "Bench")
    git(project, "config", "user.email", "bench@example.com")
    project.joinpath(".gitignore").write_text(".pytest_cache/\n__pycache__/\n")
    git(project, "add", "-A")
    git(project, "commit", "-q", "-m", "start")
    return project


def run(project: Path, *args: str) -> tuple[float, str]:
    """Wall time, and the closing line (or the end of the output when there is none)."""
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:randomly", *args],
        cwd=project,
        capture_output=True,
        text=True,
        check=False,
    )
    seconds = time.perf_counter() - started
    closing = CLOSING.search(done.stdout)
    cached = done.stdout.count("(from cache)")
    if closing is None:
        return seconds, done.stdout.strip().splitlines()[-1]
    return seconds, closing.group(0) + (f" [{cached} from cache]" if cached else "")


def main() -> None:
    with tempfile.TemporaryDirectory() as temporary:
        parent = Path(temporary)
        in_memory, writing = fresh_copy(parent, "heal"), fresh_copy(parent, "write")

        heal_seconds, heal_line = run(in_memory, "--heal")
        write_seconds, write_line = run(writing, "--heal-write")
        commits = int(git(writing, "rev-list", "--count", "main")) - 1
        fixed = run(writing, "-p", "no:caretaker")[1]

        for commit in git(writing, "rev-list", f"main~{commits}..main").split():
            git(writing, "revert", "--no-edit", commit)
        cached_seconds, cached_line = run(writing, "--heal")

        print(f"1. --heal:                 {heal_seconds:6.1f} s  {heal_line}")
        print(f"2. --heal-write:           {write_seconds:6.1f} s  {write_line}")
        extra = write_seconds - heal_seconds
        print(
            f"   commits: {commits}; write+commit+joint verification: {extra:+.1f} s in all, "
            f"{extra / max(commits, 1) * 1000:+.0f} ms per commit "
            f"({write_seconds / heal_seconds:.2f}x the in-memory run)"
        )
        print(f"   afterwards, plain pytest without caretaker: {fixed}")
        print(f"3. again, from the cache:  {cached_seconds:6.1f} s  {cached_line}")
        print(f"   {heal_seconds / cached_seconds:.1f}x faster than finding the fixes")


if __name__ == "__main__":
    main()
