"""Forgery: a candidate that reaches into the verifier, pytest or the interpreter is refused before
it runs, in code and in tests alike; what the code it replaces already did stays allowed."""

from __future__ import annotations

from textwrap import dedent

import pytest

from pytest_caretaker.guard.forgery import forgery
from pytest_caretaker.guard.weakening import Review, review
from pytest_caretaker.project.files import TestFiles
from pytest_caretaker.results import Edit

CODE = "src/app/calc.py"
TEST = "tests/test_calc.py"
TESTS = TestFiles(frozenset({TEST}), patterns=())
BEFORE = "def total(items):\n    return sum(items)\n"


def body(*lines: str) -> str:
    """total(items) with these lines before its return."""
    inner = "".join(f"    {line}\n" for line in lines)
    return f"def total(items):\n{inner}    return sum(items)\n"


def refusal(source: str, before: str | None = BEFORE, path: str = CODE) -> str | None:
    return forgery([Edit("replace", path, "total", source)], lambda _edit: before)


REFUSED = [
    ("import _pytest", body("import _pytest.reports"), "pytest's internals (_pytest)"),
    (
        "patch a report",
        body("from _pytest.reports import TestReport", "TestReport.from_item_and_call = None"),
        "pytest's internals (_pytest)",
    ),
    ("pytest attribute", body("import pytest", "pytest.TestReport.x = 1"), "assignment to pytest"),
    ("caretaker", body("import pytest_caretaker.verify.worker as w"), "caretaker itself"),
    ("sys.modules", body("import sys", "sys.modules['lib'].f = len"), "sys.modules"),
    ("aliased sys", body("import sys as s", "s.modules.clear()"), "sys.modules"),
    ("from sys", body("from sys import modules", "modules.pop('lib')"), "sys.modules"),
    ("getattr", body("import sys", "getattr(sys, 'modules')"), "sys.modules"),
    ("folded getattr", body("import sys", "getattr(sys, 'mod' + 'ules')"), "sys.modules"),
    ("reversed name", body("import sys", "getattr(sys, 'seludom'[::-1])"), "sys.modules"),
    ("joined name", body("import sys", "getattr(sys, ''.join(['mod', 'ules']))"), "sys.modules"),
    ("computed name", body("import sys", "n = input()", "getattr(sys, n)"), "computed name"),
    ("sys handed on", body("import sys", "vars(sys)"), "namespace of sys"),
    ("sys as value", body("import sys", "inspect_it(sys)"), "the sys module itself"),
    ("__code__", body("other.__code__ = total.__code__"), "a function's code (__code__)"),
    ("setattr __code__", body("setattr(other, '__code__', None)"), "(__code__)"),
    ("__globals__", body("total.__globals__['f'] = len"), "(__globals__)"),
    ("__builtins__", body("__builtins__['len'] = max"), "(__builtins__)"),
    ("__class__", body("items.__class__ = list"), "an object's class (__class__)"),
    ("setattr __class__", body("setattr(items, '__class__', list)"), "(__class__)"),
    ("globals write", body("globals()['helper'] = len"), "through globals()"),
    ("globals update", body("globals().update(helper=len)"), "through globals()"),
    ("builtins", body("import builtins", "builtins.len = max"), "assignment to the builtins"),
    ("gc", body("import gc", "gc.get_referrers(items)"), "gc, which can find"),
    ("ctypes", body("import ctypes", "ctypes.pythonapi"), "ctypes"),
    ("_getframe", body("import sys", "sys._getframe(1)"), "sys._getframe"),
    ("currentframe", body("import inspect", "inspect.currentframe()"), "currentframe"),
    ("f_back", body("frame = get().f_back"), "stack frames (f_back)"),
    ("f_locals", body("frame.f_locals['x'] = 1"), "stack frames (f_locals)"),
    ("tb_frame", body("tb = error.__traceback__.tb_frame"), "stack frames (tb_frame)"),
    ("settrace", body("import sys", "sys.settrace(None)"), "sys.settrace"),
    ("setprofile", body("import sys", "sys.setprofile(None)"), "sys.setprofile"),
    ("audit hook", body("import sys", "sys.addaudithook(print)"), "sys.addaudithook"),
    ("os.kill", body("import os", "os.kill(os.getppid(), 9)"), "os."),
    ("killpg", body("import os", "os.killpg(0, 9)"), "os.killpg"),
    ("from os import kill", body("from os import kill", "kill(1, 9)"), "os.kill"),
    ("_exit", body("import os", "os._exit(0)"), "os._exit"),
    ("fork", body("import os", "os.fork()"), "os.fork"),
    ("setsid", body("import os", "os.setsid()"), "os.setsid"),
    ("signal", body("import signal", "signal.signal(14, print)"), "signal.signal"),
    ("alarm", body("import signal", "signal.alarm(0)"), "signal.alarm"),
    ("reload", body("import importlib", "importlib.reload(calc)"), "importlib.reload"),
    ("exec computed", body("exec(items[0])"), "code built at run time"),
    ("eval computed", body("eval(source)"), "code built at run time"),
    ("exec of a literal", body("exec('import gc')"), "gc, which can find"),
    ("compile computed", body("compile(text, 'x', 'exec')"), "code built at run time"),
    ("__import__", body("__import__('_py' + 'test')"), "pytest's internals"),
    ("__import__ computed", body("__import__(name)"), "a module whose name is computed"),
    ("import_module", body("import importlib", "importlib.import_module(n)"), "computed"),
    ("spelled module", body("lookup('_pytest.runner')"), "pytest's internals"),
    ("spelled attribute", body("attrgetter('f_back')"), "(spelled as a string)"),
    ("plugin manager", body("request.config.pluginmanager.register(p)"), "plugin manager"),
    ("subclasses", body("object.__subclasses__()"), "__subclasses__"),
]
EQUAL = [
    (
        "def __eq__ True",
        "def total(items):\n    class Any:\n        def __eq__(self, other):\n"
        "            return True\n    return Any()\n",
        "a __eq__ in Any that always returns True",
    ),
    (
        "lambda __eq__",
        "def total(items):\n    class Any:\n        __eq__ = lambda *a: True\n    return Any()\n",
        "always returns True",
    ),
    (
        "ignores other",
        "def total(items):\n    class Same:\n        def __eq__(self, other):\n"
        "            return self.n == self.n\n    return Same()\n",
        "never reads what it is compared with",
    ),
    (
        "__ne__ False",
        "def total(items):\n    class N:\n        def __ne__(self, other):\n"
        "            return False\n    return N()\n",
        "a __ne__ in N that always returns False",
    ),
    (
        "type()",
        "def total(items):\n    return type('A', (), {'__eq__': lambda s, o: 1})()\n",
        "a class made with type()",
    ),
    ("patched __eq__", body("Result.__eq__ = lambda s, o: True"), "the __eq__ of an existing"),
]


