"""The tools offered to a model that calls tools: ``propose_fix``, the fix, and ``show``, a look
at the project's source of a definition, a class or a file before a fix is proposed (show.py
answers it). A text model asks to see code with ``SHOW: name`` lines instead (asking.py).
"""

from __future__ import annotations

from typing import Any

TOOL_NAME = "propose_fix"
SHOW_NAME = "show"
#: Rounds of showing code a model may ask for before each fix it proposes: a round answers what
#: one reply asks to see. It is no attempt; the bound keeps a model from asking without end.
MAX_ROUNDS = 3

TOOL: dict[str, Any] = {
    "type": "function",
    "function": {
        "name": TOOL_NAME,
        "description": (
            "Propose a fix: the complete new source of each function or constant it changes."
        ),
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
                                "description": (
                                    "Qualified name of the function or constant replaced"
                                ),
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

SHOW_TOOL: dict[str, Any] = {
    "type": "function",
    "function": {
        "name": SHOW_NAME,
        "description": (
            "Show the project's source of a function, method, class or Python file that the "
            "prompt does not show, before proposing a fix. Read only."
        ),
        "parameters": {
            "type": "object",
            "properties": {
                "name": {
                    "type": "string",
                    "description": (
                        "A function or method (parse_header, Stack.push), a class (Stack), or a "
                        "Python file's path relative to the project root (pkg/util.py)"
                    ),
                },
                "path": {
                    "type": "string",
                    "description": "Optional: the file to look in, relative to the project root",
                },
            },
            "required": ["name"],
        },
    },
}
