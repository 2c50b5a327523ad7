"""Runtime healing end to end: `@heal` and `install()` in real processes, the scripted server as
the model, `caretaker crashes` on the records they leave, real git."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import git, last_run, snapshot

from pytest_caretaker.testing import ScriptedServer, tool_call

PYTHON = sys.executable
INVOICE = """\
from pytest_caretaker.runtime import heal

RATES = {"standard": 0.2, "reduced": 0.05}


@heal(id="invoice-total")
def total(amount, kind):
    return round(amount * (1 + RATES[kind]), 2)
"""
#: A good call, then the crash: a runtime fix must give the good call's result again (a fix
#: with nothing but the crash to prove it is UNSURE, and is not swapped in nor written).
MAIN = """\
from app.invoice import total

print(total(100, "standard"))
print(total(100, "zero"))
"""
GOOD = "def total(amount, kind):\n    return round(amount * (1 + RATES.get(kind, 0.0)), 2)\n"
STILL_BAD = "def total(amount, kind):\n    return round(amount * (1 + RATES[kind.lower()]), 2)\n"
FIX = {"path": "app/invoice.py", "function": "total", "code": GOOD}


def project(root: Path, files: dict[str, str] | None = None) -> Path:
    files = files or {"app/invoice.py": INVOICE, "main.py": MAIN}
    for name, text in {
        "pyproject.toml": "[project]\nname = 'shop'\n",
        "app/__init__.py": "",
        **files,
    }.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    git(root, "init", "-q")
    git(root, "add", ".")
    git(root, "commit", "-qm", "start")
    return root


def run(root: Path, *argv: str, **env: str) -> subprocess.CompletedProcess[str]:
    environ = {k: v for k, v in os.environ.items() if not k.startswith("CARETAKER_")}
    # The program's own imports write no bytecode: whatever new appears in the project (a
    # __pycache__ too) was written by caretaker, and the checks below would see it.
    environ["PYTHONDONTWRITEBYTECODE"] = "1"
    environ["CARETAKER_MODEL_KEEP"] = "0"  # no model process outlives the test
    environ.update(env)
    return subprocess.run(
        [PYTHON, *argv], cwd=root, env=environ, capture_output=True, text=True, timeout=300
    )


def healing(server: ScriptedServer) -> dict[str, str]:
    return {
        "CARETAKER_RUNTIME": "heal",
        "CARETAKER_MODEL": "openai/gpt-4o-mini",
        "CARETAKER_API_BASE": server.base_url,
    }


def records(root: Path) -> list[dict[str, object]]:
    folder = root / ".caretaker" / "crashes"
    return [json.loads(p.read_text(encoding="utf-8")) for p in sorted(folder.glob("*.json"))]


def test_heal_mode_repairs_a_key_error_and_a_later_process_uses_the_kept_fix(
    tmp_path: Path,
) -> None:
    project(tmp_path)
    before = snapshot(tmp_path)
    with ScriptedServer().start() as server:
        server.script(tool_call("An unknown kind has no tax.", [FIX]), tool_call("Again.", [FIX]))

        first = run(tmp_path, "main.py", **healing(server))
        assert first.returncode == 0, first.stderr
        assert first.stdout == "120.0\n100.0\n"
        assert len(server.requests) == 1
        assert "caretaker: healed invoice-total (openai/gpt-4o-mini)" in first.stderr
        assert "; proved by the recorded call and 1 recorded good call;" in first.stderr
        assert snapshot(tmp_path) == before  # nothing of the project changed on disk
        assert git(tmp_path, "status", "--porcelain") == ""  # .caretaker/ ignores itself
        (kept,) = (tmp_path / ".caretaker" / "fixes").glob("invoice-total@*.py")
        assert "RATES.get(kind, 0.0)" in kept.read_text(encoding="utf-8")
        assert (tmp_path / ".caretaker" / "runtime" / "invoice-total.patch").is_file()
        assert "KeyError" in (tmp_path / ".caretaker/runtime/invoice-total.md").read_text()
        (row,) = history(tmp_path)  # the report links the transcript kept in the session's folder
        assert str(row["transcript"]).startswith(f".caretaker/transcripts/{row['session']}/")
        assert (tmp_path / str(row["transcript"])).read_text() == (
            tmp_path / ".caretaker/runtime/invoice-total.md"
        ).read_text()

        second = run(tmp_path, "main.py", **healing(server))
        assert second.returncode == 0, second.stderr
        assert second.stdout == "120.0\n100.0\n"
        assert len(server.requests) == 1  # the kept fix: no model request
        assert "with the fix kept for its source (no model asked)" in second.stderr

        # A changed source finds no kept fix: the model is asked again.
        changed = INVOICE.replace("    return round", "    # rounded to cents\n    return round")
        (tmp_path / "app" / "invoice.py").write_text(changed, encoding="utf-8")
        third = run(tmp_path, "main.py", **healing(server))
        assert third.returncode == 0, third.stderr
        assert len(server.requests) == 2


def test_record_mode_reraises_and_records_one_record_per_failure_with_a_count(
    tmp_path: Path,
) -> None:
    project(tmp_path)

    done = run(tmp_path, "main.py")  # the default mode
    again = run(tmp_path, "main.py", CARETAKER_RUNTIME="record")

    for result in (done, again):
        assert result.returncode == 1
        assert result.stderr.rstrip().endswith("KeyError: 'zero'")
        assert "caretaker" not in result.stderr.replace("pytest_caretaker", "")
    (record,) = records(tmp_path)
    assert record["id"] == "invoice-total"
    assert record["count"] == 2
    assert record["exception"] == {"type": "KeyError", "message": "'zero'"}
    assert record["call"]["shown"] == "(100, 'zero')"  # type: ignore[index]
    (frame,) = record["failure"]["frames"]  # type: ignore[index]
    assert frame["path"] == "app/invoice.py"
    assert ["kind", "'zero'"] in frame["locals"]
    listing = run(tmp_path, "-m", "pytest_caretaker", "crashes")
    assert listing.returncode == 0
    header, row = listing.stdout.splitlines()
    assert header.split() == ["ID", "EXCEPTION", "COUNT", "LAST", "SEEN", "STATUS", "REPLAYABLE"]
    assert row.split()[:4] == ["invoice-total", "KeyError:", "'zero'", "2"]
    assert row.endswith("open    yes")


def test_off_mode_records_nothing(tmp_path: Path) -> None:
    project(tmp_path)

    done = run(tmp_path, "main.py", CARETAKER_RUNTIME="off")

    assert done.returncode == 1
    assert not (tmp_path / ".caretaker").exists()


def test_crashes_heal_makes_a_patch_that_applies_and_crashes_test_fails_before_it(
    tmp_path: Path,
) -> None:
    project(tmp_path)
    run(tmp_path, "main.py")
    written = run(tmp_path, "-m", "pytest_caretaker", "crashes", "test")
    assert written.returncode == 0, written.stderr
    assert written.stdout == (
        "caretaker: wrote tests/test_crash_invoice_total.py (a regression test for invoice-total)\n"
    )
    git(tmp_path, "add", "tests")
    git(tmp_path, "commit", "-qm", "the crash as a test")
    before = run(tmp_path, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests")
    assert before.returncode == 1, before.stdout
    assert "KeyError" in before.stdout

    with ScriptedServer().start() as server:
        server.script(tool_call("An unknown kind has no tax.", [FIX]))
        done = run(
            tmp_path,
            *("-m", "pytest_caretaker", "crashes", "heal", "--model", "openai/gpt-4o-mini"),
            *("--api-base", server.base_url),
        )
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert "HEALED invoice-total" in lines
    assert lines[-1] == (
        "caretaker: 1 healed, 0 not healed · 150 tokens · $0.0000 · fixes in .caretaker/heal.patch"
    )
    assert git(tmp_path, "status", "--porcelain") == ""
    git(tmp_path, "apply", ".caretaker/heal.patch")
    assert run(tmp_path, "main.py").stdout == "120.0\n100.0\n"
    after = run(tmp_path, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests")
    assert after.returncode == 0, after.stdout


def history(root: Path) -> list[dict[str, object]]:
    lines = (root / ".caretaker" / "history.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines]


def test_crashes_heal_write_commits_the_fix_and_marks_the_crash_fixed(tmp_path: Path) -> None:
    project(tmp_path)
    run(tmp_path, "main.py")
    with ScriptedServer().start() as server:
        server.script(tool_call("An unknown kind has no tax.", [FIX]))
        done = run(
            tmp_path,
            *("-m", "pytest_caretaker", "crashes", "heal", "invoice-total", "--write"),
            *("--model", "openai/gpt-4o-mini", "--api-base", server.base_url),
        )
        assert done.returncode == 0, done.stdout + done.stderr
        assert git(tmp_path, "log", "--format=%s").splitlines() == [
            "fix: heal invoice-total",
            "start",
        ]
        assert run(tmp_path, "main.py").stdout == "120.0\n100.0\n"
        sha = git(tmp_path, "rev-parse", "--short=7", "HEAD").strip()
        (problem,) = last_run(tmp_path)["problems"]
        assert problem["tests"] == [{"id": "invoice-total", "outcome": "healed"}]
        assert problem["commit"]["sha"].startswith(sha)
        assert problem["commit"]["subject"] == "fix: heal invoice-total"

        (_, row) = run(tmp_path, "-m", "pytest_caretaker", "crashes").stdout.splitlines()
        assert row.split()[-3:] == ["fixed", sha, "yes"]
        rows = len(history(tmp_path))
        again = run(
            tmp_path,
            *("-m", "pytest_caretaker", "crashes", "heal"),
            *("--model", "openai/gpt-4o-mini", "--api-base", server.base_url),
        )
        assert len(server.requests) == 1  # the fixed crash was not sent to the model again
    assert again.returncode == 0, again.stdout + again.stderr
    assert again.stdout == (
        f"caretaker: invoice-total is fixed (by {sha} fix: heal invoice-total); not healed "
        "again (caretaker crashes clear --fixed removes it)\n"
    )
    assert len(history(tmp_path)) == rows  # no row, and so no NOT HEALED row
    data = last_run(tmp_path)
    assert data["source"] == "runtime" and data["problems"] == []
    assert data["notes"] == again.stdout.splitlines()
    assert [r["outcome"] for r in history(tmp_path)] == ["healed"]
    cleared = run(tmp_path, "-m", "pytest_caretaker", "crashes", "clear", "--fixed")
    assert cleared.stdout == "caretaker: removed 1 crash record (invoice-total)\n"
    assert records(tmp_path) == []
    assert list((tmp_path / ".caretaker" / "crashes").glob("*.pkl")) == []


def test_a_crash_fixed_by_hand_is_marked_fixed_when_its_call_returns(tmp_path: Path) -> None:
    project(tmp_path)
    run(tmp_path, "main.py")
    (tmp_path / "app" / "invoice.py").write_text(
        INVOICE.replace("RATES[kind]", "RATES.get(kind, 0)")
    )

    done = run(tmp_path, "-m", "pytest_caretaker", "crashes", "heal", "--model", "builtin")

    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.splitlines()[-1] == (
        "caretaker: invoice-total: the recorded call returns when replayed now; marked fixed"
    )
    assert "NOT HEALED" not in done.stdout
    assert not (tmp_path / ".caretaker" / "history.jsonl").exists()
    (_, row) = run(tmp_path, "-m", "pytest_caretaker", "crashes").stdout.splitlines()
    assert "fixed (the call returns)  yes" in row
    (tmp_path / "app" / "invoice.py").write_text(INVOICE)  # the bug is back, and so the crash
    run(tmp_path, "main.py")
    (_, row) = run(tmp_path, "-m", "pytest_caretaker", "crashes").stdout.splitlines()
    assert row.split()[-2:] == ["open", "yes"]


def test_a_fix_that_does_not_prove_itself_leaves_the_exception_untouched(tmp_path: Path) -> None:
    project(tmp_path)
    bad = {**FIX, "code": STILL_BAD}
    with ScriptedServer().start() as server:
        server.script(*[tool_call("Lower-case the kind.", [bad])] * 3)
        done = run(tmp_path, "main.py", **healing(server))
    assert done.returncode == 1
    assert done.stdout == "120.0\n"
    lines = done.stderr.rstrip().splitlines()
    assert lines[-1] == "KeyError: 'zero'"
    assert "caretaker: invoice-total not healed: " in done.stderr
    assert "the KeyError is raised as it was" in done.stderr
    assert not (tmp_path / ".caretaker" / "fixes").exists()


def test_an_unpicklable_argument_is_recorded_as_not_replayable(tmp_path: Path) -> None:
    main = (
        "import threading\n"
        "from pytest_caretaker.runtime import heal\n\n"
        "@heal\n"
        "def held(lock):\n"
        "    return {}['missing']\n\n"
        "if __name__ == '__main__':\n"
        "    held(threading.Lock())\n"
    )
    project(tmp_path, {"main.py": main})

    done = run(tmp_path, "main.py")

    assert done.returncode == 1
    (record,) = records(tmp_path)
    assert record["id"] == "__main__:held"
    call = record["call"]
    assert call["pickle"] == ""  # type: ignore[index]
    assert call["why"].startswith("its arguments do not pickle (TypeError")  # type: ignore[index]
    assert call["shown"].startswith("(<unlocked _thread.lock object")  # type: ignore[index]
    assert list((tmp_path / ".caretaker" / "crashes").glob("*.pkl")) == []
    listing = run(tmp_path, "-m", "pytest_caretaker", "crashes").stdout
    assert "no: its arguments do not pickle (TypeError" in listing
    test = run(tmp_path, "-m", "pytest_caretaker", "crashes", "test")
    assert test.returncode == 1
    assert "no test for __main__:held: its call cannot be replayed" in test.stdout


def test_install_records_an_unhandled_exception_in_a_thread(tmp_path: Path) -> None:
    main = (
        "import threading\n"
        "from pytest_caretaker.runtime import install\n\n"
        "def work():\n"
        "    raise ValueError('bad batch')\n\n"
        "install()\n"
        "thread = threading.Thread(target=work, name='worker-1')\n"
        "thread.start()\n"
        "thread.join()\n"
        "print('main goes on')\n"
    )
    project(tmp_path, {"main.py": main})

    done = run(tmp_path, "main.py")

    assert done.returncode == 0
    assert done.stdout == "main goes on\n"
    assert "ValueError: bad batch" in done.stderr  # Python's own report, as before
    (record,) = records(tmp_path)
    assert record["id"] == "__main__:work"
    assert record["source"] == "thread worker-1"
    assert record["exception"] == {"type": "ValueError", "message": "bad batch"}
    assert record["call"]["why"] == (  # type: ignore[index]
        "recorded by the exception hook: there is no call to replay"
    )


def test_install_records_an_uncaught_exception_of_the_main_thread(tmp_path: Path) -> None:
    main = (
        "from pytest_caretaker.runtime import install\n\n"
        "def parse(text):\n"
        "    return int(text)\n\n"
        "install()\n"
        "parse('x')\n"
    )
    project(tmp_path, {"main.py": main})

    done = run(tmp_path, "main.py")

    assert done.returncode == 1
    assert done.stderr.rstrip().endswith("ValueError: invalid literal for int() with base 10: 'x'")
    (record,) = records(tmp_path)
    assert (record["id"], record["source"]) == ("__main__:parse", "excepthook")


def sandboxed() -> bool:
    from pytest_caretaker.verify.probe import unavailable

    return unavailable(False) is None


@pytest.mark.skipif(not sandboxed(), reason="the sandbox is not available here")
def test_a_hostile_fix_is_contained_by_the_sandbox_and_rejected(tmp_path: Path) -> None:
    project(tmp_path)
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_ed25519").write_text("PRIVATE KEY", encoding="utf-8")
    stolen = tmp_path / "stolen.txt"
    hostile = (
        "def total(amount, kind):\n"
        "    import os\n"
        f"    key = open(os.path.expanduser('~/.ssh/id_ed25519')).read()\n"
        f"    open({str(stolen)!r}, 'w').write(key)\n"
        "    return 100.0\n"
    )
    writes = (
        "def total(amount, kind):\n"
        f"    open({str(tmp_path / 'app' / 'planted.py')!r}, 'w').write('owned = True')\n"
        "    return 100.0\n"
    )
    # Exits 0 without returning: only the nonce the call's return prints can pass.
    exits = "def total(amount, kind):\n    raise SystemExit(0)\n"
    with ScriptedServer().start() as server:
        server.script(
            *(tool_call("Trust me.", [{**FIX, "code": code}]) for code in (hostile, writes, exits))
        )
        done = run(tmp_path, "main.py", HOME=str(home), **healing(server))
    assert len(server.requests) == 3
    assert done.returncode == 1
    assert done.stderr.rstrip().endswith("KeyError: 'zero'")
    assert "invoice-total not healed" in done.stderr
    assert not stolen.exists()
    assert not (tmp_path / "app" / "planted.py").exists()
    transcript = (tmp_path / ".caretaker" / "runtime" / "invoice-total.md").read_text()
    assert transcript.count("PermissionError") >= 2  # the read of ~/.ssh and the write, refused
    assert "PRIVATE KEY" not in transcript
    assert "rejected: the call did not return (the process exited" in transcript


def test_a_store_object_keeps_the_fix_by_id_and_source_hash(tmp_path: Path) -> None:
    database = tmp_path / "fixes.json"
    invoice = INVOICE.replace(
        "from pytest_caretaker.runtime import heal\n",
        "import json, os\n"
        "from pytest_caretaker.runtime import heal\n\n\n"
        "class Database:\n"
        "    path = os.environ['FIX_DB']\n\n"
        "    def get(self, key):\n"
        "        if not os.path.exists(self.path):\n"
        "            return None\n"
        "        return json.load(open(self.path)).get(key)\n\n"
        "    def save(self, key, code):\n"
        "        json.dump({key: code}, open(self.path, 'w'))\n",
    ).replace('@heal(id="invoice-total")', '@heal(id="invoice-total", store=Database())')
    project(tmp_path, {"app/invoice.py": invoice, "main.py": MAIN})
    with ScriptedServer().start() as server:
        server.script(tool_call("An unknown kind has no tax.", [FIX]))
        first = run(tmp_path, "main.py", FIX_DB=str(database), **healing(server))
        second = run(tmp_path, "main.py", FIX_DB=str(database), **healing(server))
    twice = ("120.0\n100.0\n", "120.0\n100.0\n")
    assert (first.stdout, second.stdout) == twice, first.stderr + second.stderr
    assert len(server.requests) == 1
    ((key, code),) = json.loads(database.read_text()).items()
    assert key.startswith("invoice-total@")
    assert "# caretaker: replace app/invoice.py::total\n" in code
    assert "RATES.get(kind, 0.0)" in code
    assert not (tmp_path / ".caretaker" / "fixes").exists()  # the object, not the folder


EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "runtime"


def test_the_example_records_then_heals_with_the_builtin_repairer(tmp_path: Path) -> None:
    shutil.copytree(EXAMPLE, tmp_path / "runtime", ignore=shutil.ignore_patterns(".caretaker"))
    root = tmp_path / "runtime"
    git(root, "init", "-q")
    git(root, "add", ".")
    git(root, "commit", "-qm", "start")
    before = snapshot(root)

    recorded = run(root, "app.py")
    assert recorded.returncode == 1
    assert recorded.stdout == "monday: 20.00\n"
    (record,) = records(root)  # once: install() does not record it again
    assert record["id"] == "average-basket"

    healed = run(root, "app.py", CARETAKER_RUNTIME="heal", CARETAKER_MODEL="builtin")
    assert healed.returncode == 0, healed.stderr
    assert healed.stdout == "monday: 20.00\ntuesday: 0.00\n"
    assert "`len(baskets) >= 0` → `len(baskets) > 0`" in healed.stderr
    assert "the project test that runs it still passes" in healed.stderr
    assert "; proved by the recorded call, 1 recorded good call and 1 test;" in healed.stderr
    assert snapshot(root) == before
    assert git(root, "status", "--porcelain") == ""


ASYNC_APP = """\
import asyncio