@pytest.mark.parametrize(
    ("source", "reason"), [c[1:] for c in REFUSED], ids=[c[0] for c in REFUSED]
)
def test_a_reach_into_the_verifier_is_refused(source: str, reason: str) -> None:
    refused = refusal(source)

    assert refused is not None
    assert refused.startswith("the fix in src/app/calc.py::total uses ")
    assert reason in refused
    assert refused.endswith("a fix may not reach into pytest, caretaker or the interpreter")


@pytest.mark.parametrize(("source", "reason"), [c[1:] for c in EQUAL], ids=[c[0] for c in EQUAL])
def test_an_always_true_eq_is_refused(source: str, reason: str) -> None:
    refused = refusal(source)

    assert refused is not None
    assert reason in refused
    assert refused.startswith("the fix in src/app/calc.py::total ")


ALLOWED = [
    ("ordinary fix", "def total(items):\n    return sum(i.price for i in items)\n"),
    ("sys.frozen", body("import sys", "getattr(sys, 'frozen', False)")),
    ("stderr", body("import sys", "print('x', file=sys.stderr)")),
    ("Popen.kill", body("proc.kill()")),
    ("a variable named signal", "def total(signal):\n    return signal * 2\n"),
    ("a parameter named os", "def total(os):\n    return os.name\n"),
    ("globals read", body("f = globals().get('helper')", "g = globals()['helper']")),
    ("name in globals", body("ok = 'helper' in globals()")),
    ("__class__ read", body("name = items.__class__.__name__")),
    ("re.compile", body("import re", "re.compile('a+')")),
    ("model.eval", body("model.eval()")),
    ("literal eval", body("eval('1 + 1')")),
    ("getattr self", body("getattr(self, name)")),
    ("vars of an object", body("vars(options)")),
    ("os.path", body("import os", "os.path.join('a', 'b')")),
    (
        "an __eq__ that compares",
        "def total(items):\n    class P:\n        def __eq__(self, other):\n"
        "            return isinstance(other, P) and self.x == other.x\n    return P()\n",
    ),
    (
        "__eq__ returning NotImplemented",
        "def total(items):\n    class P:\n        def __eq__(self, other):\n"
        "            return NotImplemented\n    return P()\n",
    ),
    (
        "the docstring mentions gc",
        'def total(items):\n    """Like gc, but _pytest."""\n    return 1\n',
    ),
]


