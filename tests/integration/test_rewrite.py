"""Apply: libcst replaces exactly the named definitions; every other byte stays as it was."""

from __future__ import annotations

import ast
import subprocess
from collections.abc import Sequence
from pathlib import Path
from textwrap import dedent

import pytest

from pytest_caretaker.apply.rewrite import apply_edits, unified_diff
from pytest_caretaker.results import Edit, FileChange, NotApplied

PATH = "calc.py"
FIXED_MEAN = "def mean(xs):\n    return sum(xs) / len(xs)\n"


def replace(qualname: str, source: str) -> Edit:
    return Edit("replace", PATH, qualname, source)


def apply(before: str | bytes, *edits: Edit) -> FileChange | NotApplied:
    data = before.encode("utf-8") if isinstance(before, str) else before
    return apply_edits(PATH, data, edits)


def applied(before: str | bytes, *edits: Edit) -> bytes:
    result = apply(before, *edits)
    assert isinstance(result, FileChange), result
    assert result.path == PATH
    assert result.before == (before.encode("utf-8") if isinstance(before, str) else before)
    compile(result.after, PATH, "exec", dont_inherit=True)
    return result.after


def not_applied(before: str | bytes, *edits: Edit) -> str:
    result = apply(before, *edits)
    assert isinstance(result, NotApplied), result
    return result.reason


def def_range(data: bytes, qualname: str) -> tuple[int, int]:
    """First (decorators included) and last line, 1-based, of the definition called qualname."""
    found: dict[str, tuple[int, int]] = {}

    def walk(nodes: Sequence[ast.stmt], prefix: str) -> None:
        for node in nodes:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                name = prefix + node.name
                first = min([node.lineno] + [d.lineno for d in node.decorator_list])
                found[name] = (first, node.end_lineno or node.lineno)
                walk(node.body, name + ".")

    walk(ast.parse(data).body, "")
    return found[qualname]


def assert_only_def_changed(before: bytes, after: bytes, qualname: str) -> None:
    """Every line outside qualname's definition is byte-for-byte the same."""
    first_before, last_before = def_range(before, qualname)
    first_after, last_after = def_range(after, qualname)
    lines_before = before.splitlines(keepends=True)
    lines_after = after.splitlines(keepends=True)
    assert lines_after[: first_after - 1] == lines_before[: first_before - 1]
    assert lines_after[last_after:] == lines_before[last_before:]


def def_lines(data: bytes, qualname: str) -> list[bytes]:
    first, last = def_range(data, qualname)
    return data.splitlines(keepends=True)[first - 1 : last]


CALC = dedent(
    '''\
    """A small calculator."""

    import math

    # The mean of a list.
    # Empty lists are an error.
    def mean(xs):
        # divide
        return sum(xs) / (len(xs) + 1)  # off by one
    # a comment at the top level, right after mean



    def total(xs):
        return math.fsum(xs)  # keep me


    class Stack:
        """LIFO."""

        def __init__(self):
            self.items = []

        # Push on top.
        def push(self, x):
            self.items.insert(0, x)

        @property
        def size(self):
            return len(self.items)

        def pop(self):
            return self.items.pop()
    '''
)


def test_replace_function_keeps_comments_and_blank_lines_around_it() -> None:
    after = applied(CALC, replace("mean", FIXED_MEAN))

    assert after.decode() == dedent(
        '''\
        """A small calculator."""

        import math

        # The mean of a list.
        # Empty lists are an error.
        def mean(xs):
            return sum(xs) / len(xs)
        # a comment at the top level, right after mean



        def total(xs):
            return math.fsum(xs)  # keep me


        class Stack:
            """LIFO."""

            def __init__(self):
                self.items = []

            # Push on top.
            def push(self, x):
                self.items.insert(0, x)

            @property
            def size(self):
                return len(self.items)

            def pop(self):
                return self.items.pop()
        '''
    )
    assert_only_def_changed(CALC.encode(), after, "mean")


