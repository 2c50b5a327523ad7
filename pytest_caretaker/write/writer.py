"""Write (``--heal-write``): put the selected fixes on disk, one at a time, and commit each one.

A file is written only if it still has the bytes the repair read (or that the previous fix of this
run wrote), atomically: a temporary file in the same directory, flushed to disk, given the
original's permission bits, then renamed over it, so a reader (or a crash) sees the old file or the
new one, never a mix. A fix is committed only when every file it touches was clean in git before
the run; otherwise it is written and left uncommitted, and the summary says why.
"""

from __future__ import annotations

import os
import stat
import tempfile
import textwrap
from collections.abc import Callable, Sequence
from pathlib import Path

from pytest_caretaker.apply.rewrite import merge
from pytest_caretaker.results import FileChange, Fix, HealResult, Written
from pytest_caretaker.settings import Settings
from pytest_caretaker.write.repository import GitError, Repository

SUBJECT_WIDTH = 72
BODY_WIDTH = 72

#: Asked before each fix in review mode: the fix and its changes against the files as they are.
Ask = Callable[[Fix, Sequence[FileChange]], bool]


def atomic_write(path: Path, data: bytes) -> None:
    """Replace path's content with data; a symbolic link is followed, not replaced."""
    target = path.resolve()
    mode = stat.S_IMODE(target.stat().st_mode)
    handle, temporary = tempfile.mkstemp(
        dir=target.parent, prefix=f".{target.name}.", suffix=".caretaker"
    )
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
            stream.flush()
            os.fsync(stream.fileno())
        os.chmod(temporary, mode)
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    try:  # make the rename itself durable
        directory = os.open(target.parent, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(directory)
    except OSError:
        pass
    finally:
        os.close(directory)


def subject(fix: Fix) -> str:
    """``fix: heal <test id>``, shortened to fit a subject line."""
    nodeid = fix.first.nodeid
    more = f" (+{len(fix.results) - 1} more)" if len(fix.results) > 1 else ""
    line = f"fix: heal {nodeid}{more}"
    if len(line) > SUBJECT_WIDTH:
        path, _, name = nodeid.partition("::")
        line = f"fix: heal {Path(path).name}::{name}{more}" if name else line
    if len(line) > SUBJECT_WIDTH:
        line = line[: SUBJECT_WIDTH - 1 - len(more)] + "…" + more
    return line


def message(fix: Fix) -> str:
    """The commit message: subject, explanation, the tests made to pass, the figures, a trailer."""
    result = fix.first
    paragraphs = [subject(fix)]
    if result.explanation:
        paragraphs.append(textwrap.fill(result.explanation, BODY_WIDTH))
    if result.notices:  # a judgement call on a test: whoever reads the log must see it
        lines = [
            textwrap.fill(n, BODY_WIDTH, initial_indent="- ", subsequent_indent="  ")
            for n in result.notices
        ]
        paragraphs.append("Changes what a test checks; review it:\n" + "\n".join(lines))
    tests = "\n".join(f"- {nodeid}" for nodeid in fix.nodeids)
    heading = "Makes this test pass:" if len(fix.results) == 1 else "Makes these tests pass:"
    paragraphs.append(f"{heading}\n{tests}")
    patched = ", ".join(edit.ref for edit in result.edits if edit.kind != "import")
    figures = [f"Patched: {patched}", f"Model: {result.repairer}", _figures(result)]
    paragraphs.append("\n".join(figures))
    paragraphs.append(f"Healed-by: pytest-caretaker ({result.repairer})")
    return "\n\n".join(paragraphs) + "\n"


def _figures(result: HealResult) -> str:
    spend = result.spend
    if result.via == "cache":
        return "From caretaker's cache: re-verified, no model asked"
    if spend.candidates:  # the built-in repairer's edits, not a model's rounds
        return f"Candidates tried: {spend.candidates:,} (no model, no tokens)"
    return f"Attempts: {spend.rounds} · tokens: {spend.tokens:,} · cost: ${spend.cost:.4f}"


def write_fixes(
    fixes: Sequence[Fix], root: Path, settings: Settings, ask: Ask | None = None
) -> tuple[list[Written], list[str]]:
    """Write (and commit) each fix in order; returns what happened to each, and session notes."""
    if not fixes:
        return [], []
    repository = Repository.find(root) if settings.commit or settings.branch else None
    if settings.branch:
        reason = _switch(repository, settings.branch)
        if reason is not None:
            skipped = [Written(fix, "skipped", f"not written: {reason}") for fix in fixes]
            return skipped, [f"caretaker: {reason}; nothing was written"]
    paths = sorted({root / path for fix in fixes for path in fix.paths})
    try:
        unclean = repository.unclean(paths) if repository is not None else {}
    except GitError as error:
        unclean = dict.fromkeys(paths, f"could not be checked with git ({error})")
    writer = _Writer(root, repository, settings, unclean, ask)
    written: list[Written] = []
    for index, fix in enumerate(fixes):
        try:
            written.append(writer.write(fix))
        except KeyboardInterrupt:
            # Files are replaced atomically and a fix's files are put back together, so no
            # file and no fix is half-written; a fix interrupted while committing stays written.
            rest = fixes[index:]
            if writer.committing is fix:
                written.append(
                    Written(fix, "written", "written; its commit was interrupted (see git log)")
                )
                rest = fixes[index + 1 :]
            written += [Written(f, "skipped", "not written: interrupted") for f in rest]
            note = "caretaker: writing interrupted; the fixes after it were not written"
            return written, [note]
    notes = []
    if settings.commit and repository is None and any(w.state == "written" for w in written):
        notes.append(f"caretaker: {root} is not in a git repository; fixes written, none committed")
    return written, notes


def _switch(repository: Repository | None, branch: str) -> str | None:
    if repository is None:
        return f"--heal-branch {branch} needs a git repository, and this project is not in one"
    try:
        repository.switch(branch)
    except GitError as error:
        return str(error)
    return None


class _Writer:
    def __init__(
        self,
        root: Path,
        repository: Repository | None,
        settings: Settings,
        unclean: dict[Path, str],
        ask: Ask | None,
    ) -> None:
        self.root = root
        self.repository = repository
        self.settings = settings
        self.unclean = unclean
        self.ask = ask
        #: Each file's bytes as last read or written by this run, and the fixes written to it.
        self.current: dict[str, bytes] = {}
        self.afters: dict[str, list[bytes]] = {}
        self.committing: Fix | None = None  # the fix on disk whose commit is under way

    def write(self, fix: Fix) -> Written:
        changes = self._changes(fix)
        if isinstance(changes, str):
            return Written(fix, "skipped", f"not written: {changes}")
        if self.ask is not None and not self.ask(fix, changes):
            return Written(fix, "declined", "not written: declined in review")
        failed = self._put(changes)
        if failed is not None:
            return Written(fix, "skipped", f"not written: {failed}")
        for change, applied in zip(changes, fix.changes, strict=True):
            self.current[change.path] = change.after
            self.afters.setdefault(change.path, []).append(applied.after)
        self.committing = fix
        outcome = self._commit(fix, changes)
        self.committing = None
        return outcome

    def _changes(self, fix: Fix) -> list[FileChange] | str:
        """The fix's changes against the files as this run left them, or why it cannot be
        written: it clashes with a fix written before it, or a file changed on disk."""
        changes: list[FileChange] = []
        for applied in fix.changes:
            expected = self.current.get(applied.path, applied.before)
            merged = merge(
                applied.path, applied.before, [*self.afters.get(applied.path, []), applied.after]
            )
            if merged is None:
                return "it does not combine with the fixes written before it"
            try:
                on_disk = (self.root / applied.path).read_bytes()
            except OSError as error:
                return f"{applied.path} cannot be read ({error.strerror})"
            if on_disk != expected:
                return f"{applied.path} changed on disk since the repair read it"
            changes.append(FileChange(applied.path, expected, merged))
        return changes

    def _put(self, changes: Sequence[FileChange]) -> str | None:
        """Write every file of one fix, or none of them: why not, or None when all are written."""
        done: list[FileChange] = []
        for change in changes:
            try:
                atomic_write(self.root / change.path, change.after)
            except (OSError, KeyboardInterrupt) as error:
                # Put back the files of this fix already written, so no fix is half on disk.
                for undo in done:
                    atomic_write(self.root / undo.path, undo.before)
                if isinstance(error, KeyboardInterrupt):
                    raise
                return f"{change.path}: {error.strerror or str(error)}"
            done.append(change)
        return None

    def _commit(self, fix: Fix, changes: Sequence[FileChange]) -> Written:
        files = ", ".join(change.path for change in changes)
        if not self.settings.commit:
            return Written(fix, "written", f"written to {files}; not committed (--heal-no-commit)")
        if self.repository is None:
            return Written(fix, "written", f"written to {files}; not committed (no git repository)")
        paths = [self.root / change.path for change in changes]
        reasons = [
            f"{change.path} {self.unclean[path]}"
            for change, path in zip(changes, paths, strict=True)
            if path in self.unclean
        ]
        if reasons:
            return Written(fix, "written", f"written, not committed: {'; '.join(reasons)}")
        try:
            commit = self.repository.commit(paths, message(fix))
        except GitError as error:
            return Written(fix, "written", f"written, not committed: git said: {error}")
        return Written(fix, "committed", f"committed {commit[:7]} {subject(fix)}", commit)