@pytest.mark.parametrize("source", [c[1] for c in ALLOWED], ids=[c[0] for c in ALLOWED])
def test_ordinary_code_is_allowed(source: str) -> None:
    assert refusal(source) is None


def test_code_that_already_used_gc_and_sys_modules_stays_editable() -> None:
    before = body("import gc, sys", "gc.collect()", "sys.modules.get('lib')")
    after = body("import gc, sys", "gc.collect()", "gc.collect()", "sys.modules.get('other')")

    assert refusal(after, before) is None
    # What it did not do before is still refused.
    assert "sys.settrace" in (refusal(body("import sys", "sys.settrace(None)"), before) or "")


def test_an_eq_the_function_already_had_stays() -> None:
    source = EQUAL[0][1]

    assert refusal(source, before=source) is None
    assert refusal(source.replace("return Any()", "return [Any()]"), before=source) is None


def test_a_repeated_import_is_judged_against_the_function_beside_it() -> None:
    uses = Edit("replace", CODE, "total", body("gc.collect()"))
    imports = Edit("import", CODE, "", "import gc\n")
    before = body("gc.collect()")

    assert forgery([imports, uses], lambda e: before if e.kind == "replace" else None) is None
    assert forgery([imports], lambda _e: None) == (
        "the fix in src/app/calc.py uses gc, which can find and change any live object, the "
        "verifier's included; a fix may not reach into pytest, caretaker or the interpreter"
    )


def test_the_file_tells_what_an_import_adds_and_what_a_name_stands_for() -> None:
    module = {CODE: "import sys as system\nimport gc\n\n" + BEFORE}.get
    again = Edit("import", CODE, "", "import gc\n")
    through_alias = Edit("replace", CODE, "total", body("system.modules.clear()"))

    assert forgery([again], lambda _e: None, module) is None
    assert "sys.modules" in (forgery([through_alias], lambda _e: BEFORE, module) or "")


def test_review_refuses_a_forgery_in_a_test_file_before_anything_else() -> None:
    test = "def test_total():\n    assert total([1]) == 1\n"
    forged = "def test_total():\n    import gc\n    gc.collect()\n    assert total([1]) == 1\n"
    edit = Edit("replace", TEST, "test_total", forged)

    result = review([edit], TESTS, lambda _e: test)

    assert result == Review(
        "the fix in tests/test_calc.py::test_total uses gc, which can find "
        "and change any live object, the verifier's included; a fix may not "
        "reach into pytest, caretaker or the interpreter"
    )


def test_review_refuses_a_forgery_in_code_under_any_scope() -> None:
    edit = Edit("replace", CODE, "total", EQUAL[1][1])

    result = review([edit], TESTS, lambda _e: BEFORE)

    assert result.refused is not None
    assert result.refused.startswith("the fix in src/app/calc.py::total defines a __eq__ in Any")
    assert result.refused.endswith("compare the fields that make two objects equal instead")


def test_a_second_edit_is_read_too() -> None:
    ok = Edit("replace", CODE, "total", BEFORE)
    bad = Edit("helper", CODE, "spy", "def spy():\n    import sys\n    return sys._getframe(1)\n")

    refused = forgery([ok, bad], lambda e: BEFORE if e.kind == "replace" else None)

    assert refused is not None
    assert refused.startswith("the fix in src/app/calc.py::spy uses stack frames (sys._getframe)")


def test_source_that_does_not_parse_is_left_to_the_applier() -> None:
    assert refusal("def total(:\n") is None
    assert refusal(dedent(BEFORE), before="def total(:\n") is None