@pytest.mark.parametrize(
    "source",
    [
        "def push(self, x):\n    self.items.append(x)\n",
        "def push(self, x):\n        self.items.append(x)\n",  # body indented by 8
        "def push(self, x):\n  self.items.append(x)\n",  # body indented by 2
    ],
    ids=["four", "eight", "two"],
)
def test_replace_method_indents_to_the_class_level(source: str) -> None:
    after = applied(CALC, replace("Stack.push", source))

    assert def_lines(after, "Stack.push") == [
        b"    def push(self, x):\n",
        b"        self.items.append(x)\n",
    ]
    assert b"    # Push on top.\n    def push(self, x):\n" in after
    assert_only_def_changed(CALC.encode(), after, "Stack.push")


def test_replace_method_with_multiline_body_and_nested_blocks() -> None:
    source = dedent(
        """\
        def pop(self):
            if not self.items:
                raise IndexError("pop from empty stack")
            return self.items.pop()
        """
    )

    after = applied(CALC, replace("Stack.pop", source))

    assert def_lines(after, "Stack.pop") == [
        b"    def pop(self):\n",
        b"        if not self.items:\n",
        b'            raise IndexError("pop from empty stack")\n',
        b"        return self.items.pop()\n",
    ]
    assert_only_def_changed(CALC.encode(), after, "Stack.pop")


def test_original_decorators_are_kept_when_the_new_source_has_none() -> None:
    after = applied(
        CALC, replace("Stack.size", "def size(self):\n    return len(self.items) + 0\n")
    )

    assert def_lines(after, "Stack.size") == [
        b"    @property\n",
        b"    def size(self):\n",
        b"        return len(self.items) + 0\n",
    ]
    assert_only_def_changed(CALC.encode(), after, "Stack.size")


def test_new_decorators_replace_the_original_ones() -> None:
    source = "@functools.cached_property\ndef size(self):\n    return len(self.items)\n"

    after = applied(CALC, replace("Stack.size", source))

    assert def_lines(after, "Stack.size") == [
        b"    @functools.cached_property\n",
        b"    def size(self):\n",
        b"        return len(self.items)\n",
    ]
    assert b"@property" not in after
    assert_only_def_changed(CALC.encode(), after, "Stack.size")


def test_decorator_added_to_a_function_that_had_none() -> None:
    after = applied(CALC, replace("total", "@staticmethod\ndef total(xs):\n    return sum(xs)\n"))

    assert def_lines(after, "total") == [
        b"@staticmethod\n",
        b"def total(xs):\n",
        b"    return sum(xs)\n",
    ]
    assert_only_def_changed(CALC.encode(), after, "total")


TWO_SPACES = dedent(
    """\
    class Stack:
      def push(self, x):
        if x is None:
          return
        self.items.insert(0, x)

      def pop(self):
        return self.items.pop()


    def mean(xs):
      return 0
    """
)


def test_two_space_file_keeps_two_spaces_in_a_replaced_method() -> None:
    source = dedent(
        """\
        def push(self, x):
            if x is None:
                return
            self.items.append(x)
        """
    )

    after = applied(TWO_SPACES, replace("Stack.push", source))

    assert after.decode() == dedent(
        """\
        class Stack:
          def push(self, x):
            if x is None:
              return
            self.items.append(x)

          def pop(self):
            return self.items.pop()


        def mean(xs):
          return 0
        """
    )
    assert_only_def_changed(TWO_SPACES.encode(), after, "Stack.push")


def test_two_space_file_keeps_two_spaces_in_a_replaced_function() -> None:
    after = applied(TWO_SPACES, replace("mean", FIXED_MEAN))

    assert def_lines(after, "mean") == [b"def mean(xs):\n", b"  return sum(xs) / len(xs)\n"]
    assert_only_def_changed(TWO_SPACES.encode(), after, "mean")


def test_tab_indented_file_keeps_tabs() -> None:
    before = b"class Stack:\n\tdef pop(self):\n\t\treturn 0\n"

    after = applied(before, replace("Stack.pop", "def pop(self):\n    return 1\n"))

    assert after == b"class Stack:\n\tdef pop(self):\n\t\treturn 1\n"


CRLF = CALC.replace("\n", "\r\n").encode()


def test_crlf_file_stays_crlf() -> None:
    after = applied(CRLF, replace("mean", "def mean(xs):\n    if not xs:\n        return 0\n"))

    assert b"\n" not in after.replace(b"\r\n", b"")
    assert def_lines(after, "mean") == [
        b"def mean(xs):\r\n",
        b"    if not xs:\r\n",
        b"        return 0\r\n",
    ]
    assert_only_def_changed(CRLF, after, "mean")


