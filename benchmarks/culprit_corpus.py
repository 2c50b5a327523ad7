# ruff: noqa: E501 (the corpus: one break a line reads best)
"""The corpus of benchmarks/culprit.py: 30 multi-commit regressions written for it (#35).

Ten small modules shaped like code in real projects (a slug helper, a config reader, a cart with
discounts, pagination, version comparison, a CSV row reader, retry delays, a word counter, a
nested-list flattener, an invoice line), each with its tests, and three ways each one breaks in
one commit: two adjacent statements changed; two statements far apart in the function changed;
and one statement broken in a commit that also makes an intended change elsewhere, which a
fix must keep. Each change is a list of (old, new) substitutions of the module's text.
"""

from __future__ import annotations

from dataclasses import dataclass

Subs = tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class Module:
    name: str
    source: str
    tests: str


@dataclass(frozen=True)
class Break:
    shape: str  # "adjacent", "apart", "with intended"
    bug: Subs  # what breaks the tests
    intended: Subs = ()  # what the same commit meant to change, and a fix must keep


MODULES = [
    Module(
        "slug",
        'import re\n\n\ndef slugify(text, sep="-"):\n    text = text.strip().lower()\n'
        '    words = re.findall(r"[a-z0-9]+", text)\n    return sep.join(words)\n\n\n'
        "def title(text):\n    return text.strip().title()\n",
        "from slug import slugify, title\n\n\ndef test_slugify():\n"
        '    assert slugify("  Hello World ") == "hello-world"\n'
        '    assert slugify("A_b", sep="_") == "a_b"\n\n\ndef test_title():\n'
        '    assert title(" ab cd") == "Ab Cd"\n',
    ),
    Module(
        "config",
        "def parse(text):\n    values = {}\n    for line in text.splitlines():\n"
        '        line = line.strip()\n        if not line or line.startswith("#"):\n'
        '            continue\n        key, _, value = line.partition("=")\n'
        "        values[key.strip()] = value.strip()\n    return values\n\n\n"
        "def get_int(values, key, default=0):\n    return int(values.get(key, default))\n",
        "from config import get_int, parse\n\n\ndef test_parse():\n"
        '    assert parse("a = 1\\n# c\\n\\nb=two") == {"a": "1", "b": "two"}\n\n\n'
        'def test_get_int():\n    assert get_int({"n": "3"}, "n") == 3\n'
        '    assert get_int({}, "n", 7) == 7\n',
    ),
    Module(
        "cart",
        "class Cart:\n    def __init__(self):\n        self.items = []\n\n"
        "    def add(self, price, qty=1):\n        self.items.append((price, qty))\n\n"
        "    def total(self, discount=0.0):\n        gross = sum(p * q for p, q in self.items)\n"
        "        cut = gross * discount\n        return round(gross - cut, 2)\n\n"
        "    def count(self):\n        return sum(q for _, q in self.items)\n",
        "from cart import Cart\n\n\ndef test_total():\n    cart = Cart()\n    cart.add(10.0, 2)\n"
        "    cart.add(5.0)\n    assert cart.total() == 25.0\n    assert cart.total(0.2) == 20.0\n\n\n"
        "def test_count():\n    cart = Cart()\n    cart.add(1.0, 3)\n    assert cart.count() == 3\n",
    ),
    Module(
        "pages",
        "def paginate(items, size, page):\n    start = (page - 1) * size\n    end = start + size\n"
        "    return items[start:end]\n\n\ndef pages(items, size):\n"
        "    return (len(items) + size - 1) // size\n",
        "from pages import pages, paginate\n\n\ndef test_paginate():\n"
        "    assert paginate(list(range(10)), 3, 1) == [0, 1, 2]\n"
        "    assert paginate(list(range(10)), 3, 4) == [9]\n\n\n"
        "def test_pages():\n    assert pages(list(range(10)), 3) == 4\n",
    ),
    Module(
        "semver",
        'def parse(version):\n    parts = version.lstrip("v").split(".")\n'
        "    return tuple(int(part) for part in parts)\n\n\n"
        "def newer(a, b):\n    left = parse(a)\n    right = parse(b)\n    return left > right\n",
        "from semver import newer, parse\n\n\ndef test_parse():\n"
        '    assert parse("v1.2.10") == (1, 2, 10)\n\n\ndef test_newer():\n'
        '    assert newer("1.10.0", "1.9.3")\n    assert not newer("1.2.0", "1.2.0")\n',
    ),
    Module(
        "rows",
        'def read_row(line, sep=","):\n    cells = line.rstrip("\\n").split(sep)\n'
        "    return [cell.strip() for cell in cells]\n\n\n"
        "def read(text):\n    lines = text.splitlines()\n    header = read_row(lines[0])\n"
        "    return [dict(zip(header, read_row(line))) for line in lines[1:]]\n",
        "from rows import read, read_row\n\n\ndef test_read_row():\n"
        '    assert read_row(" a, b ,c\\n") == ["a", "b", "c"]\n\n\ndef test_read():\n'
        '    assert read("x,y\\n1,2\\n3,4") == [{"x": "1", "y": "2"}, {"x": "3", "y": "4"}]\n',
    ),
    Module(
        "retry",
        "def delays(attempts, base=0.5, cap=8.0):\n    found = []\n    delay = base\n"
        "    for _ in range(attempts):\n        found.append(min(delay, cap))\n"
        "        delay = delay * 2\n    return found\n\n\n"
        "def total_wait(attempts):\n    return sum(delays(attempts))\n",
        "from retry import delays, total_wait\n\n\ndef test_delays():\n"
        "    assert delays(4) == [0.5, 1.0, 2.0, 4.0]\n    assert delays(6, cap=4.0)[-1] == 4.0\n\n\n"
        "def test_total_wait():\n    assert total_wait(3) == 3.5\n",
    ),
    Module(
        "words",
        "def counts(text):\n    found = {}\n    for word in text.lower().split():\n"
        '        word = word.strip(".,!?")\n        found[word] = found.get(word, 0) + 1\n'
        "    return found\n\n\ndef top(text, n=1):\n    ranked = sorted(counts(text).items(), "
        "key=lambda kv: (-kv[1], kv[0]))\n    return [word for word, _ in ranked[:n]]\n",
        "from words import counts, top\n\n\ndef test_counts():\n"
        '    assert counts("A b, a!") == {"a": 2, "b": 1}\n\n\ndef test_top():\n'
        '    assert top("b a b c a b", 2) == ["b", "a"]\n',
    ),
    Module(
        "flat",
        "def flatten(items):\n    found = []\n    for item in items:\n"
        "        if isinstance(item, list):\n            found.extend(flatten(item))\n"
        "        else:\n            found.append(item)\n    return found\n\n\n"
        "def depth(items):\n    inner = [depth(i) for i in items if isinstance(i, list)]\n"
        "    return 1 + max(inner, default=0)\n",
        "from flat import depth, flatten\n\n\ndef test_flatten():\n"
        "    assert flatten([1, [2, [3, 4]], 5]) == [1, 2, 3, 4, 5]\n\n\ndef test_depth():\n"
        "    assert depth([1, [2, [3]]]) == 3\n",
    ),
    Module(
        "invoice",
        "VAT = 0.2\n\n\ndef line_total(price, qty, vat=VAT):\n    net = price * qty\n"
        "    tax = net * vat\n    return round(net + tax, 2)\n\n\n"
        "def invoice_total(lines):\n    return round(sum(line_total(p, q) for p, q in lines), 2)\n",
        "from invoice import invoice_total, line_total\n\n\ndef test_line_total():\n"
        "    assert line_total(10.0, 2) == 24.0\n    assert line_total(5.0, 1, vat=0.0) == 5.0\n\n\n"
        "def test_invoice_total():\n    assert invoice_total([(10.0, 1), (5.0, 2)]) == 24.0\n",
    ),
]

