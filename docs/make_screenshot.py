"""Make docs/pages/report.png, the picture of ``caretaker report`` in the README and the docs:
nine real ``pytest --heal`` sessions of examples/report (the last with --heal-write) in a
scratch copy, then the page, shot by headless Chromium. It takes a minute or two.

    python docs/make_screenshot.py [HEIGHT]
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from pytest_caretaker.history.page import write_report

HERE = Path(__file__).resolve().parent
EXAMPLE = HERE.parent / "examples" / "report"
SESSIONS = 9


def run(root: Path, *command: str) -> None:
    subprocess.run(command, cwd=root, check=False, capture_output=True, timeout=600)


def nine_sessions(root: Path) -> None:
    shutil.copytree(EXAMPLE, root)
    (root / ".gitignore").write_text(".pytest_cache/\n__pycache__/\n")
    git = ("git", "-c", "user.name=Dev", "-c", "user.email=dev@example.com")
    run(root, *git, "init", "-q", "-b", "main")
    run(root, *git, "add", "-A")
    run(root, *git, "commit", "-q", "-m", "start")
    run(root, "git", "config", "user.name", "Dev")
    run(root, "git", "config", "user.email", "dev@example.com")
    for session in range(SESSIONS):
        mode = "--heal-write" if session == SESSIONS - 1 else "--heal"
        run(root, sys.executable, "-m", "pytest", "-q", mode)


def main(height: int = 2450) -> int:
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        print("make_screenshot: no chromium on PATH (apt-get install chromium)", file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder) / "demo"
        nine_sessions(root)
        page, stats = write_report(root)
        target = HERE / "pages" / "report.png"
        subprocess.run(
            [
                chromium,
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--hide-scrollbars",
                f"--user-data-dir={folder}/profile",
                f"--window-size=1280,{height}",
                f"--screenshot={target}",
                page.as_uri(),
            ],
            check=True,
            capture_output=True,
            timeout=120,
        )
    print(
        f"make_screenshot: {len(stats.bugs)} bugs in {len(stats.sessions)} sessions; wrote {target}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(*(int(arg) for arg in sys.argv[1:2])))