from pytest_caretaker.runtime import heal, install


class Orders:
    def __init__(self, rows):
        self.rows = rows

    @heal(id="orders-mean")
    async def mean(self):
        await asyncio.sleep(0)
        return sum(self.rows) / len(self.rows)


async def lost():
    raise RuntimeError("nobody awaited me")


async def main():
    install()
    print(await Orders([1, 2]).mean())
    print(await Orders([]).mean())
    task = asyncio.get_running_loop().create_task(lost())
    await asyncio.sleep(0)
    del task


if __name__ == "__main__":
    asyncio.run(main())
"""
ASYNC_FIX = (
    "async def mean(self):\n"
    "    await asyncio.sleep(0)\n"
    "    return sum(self.rows) / len(self.rows) if self.rows else 0.0\n"
)


def test_an_async_method_is_healed_and_a_lost_task_is_recorded(tmp_path: Path) -> None:
    project(tmp_path, {"main.py": ASYNC_APP})
    with ScriptedServer().start() as server:
        fix = {"path": "main.py", "function": "Orders.mean", "code": ASYNC_FIX}
        server.script(tool_call("No rows, no mean.", [fix]))
        done = run(tmp_path, "main.py", **healing(server))
    assert done.returncode == 0, done.stderr
    assert done.stdout == "1.5\n0.0\n"
    assert "caretaker: healed orders-mean" in done.stderr
    assert "Task exception was never retrieved" in done.stderr  # asyncio's own report stays
    by_id = {record["id"]: record for record in records(tmp_path)}
    assert by_id["orders-mean"]["function"]["coroutine"] is True  # type: ignore[index]
    assert by_id["__main__:lost"]["source"] == "asyncio"


STATS = """\
from pytest_caretaker.runtime import heal


