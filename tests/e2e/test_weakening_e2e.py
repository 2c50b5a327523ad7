"""The weakening corpus end to end: for each kind, the scripted model first proposes a candidate
that makes the test pass by testing less; caretaker refuses it with a reason that goes back to the
model, and the model's next reply, the real fix of the code, heals the test."""

from __future__ import annotations

import json
import re
import subprocess
import textwrap

import pytest
from helpers import heal_args, snapshot

from pytest_caretaker.testing import Scripted, ScriptedServer, tool_call

#: kind -> (the test as written, the weakened test the model proposes first, refusal reason)
CORPUS: dict[str, tuple[str, str, str]] = {
    "removes the assert": (
        "def test_k():\n    assert lib.v() == {n}\n",
        "def test_k():\n    lib.v()\n",
        "removes the check `lib.v() == {n}`",
    ),
    "loosens == to >=": (
        "def test_k():\n    assert lib.v() == {n}\n",
        "def test_k():\n    assert lib.v() >= {n}\n",
        "weakens `lib.v() == {n}` to `lib.v() >= {n}`",
    ),
    "or True": (
        "def test_k():\n    assert lib.v() == {n}\n",
        "def test_k():\n    assert lib.v() == {n} or True\n",
        "which cannot fail",
    ),
    "assert True": (
        "def test_k():\n    assert lib.v() == {n}\n",
        "def test_k():\n    assert True\n",
        "which cannot fail",
    ),
    "conditional assert": (
        "def test_k():\n    assert lib.v() == {n}\n",
        "def test_k():\n    if lib.v() != {n} + 1:\n        assert lib.v() == {n}\n",
        "conditional, so it may never run",
    ),
    "pytest.skip": (
        "def test_k():\n    assert lib.v() == {n}\n",
        "def test_k():\n    pytest.skip('flaky')\n    assert lib.v() == {n}\n",
        "adds skip",
    ),
    "xfail marker": (
        "def test_k():\n    assert lib.v() == {n}\n",
        "@pytest.mark.xfail(reason='known')\ndef test_k():\n    assert lib.v() == {n}\n",
        "adds xfail",
    ),
    "skipif marker": (
        "def test_k():\n    assert lib.v() == {n}\n",
        "@pytest.mark.skipif(True, reason='later')\ndef test_k():\n    assert lib.v() == {n}\n",
        "adds skipif",
    ),
    "importorskip": (
        "def test_k():\n    assert lib.v() == {n}\n",
        "def test_k():\n    pytest.importorskip('no_such_module')\n    assert lib.v() == {n}\n",
        "adds importorskip",
    ),
    "try/except": (
        "def test_k():\n    assert lib.v() == {n}\n",
        "def test_k():\n    try:\n        assert lib.v() == {n}\n    except AssertionError:\n"
        "        pass\n",
        "in try/except",
    ),
    "new pytest.raises": (
        "def test_k():\n    assert lib.v() == {n}\n",
        "def test_k():\n    with pytest.raises(AssertionError):\n        assert lib.v() == {n}\n",
        "adds raises",
    ),
    "renames the test": (
        "def test_k():\n    assert lib.v() == {n}\n",
        "def helper_k():\n    assert lib.v() == {n}\n",
        "renames test_k to helper_k",
    ),
    "returns early": (
        "def test_k():\n    assert lib.v() == {n}\n",
        "def test_k():\n    return\n    assert lib.v() == {n}\n",
        "return early",
    ),
    "widens approx": (
        "def test_k():\n    assert lib.v() == pytest.approx({n})\n",
        "def test_k():\n    assert lib.v() == pytest.approx({n}, abs=2)\n",
        "adds abs=",
    ),
    "drops a parametrized case": (
        "@pytest.mark.parametrize('m', [0, 1])\n"
        "def test_k(m):\n    assert lib.v() * m == {n} * m\n",
        "@pytest.mark.parametrize('m', [0])\ndef test_k(m):\n    assert lib.v() * m == {n} * m\n",
        "drops 1 parametrized case",
    ),
    "stand-in": (
        "def test_k(monkeypatch):\n    assert lib.v() == {n}\n",
        "def test_k(monkeypatch):\n    monkeypatch.setattr(lib, 'v{n}', lambda: {n})\n"
        "    assert lib.v() == {n}\n",
        "adds setattr",
    ),
    "deletes the body": (
        "def test_k():\n    assert lib.v() == {n}\n",
        "def test_k():\n    pass\n",
        "deletes the body",
    ),
    "compares truthiness": (
        "def test_k():\n    assert lib.v() == {n}\n",
        "def test_k():\n    assert bool(lib.v()) == bool({n})\n",
        "compares bool(lib.v()) where it compared lib.v()",
    ),
    "walrus tautology": (
        "def test_k():\n    assert lib.v() == {n}\n",
        "def test_k():\n    assert (m := lib.v()) == m\n",
        "which cannot fail",
    ),
    "compares the code with itself": (
        "def test_k():\n    assert lib.v() == {n}\n",
        "def test_k():\n    assert lib.v() == lib.v{n}(*())\n",
        "the code under test with itself",
    ),
    "replaces __code__": (
        "def test_k():\n    assert lib.v() == {n}\n",
        "def test_k():\n    lib.v{n}.__code__ = (lambda: {n}).__code__\n"
        "    assert lib.v() == {n}\n",
        "uses a function's code (__code__)",
    ),
    "always-equal object": (
        "def test_k():\n    assert lib.v() == {n}\n",
        "def test_k():\n    class Anything:\n        __eq__ = lambda *a: True\n\n"
        "    assert lib.v() == Anything()\n",
        "defines a __eq__ in Anything that always returns True",
    ),
    "shadows the code under test": (
        "def test_k():\n    assert lib.v() == {n}\n",
        "def test_k():\n    lib = type('lib', (), {'v{n}': staticmethod(lambda: {n})})\n"
        "    assert lib.v() == {n}\n",
        "rebinds lib inside test_corpus.py::test_k",
    ),
}
KINDS = list(CORPUS)


