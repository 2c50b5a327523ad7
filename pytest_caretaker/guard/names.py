"""Names: what a candidate may not reach, and how a name in its code is read to know.

The tables of the forgery guard (forgery.py): modules, dotted names and attributes through which
code can rewrite the verifier, pytest or the interpreter, each with the half-sentence the model
reads. A name is resolved through the imports the candidate itself makes (``import sys as s``,
``from os import kill``) and through getattr/setattr with a name caretaker can compute: a string
literal, or literals joined by ``+``, an f-string, ``str.join`` or a constant slice.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping

_INTERNALS = "which could rewrite how tests are run or reported"
_FRAMES = "which exposes and changes the variables of its callers, the test runner's included"
_PROCESS = "which can kill the verifier or outlive the run"
_TRACE = "which sees and changes everything the tests run"
_CODE = "which can swap the code under test for a stand-in"

#: Modules whose every use is refused: (module, why).
MODULES = {
    "_pytest": f"pytest's internals (_pytest), {_INTERNALS}",
    "pytest_caretaker": "caretaker itself, the verifier that judges the fix",
    "gc": "gc, which can find and change any live object, the verifier's included",
    "ctypes": "ctypes, which can rewrite the interpreter's memory",
}
#: Dotted names refused wherever they are read, called or written.
DOTTED = {
    "sys.modules": f"the interpreter's module table sys.modules, {_CODE} or the verifier",
    "sys.meta_path": f"the import machinery (sys.meta_path), {_CODE}",
    "sys.path_hooks": f"the import machinery (sys.path_hooks), {_CODE}",
    "sys.path_importer_cache": f"the import machinery (sys.path_importer_cache), {_CODE}",
    "sys._getframe": f"stack frames (sys._getframe), {_FRAMES}",
    "sys._current_frames": f"stack frames (sys._current_frames), {_FRAMES}",
    "sys.settrace": f"a trace hook (sys.settrace), {_TRACE}",
    "sys.setprofile": f"a profile hook (sys.setprofile), {_TRACE}",
    "sys.addaudithook": f"an audit hook (sys.addaudithook), {_TRACE}",
    "sys.excepthook": "the interpreter's exception hook (sys.excepthook)",
    "threading.settrace": f"a trace hook (threading.settrace), {_TRACE}",
    "threading.setprofile": f"a profile hook (threading.setprofile), {_TRACE}",
    "inspect.currentframe": f"stack frames (inspect.currentframe), {_FRAMES}",
    "inspect.stack": f"stack frames (inspect.stack), {_FRAMES}",
    "inspect.trace": f"stack frames (inspect.trace), {_FRAMES}",
    "inspect.getouterframes": f"stack frames (inspect.getouterframes), {_FRAMES}",
    "inspect.getinnerframes": f"stack frames (inspect.getinnerframes), {_FRAMES}",
    "traceback.walk_stack": f"stack frames (traceback.walk_stack), {_FRAMES}",
    "traceback.walk_tb": f"stack frames (traceback.walk_tb), {_FRAMES}",
    "importlib.reload": f"importlib.reload, {_CODE}",
    "signal.signal": "a signal handler (signal.signal), which can intercept the verifier's timeout",
    "signal.setitimer": "a signal timer (signal.setitimer), which can interrupt the verifier",
    "signal.alarm": "a signal timer (signal.alarm), which can interrupt the verifier",
    "signal.pthread_kill": f"a signal to a thread (signal.pthread_kill), {_PROCESS}",
    "signal.raise_signal": f"a signal (signal.raise_signal), {_PROCESS}",
    "signal.set_wakeup_fd": "the signal wakeup descriptor (signal.set_wakeup_fd)",
}
_OS = ("kill", "killpg", "getppid", "_exit", "fork", "forkpty", "setsid", "setpgid", "setpgrp")
DOTTED |= {f"os.{name}": f"process control (os.{name}), {_PROCESS}" for name in _OS}
#: A run's result is written through a descriptor the worker opens before the run is confined.
_FDS = ("write", "pwrite", "writev", "pwritev", "fdopen", "dup", "dup2", "ftruncate", "closerange")
DOTTED |= {
    f"os.{name}": f"a raw file descriptor (os.{name}), which can write over the verifier's result"
    for name in _FDS
}
#: Why open() of a descriptor number is refused.
RAW_OPEN = "open() of a raw file descriptor, which can write over the verifier's result"
#: Attributes refused on any object (the base does not matter: these names mean one thing).
ATTRIBUTES = {
    "__code__": f"a function's code (__code__), {_CODE}",
    "__globals__": f"a function's module globals (__globals__), {_CODE}",
    "__builtins__": f"the builtins (__builtins__), {_CODE}",
    "__subclasses__": "every class of the interpreter (__subclasses__), pytest's included",
    "f_back": f"stack frames (f_back), {_FRAMES}",
    "f_globals": f"stack frames (f_globals), {_FRAMES}",
    "f_locals": f"stack frames (f_locals), {_FRAMES}",
    "f_builtins": f"stack frames (f_builtins), {_FRAMES}",
    "tb_frame": f"stack frames (tb_frame), {_FRAMES}",
    "gi_frame": f"stack frames (gi_frame), {_FRAMES}",
    "cr_frame": f"stack frames (cr_frame), {_FRAMES}",
    "ag_frame": f"stack frames (ag_frame), {_FRAMES}",
    "pluginmanager": f"pytest's plugin manager, {_INTERNALS}",
}
#: Bare names refused when the candidate calls them unqualified (from-imported elsewhere).
BARE = {
    name.rsplit(".", 1)[1]: why
    for name, why in DOTTED.items()
    if name.rsplit(".", 1)[1]
    in {"getppid", "killpg", "setsid", "_getframe", "currentframe", "settrace", "setprofile"}
    | {"addaudithook", "_current_frames", "walk_stack"}
}
#: Attributes refused when assigned (or set, or deleted) on anything.
STORED = {
    "__class__": "an object's class (__class__), which changes what the object is",
    "__defaults__": f"a function's defaults (__defaults__), {_CODE}",
    "__kwdefaults__": f"a function's defaults (__kwdefaults__), {_CODE}",
    "__dict__": f"an object's namespace (__dict__), {_CODE}",
}
STORED |= {
    f"__{name}__": f"the __{name}__ of an existing class, which decides what every comparison "
    "with it says"
    for name in ("eq", "ne", "lt", "le", "gt", "ge")
}
#: Modules whose attributes may not be assigned at all: (module, why).
FROZEN = {
    "builtins": f"the builtins, {_CODE}",
    "sys": "the interpreter's state (sys), which the verifier relies on",
    "pytest": f"pytest, {_INTERNALS}",
    "os": "the os module, which the verifier uses too",
    "signal": "the signal module, which the verifier uses too",
}
#: Modules that may not be handed around or looked into by a computed name.
SENSITIVE = frozenset({"sys", "builtins", "gc", "ctypes", "importlib", "_pytest", "pytest"}) | {
    "pytest_caretaker",
    "os",
    "signal",
    "inspect",
}
#: Stand-ins, refused in code under test (a test may use them): values that take the place of
#: the one a test checks, or equal more than one value. Keys start with STAND_IN.
STAND_IN = "stand-in "
_TAKES = "whose stand-ins take the place of the value a test checks"
STAND_INS = {
    "unittest.mock": f"unittest.mock ({_TAKES}: ANY equals anything, sentinel, Mock, patch)",
    "mock": f"mock ({_TAKES}: ANY equals anything, sentinel, Mock, patch)",
    "pytest_mock": f"pytest_mock ({_TAKES})",
    "dirty_equals": "dirty_equals, whose values equal every value of a kind",
    "pytest.approx": "pytest.approx, a value that equals every number near it",
}
#: Functions that run code given as a string.
DYNAMIC = frozenset({"exec", "eval", "compile"})
#: Attribute names that a string literal may not spell (getattr, attrgetter, vars(x)[...]).
SPELLED = frozenset(ATTRIBUTES) | frozenset(STORED) | frozenset(BARE)


def aliases(tree: ast.AST) -> dict[str, str]:
    """What each name imported in tree stands for: {"s": "sys", "kill": "os.kill"}."""
    found: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    found[alias.asname] = alias.name
                else:
                    top = alias.name.split(".")[0]
                    found[top] = top
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            for alias in node.names:
                found[alias.asname or alias.name] = f"{node.module}.{alias.name}"
    return found


def dotted(node: ast.AST, names: Mapping[str, str]) -> str | None:
    """The dotted name node reads (sys.modules.get), through imports and constant getattr."""
    if isinstance(node, ast.Name):
        return names.get(node.id, node.id)
    if isinstance(node, ast.Attribute):
        base = dotted(node.value, names)
        return f"{base}.{node.attr}" if base is not None else None
    if isinstance(node, ast.Call) and _called(node, "getattr") and len(node.args) >= 2:
        base, attribute = dotted(node.args[0], names), fold(node.args[1])
        return f"{base}.{attribute}" if base is not None and attribute is not None else None
    return None


def _called(node: ast.Call, name: str) -> bool:
    return isinstance(node.func, ast.Name) and node.func.id == name


def fold(node: ast.AST) -> str | None:
    """The string node always evaluates to, when caretaker can compute it; else None."""
    if isinstance(node, ast.Constant):
        return node.value if isinstance(node.value, str) else None
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = fold(node.left), fold(node.right)
        return left + right if left is not None and right is not None else None
    if isinstance(node, ast.JoinedStr):
        parts = [fold(v.value if isinstance(v, ast.FormattedValue) else v) for v in node.values]
        return None if None in parts else "".join(p for p in parts if p is not None)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        separator = fold(node.func.value)
        if node.func.attr == "join" and separator is not None and len(node.args) == 1:
            items = node.args[0]
            if isinstance(items, (ast.List, ast.Tuple)):
                parts = [fold(item) for item in items.elts]
                return None if None in parts else separator.join(p for p in parts if p)
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Slice):
        text = fold(node.value)
        bounds = [_integer(b) for b in (node.slice.lower, node.slice.upper, node.slice.step)]
        if text is not None and all(b is not False for b in bounds):
            lower, upper, step = (b if isinstance(b, int) else None for b in bounds)
            return text[lower:upper:step] if step != 0 else None
    return None


def _integer(node: ast.expr | None) -> int | bool | None:
    """A slice bound: None when absent, the int when constant, False when computed."""
    if node is None:
        return None
    try:
        value = ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return False
    return value if isinstance(value, int) and not isinstance(value, bool) else False
