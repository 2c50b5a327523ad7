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
    ("os.pwrite", body("import os", "os.pwrite(3, b'{}', 0)"), "a raw file descriptor (os.pwrite)"),
    ("os.write", body("from os import write", "write(5, b'x')"), "(os.write)"),
    ("os.fdopen", body("import os", "os.fdopen(4, 'w').write('{}')"), "(os.fdopen)"),
    ("os.dup2", body("import os", "os.dup2(1, 3)"), "(os.dup2)"),
    ("open a descriptor", body("open(3, 'w').write('{}')"), "open() of a raw file descriptor"),
    ("open(file=fd)", body("open(file=4, mode='w')"), "open() of a raw file descriptor"),
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


def returned(*lines: str, base: str = "float") -> str:
    """total(items) returning a {base} subclass whose __eq__ has these lines."""
    inner = "".join(f"            {line}\n" for line in lines)
    head = f"class Total({base}):" if base else "class Total:"
    return (
        f"def total(items):\n    {head}\n        def __eq__(self, other):\n{inner}"
        "    return Total(sum(items))\n"
    )


#: Comparison methods that say yes without comparing the object with the other (#30): each was
#: HEALED before, since each reads its argument.
NOT_COMPARING = [
    ("other is other", returned("return other is other"), "answers `other is other`"),
    ("other == other", returned("return other == other"), "answers `other == other`"),
    ("self is self", returned("assert other is not None", "return self is self"), "`self is s"),
    ("True or other", returned("return True or other"), "answers `True or other`"),
    ("bool(other) or True", returned("return bool(other) or True"), "`bool(other) or True`"),
    ("not False", returned("_ = other", "return not False"), "answers `not False`"),
    ("self is not other", returned("return self is not other"), "is no `==` of a field"),
    (
        "a tolerance",
        returned("return abs(self - other) < 1e9"),
        "`abs(self - other) < 1000000000.0`",
    ),
    ("a slice", returned("return str(self)[:0] == str(other)[:0]"), "`str(self)[:0] =="),
    ("imag", returned("return self.imag == other.imag"), "`self.imag == other.imag`"),
    ("truthiness", returned("return bool(self) == bool(other)"), "`bool(self) == bool(o"),
    ("a default", returned("return getattr(self, 'k', 0) == getattr(other, 'k', 0)"), "getat"),
    ("a built-in method", returned("return self.isdigit() == other.isdigit()", base="str"), "."),
    ("an item of the value", returned("return self[0] == other[0]", base="tuple"), "`self[0]"),
    ("or 1 == 1", returned("return self.k == other.k or 1 == 1"), "`self.k == other.k or 1 =="),
    ("is not None", returned("return (self.k == other.k) is not None"), "is not None`"),
    ("reassigned", returned("same = self.k == other.k", "same = True", "return same"), "`same`"),
    (
        "yes unless identical",
        returned("if self is other:", "    return False", "return True"),
        "returns only constants",
    ),
    (
        "__lt__",
        "def total(items):\n    class T:\n        def __lt__(self, other):\n"
        "            return other is not None\n    return T()\n",
        "a __lt__ in T that answers `other is not None`",
    ),
    (
        "__ge__ lambda",
        "def total(items):\n    class T:\n        __ge__ = lambda s, o: o is o\n    return T()\n",
        "a __ge__ in T that answers `o is o`",
    ),
    (
        "__lt__ looser than <",
        "def total(items):\n    class T:\n        def __lt__(self, other):\n"
        "            return self.k <= other.k\n    return T()\n",
        "is no `<` of a field",
    ),
    (
        "type() float",
        "def total(items):\n    return type('T', (float,), {'__eq__': lambda s, o: o is o})(1.0)\n",
        "a __eq__ in a class made with type() that answers `o is o`",
    ),
    (
        "*args",
        "def total(items):\n    class T:\n        __eq__ = lambda *a: a[1] is a[1]\n"
        "    return T()\n",
        "answers `a[1] is a[1]`",
    ),
    (
        "async",
        "def total(items):\n    class T:\n        async def __eq__(self, other):\n"
        "            return self.k == other.k\n    return T()\n",
        "is a coroutine function",
    ),
    (
        "generator",
        "def total(items):\n    class T:\n        def __eq__(self, other):\n"
        "            yield other\n    return T()\n",
        "is a generator",
    ),
    (
        "unreadable",
        "def total(items):\n    class T:\n        __eq__ = object.__ne__\n    return T()\n",
        "is object.__ne__, whose answers caretaker cannot read",
    ),
    ("patched __lt__", body("Result.__lt__ = lambda s, o: True"), "the __lt__ of an existing"),
]