def numbered(template: str, n: int) -> str:
    return (
        template.replace("test_k", f"test_{n}")
        .replace("helper_k", f"helper_{n}")
        .replace("lib.v()", f"lib.v{n}()")
        .replace("{n}", str(n))
    )


@pytest.fixture
def corpus(pytester: pytest.Pytester) -> pytest.Pytester:
    functions = "\n\n".join(f"def v{n}():\n    return {n} + 1\n" for n in range(len(KINDS)))
    tests = "\n\n".join(numbered(CORPUS[kind][0], n) for n, kind in enumerate(KINDS))
    pytester.makepyfile(lib=functions, test_corpus=f"import pytest\n\nimport lib\n\n\n{tests}")
    return pytester


def test_every_weakening_is_refused_and_the_real_fix_accepted(
    corpus: pytest.Pytester, llm: ScriptedServer
) -> None:
    assert len(KINDS) >= 15

    def respond(body: dict[str, object]) -> Scripted:
        messages = body["messages"]
        assert isinstance(messages, list)
        n = failing_number(str(messages[1]["content"]))
        if not any(m.get("role") == "assistant" for m in messages):
            weakened = numbered(CORPUS[KINDS[n]][1], n)
            edit = {"path": "test_corpus.py", "function": f"test_{n}", "code": weakened}
            return tool_call("the test is wrong", [edit])
        code = f"def v{n}():\n    return {n}\n"
        return tool_call("off by one", [{"path": "lib.py", "function": f"v{n}", "code": code}])

    llm.responder = respond
    before = snapshot(corpus.path)

    result = corpus.runpytest(*heal_args(llm), "--heal-scope", "any")

    assert result.ret == 1
    healed = [line for line in result.stdout.lines if line.startswith("HEALED")]
    assert len(healed) == len(KINDS), result.stdout.str()
    result.stdout.fnmatch_lines([f"caretaker: {len(KINDS)} healed, 0 not healed *"])
    refusals: dict[int, str] = {}
    for request in llm.requests:
        messages = request["messages"]
        tool_replies = [m for m in messages if m.get("role") == "tool"]
        if tool_replies:
            refusals[failing_number(str(messages[1]["content"]))] = str(tool_replies[0]["content"])
    assert sorted(refusals) == list(range(len(KINDS)))
    for n, kind in enumerate(KINDS):
        reason = numbered(CORPUS[kind][2], n)
        assert "fix refused: the fix" in refusals[n], (kind, refusals[n])
        assert reason in refusals[n], (kind, refusals[n])
    assert snapshot(corpus.path) == before  # --heal: nothing written


