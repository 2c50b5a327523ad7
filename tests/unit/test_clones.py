"""Clones: a copy of a best suspect's code follows it (semver's bump_prerelease and bump_build)."""

from __future__ import annotations

from pathlib import Path

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