def test_crlf_file_stays_crlf_with_import_and_helper() -> None:
    after = applied(
        CRLF,
        Edit("import", PATH, "", "import statistics"),
        Edit("helper", PATH, "_count", "def _count(xs):\n    return len(xs)\n"),
        replace("mean", "def mean(xs):\n    return statistics.fsum(xs) / _count(xs)\n"),
    )

    assert b"\n" not in after.replace(b"\r\n", b"")
    assert b"import math\r\nimport statistics\r\n" in after
    assert b"\r\ndef _count(xs):\r\n    return len(xs)\r\n" in after


LATIN1 = dedent(
    """\
    # -*- coding: latin-1 -*-
    # Café, crème brûlée.


    def greet(name):
        return "bonjour " + name


    def other():
        return "déjà"
    """
).encode("latin-1")


def test_latin1_file_keeps_its_bytes_and_stays_latin1() -> None:
    after = applied(
        LATIN1, replace("greet", 'def greet(name):\n    return "salut " + name + "é"\n')
    )

    assert after.startswith(b"# -*- coding: latin-1 -*-\n# Caf\xe9, cr\xe8me br\xfbl\xe9e.\n")
    assert b'return "d\xe9j\xe0"' in after
    assert b'return "salut " + name + "\xe9"' in after
    assert b"\xc3" not in after  # nothing was written as UTF-8
    with pytest.raises(UnicodeDecodeError):
        after.decode("utf-8")
    assert after.decode("latin-1").count("é") == LATIN1.decode("latin-1").count("é") + 1
    assert_only_def_changed(LATIN1, after, "greet")


def test_latin1_file_rejects_characters_it_cannot_hold() -> None:
    reason = not_applied(LATIN1, replace("greet", 'def greet(name):\n    return "☃ " + name\n'))

    assert PATH in reason
    assert "encoding" in reason


BOM = b"\xef\xbb\xbf" + CALC.encode()


def test_utf8_bom_is_kept() -> None:
    after = applied(BOM, replace("mean", FIXED_MEAN))

    assert after.startswith(b'\xef\xbb\xbf"""A small calculator."""\n')
    assert after.count(b"\xef\xbb\xbf") == 1
    assert_only_def_changed(BOM, after, "mean")


def test_utf8_bom_is_kept_when_an_import_is_added() -> None:
    after = applied(BOM, Edit("import", PATH, "", "import statistics"), replace("mean", FIXED_MEAN))

    assert after.startswith(b'\xef\xbb\xbf"""A small calculator."""\n')
    assert after.count(b"\xef\xbb\xbf") == 1


@pytest.mark.parametrize("newline", ["\n", "\r\n"], ids=["lf", "crlf"])
def test_file_without_trailing_newline(newline: str) -> None:
    before = "import math\n\n\ndef total(xs):\n    return 0\n\n\ndef mean(xs):\n    return 0"
    before_bytes = before.replace("\n", newline).encode()

    after = applied(before_bytes, replace("mean", FIXED_MEAN))

    expected = "import math\n\n\ndef total(xs):\n    return 0\n\n\ndef mean(xs):\n" + (
        "    return sum(xs) / len(xs)"
    )
    assert after == expected.replace("\n", newline).encode()
    assert not after.endswith(b"\n")
    assert_only_def_changed(before_bytes, after, "mean")


def test_file_without_trailing_newline_replacing_a_function_before_the_last() -> None:
    before = b"def mean(xs):\n    return 0\n\n\ndef other():\n    return 1"

    after = applied(before, replace("mean", FIXED_MEAN))

    assert after == b"def mean(xs):\n    return sum(xs) / len(xs)\n\n\ndef other():\n    return 1"
    assert_only_def_changed(before, after, "mean")


def test_async_function_is_replaced() -> None:
    before = b"import asyncio\n\n\nasync def fetch(url):\n    return None\n"

    after = applied(before, replace("fetch", "async def fetch(url):\n    return url\n"))

    assert after == b"import asyncio\n\n\nasync def fetch(url):\n    return url\n"


def test_nested_function_is_replaced() -> None:
    before = b"def outer():\n    def inner():\n        return 0\n\n    return inner()\n"

    after = applied(before, replace("outer.inner", "def inner():\n    return 1\n"))

    assert after == b"def outer():\n    def inner():\n        return 1\n\n    return inner()\n"
    assert_only_def_changed(before, after, "outer.inner")