@heal(id="mean-gap")
def mean_gap(values):
    gaps = [b - a for a, b in zip(values, values[1:])]
    return sum(gaps) / len(gaps)
"""


def transcripts(root: Path) -> str:
    return "\n".join(p.read_text() for p in sorted((root / ".caretaker").rglob("*.md")))


def test_a_recorded_good_call_refuses_a_fix_that_changes_what_it_returns(tmp_path: Path) -> None:
    main = "from app.stats import mean_gap\n\nprint(mean_gap([1, 4, 9]))\nprint(mean_gap([5]))\n"
    # The fix the good call refuses is about the twelfth candidate edit; no edit heals the crash,
    # so the default budget (20 s) tried all 105, each replayed in a process of its own (30 s of
    # CPU). A budget of 0.25 s (25 candidates) reaches it with room, and the verdict is the same.
    budget = "[project]\nname = 'shop'\n\n[tool.pytest.ini_options]\nheal_builtin_budget = '0.25'\n"
    project(tmp_path, {"pyproject.toml": budget, "app/stats.py": STATS, "main.py": main})
    recorded = run(tmp_path, "main.py")
    assert (recorded.returncode, recorded.stdout) == (1, "4.0\n")
    (good,) = json.loads((tmp_path / ".caretaker/crashes/good/mean-gap.json").read_text())["calls"]
    assert (good["call"], good["result"]) == ("mean_gap([1, 4, 9])", "4.0")

    done = run(tmp_path, "-m", "pytest_caretaker", "crashes", "heal", "--model", "builtin")

    # Dividing by len(gaps) + 1 stops the ZeroDivisionError, and was once taken for a fix.
    assert (
        "`return sum(gaps) / (len(gaps) + 1)`: mean_gap([1, 4, 9]) returned 4.0 before, "
        "2.6666666666666665 with the fix" in transcripts(tmp_path)
    )
    lines = done.stdout.splitlines()
    assert "HEALED mean-gap" not in lines and "UNSURE mean-gap" not in lines, done.stdout
    (said,) = [line for line in lines if line.startswith("NOT HEALED mean-gap: ")]
    assert "refused because a recorded good call returns something else with" in said
    assert done.returncode == 1
    patch = tmp_path / ".caretaker" / "heal.patch"  # none when nothing healed
    assert not patch.exists() or "len(gaps) + 1" not in patch.read_text()


def test_a_fix_proved_by_its_crash_alone_is_unsure_and_not_written(tmp_path: Path) -> None:
    main = "from app.stats import mean_gap\n\nprint(mean_gap([5]))\n"  # no good call first
    project(tmp_path, {"app/stats.py": STATS, "main.py": main})
    run(tmp_path, "main.py")
    before = snapshot(tmp_path)

    done = run(
        tmp_path, *("-m", "pytest_caretaker", "crashes", "heal", "--model", "builtin", "--write")
    )

    assert done.returncode == 1, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert "UNSURE mean-gap" in lines
    assert (
        "  the tests cannot tell: the only proof is that the recorded call no longer raises; "
        "no recorded good call and no test checks what mean_gap returns" in lines
    )
    assert any(
        line.startswith("  separating input: mean_gap([5]): this fix returns ")
        and line.endswith(", the original raises ZeroDivisionError: division by zero")
        for line in lines
    )
    assert "Proved only by the recorded call, which no longer raises." in done.stdout
    assert (
        "  UNSURE: not written; read it in .caretaker/heal.patch and apply it yourself "
        "(git apply .caretaker/heal.patch) if it is right" in lines
    )
    assert lines[-1].startswith("caretaker: 0 healed, 1 unsure, 0 not healed · ")
    assert snapshot(tmp_path) == before
    assert git(tmp_path, "log", "--format=%s").splitlines() == ["start"]
    (_, row) = run(tmp_path, "-m", "pytest_caretaker", "crashes").stdout.splitlines()
    assert row.split()[-2:] == ["open", "yes"]


def test_heal_mode_does_not_swap_in_a_fix_proved_by_its_crash_alone(tmp_path: Path) -> None:
    main = 'from app.invoice import total\n\nprint(total(100, "zero"))\n'  # no good call first
    project(tmp_path, {"app/invoice.py": INVOICE, "main.py": main})
    with ScriptedServer().start() as server:
        server.script(tool_call("An unknown kind has no tax.", [FIX]))
        done = run(tmp_path, "main.py", **healing(server))

    assert done.returncode == 1
    assert done.stdout == ""
    assert done.stderr.rstrip().endswith("KeyError: 'zero'")
    assert (
        "caretaker: invoice-total not healed: its fix is UNSURE (the only proof is that the "
        "recorded call no longer raises; no recorded good call and no test checks what total "
        "returns), so it is not swapped in; review it in .caretaker/runtime/invoice-total.patch; "
        "the KeyError is raised as it was"
    ) in done.stderr
    assert not (tmp_path / ".caretaker" / "fixes").exists()  # a later process does not take it
    patch = (tmp_path / ".caretaker" / "runtime" / "invoice-total.patch").read_text()
    assert "RATES.get(kind, 0.0)" in patch
    (row,) = history(tmp_path)
    assert row["outcome"] == "unsure"
