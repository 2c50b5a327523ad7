"""Clones: a copy of a best suspect's code follows it (semver's bump_prerelease and bump_build)."""

from __future__ import annotations

from pathlib import Path

from pytest_caretaker.project import clones
from pytest_caretaker.project.files import ProjectFiles, TestFiles
from pytest_caretaker.project.localize import localize
from pytest_caretaker.results import Executed, Failure

VERSION = """\
class Version:
    def bump_prerelease(self, token="rc"):
        cls = type(self)
        prerelease = cls._increment(self._prerelease or (token or "rc") + ".0")
        return cls(self._major, self._minor, self._patch, prerelease)

    def bump_build(self, token="build"):
        cls = type(self)
        build = cls._increment(self._build or (token or "build") + ".0")
        return cls(self._major, self._minor, self._patch, self._prerelease, build)

    def bump_patch(self):
        cls = type(self)
        return cls(self._major, self._minor, self._patch + 1)

    @property
    def major(self):
        return self._major

    @property
    def minor(self):
        return self._minor
"""


def test_a_copy_of_a_suspects_code_follows_it(tmp_path: Path) -> None:
    # semver-f8a182f: a test of bump_prerelease fails; its developer fixed bump_build alike.
    (tmp_path / "version.py").write_text(VERSION)
    nodeid = "tests/test_bump.py::test_should_bump_prerelease_with_empty_str"
    executed = {nodeid: Executed(functions=(("version.py", 2),))}
    lead = Failure(nodeid, "call", "tests/test_bump.py", "AssertionError", "", "", ())

    found = localize(lead, [nodeid], executed, [], ProjectFiles(tmp_path), TestFiles(frozenset()))

    # bump_patch is shorter and other; the two getters are alike but too short to be copies.
    assert [s.qualname for s in found][:2] == ["Version.bump_prerelease", "Version.bump_build"]
    assert "Version.bump_patch" not in [s.qualname for s in found]
    assert found[1].score == found[0].score


def test_a_function_with_many_copies_is_an_idiom_and_brings_none(tmp_path: Path) -> None:
    # arrow's locales: a dozen classes format a timeframe alike; none is a copy of the one fixed.
    body = (
        "    def describe(self, n):\n        form = self.forms[n % 10]\n"
        "        if n == 1 and self.one:\n            return self.one.format(n)\n"
        "        return form.format(abs(n), self.name)\n\n"
    )
    classes = "".join(f"class L{i}:\n{body}\n" for i in range(4))
    (tmp_path / "locales.py").write_text(classes)
    nodeid = "tests/test_locales.py::test_l0"
    executed = {nodeid: Executed(functions=(("locales.py", 2),))}
    lead = Failure(nodeid, "call", "tests/test_locales.py", "AssertionError", "", "", ())
    sources, tests = ProjectFiles(tmp_path), TestFiles(frozenset())

    found = [s.qualname for s in localize(lead, [nodeid], executed, [], sources, tests)]

    assert found[0] == "L0.describe"
    assert not any(name.endswith(".describe") for name in found[1:])
    # With two copies, both follow it.
    (tmp_path / "locales.py").write_text("".join(f"class L{i}:\n{body}\n" for i in range(3)))
    found = [
        s.qualname for s in localize(lead, [nodeid], executed, [], ProjectFiles(tmp_path), tests)
    ]
    assert found[:3] == ["L0.describe", "L1.describe", "L2.describe"]


def test_a_module_that_does_not_tokenize_or_a_long_body_has_no_copies(tmp_path: Path) -> None:
    (tmp_path / "bad.py").write_bytes(
        b"def f(x):\n    return '\xff'\n\n\ndef g(x):\n    return '\xff'\n"
    )
    long = "def big(x):\n" + "".join(f"    x = x + {i} * (x - {i})\n" for i in range(100))
    (tmp_path / "big.py").write_text(f"{long}\n\n{long.replace('def big', 'def big2')}")
    sources, tests = ProjectFiles(tmp_path), TestFiles(frozenset())

    assert clones.clones([("bad.py", "f")], sources, tests) == []
    assert clones.clones([("big.py", "big")], sources, tests) == []  # 1,400 tokens