def test_several_replacements_in_one_file() -> None:
    after = applied(
        CALC,
        replace("mean", FIXED_MEAN),
        replace("Stack.pop", "def pop(self):\n    return self.items.pop(0)\n"),
    )

    assert def_lines(after, "mean") == [b"def mean(xs):\n", b"    return sum(xs) / len(xs)\n"]
    assert def_lines(after, "Stack.pop") == [
        b"    def pop(self):\n",
        b"        return self.items.pop(0)\n",
    ]
    before = CALC.encode()
    lines_before = before.splitlines(keepends=True)
    lines_after = after.splitlines(keepends=True)
    mean_before, pop_before = def_range(before, "mean"), def_range(before, "Stack.pop")
    mean_after, pop_after = def_range(after, "mean"), def_range(after, "Stack.pop")
    assert lines_after[: mean_after[0] - 1] == lines_before[: mean_before[0] - 1]
    between_after = lines_after[mean_after[1] : pop_after[0] - 1]
    assert between_after == lines_before[mean_before[1] : pop_before[0] - 1]
    assert lines_after[pop_after[1] :] == lines_before[pop_before[1] :]


# --- imports ------------------------------------------------------------------------------------


def test_import_goes_after_the_existing_imports() -> None:
    before = dedent(
        """\
        \"\"\"Stats.\"\"\"

        import math
        from functools import reduce


        def mean(xs):
            return 0
        """
    )

    after = applied(
        before,
        Edit("import", PATH, "", "import statistics"),
        replace("mean", "def mean(xs):\n    return statistics.fmean(xs)\n"),
    )

    assert after.decode() == dedent(
        """\
        \"\"\"Stats.\"\"\"

        import math
        from functools import reduce
        import statistics


        def mean(xs):
            return statistics.fmean(xs)
        """
    )
    without_import = after.replace(b"import statistics\n", b"", 1)
    assert_only_def_changed(before.encode(), without_import, "mean")


def test_import_goes_after_the_module_docstring_when_there_are_no_imports() -> None:
    before = '"""Stats."""\n\n\ndef mean(xs):\n    return 0\n'

    after = applied(before, Edit("import", PATH, "", "import statistics"))

    assert after.startswith(b'"""Stats."""\nimport statistics\n')
    assert after.replace(b"import statistics\n", b"", 1) == before.encode()


def test_import_goes_first_without_docstring_or_imports() -> None:
    before = "def mean(xs):\n    return 0\n"

    after = applied(before, Edit("import", PATH, "", "import statistics"))

    assert after.startswith(b"import statistics\n")
    assert after.replace(b"import statistics\n", b"", 1) == before.encode()


@pytest.mark.parametrize("statement", ["import math", "import math\n", "from os import path"])
def test_import_already_present_is_not_duplicated(statement: str) -> None:
    before = "import math\nfrom os import path\n\n\ndef mean(xs):\n    return 0\n"

    after = applied(before, Edit("import", PATH, "", statement), replace("mean", FIXED_MEAN))

    assert after == b"import math\nfrom os import path\n\n\ndef mean(xs):\n" + (
        b"    return sum(xs) / len(xs)\n"
    )


def test_import_that_does_not_parse_is_not_applied() -> None:
    reason = not_applied(CALC, Edit("import", PATH, "", "import ("), replace("mean", FIXED_MEAN))

    assert "import (" in reason


# --- helpers ------------------------------------------------------------------------------------


def test_helper_goes_before_the_function_that_calls_it() -> None:
    before = dedent(
        """\
        import math


        def total(xs):
            return sum(xs)


        def mean(xs):
            return 0
        """
    )

    after = applied(
        before,
        Edit("helper", PATH, "_count", "def _count(xs):\n    return len(xs)\n"),
        replace("mean", "def mean(xs):\n    return total(xs) / _count(xs)\n"),
    )

    assert after.decode() == dedent(
        """\
        import math


        def total(xs):
            return sum(xs)


        def _count(xs):
            return len(xs)


        def mean(xs):
            return total(xs) / _count(xs)
        """
    )


