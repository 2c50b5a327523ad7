"""Parse code: what one piece of code from a reply (a block, a tool call's ``code``) proposes.

A ``def`` of a function of the project replaces it; a ``class`` that exists stands for its methods
and attributes, each replacing its own; a new ``class`` or ``def`` is a helper, added only if the
fix calls it, and so is a new constant or an ``if``/``try`` block that binds only new names
(parse_new.py); an assignment naming one of the project's replaces it; an import joins the edits.
What restates the project's code unchanged (docstrings and formatting aside) is left out, and so
is a method the project's class does not have: each with a note that says why. Code with no
definition is a function's body, when it reads like one; examples, calls, prints and outputs
never are.
"""

from __future__ import annotations

import ast
import re
import textwrap
from collections.abc import Sequence
from dataclasses import dataclass

from pytest_caretaker import syntax
from pytest_caretaker.llm.parse_body import reads_like_body, wrap_body
from pytest_caretaker.llm.parse_new import groups, new_blocks, new_constants
from pytest_caretaker.llm.parse_targets import Targets, block_members
from pytest_caretaker.llm.restated import same
from pytest_caretaker.llm.same_names import Ambiguous, parameters_of
from pytest_caretaker.results import Edit, Unparsed

#: ``# file: pkg/mod.py``, and with what it replaces: ``# file: pkg/mod.py::Class.method``.
FILE_HINT = re.compile(r"^\s*#\s*(?:file|path)\s*:\s*(\S+?\.py)(?:::([\w.]+))?\s*$", re.I | re.M)
Function = ast.FunctionDef | ast.AsyncFunctionDef


def changes(edit: Edit) -> bool:
    """Whether an edit changes a definition the project has: a replacement, or a new method of
    one of its classes (a helper named ``Class.method``)."""
    return edit.kind == "replace" or (edit.kind == "helper" and "." in edit.qualname)


@dataclass(frozen=True)
class Piece:
    edit: Edit
    restated: bool = False  # from the block of a class the project has (a restatement of it)


@dataclass(frozen=True)
class Code:
    pieces: tuple[Piece, ...] = ()
    notes: tuple[str, ...] = ()  # what was left out, and why
    body: bool = False  # code without a definition, taken as a function's new body
    #: Replacements of definitions the scope keeps: a reply of only these, the guard refuses.
    outside: tuple[Edit, ...] = ()

    @property
    def replaces(self) -> bool:
        return any(changes(piece.edit) for piece in self.pieces)


def read_code(
    code: str,
    path: str | None,
    function: str | None,
    targets: Targets,
    named: bool = False,
) -> Code | Unparsed:
    """The edits code proposes. named: a tool call named the function (a body is that
    function's, whatever it reads like)."""
    hint = FILE_HINT.search(code)
    if path is None and hint:
        path = hint.group(1).lstrip("./")
        if function is None and hint.group(2):  # the file line names what it replaces
            function, named = hint.group(2), True
    source = textwrap.dedent(code.replace("\r\n", "\n")).strip("\n") + "\n"
    tree = module(source)
    if isinstance(tree, Unparsed):
        return tree
    return _Reader(source, path, targets).read(tree, function, named)


def module(source: str) -> ast.Module | Unparsed:
    try:
        tree = syntax.parse(source)
    except SyntaxError as error:
        return Unparsed(
            f"The code does not parse: {error.msg} at line {error.lineno} of the block. "
            "Reply with complete, valid Python for the whole function."
        )
    except ValueError:  # Python 3.10 and 3.11 refuse NUL bytes with a ValueError
        return Unparsed("The code holds a NUL byte; reply with plain Python source.")
    if not tree.body:
        return Unparsed(
            "The code block holds no statement. Reply with the complete corrected function."
        )
    return tree


