"""Code: the secrets a project's Python files hold in literals, learnt before any of them is shown.

What the redactor recognises in text needs a name beside the value (``password='…'``), but a
failure often shows the value alone: ``assert 'Wint3r…' == '…'``, a test id, a print. So the
values are learnt from the code that holds them (learnable and worth in secrets.py decide):

- assigned to a secret's name (``password = "…"``, ``self.api_token = "…"``,
  ``conf["secret"] = "…"``), or under one in a dict literal;
- passed to a secret-like parameter: by keyword, or by position through the signature of what is
  called (a function, a class's ``__init__``, a dataclass's fields) in the file or in a project
  file it imports; a secret-like parameter's default; what a secret-named function returns;
- given by ``pytest.mark.parametrize`` to a secret-named argument, or to any argument of a test
  whose name speaks of a secret (``test_weak_passwords``: those values are its test ids);
- literals concatenated into one secret-shaped value (``"Zq8vL2" + "mW9x" + "Kp4T"``), with the
  source text of the concatenation, so that its pieces do not show either;
- in a docstring, a secret-shaped word that follows a secret's name in the same sentence (``the
  admin credentials: admin / Adm1n-Seed-2024``), and a password-shaped word after ``user /``
  (prose.py);
- a pair of a user name and a password-shaped string (``ACCOUNT = ("svc", "N0rth-Star-88x")``);
- a UUID assigned to a name that does not call it an identifier (``MAILGUN = "3f0c…"``);
- a password-shaped parametrize value under any name (``"value", ["Tr0ub4dor&3x"]``);
- the password of a URL in any string.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable, Iterator

from pytest_caretaker import syntax
from pytest_caretaker.project.files import ProjectFiles
from pytest_caretaker.project.imports import imported
from pytest_caretaker.record.literals import Signatures, literal, signatures_of
from pytest_caretaker.record.patterns import SHAPES
from pytest_caretaker.record.prose import from_prose
from pytest_caretaker.record.secrets import (
    UUID,
    id_name,
    learnable,
    password_shaped,
    secret_name,
    secret_shaped,
    strong_name,
    url_password,
    worth,
)

Learnt = Iterator[tuple[str, str]]
#: Most project files one learning reads besides those asked for: the files they import.
MAX_IMPORTED = 40
MAX_SOURCE = 500_000

#: Words in a test's name that make every value it is parametrized with a secret.
#: The user name of a (user, password) pair.
_USER = re.compile(r"[A-Za-z][\w.\-@]{0,40}")
_TEST_WORDS = re.compile(r"(?i)pass(?:word|wd|phrase|code)|secret|credential|api_?key")


def from_files(files: ProjectFiles, rels: Iterable[str]) -> Learnt:
    """(value, what) for the secrets in the Python files at rels (root-relative) and in the
    project files they import; calls are matched to the signatures of all of them."""
    wanted = [rel for rel in dict.fromkeys(rels) if rel.endswith(".py")]
    extra: list[str] = []
    for rel in wanted:
        if len(extra) < MAX_IMPORTED:
            extra += sorted(imported(rel, files.get) - {*wanted, *extra})
    trees: dict[str, tuple[ast.Module, str]] = {}
    for rel in [*wanted, *extra[:MAX_IMPORTED]]:
        source = files.get(rel)
        if source is None or len(source.data) > MAX_SOURCE:
            continue
        try:
            trees[rel] = (syntax.parse(source.data), source.text)
        except (SyntaxError, ValueError, MemoryError, RecursionError):
            continue
    signatures: dict[str, tuple[str, ...]] = {}
    for tree, _ in trees.values():
        for name, params in signatures_of(tree).items():
            signatures.setdefault(name, params)
    for rel, (tree, text) in trees.items():
        yield from from_tree(tree, text, rel, signatures)


def from_tree(tree: ast.Module, text: str, rel: str, signatures: Signatures) -> Learnt:
    """(value, what) for the secrets one parsed file holds (the module docstring explains)."""
    skipped: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.BinOp) and id(node) not in skipped:
            skipped.update(id(n) for n in ast.walk(node) if n is not node)
            yield from _concatenated(node, text, rel)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                yield from _assigned(target, node.value, text, rel)
        elif isinstance(node, ast.Call):
            yield from _called(node, text, rel, signatures)
        else:
            yield from _other(node, text, rel)


def _other(node: ast.AST, text: str, rel: str) -> Learnt:
    """Dict literals, functions, docstrings and URLs with a password."""
    if isinstance(node, ast.Dict):
        for key, value in zip(node.keys, node.values, strict=True):
            if isinstance(key, ast.Constant) and isinstance(key.value, str):
                yield from _offered(key.value, value, text, rel)
    elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        yield from _function(node, text, rel)
    elif isinstance(node, ast.Constant) and isinstance(node.value, str):
        password = url_password(node.value)
        if password:
            yield password, f"password in a URL in {rel}"
    elif isinstance(node, (ast.Tuple, ast.List)) and len(node.elts) == 2:
        user, password = (literal(item) for item in node.elts)
        if (
            user
            and _USER.fullmatch(user)
            and password
            and worth(password)
            and password_shaped(password)
        ):
            yield password, f"password of a login in {rel}"  # ("svc", "N0rth-Star-88x")
    if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
        doc = ast.get_docstring(node, clean=False)
        yield from ((word, f"secret in a docstring in {rel}") for word in from_prose(doc or ""))


def _offered(name: str, node: ast.expr, text: str, rel: str, loose: bool = False) -> Learnt:
    """The value given to name, if it is a secret: a literal, or the secret-shaped items of a
    tuple or list of them (auth = ("bob", "…")). loose: any value worth it (a test's name said)."""
    what = f"value of {name} in {rel}"
    value = literal(node)
    if value is not None:
        if learnable(name, value) or (loose and worth(value)):
            yield value, what
            yield from _written(node, value, text, what)
    elif isinstance(node, (ast.Tuple, ast.List)) and (secret_name(name) or loose):
        for item in node.elts:
            value = literal(item)
            if value is not None and worth(value) and (loose or secret_shaped(value)):
                yield value, what


def _written(node: ast.expr, value: str, text: str, what: str) -> Learnt:
    """The source text of a literal written in pieces ("ab" + "cd", "ab" "cd")."""
    segment = ast.get_source_segment(text, node) or ""
    if segment and value not in segment:
        yield segment, f"{what}, as written"


def _concatenated(node: ast.BinOp, text: str, rel: str) -> Learnt:
    value = literal(node)
    if value is not None and worth(value) and secret_shaped(value):
        shaped = (label for pattern, label in SHAPES if pattern.fullmatch(value))
        what = next(shaped, f"literals joined in {rel}")
        yield value, what
        yield from _written(node, value, text, what)


def _target_name(target: ast.expr) -> str | None:
    if isinstance(target, ast.Name):
        return target.id
    if isinstance(target, ast.Attribute):
        return target.attr
    if isinstance(target, ast.Subscript):
        key = target.slice
        if isinstance(key, ast.Constant) and isinstance(key.value, str):
            return key.value
    return None


def _assigned(target: ast.expr, value: ast.expr, text: str, rel: str) -> Learnt:
    if isinstance(target, (ast.Tuple, ast.List)) and isinstance(value, (ast.Tuple, ast.List)):
        for inner, item in zip(target.elts, value.elts, strict=False):
            yield from _assigned(inner, item, text, rel)
        return
    name = _target_name(target)
    if name is not None:
        yield from _offered(name, value, text, rel)
        uuid = literal(value)  # MAILGUN = "3f0c…": a key named after the service it opens
        if uuid is not None and UUID.fullmatch(uuid.strip()) and not id_name(name):
            yield uuid, f"UUID in {name} in {rel}"


def _callee(func: ast.expr) -> str:
    if isinstance(func, ast.Name):
        return func.id
    return func.attr if isinstance(func, ast.Attribute) else ""


def _called(node: ast.Call, text: str, rel: str, signatures: Signatures) -> Learnt:
    """Arguments given to secret-like parameters, by keyword or by position through the
    signature of what is called; the literal arguments of a secret-named callable
    (set_token("…"), ApiKey("…")) that look like key material."""
    callee = _callee(node.func)
    params = signatures.get(callee, ())
    for index, arg in enumerate(node.args):
        if isinstance(arg, ast.Starred):
            break
        if index < len(params):
            yield from _offered(params[index], arg, text, rel)
        if strong_name(callee):
            value = literal(arg)
            if value is not None and worth(value) and secret_shaped(value):
                yield value, f"argument of {callee}() in {rel}"
    for keyword in node.keywords:
        if keyword.arg is not None:
            yield from _offered(keyword.arg, keyword.value, text, rel)


def _function(node: ast.FunctionDef | ast.AsyncFunctionDef, text: str, rel: str) -> Learnt:
    """Secret-like parameters' defaults, what a secret-named function returns, and the
    parametrize values of secret-named arguments (of every argument, for a test whose name
    speaks of a secret)."""
    args = node.args
    positional = [*args.posonlyargs, *args.args]
    for arg, default in zip(
        positional[len(positional) - len(args.defaults) :], args.defaults, strict=True
    ):
        yield from _offered(arg.arg, default, text, rel)
    for arg, maybe in zip(args.kwonlyargs, args.kw_defaults, strict=True):
        if maybe is not None:
            yield from _offered(arg.arg, maybe, text, rel)
    if secret_name(node.name):
        for inner in ast.walk(node):
            if isinstance(inner, ast.Return) and inner.value is not None:
                yield from _offered(node.name, inner.value, text, rel)
    for decorator in node.decorator_list:
        if isinstance(decorator, ast.Call) and _callee(decorator.func) == "parametrize":
            loose = _TEST_WORDS.search(node.name) is not None
            yield from _parametrized(decorator, loose, text, rel)


def _parametrized(decorator: ast.Call, loose: bool, text: str, rel: str) -> Learnt:
    if len(decorator.args) < 2:
        return
    names_node, values = decorator.args[0], decorator.args[1]
    names = literal(names_node)
    listed = (
        [n.strip() for n in names.split(",")]
        if names is not None
        else [literal(e) or "" for e in getattr(names_node, "elts", [])]
    )
    if not isinstance(values, (ast.List, ast.Tuple)):
        return
    for case in values.elts:
        if isinstance(case, ast.Call) and _callee(case.func) == "param":
            items = list(case.args)
        elif isinstance(case, (ast.Tuple, ast.List)) and len(listed) > 1:
            items = list(case.elts)
        else:
            items = [case]
        for name, item in zip(listed, items, strict=False):
            yield from _offered(name, item, text, rel, loose)
            value = literal(item)  # under a neutral name, in the test id all the same
            if value is not None and worth(value) and password_shaped(value):
                yield value, f"parametrize value of {name} in {rel}"