def test_helper_for_a_method_goes_before_its_class() -> None:
    before = "def mean(xs):\n    return 0\n\n\nclass Stack:\n    def pop(self):\n        return 0\n"

    after = applied(
        before,
        Edit("helper", PATH, "_last", "def _last(items):\n    return items[-1]\n"),
        replace("Stack.pop", "def pop(self):\n    return _last(self.items)\n"),
    )

    assert after == (
        b"def mean(xs):\n    return 0\n\n\n"
        b"def _last(items):\n    return items[-1]\n\n\n"
        b"class Stack:\n    def pop(self):\n        return _last(self.items)\n"
    )


def test_a_new_method_goes_last_in_its_class_and_nothing_else_moves() -> None:
    # A developer's fix that adds `__reduce__` to a class: an edit named Class.method.
    before = (
        "class Stack:\n    def pop(self):\n        return 0\n\n"
        "    # the end of Stack\n\n\nclass Queue:\n    def pop(self):\n        return 1\n"
    )
    reduce = "def __reduce__(self):\n    return (Stack, ())\n"

    after = applied(before, Edit("helper", PATH, "Stack.__reduce__", reduce))

    assert after.decode() == before.replace(
        "return 0\n", "return 0\n\n    def __reduce__(self):\n        return (Stack, ())\n", 1
    )


def test_a_class_given_whole_replaces_the_class_keeping_its_decorators_and_neighbours() -> None:
    before = (
        "import dataclasses\n\n\n# The version.\n@dataclasses.dataclass\nclass Version:\n"
        "    major: int\n\n    def bump(self):\n        return 1\n\n\ndef after():\n    return 2\n"
    )
    whole = (
        "class Version(object):\n    __slots__ = ('major',)\n    major: int\n\n"
        "    def bump(self):\n        return self.major + 1\n"
    )

    after = applied(before, replace("Version", whole))

    assert after.decode() == before.replace(
        "class Version:\n    major: int\n\n    def bump(self):\n        return 1\n",
        whole,
    )


def test_a_new_method_of_a_class_the_file_lacks_is_not_applied() -> None:
    reason = not_applied(
        "def f():\n    return 0\n", Edit("helper", PATH, "Nope.m", "def m(self):\n    pass\n")
    )

    assert reason == "calc.py has no class Nope to add a method to"


def test_a_helper_class_goes_before_the_function_that_uses_it() -> None:
    # A reply's new class the fix needs (#34), added like a helper function.
    before = "import math\n\n\ndef components(n, edges):\n    return n\n"
    union_find = (
        "class UnionFind:\n    def __init__(self, n):\n        self.parent = list(range(n))\n"
    )

    after = applied(
        before,
        Edit("helper", PATH, "UnionFind", union_find),
        replace("components", "def components(n, edges):\n    return len(UnionFind(n).parent)\n"),
    )

    assert after.decode() == (
        "import math\n\n\n"
        + union_find
        + "\n\ndef components(n, edges):\n    return len(UnionFind(n).parent)\n"
    )


# --- not applied --------------------------------------------------------------------------------


@pytest.mark.parametrize("qualname", ["median", "Stack.peek", "Queue.push", "push"])
def test_missing_function_is_not_applied(qualname: str) -> None:
    name = qualname.rsplit(".", 1)[-1]

    reason = not_applied(CALC, replace(qualname, f"def {name}(self):\n    return 1\n"))

    assert qualname in reason
    assert PATH in reason


def test_missing_function_is_reported_even_when_others_apply() -> None:
    reason = not_applied(
        CALC, replace("mean", FIXED_MEAN), replace("median", "def median():\n  0\n")
    )

    assert "median" in reason


@pytest.mark.parametrize(
    "source",
    ["x = 1\n", "class mean:\n    pass\n", "return 1\n", "import math\n", "", "def mean(:\n"],
    ids=["assignment", "class", "body", "import", "empty", "syntax-error"],
)
def test_new_source_that_is_not_a_function_is_not_applied(source: str) -> None:
    reason = not_applied(CALC, replace("mean", source))

    assert "calc.py::mean" in reason
    assert "not a function definition" in reason


def test_file_that_does_not_parse_is_not_applied() -> None:
    reason = not_applied(b"def mean(xs:\n    return 0\n", replace("mean", FIXED_MEAN))

    assert PATH in reason
    assert "could not be parsed" in reason