@pytest.mark.parametrize(
    ("source", "reason"), [c[1:] for c in NOT_COMPARING], ids=[c[0] for c in NOT_COMPARING]
)
def test_a_comparison_method_that_does_not_compare_is_refused(source: str, reason: str) -> None:
    refused = refusal(source)

    assert refused is not None
    assert reason in refused
    assert refused.startswith("the fix in src/app/calc.py::total ")
    assert "with its objects can say yes whatever they hold" in refused or "existing" in refused


def test_the_float_that_equals_everything_is_refused_with_a_sentence_the_model_can_act_on() -> None:
    assert refusal(NOT_COMPARING[0][1]) == (
        "the fix in src/app/calc.py::total defines a __eq__ in Total that answers `other is "
        "other`, which is no `==` of a field of the object and one of what it is compared with, "
        "so `==` with its objects can say yes whatever they hold; compare the object's fields "
        "with those of the other instead (self.x == other.x)"
    )


def test_a_replaced_method_is_read_as_the_comparison_it_is() -> None:
    """An edit of Point.__eq__ brings the method alone: it is judged as a comparison too, and
    an __eq__ that did not compare before stays editable."""
    before = "def __eq__(self, other):\n    return self.x == other.x\n"
    forged = "def __eq__(self, other):\n    return other is other\n"
    fixed = "def __eq__(self, other):\n    return (self.x, self.y) == (other.x, other.y)\n"

    def judge(source: str, was: str = before) -> str | None:
        return forgery([Edit("replace", CODE, "Point.__eq__", source)], lambda _e: was)

    assert "a __eq__ in its class that answers `other is other`" in (judge(forged) or "")
    assert judge(fixed) is None
    assert judge(forged, was=forged.replace("is", "==")) is None


def test_a_new_method_that_says_yes_without_comparing_is_refused() -> None:
    """A reply may add a method the project's class lacks (Point.__eq__, named on its own):
    an __eq__ that answers yes whatever the other is would pass every `assert a == b`."""
    forged = "def __eq__(self, other):\n    return True\n"
    fixed = "def __eq__(self, other):\n    return (self.x, self.y) == (other.x, other.y)\n"

    def judge(source: str) -> str | None:
        return forgery([Edit("helper", CODE, "Point.__eq__", source)], lambda _e: None)

    assert "a __eq__ in its class" in (judge(forged) or "")
    assert judge(fixed) is None


ADDED_CLASS = "def total(items):\n    class Point:\n{}    return Point()\n"
COMPARING = [
    (
        "a dataclass-like __eq__",
        "def __eq__(self, other):\n    if not isinstance(other, Point):\n"
        "        return NotImplemented\n    return self.x == other.x and self.y == other.y\n",
    ),
    (
        "a tuple of fields",
        "def __eq__(self, other):\n    return (self.x, self.y) == (other.x, other.y)\n",
    ),
    (
        "the same object first",
        "def __eq__(self, other):\n    if self is other:\n        return True\n"
        "    return isinstance(other, Point) and self.x == other.x\n",
    ),
    (
        "vars",
        "def __eq__(self, other):\n"
        "    return type(self) is type(other) and vars(self) == vars(other)\n",
    ),
    ("__dict__", "def __eq__(self, other):\n    return self.__dict__ == other.__dict__\n"),
    ("a wrapped value", "def __eq__(self, other):\n    return self.amount == other\n"),
    ("the float value", "def __eq__(self, other):\n    return float(self) == float(other)\n"),
    ("not !=", "def __eq__(self, other):\n    return not self.x != other.x\n"),
    (
        "super()",
        "def __eq__(self, other):\n    return super().__eq__(other) and self.z == other.z\n",
    ),
    (
        "isclose",
        "def __eq__(self, other):\n    import math\n    return math.isclose(self.x, other.x)\n",
    ),
    ("a key method", "def __eq__(self, other):\n    return self.key() == other.key()\n"),
    (
        "a field's method",
        "def __eq__(self, other):\n    return self.name.lower() == other.name.lower()\n",
    ),
    (
        "locals",
        "def __eq__(self, other):\n    mine = (self.x, self.y)\n    theirs = (other.x, other.y)\n"
        "    return mine == theirs\n",
    ),
    (
        "a conditional expression",
        "def __eq__(self, other):\n    return self.x == other.x if isinstance(other, Point) "
        "else NotImplemented\n",
    ),
    ("ordering", "def __lt__(self, other):\n    return (self.a, self.b) < (other.a, other.b)\n"),
    ("ordering swapped", "def __lt__(self, other):\n    return other.k > self.k\n"),
    ("__ge__ from __lt__", "def __ge__(self, other):\n    return not self < other\n"),
    ("__ne__ from __eq__", "def __ne__(self, other):\n    return not self == other\n"),
    ("__eq__ = None", "__eq__ = None\n"),
    ("__hash__ alone", "def __hash__(self):\n    return 1\n"),
]


