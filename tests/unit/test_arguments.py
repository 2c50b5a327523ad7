"""The arguments of reruns: which plugins they name and block, and what a standalone one gets."""

from __future__ import annotations

from pytest_caretaker.verify.arguments import (
    STANDALONE_ARGS,
    blocked_plugins,
    plugin_values,
    standalone_args,
)


def test_plugin_values_are_read_in_both_spellings() -> None:
    args = ["-q", "-p", "no:anyio", "-pxdist", "-k", "x", "-p", "myplugin", "tests"]

    assert plugin_values(args) == ["no:anyio", "xdist", "myplugin"]


def test_a_blocked_name_blocks_its_pytest_prefixed_name_as_pytest_does() -> None:
    blocked = blocked_plugins(["-p", "no:timeout", "-pno:pytest_randomly", "-p", "xdist"])

    assert blocked == {"timeout", "pytest_timeout", "pytest_randomly"}


def test_nothing_is_blocked_without_no() -> None:
    assert blocked_plugins(["-p", "anyio", "-q"]) == frozenset()


def test_a_standalone_rerun_keeps_the_users_plugins_and_nothing_else_of_addopts() -> None:
    env = {"PYTEST_ADDOPTS": "-x --maxfail=2 -p no:randomly -pmyplugin -k 'a or b'"}

    args = standalone_args(env)

    assert args == (*STANDALONE_ARGS, "-p", "no:randomly", "-p", "myplugin")


def test_a_standalone_rerun_without_addopts_gets_the_fixed_arguments() -> None:
    assert standalone_args({}) == STANDALONE_ARGS