# --- unified_diff and git apply -----------------------------------------------------------------


def git(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["git", "-c", "core.autocrlf=false", *args],
        cwd=root,
        capture_output=True,
        text=True,
        check=False,
    )


def check_git_applies(tmp_path: Path, result: FileChange) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    assert git(root, "init", "-q").returncode == 0
    target = root / result.path
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(result.before)
    patch = tmp_path / "fix.patch"
    patch.write_bytes(unified_diff(result))

    check = git(root, "apply", "--check", str(patch))
    assert check.returncode == 0, check.stderr
    done = git(root, "apply", str(patch))
    assert done.returncode == 0, done.stderr

    assert target.read_bytes() == result.after


def applied_result(before: bytes, *edits: Edit) -> FileChange:
    result = apply_edits(PATH, before, edits)
    assert isinstance(result, FileChange), result
    return result


NO_FINAL_NEWLINE = b"import math\n\n\ndef mean(xs):\n    return 0"


@pytest.mark.parametrize(
    "before",
    [
        CALC.encode(),
        CRLF,
        NO_FINAL_NEWLINE,
        NO_FINAL_NEWLINE.replace(b"\n", b"\r\n"),
        LATIN1.replace(b"def greet", b"def mean"),
        BOM,
    ],
    ids=["lf", "crlf", "no-final-newline", "crlf-no-final-newline", "latin1", "bom"],
)
def test_unified_diff_applies_with_git(tmp_path: Path, before: bytes) -> None:
    result = applied_result(before, replace("mean", FIXED_MEAN))
    assert result.after != result.before

    check_git_applies(tmp_path, result)


def test_unified_diff_with_import_and_helper_applies_with_git(tmp_path: Path) -> None:
    result = applied_result(
        CRLF,
        Edit("import", PATH, "", "import statistics"),
        Edit("helper", PATH, "_count", "def _count(xs):\n    return len(xs)\n"),
        replace("mean", "def mean(xs):\n    return statistics.fsum(xs) / _count(xs)\n"),
    )

    check_git_applies(tmp_path, result)


def test_unified_diff_adds_a_final_newline_with_git(tmp_path: Path) -> None:
    result = FileChange(PATH, NO_FINAL_NEWLINE, NO_FINAL_NEWLINE + b"\n")

    check_git_applies(tmp_path, result)


def test_unified_diff_in_a_subdirectory_applies_with_git(tmp_path: Path) -> None:
    result = apply_edits("pkg/calc.py", CALC.encode(), [replace("mean", FIXED_MEAN)])
    assert isinstance(result, FileChange), result

    check_git_applies(tmp_path, result)


def test_unified_diff_shape() -> None:
    result = applied_result(b"def mean(xs):\n    return 0\n", replace("mean", FIXED_MEAN))

    assert unified_diff(result) == (
        b"diff --git a/calc.py b/calc.py\n"
        b"--- a/calc.py\n"
        b"+++ b/calc.py\n"
        b"@@ -1,2 +1,2 @@\n"
        b" def mean(xs):\n"
        b"-    return 0\n"
        b"+    return sum(xs) / len(xs)\n"
    )


DASHES = (
    b"def mean(xs):\r\n"
    b'    """Mean.\r\n'
    b"\r\n"
    b"-- is a SQL comment\r\n"
    b"++ is not Python\r\n"
    b'    """\r\n'
    b"    return 0\r\n"
)


def test_unified_diff_of_removed_lines_starting_with_dashes_applies_with_git(
    tmp_path: Path,
) -> None:
    # A removed line "-- ..." is written "--- ...": it must keep its own CRLF like any other line.
    result = applied_result(DASHES, replace("mean", FIXED_MEAN))

    check_git_applies(tmp_path, result)


# --- assignments: module- and class-level, annotated, augmented, lambdas ----------------------

SHOP = dedent(
    """\
    \"\"\"Prices.\"\"\"

    # The rate of value-added tax.
    VAT = 0.25  # 25 %
    LIMIT: int = 10
    LIMIT += 5
    area = lambda w, h: w * w
    DEFAULTS = {
        "currency": "EUR",
    }


    class Shop:
        RATE = 0.1  # per item

        def price(self, net):
            RATE = 2  # a local: never a definition
            return net * (1 + VAT + self.RATE)
    """
)


