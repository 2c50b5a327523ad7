"""Prompt templates (Jinja2 files beside this module) and the tool schema offered to models.

The rules every model must follow live in one template, rules.j2, included by the others.
"""

from __future__ import annotations

from functools import cache
from typing import Any

TOOL_NAME = "propose_fix"

TOOL: dict[str, Any] = {
    "type": "function",
    "function": {
        "name": TOOL_NAME,
        "description": "Propose a fix: the complete new source of each function it changes.",
        "parameters": {
            "type": "object",
            "properties": {
                "explanation": {
                    "type": "string",
                    "description": "One short paragraph: the cause of the failure and the fix.",
                },
                "edits": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "properties": {
                            "path": {"type": "string", "description": "File, as shown"},
                            "function": {
                                "type": "string",
                                "description": "Qualified name of the function replaced",
                            },
                            "code": {
                                "type": "string",
                                "description": "The complete new definition",
                            },
                        },
                        "required": ["path", "function", "code"],
                    },
                },
            },
            "required": ["explanation", "edits"],
        },
    },
}


@cache
def _environment() -> Any:
    import jinja2

    return jinja2.Environment(
        loader=jinja2.PackageLoader("pytest_caretaker", "prompts"),
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        autoescape=False,
    )


def render(name: str, **variables: object) -> str:
    return str(_environment().get_template(f"{name}.j2").render(**variables)).strip() + "\n"