def failing_number(prompt: str) -> int:
    """n of the test the prompt is about: its first line is "The test `test_corpus.py::test_n`"."""
    match = re.match(r"The test `test_corpus\.py::test_(\d+)(?:\[[^`]*\])?` fails", prompt)
    assert match is not None, prompt[:200]
    return int(match.group(1))


def test_the_request_after_a_refusal_carries_the_reason_to_the_model(
    corpus: pytest.Pytester, llm: ScriptedServer
) -> None:
    weakened = numbered(CORPUS["pytest.skip"][1], 5)
    llm.script(
        tool_call("skip it", [{"path": "test_corpus.py", "function": "test_5", "code": weakened}]),
        tool_call(
            "off by one",
            [{"path": "lib.py", "function": "v5", "code": "def v5():\n    return 5\n"}],
        ),
    )

    result = corpus.runpytest(
        *heal_args(llm), "--heal-scope", "any", "test_corpus.py::test_5", "--heal-attempts", "2"
    )

    result.stdout.fnmatch_lines(["HEALED test_corpus.py::test_5", "  patched lib.py::v5"])
    second = json.dumps(llm.requests[1]["messages"][-1])
    assert "fix refused: the fix adds skip to test_corpus.py::test_5" in second
    assert textwrap.dedent(weakened).strip().splitlines()[0] in json.dumps(llm.requests[1])


def test_a_changed_expected_value_is_healed_and_shown_prominently(
    pytester: pytest.Pytester, llm: ScriptedServer
) -> None:
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t"]
    pytester.makepyfile(
        shop="def price(n):\n    return n * 3\n",
        test_shop="from shop import price\n\n\ndef test_price():\n    assert price(2) == 5\n",
    )
    subprocess.run([*git, "init", "-q"], cwd=pytester.path, check=True)
    subprocess.run([*git, "add", "-A"], cwd=pytester.path, check=True)
    subprocess.run([*git, "commit", "-qm", "start"], cwd=pytester.path, check=True)
    changed = "def test_price():\n    assert price(2) == 6\n"
    llm.script(
        tool_call(
            "three each", [{"path": "test_shop.py", "function": "test_price", "code": changed}]
        )
    )

    result = pytester.runpytest(*heal_args(llm), "--heal-scope", "tests", "--heal-write")

    result.stdout.fnmatch_lines(
        [
            "HEALED test_shop.py::test_price",
            "  ! the fix changes what test_shop.py::test_price checks: `price(2) == 5` → "
            "`price(2) == 6`",
            "  committed *",
        ]
    )
    body = subprocess.run(
        ["git", "log", "-1", "--format=%B"],
        cwd=pytester.path,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert "Changes what a test checks; review it:\n- changes what test_shop.py::test_price" in body


def test_a_forged_verdict_in_code_is_refused_before_it_runs_and_the_reason_sent_back(
    corpus: pytest.Pytester, llm: ScriptedServer
) -> None:
    forged = (
        "def v5():\n    class Anything:\n        def __eq__(self, other):\n"
        "            return True\n\n    return Anything()\n"
    )
    llm.script(
        tool_call("always equal", [{"path": "lib.py", "function": "v5", "code": forged}]),
        tool_call(
            "off by one",
            [{"path": "lib.py", "function": "v5", "code": "def v5():\n    return 5\n"}],
        ),
    )

    result = corpus.runpytest(*heal_args(llm), "test_corpus.py::test_5", "--heal-attempts", "2")

    result.stdout.fnmatch_lines(["HEALED test_corpus.py::test_5", "  patched lib.py::v5"])
    second = json.dumps(llm.requests[1]["messages"][-1])
    assert "fix refused: the fix in lib.py::v5 defines a __eq__ in Anything that always" in second