class _Reader:
    def __init__(self, source: str, path: str | None, targets: Targets) -> None:
        self.source = source
        self.lines = source.splitlines()
        self.path = path
        self.targets = targets
        self.pieces: list[Piece] = []
        self.outside: list[Edit] = []
        self.notes: list[str] = []
        self.ambiguous: Ambiguous | None = None  # a name the reply leaves open: it is refused

    def read(self, tree: ast.Module, function: str | None, named: bool) -> Code | Unparsed:
        body = tree.body
        defs = [n for n in body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
        classes = [n for n in body if isinstance(n, ast.ClassDef)]
        imports = [n for n in body if isinstance(n, (ast.Import, ast.ImportFrom))]
        bound = self.targets.names.bound(self.path) if self.path else frozenset()
        blocks = new_blocks(body, self.lines, bound)
        others = len(body) - len(imports) - len(blocks)
        alone = function if function is not None and others == 1 else None
        assigned = self._assignments(body, "", alone)
        replaced = {edit.qualname.rsplit(".", 1)[-1] for edit in assigned}
        constants = new_constants(body, self.lines, replaced | bound)
        # A tool call's edit that names a constant the project lacks and assigns just it.
        added = alone is not None and [n for n, _ in constants] == [alone.rsplit(".", 1)[-1]]
        loose = others - len(assigned)
        if not (defs or classes or added) and (loose or not assigned) and len(imports) != len(body):
            return self._body(tree, function, named)
        for edit in assigned:
            self._replace(edit)
        for name, text in constants + blocks:  # kept when the fix uses them (parse_finish)
            self.pieces.append(Piece(Edit("helper", self.path or "", name, text)))
        functions = groups(body)
        for node, *accessors in functions:
            name = function if function is not None and len(functions) == 1 else node.name
            self._define(node, name, last=accessors[-1] if accessors else None)
        for cls in classes:
            self._class(cls, whole=function == cls.name)
        for statement in imports:
            text = ast.get_source_segment(self.source, statement) or ""
            self.pieces.append(Piece(Edit("import", self.path or "", "", text)))
        if self.ambiguous is not None:
            return Unparsed(self.ambiguous.reason, whole=True)
        return Code(tuple(self.pieces), tuple(self.notes), outside=tuple(self.outside))

    # -- definitions ---------------------------------------------------------------------------

    def _define(
        self,
        node: Function,
        name: str,
        restated: bool = False,
        path: str | None = None,
        last: Function | None = None,  # the property's last accessor given with it
    ) -> None:
        text = segment(self.lines, node, last)
        first = node.args.posonlyargs + node.args.args
        method = bool(first) and first[0].arg in ("self", "cls")
        path = path or self.path
        found = self.targets.resolve(name, path, method, parameters_of(node))
        if isinstance(found, Ambiguous):
            self.ambiguous = found
        elif found is None and path is not None and self.targets.files(path) is None:
            # A file caretaker cannot read (outside the project, missing): the guard says why.
            self.pieces.append(Piece(Edit("replace", path, name, text), restated))
        elif found is None and "." in name and (home := self._new_method(name, path, restated)):
            self.pieces.append(Piece(Edit("helper", home, name, text)))
        elif found is None and "." in name:
            owner = name.rsplit(".", 1)[0]
            self.notes.append(
                f"{name} is left out: the project's class {owner} has no method {node.name}, "
                "and a fix replaces existing methods only"
            )
        elif found is None:
            self.pieces.append(Piece(Edit("helper", path or "", node.name, text), restated))
        else:
            self._replace(Edit("replace", found[0], found[1], text), restated)

    def _new_method(self, name: str, path: str | None, restated: bool) -> str | None:
        """The file of the project's class a method the class lacks is added to: when the
        reply names ``Class.method`` on its own (a tool edit's name, a ``# file:`` line), a
        deliberate addition, never a method of a restated class block (a sketch's inventions)."""
        owner = name.rsplit(".", 1)[0]
        home = None if restated or "." in owner else self.targets.class_file(owner, path)
        if home is None or not home[1] or not self.targets.may_edit(home[0]):
            return None
        return home[0]

    def _replace(self, edit: Edit, restated: bool = False) -> None:
        if not self.targets.may_edit(edit.path):
            kind = "test code" if self.targets.is_test(edit.path) else "code under test"
            self.notes.append(f"{edit.ref} is left out: it may not change (it is {kind})")
            self.outside.append(edit)
        elif same(edit.source, self.targets.original(edit.path, edit.qualname)):
            self.notes.append(f"{edit.ref} is left out: the reply restates it unchanged")
        else:
            self.pieces.append(Piece(edit, restated))

    def _class(self, cls: ast.ClassDef, whole: bool = False) -> None:
        """A class the project has stands for its members, each replacing its own; given whole
        and named on its own (``"function": "Version"``, ``# file: v.py::Version``), with every
        method and class attribute the project's class has, it replaces the class: its bases,
        ``__slots__``, new properties and all (a sketch that leaves any out never does)."""
        home = self.targets.class_file(cls.name, self.path)
        if home is None:  # a class the project does not have: a helper, if the fix needs it
            text = segment(self.lines, cls)
            self.pieces.append(Piece(Edit("helper", self.path or "", cls.name, text)))
            return
        if not home[1]:
            self.notes.append(
                f"class {cls.name} is left out: {home[0]} imports it from elsewhere, and "
                "restating it does not change it"
            )
            return
        if whole and self.targets.members(home[0], cls.name) <= block_members(cls):
            self._replace(Edit("replace", home[0], cls.name, segment(self.lines, cls)))
            return
        before = len(self.pieces), len(self.notes)
        # The class's members are its own file's, also when the reply named a module importing it.
        for edit in self._assignments(cls.body, f"{cls.name}.", None, home[0]):
            self._replace(edit, restated=True)
        for node, *accessors in groups(cls.body):
            last = accessors[-1] if accessors else None
            self._define(node, f"{cls.name}.{node.name}", True, home[0], last)
        if (len(self.pieces), len(self.notes)) == before:
            self.notes.append(
                f"class {cls.name} has no methods nor known attributes to replace; reply with "
                "the methods or class attributes to replace"
            )

    def _assignments(
        self, body: Sequence[ast.stmt], prefix: str, function: str | None, path: str | None = None
    ) -> list[Edit]:
        """The assignments of body (``X = …``, ``X: T = …``, ``X += …``) that name an
        assignment of the project: each replaces it. Any other is a function's body or loose
        code."""
        edits: list[Edit] = []
        for node in body:
            target = (
                node.targets[0] if isinstance(node, ast.Assign) and len(node.targets) == 1 else None
            )
            if isinstance(node, (ast.AnnAssign, ast.AugAssign)) and node.value is not None:
                target = node.target
            if not isinstance(target, ast.Name):
                continue
            name = prefix + target.id
            if function is not None and function.rsplit(".", 1)[-1] == target.id:
                name = function  # the tool call's qualified name
            augmented = isinstance(node, ast.AugAssign)
            found = self.targets.assignment(name, path or self.path, augmented=augmented)
            if found is not None:
                lines = self.lines[node.lineno - 1 : node.end_lineno]
                edits.append(
                    Edit("replace", found[0], found[1], textwrap.dedent("\n".join(lines)) + "\n")
                )
        return edits

    # -- bodies ---------------------------------------------------------------------------------

    def _body(self, tree: ast.Module, function: str | None, named: bool) -> Code | Unparsed:
        """Code without a definition as the new body of the function a tool call named, else of
        the best-ranked function whose parameters it reads (not at all when it reads none)."""
        target = self.targets.resolve(function, self.path) if function else None
        if isinstance(target, Ambiguous):
            return Unparsed(target.reason, whole=True)
        options = [(s.path, s.qualname) for s in self.targets.functions()]
        if target is None and not options:
            return Unparsed(
                "The reply holds no function definition. Reply with the complete corrected "
                f"definition (def ...) of one of: {self.targets.allowed()}."
            )
        if target is None and named:
            target = options[0]
        if target is None:
            target = next(
                (o for o in options if reads_like_body(tree, self.targets.original(*o))), None
            )
            if target is None:
                return Code()  # an example, a call, a print, an output: no fix
        rel, qualname = target
        wrapped = wrap_body(self.source, self.targets.original(rel, qualname))
        if wrapped is None:
            return Unparsed(
                f"Reply with the complete definition of {rel}::{qualname}, not its body."
            )
        self._replace(Edit("replace", rel, qualname, wrapped))
        return Code(tuple(self.pieces), tuple(self.notes), True, tuple(self.outside))


def segment(
    lines: Sequence[str], node: Function | ast.ClassDef, last: ast.stmt | None = None
) -> str:
    """The source of a definition (through last), decorators included, dedented by its own
    indentation only (lines less indented, inside a string, are kept as they are)."""
    start = min([node.lineno] + [d.lineno for d in node.decorator_list])
    chosen = lines[start - 1 : (last or node).end_lineno]
    indent = chosen[0][: len(chosen[0]) - len(chosen[0].lstrip())] if chosen else ""
    return "\n".join(line.removeprefix(indent) for line in chosen) + "\n"
