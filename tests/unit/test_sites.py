"""Sites: which proposals one pass over a function finds, in which order, on which lines."""

from __future__ import annotations

import textwrap

import libcst as cst
from libcst.metadata import MetadataWrapper

from pytest_caretaker.builtin.sites import Replacement, Sites, Statement


def sites_of(text: str) -> tuple[cst.Module, Sites]:
    module = cst.parse_module(textwrap.dedent(text))
    sites = Sites(module, module.code.split("\n"))
    MetadataWrapper(module, unsafe_skip_copy=True).visit(sites)
    return module, sites


def described(module: cst.Module, replacements: list[Replacement]) -> list[str]:
    return [
        f"{r.line} {r.operator} {module.code_for_node(r.node)} -> {module.code_for_node(r.new)}"
        for r in replacements
    ]


def test_variables_come_after_every_other_proposal_and_attributes_last() -> None:
    module, sites = sites_of("""\
        def f(a, b):
            c = a.x
            return b.y + a.y
        """)
    assert described(module, list(sites.replacements())) == [
        "2 off_by_one a.x -> a.x + 1",
        "2 off_by_one a.x -> a.x - 1",
        "3 off_by_one b.y + a.y -> b.y + a.y + 1",
        "3 off_by_one b.y + a.y -> b.y + a.y - 1",
        "3 arithmetic b.y + a.y -> b.y - a.y",
        "3 arithmetic b.y + a.y -> (b.y * a.y)",
        # once the whole function is seen: every local and parameter it has
        "2 variable a -> b",
        "2 variable a -> c",
        "3 variable b -> a",
        "3 variable b -> c",
        "3 variable a -> b",
        "3 variable a -> c",
        # the attributes of the same object only: b has no other
        "2 variable a.x -> a.y",
        "3 variable a.y -> a.x",
    ]


def test_attributes_are_swapped_within_the_same_object() -> None:
    module, sites = sites_of("""\
        def area(self):
            return self.width * self.height
        """)
    swaps = [r for r in sites.replacements() if r.operator == "variable"]
    assert described(module, swaps) == [
        "2 variable self.width -> self.height",
        "2 variable self.height -> self.width",
    ]


def test_a_proposal_is_on_the_first_line_of_its_statement() -> None:
    _, sites = sites_of("""\
        def f(a, b):
            if a < b:
                return g(
                    a,
                    b,
                )
        """)
    lines = {(r.operator, r.line) for r in sites.replacements()}
    assert ("comparison", 2) in lines
    assert ("swap", 3) in lines
    assert {line for _, line in lines} == {2, 3}


def test_nothing_is_proposed_outside_the_body() -> None:
    module, sites = sites_of("""\
        @decorate(1)
        def f(a: int = 1, b=True) -> int:
            return a
        """)
    assert described(module, list(sites.replacements())) == [
        "3 off_by_one a -> a + 1",
        "3 off_by_one a -> a - 1",
        "3 variable a -> b",
    ]


def test_blocks_say_what_may_be_deleted_and_copied() -> None:
    _, sites = sites_of('''\
        def f(a):
            """Doc."""
            b = [
                a,
            ]
            if a:
                pass
            return b
        ''')
    assert sites.blocks == [
        [
            Statement(line=2, end=2, indent="    "),
            Statement(line=3, end=5, indent="    ", deletable=True),
            Statement(line=6, end=7, indent="    "),
            Statement(line=8, end=8, indent="    ", copy="return b\n", deletable=True),
        ],
        [Statement(line=7, end=7, indent="        ")],
    ]
    assert sites.copies == {"return b\n": 8}  # each with its line: inserts take the nearest


def literal_sites(text: str, literals: bool) -> list[str]:
    module = cst.parse_module(textwrap.dedent(text))
    sites = Sites(module, module.code.split("\n"), literals)
    MetadataWrapper(module, unsafe_skip_copy=True).visit(sites)
    return [line for line in described(module, list(sites.replacements())) if " constant " in line]


def test_a_constant_assignment_is_a_site_with_the_literal_edits() -> None:
    text = "VAT = 0.25\nLIMIT = 10\n"
    assert literal_sites(text, literals=True) == [
        "1 constant 0.25 -> 0.2",
        "1 constant 0.25 -> 0.24",
        "1 constant 0.25 -> 0.26",
        "2 constant 10 -> 11",
        "2 constant 10 -> 9",
    ]
    # Inside functions decimals are left alone: there the integer ±1 is the usual bug.
    assert literal_sites(text, literals=False) == ["2 constant 10 -> 11", "2 constant 10 -> 9"]


def test_a_lambda_bound_to_a_name_is_a_site_like_a_function() -> None:
    module, sites = sites_of("area = lambda w, h: w * w\n")
    found = described(module, list(sites.replacements()))
    assert "1 variable w -> h" in found
    assert "1 arithmetic w * w -> w / w" in found


def arithmetic_and_off_by_one(text: str) -> list[str]:
    module, sites = sites_of(text)
    kinds = {"arithmetic", "off_by_one", "swap"}
    return [
        line for line in described(module, list(sites.replacements())) if line.split()[1] in kinds
    ]


def test_text_gets_no_plus_or_minus_one_and_no_other_arithmetic_operator() -> None:
    assert arithmetic_and_off_by_one("""\
        def label(name, n, parts):
            a = "pre" + name
            b = name + "post"
            c = f"{name}!"
            d = "x"
            e = "pre" + name + "post"
            f = "=" * n
            g = "%d items" % n
            parts += "tail"
            print(f"{n}", "pre" + name)
        """) == [
        # the number inside is still a number: only its own sites
        "7 off_by_one n -> (n + 1)",
        "7 off_by_one n -> (n - 1)",
        "8 off_by_one n -> (n + 1)",
        "8 off_by_one n -> (n - 1)",
        '10 swap print(f"{n}", "pre" + name) -> print("pre" + name, f"{n}")',
    ]


def test_numbers_still_get_plus_or_minus_one_and_other_arithmetic_operators() -> None:
    found = arithmetic_and_off_by_one("""\
        def total(a, b, n):
            c = a + b
            n += 2
            return c * n
        """)
    assert "2 off_by_one a + b -> a + b + 1" in found
    assert "2 arithmetic a + b -> a - b" in found
    assert "3 arithmetic n += 2 -> n -= 2" in found
    assert "4 off_by_one c * n -> c * n + 1" in found
    assert "4 off_by_one c -> (c + 1)" in found
    assert "4 arithmetic c * n -> c / n" in found