@pytest.mark.parametrize("method", [c[1] for c in COMPARING], ids=[c[0] for c in COMPARING])
def test_a_comparison_method_that_compares_fields_is_allowed(method: str) -> None:
    inner = "".join(f"        {line}\n" for line in method.splitlines())

    assert refusal(ADDED_CLASS.format(inner)) is None


#: Stand-ins returned from code under test (#30): mock.ANY was caught only when a neighbour test
#: happened to check isinstance.
STAND_INS = [
    ("mock.ANY", body("from unittest.mock import ANY", "return ANY"), "unittest.mock"),
    ("unittest.mock.ANY", body("import unittest.mock", "return unittest.mock.ANY"), "unittest."),
    ("mock.sentinel", body("from unittest import mock", "return mock.sentinel.total"), "unittes"),
    ("MagicMock", body("from unittest.mock import MagicMock", "return MagicMock()"), "unittest"),
    ("patch", body("from unittest import mock", "mock.patch('x.y').start()"), "unittest.mock"),
    ("the mock package", body("import mock", "return mock.ANY"), "uses mock ("),
    ("imported by name", body("__import__('unittest.mock')"), "unittest.mock"),
    ("pytest.approx", body("import pytest", "return pytest.approx(5, abs=100)"), "pytest.approx"),
    ("dirty_equals", body("from dirty_equals import IsInt", "return IsInt"), "dirty_equals"),
]


@pytest.mark.parametrize(
    ("source", "reason"), [c[1:] for c in STAND_INS], ids=[c[0] for c in STAND_INS]
)
def test_a_stand_in_in_code_under_test_is_refused(source: str, reason: str) -> None:
    refused = refusal(source)

    assert refused is not None
    assert refused.startswith("the fix in src/app/calc.py::total uses ")
    assert reason in refused
    assert refused.endswith("; code under test must compute the value a test checks")


def test_a_stand_in_through_the_files_import_is_refused() -> None:
    module = {CODE: "from unittest.mock import ANY\n\n" + BEFORE}.get
    edit = Edit("replace", CODE, "total", body("return ANY"))

    assert "unittest.mock" in (forgery([edit], lambda _e: BEFORE, module) or "")
    assert "uses mock (" in (
        forgery([Edit("import", CODE, "", "import mock\n")], lambda _e: None) or ""
    )


def test_a_test_may_use_stand_ins() -> None:
    source = body("from unittest import mock", "assert total(mock.ANY) == mock.ANY")
    edit = Edit("replace", TEST, "total", source)

    assert forgery([edit], lambda _e: BEFORE, None, TESTS) is None
    assert review([edit], TESTS, lambda _e: BEFORE).refused is None
    # In code, the same edit is refused, through review too.
    code = Edit("replace", CODE, "total", source)
    assert "unittest.mock" in (review([code], TESTS, lambda _e: BEFORE).refused or "")


def test_code_that_already_used_mock_stays_editable() -> None:
    before = body("from unittest import mock", "mock.sentinel.x")
    after = body("from unittest import mock", "mock.sentinel.y", "print(1)")

    assert refusal(after, before) is None


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
    ("open a file", body("open('out.txt', 'w').write('x')", "open(path)")),
    ("os.open", body("import os", "fd = os.open(path, os.O_RDONLY)", "os.close(fd)")),
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
    assert result.refused.endswith(
        "compare the object's fields with those of the other instead (self.x == other.x)"
    )


def test_a_second_edit_is_read_too() -> None:
    ok = Edit("replace", CODE, "total", BEFORE)
    bad = Edit("helper", CODE, "spy", "def spy():\n    import sys\n    return sys._getframe(1)\n")

    refused = forgery([ok, bad], lambda e: BEFORE if e.kind == "replace" else None)

    assert refused is not None
    assert refused.startswith("the fix in src/app/calc.py::spy uses stack frames (sys._getframe)")


def test_source_that_does_not_parse_is_left_to_the_applier() -> None:
    assert refusal("def total(:\n") is None
    assert refusal(dedent(BEFORE), before="def total(:\n") is None


def test_a_class_given_whole_is_judged_against_the_class_it_replaces() -> None:
    """What the class already reached is no news; what the whole class adds is judged."""
    before = "class Box:\n    def size(self):\n        return len(sys.argv)\n"
    after = before.replace("len(sys.argv)", "len(sys.argv) + 1")

    def judge(source: str) -> str | None:
        return forgery([Edit("replace", CODE, "Box", source)], lambda _e: before)

    assert judge(after) is None
    assert "a __eq__ in Box" in (
        judge(after + "\n    def __eq__(self, o):\n        return True\n") or ""
    )