def only_lines_changed(before: bytes, after: bytes, changed: dict[int, bytes]) -> None:
    """after is before with the lines given (1-based) replaced; every other byte is the same."""
    lines = before.splitlines(keepends=True)
    for line, text in changed.items():
        lines[line - 1] = text
    assert after == b"".join(lines)


@pytest.mark.parametrize(
    ("qualname", "source", "line", "expected"),
    [
        pytest.param("VAT", "VAT = 0.2\n", 4, b"VAT = 0.2  # 25 %\n", id="keeps-the-comment"),
        pytest.param("VAT", "VAT = 0.2  # 20 %\n", 4, b"VAT = 0.2  # 20 %\n", id="own-comment"),
        pytest.param("VAT", "VAT: float = 0.2\n", 4, b"VAT: float = 0.2  # 25 %\n", id="annotated"),
        pytest.param("LIMIT", "LIMIT: int = 11\n", 5, b"LIMIT: int = 11\n", id="annotated-form"),
        pytest.param("LIMIT", "LIMIT = 11\n", 5, b"LIMIT = 11\n", id="plain-for-annotated"),
        pytest.param("LIMIT", "LIMIT += 4\n", 6, b"LIMIT += 4\n", id="augmented-form"),
        pytest.param("LIMIT", "LIMIT -= 5\n", 6, b"LIMIT -= 5\n", id="augmented-operator"),
        pytest.param(
            "area", "area = lambda w, h: w * h\n", 7, b"area = lambda w, h: w * h\n", id="lambda"
        ),
        pytest.param(
            "Shop.RATE", "RATE = 0.2\n", 14, b"    RATE = 0.2  # per item\n", id="class-attribute"
        ),
    ],
)
def test_assignment_is_replaced_byte_for_byte(
    qualname: str, source: str, line: int, expected: bytes
) -> None:
    before = SHOP.encode()

    after = applied(before, replace(qualname, source))

    only_lines_changed(before, after, {line: expected})


def test_multi_line_assignment_is_replaced_whole() -> None:
    before = SHOP.encode()

    after = applied(before, replace("DEFAULTS", 'DEFAULTS = {"currency": "USD"}\n'))

    assert after == before.replace(
        b'DEFAULTS = {\n    "currency": "EUR",\n}\n', b'DEFAULTS = {"currency": "USD"}\n'
    )


def test_lambda_becomes_a_def_and_a_def_a_lambda() -> None:
    before = SHOP.encode()

    after = applied(before, replace("area", "def area(w, h):\n    return w * h\n"))
    assert after == before.replace(
        b"area = lambda w, h: w * w\n", b"def area(w, h):\n    return w * h\n"
    )
    back = apply_edits(PATH, after, [replace("area", "area = lambda w, h: w * h\n")])
    assert isinstance(back, FileChange)
    assert back.after == before.replace(b"w * w", b"w * h")


def test_assignment_and_function_in_one_file_with_crlf() -> None:
    before = SHOP.replace("\n", "\r\n").encode()

    after = applied(before, replace("VAT", "VAT = 0.2\n"), replace("Shop.RATE", "RATE = 0\n"))

    assert after == before.replace(b"VAT = 0.25", b"VAT = 0.2").replace(b"RATE = 0.1", b"RATE = 0")


@pytest.mark.parametrize(
    ("qualname", "source", "missing"),
    [
        pytest.param("TAX", "TAX = 0.2\n", "assignment TAX", id="no-such-name"),
        pytest.param("VAT", "VAT += 1\n", "augmented assignment to VAT", id="no-augmented-form"),
        pytest.param("Shop.price.RATE", "RATE = 1\n", "assignment Shop.price.RATE", id="a-local"),
        pytest.param("RATE", "RATE = 1\n", "assignment RATE", id="class-attribute-unqualified"),
    ],
)
def test_assignment_that_is_not_there_is_not_applied(
    qualname: str, source: str, missing: str
) -> None:
    reason = not_applied(SHOP, replace(qualname, source))

    assert f"{PATH} has no {missing}" in reason


