"""Codegen: a replacement node's source, written at the indentation of the statement it is in.

libcst's public ``Module.code_for_node`` writes a node as if it stood at the module's top level,
so the continuation lines of a multi-line expression (a call with one argument a line) would lose
their indentation. Writing at a given indentation takes libcst's private code generator
(``CodegenState`` and ``CSTNode._codegen``, what ``code_for_node`` itself runs on). This module is
the one place that touches it, and tests/unit/test_codegen.py says plainly when a libcst upgrade
breaks it. Until it is mended, the public writer stands in: inside brackets Python ignores the
indentation of continuation lines, so every mutant still means the same, only less tidily.
"""

from __future__ import annotations

import libcst as cst

try:
    from libcst._nodes.internal import CodegenState
except ImportError:  # a libcst that moved it: the public writer below stands in
    CodegenState = None  # type: ignore[assignment,misc]


def code(node: cst.CSTNode, module: cst.Module, indent: str) -> str:
    """node's source in module's style, each of its continuation lines indented by indent."""
    if indent and CodegenState is not None:
        try:
            state = CodegenState(
                default_indent=module.default_indent,
                default_newline=module.default_newline,
                indent_tokens=[indent],
            )
            node._codegen(state)
        except (AttributeError, TypeError):  # a libcst whose private API changed shape
            pass
        else:
            return "".join(state.tokens)
    return module.code_for_node(node)
