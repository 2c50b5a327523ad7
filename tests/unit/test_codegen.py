"""Codegen: the canary for the one private libcst API caretaker uses, and its public stand-in."""

from __future__ import annotations

import dataclasses
from importlib.metadata import version

import libcst as cst
import pytest

from pytest_caretaker.builtin import _codegen

#: What to do when a libcst upgrade breaks the private code generator: said by every failure here.
BROKEN = (
    "libcst {version} changed its private code generator (CodegenState in libcst._nodes.internal, "
    "CSTNode._codegen), which pytest_caretaker/builtin/_codegen.py uses to write a replacement "
    "node at the indentation of its statement. See how Module.code_for_node "
    "(libcst/_nodes/module.py) generates code in that version and mend _codegen.code to match. "
    "Until then the public Module.code_for_node stands in, and the continuation lines of "
    "multi-line mutants lose their indentation. What changed: {what}"
)

CALL = "def f(a, b):\n    return g(\n        a,\n        b,\n    )\n"


def broken(what: str) -> str:
    return BROKEN.format(version=version("libcst"), what=what)


def call_of(text: str) -> tuple[cst.Module, cst.Call]:
    module = cst.parse_module(text)
    (call,) = [node for node in _walk(module) if isinstance(node, cst.Call)]
    return module, call


def _walk(node: cst.CSTNode) -> list[cst.CSTNode]:
    return [node, *(n for child in node.children for n in _walk(child))]


def test_libcst_still_has_the_private_code_generator() -> None:
    try:
        from libcst._nodes.internal import CodegenState
    except ImportError as error:
        pytest.fail(broken(f"the import failed: {error}"))
    fields = {field.name for field in dataclasses.fields(CodegenState)}
    missing = {"default_indent", "default_newline", "indent_tokens", "tokens"} - fields
    assert not missing, broken(f"CodegenState has no {', '.join(sorted(missing))}")
    assert callable(getattr(cst.CSTNode, "_codegen", None)), broken("CSTNode has no _codegen")
    assert _codegen.CodegenState is CodegenState, broken("_codegen.py fell back to the public API")


def test_continuation_lines_are_indented_as_the_statement() -> None:
    module, call = call_of(CALL)
    written = _codegen.code(call, module, "    ")
    assert written == "g(\n        a,\n        b,\n    )", broken(f"it wrote {written!r}")


def test_at_no_indentation_the_code_is_the_public_writers() -> None:
    module, call = call_of(CALL)
    assert _codegen.code(call, module, "") == module.code_for_node(call) == "g(\n    a,\n    b,\n)"


def test_the_module_style_is_kept() -> None:
    module, call = call_of(CALL.replace("\n", "\r\n"))
    written = _codegen.code(call, module, "    ")
    assert written == "g(\r\n        a,\r\n        b,\r\n    )", broken(f"it wrote {written!r}")


def test_without_the_private_api_the_public_writer_stands_in(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    module, call = call_of(CALL)
    monkeypatch.setattr(_codegen, "CodegenState", None)
    assert _codegen.code(call, module, "    ") == module.code_for_node(call)


def test_a_private_api_of_another_shape_falls_back_to_the_public_writer(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    module, call = call_of(CALL)

    def renamed_fields(**_: object) -> None:
        raise TypeError("__init__() got an unexpected keyword argument 'indent_tokens'")

    monkeypatch.setattr(_codegen, "CodegenState", renamed_fields)
    assert _codegen.code(call, module, "    ") == module.code_for_node(call)