@pytest.mark.parametrize(
    "source",
    ["VAT = TAX = 0.2\n", "TAX = 0.2\n", "VAT, TAX = 0.2, 0\n", "VAT = 0.2; TAX = 0\n"],
    ids=["two-targets", "other-name", "tuple", "two-statements"],
)
def test_assignment_source_must_assign_that_one_name(source: str) -> None:
    reason = not_applied(SHOP, replace("VAT", source))

    assert "not a function definition (nor an assignment to VAT)" in reason


def test_statement_sharing_its_line_is_not_replaced() -> None:
    reason = not_applied("A = 1; B = 2\n", replace("A", "A = 3\n"))

    assert "has no assignment A" in reason


DOCUMENTED = (
    "class Outer:\n"
    "    class Stats:\n"
    "        def mean(self, xs):\n"
    '            """The mean of xs.\n'
    "            \n"  # a blank line with the indent left in it
    "            Empty: an error.\n"
    '            """\n'
    '            query = """\n'
    "                select 1\n"
    '            """\n'
    "            return sum(xs) / (len(xs) + 1)\n"
)


def test_the_multiline_strings_a_fix_left_alone_keep_their_indent_in_a_nested_method() -> None:
    # The built-in repairer's and a model's edits hold the method dedented, its docstring's
    # lines too; libcst indents statements, not the lines inside a string.
    source = dedent(DOCUMENTED.split("\n", 2)[2]).replace("(len(xs) + 1)", "len(xs)")

    after = applied(DOCUMENTED, replace("Outer.Stats.mean", source))

    assert after.decode() == DOCUMENTED.replace("(len(xs) + 1)", "len(xs)")


def test_a_docstring_the_fix_rewrote_stays_as_the_fix_wrote_it() -> None:
    source = dedent(DOCUMENTED.split("\n", 2)[2]).replace("Empty: an error.", "Empty: 0.")

    after = applied(DOCUMENTED, replace("Outer.Stats.mean", source)).decode()

    assert "\n    Empty: 0.\n" in after  # where the fix put it: not guessed
    assert "\n                select 1\n" in after  # the string it left alone is as it was


def test_a_function_with_overload_stubs_has_its_implementation_replaced() -> None:
    # arrow's ArrowFactory.get: two @overload stubs, then the implementation. The developer's
    # fix replaced the first stub (keeping its @overload), and the buggy code still ran.
    before = (
        "from typing import overload\n\n\nclass Factory:\n"
        "    @overload\n    def get(self) -> int:\n        ...\n\n"
        "    @overload\n    def get(self, x: int) -> int:\n        ...\n\n"
        "    def get(self, x=0):\n        return x - 1\n"
    )

    after = applied(before, replace("Factory.get", "def get(self, x=0):\n    return x + 1\n"))

    assert after.decode() == before.replace("return x - 1", "return x + 1")


def test_a_new_try_block_goes_before_the_function_that_uses_it() -> None:
    block = "try:\n    import __builtin__ as builtins\nexcept ImportError:\n    import builtins\n"
    before = "import re\n\n\ndef other():\n    return 1\n\n\ndef strip(s):\n    return s\n"

    after = applied(
        before,
        Edit("helper", PATH, "builtins", block),
        replace("strip", "def strip(s):\n    return builtins.str(s)\n"),
    )

    assert after.decode() == (
        "import re\n\n\ndef other():\n    return 1\n\n\n"
        f"{block}\n\ndef strip(s):\n    return builtins.str(s)\n"
    )


READONLY = (
    "@property\ndef major(self):\n    return self._major\n\n"
    "@major.setter\ndef major(self, value):\n    raise AttributeError('readonly')\n"
)


@pytest.mark.parametrize("had_setter", [False, True], ids=["getter-only", "getter-and-setter"])
def test_a_property_given_with_its_setter_replaces_the_property(had_setter: bool) -> None:
    # semver: the fix adds a setter under the getter; the setter never replaces the getter.
    old_setter = "\n    @major.setter\n    def major(self, value):\n        self._major = value\n"
    before = (
        "class V:\n    @property\n    def major(self):\n        return 0\n"
        + (old_setter if had_setter else "")
        + "\n    def other(self):\n        return 1\n"
    )

    after = applied(before, replace("V.major", READONLY)).decode()

    assert after == (
        "class V:\n    @property\n    def major(self):\n        return self._major\n\n"
        "    @major.setter\n    def major(self, value):\n        raise AttributeError('readonly')\n"
        "\n    def other(self):\n        return 1\n"
    )
