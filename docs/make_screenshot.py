"""Make docs/report.png, the README's picture of ``caretaker report``: the page of the fixed
history the tests use (tests/integration/test_report_history.jsonl), shot by headless Chromium.

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
FIXED = HERE.parent / "tests" / "integration" / "test_report_history.jsonl"


def main(height: int = 2900) -> int:
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        print("make_screenshot: no chromium on PATH (apt-get install chromium)", file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder) / "demo"
        (root / ".caretaker").mkdir(parents=True)
        shutil.copy(FIXED, root / ".caretaker" / "history.jsonl")
        page, _ = write_report(root)
        target = HERE / "report.png"
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
    print(f"make_screenshot: wrote {target}")
    return 0


if __name__ == "__main__":
    sys.exit(main(*(int(arg) for arg in sys.argv[1:2])))