BREAKS: dict[str, list[Break]] = {
    "slug": [
        Break(
            "adjacent", (("text.strip().lower()", "text.strip()"), ('r"[a-z0-9]+"', 'r"[a-z]+"'))
        ),
        Break(
            "apart",
            (("text.strip().lower()", "text.lower()"), ("sep.join(words)", '"-".join(words)')),
        ),
        Break(
            "with intended",
            (("sep.join(words)", "sep.join(words[1:])"),),
            (("text.strip().title()", "text.strip().title().strip()"),),
        ),
    ],
    "config": [
        Break(
            "adjacent",
            (
                ('key, _, value = line.partition("=")', 'key, _, value = line.partition(":")'),
                ("values[key.strip()] = value.strip()", "values[key] = value"),
            ),
        ),
        Break(
            "apart",
            (
                ("line = line.strip()", "line = line.rstrip()"),
                ("    return values\n", "    return dict(list(values.items())[:1])\n"),
            ),
        ),
        Break(
            "with intended",
            (("if not line or", "if"),),
            (
                (
                    "return int(values.get(key, default))",
                    "return int(str(values.get(key, default)).strip())",
                ),
            ),
        ),
    ],
    "cart": [
        Break(
            "adjacent",
            (
                (
                    "gross = sum(p * q for p, q in self.items)",
                    "gross = sum(p for p, q in self.items)",
                ),
                ("cut = gross * discount", "cut = discount"),
            ),
        ),
        Break(
            "apart",
            (
                ("self.items.append((price, qty))", "self.items.append((price, 1))"),
                ("return round(gross - cut, 2)", "return round(gross + cut, 2)"),
            ),
        ),
        Break(
            "with intended",
            (("cut = gross * discount", "cut = gross * discount * 2"),),
            (("return sum(q for _, q in self.items)", "return sum(qty for _, qty in self.items)"),),
        ),
    ],
    "pages": [
        Break(
            "adjacent",
            (
                ("start = (page - 1) * size", "start = page * size"),
                ("end = start + size", "end = start + size - 1"),
            ),
        ),
        Break(
            "apart",
            (
                ("start = (page - 1) * size", "start = (page - 1) * (size - 1)"),
                ("return items[start:end]", "return items[start:end][:2]"),
            ),
        ),
        Break(
            "with intended",
            (("end = start + size", "end = size"),),
            (("return (len(items) + size - 1) // size", "return -(-len(items) // size)"),),
        ),
    ],
    "semver": [
        Break(
            "adjacent",
            (
                ('parts = version.lstrip("v").split(".")', 'parts = version.split(".")'),
                ("return tuple(int(part) for part in parts)", "return tuple(parts)"),
            ),
        ),
        Break(
            "apart",
            (("left = parse(a)", "left = a"), ("return left > right", "return left >= right")),
        ),
        Break(
            "with intended",
            (("return left > right", "return str(left) > str(right)"),),
            (
                (
                    'parts = version.lstrip("v").split(".")',
                    'parts = version.strip().lstrip("v").split(".")',
                ),
            ),
        ),
    ],
    "rows": [
        Break(
            "adjacent",
            (
                ('cells = line.rstrip("\\n").split(sep)', "cells = line.split(sep)"),
                ("return [cell.strip() for cell in cells]", "return [cell for cell in cells]"),
            ),
        ),
        Break(
            "apart",
            (
                ("header = read_row(lines[0])", "header = lines[0].split()"),
                ("for line in lines[1:]]", "for line in lines[2:]]"),
            ),
        ),
        Break(
            "with intended",
            (("for line in lines[1:]]", "for line in lines]"),),
            (
                (
                    "return [cell.strip() for cell in cells]",
                    "return [cell.strip() for cell in cells if True]",
                ),
            ),
        ),
    ],
    "retry": [
        Break(
            "adjacent",
            (
                ("found.append(min(delay, cap))", "found.append(delay)"),
                ("delay = delay * 2", "delay = delay + base"),
            ),
        ),
        Break(
            "apart",
            (
                ("delay = base\n", "delay = base * 2\n"),
                ("    return found\n\n\ndef", "    return found[1:]\n\n\ndef"),
            ),
        ),
        Break(
            "with intended",
            (("delay = delay * 2", "delay = delay * 3"),),
            (("return sum(delays(attempts))", "return float(sum(delays(attempts)))"),),
        ),
    ],
    "words": [
        Break(
            "adjacent",
            (
                ("for word in text.lower().split():", "for word in text.split():"),
                ('word = word.strip(".,!?")', "word = word"),
            ),
        ),
        Break(
            "apart",
            (
                ('word = word.strip(".,!?")', 'word = word.strip(".")'),
                ("    return found\n", "    return dict(sorted(found.items())[:1])\n"),
            ),
        ),
        Break(
            "with intended",
            (("found[word] = found.get(word, 0) + 1", "found[word] = 1"),),
            (("return [word for word, _ in ranked[:n]]", "return [w for w, _ in ranked[:n]]"),),
        ),
    ],
    "flat": [
        Break(
            "adjacent",
            (
                ("found.extend(flatten(item))", "found.append(item)"),
                ("found.append(item)\n    return", "found.insert(0, item)\n    return"),
            ),
        ),
        Break(
            "apart",
            (
                ("if isinstance(item, list):", "if isinstance(item, tuple):"),
                ("    return found\n\n\ndef", "    return found[::-1]\n\n\ndef"),
            ),
        ),
        Break(
            "with intended",
            (("found.extend(flatten(item))", "found.extend(item)"),),
            (("return 1 + max(inner, default=0)", "return max(inner, default=0) + 1"),),
        ),
    ],
    "invoice": [
        Break("adjacent", (("net = price * qty", "net = price"), ("tax = net * vat", "tax = vat"))),
        Break(
            "apart",
            (
                ("net = price * qty", "net = price * qty * 1.0 + qty"),
                ("return round(net + tax, 2)", "return round(net + tax)"),
            ),
        ),
        Break(
            "with intended",
            (("tax = net * vat", "tax = net * VAT"),),
            (
                (
                    "return round(sum(line_total(p, q) for p, q in lines), 2)",
                    "return round(sum(line_total(p, q) for (p, q) in lines), 2)",
                ),
            ),
        ),
    ],
}


def cases() -> list[tuple[Module, Break]]:
    return [(module, found) for module in MODULES for found in BREAKS[module.name]]


def applied(text: str, subs: Subs) -> str:
    for old, new in subs:
        if old not in text:
            raise ValueError(f"{old!r} is not in the module")
        text = text.replace(old, new, 1)
    return text
