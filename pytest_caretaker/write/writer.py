"""Write (``--heal-write``): put the selected fixes on disk, one at a time, and commit each one.

A file is written only if it still has the bytes the repair read (or that the previous fix of this
run wrote), atomically: a temporary file in the same directory, flushed to disk, given the
original's permission bits, then renamed over it, so a reader (or a crash) sees the old file or the
new one, never a mix. A fix is committed only when every file it touches was clean in git before
the run, and the repository is on a branch with no merge, rebase, cherry-pick, revert or bisect
under way; otherwise it is written and left uncommitted, and the summary says why. Ctrl-C while a
fix is written and committed takes effect once it is (interrupts.py): the fixes after it are not
written. What a killed run leaves behind is recorded before it can exist and removed by the next
run (recovery.py).
"""

from __future__ import annotations

import contextlib
import glob
import os
import stat
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path

from pytest_caretaker.apply.rewrite import merge
from pytest_caretaker.record.redact import Redactor
from pytest_caretaker.results import FileChange, Fix, Written
from pytest_caretaker.settings import Settings
from pytest_caretaker.write.interrupts import held
from pytest_caretaker.write.message import Redact, message, subject
from pytest_caretaker.write.recovery import Journal, recover, temporary_prefix
from pytest_caretaker.write.repository import DETACHED, UNCOMMITTED, GitError, Repository

__all__ = ["UNSURE_SKIPPED", "Ask", "atomic_write", "message", "subject", "write_fixes"]

#: Asked before each fix in review mode: the fix and its changes against the files as they are.
Ask = Callable[[Fix, Sequence[FileChange]], bool]
#: What becomes of an UNSURE fix without review or --heal-accept-unsure: it stays in the patch.
UNSURE_SKIPPED = (
    "UNSURE: not written; review it with --heal-review, or take it with --heal-accept-unsure"
)


def atomic_write(path: Path, data: bytes) -> None:
    """Replace path's content with data (or make the file); a symbolic link is followed, not
    replaced."""
    target = path.resolve()
    try:
        mode = stat.S_IMODE(target.stat().st_mode)
    except FileNotFoundError:  # a new file (a log of fixes): as the umask makes files
        umask = os.umask(0)
        os.umask(umask)
        mode = 0o666 & ~umask
    handle, temporary = tempfile.mkstemp(
        dir=target.parent, prefix=temporary_prefix(target.name), suffix=".caretaker"
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
    forget_bytecode(target)
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


def forget_bytecode(source: Path) -> None:
    """Remove source's cached bytecode (its own and pytest's rewritten one). Python trusts a .pyc
    whose source has the same mtime, in whole seconds, and size: a fix of the same length written
    within a second of the last import would run as the old code in the next process (the rerun
    of `caretaker run`, the user's next pytest). A cache costs only its rebuilding."""
    if source.suffix != ".py":
        return
    for cached in (source.parent / "__pycache__").glob(f"{glob.escape(source.stem)}.*.pyc"):
        with contextlib.suppress(OSError):
            cached.unlink()


def write_fixes(
    fixes: Sequence[Fix],
    root: Path,
    settings: Settings,
    ask: Ask | None = None,
    *,
    redactor: Redact | None = None,
    command: str | None = None,
) -> tuple[list[Written], list[str]]:
    """Write (and commit) each fix in order; returns what happened to each, and session notes.

    First removes what an interrupted earlier run left (recovery.py). redactor keeps secrets in
    test ids out of commit messages: the session's, which knows this run's secret values; by
    default one that knows the environment's.
    """
    notes = recover(root)
    if not fixes:
        return [], notes
    repository = Repository.find(root) if settings.commit or settings.branch else None
    if settings.branch:
        reason = _switch(repository, settings.branch)
        if reason is not None:
            skipped = [Written(fix, "skipped", f"not written: {reason}") for fix in fixes]
            return skipped, [*notes, f"caretaker: {reason}; nothing was written"]
    journal = Journal(root, (repository.top, repository.git_dir) if repository else None)
    try:
        writer = _Writer(root, repository, settings, ask, journal)
        writer.redact = redactor if redactor is not None else Redactor(os.environ)
        writer.command = command
        writer.check(sorted({root / path for fix in fixes for path in fix.paths}))
        written, more = _write_all(writer, fixes)
    finally:
        journal.close()
    if settings.commit and repository is None and any(w.state == "written" for w in written):
        more.append(f"caretaker: {root} is not in a git repository; fixes written, none committed")
    return written, notes + more


def _write_all(writer: _Writer, fixes: Sequence[Fix]) -> tuple[list[Written], list[str]]:
    written: list[Written] = []
    for index, fix in enumerate(fixes):
        try:
            written.append(writer.write(fix))
        except KeyboardInterrupt:
            # Files are replaced atomically and a fix's files are put back together, so no
            # file and no fix is half-written; a fix interrupted while committing stays written.
            # Where Ctrl-C could wait (interrupts.py) it came after the fix was done.
            rest = fixes[index:]
            if writer.finished is not None and writer.finished.fix is fix:
                written.append(writer.finished)
                rest = fixes[index + 1 :]
            elif writer.committing is fix:
                why = "its commit was interrupted"
                written.append(Written(fix, "written", f"written; {why} (see git log)", "", why))
                rest = fixes[index + 1 :]
            written += [Written(f, "skipped", "not written: interrupted") for f in rest]
            note = "caretaker: writing interrupted; the fixes after it were not written"
            return written, [note]
    notes = []
    if writer.blocked and any(w.state == "written" for w in written):
        notes.append(f"caretaker: {writer.blocked}, so no fix was committed; commit them after")
    return written, notes


def _switch(repository: Repository | None, branch: str) -> str | None:
    if repository is None:
        return f"--heal-branch {branch} needs a git repository, and this project is not in one"
    operation = repository.operation()
    if operation not in (None, DETACHED):  # a branch is made from a detached HEAD: fine
        return f"cannot switch to branch {branch}: {operation}"
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
        ask: Ask | None,
        journal: Journal,
    ) -> None:
        self.root = root
        self.repository = repository
        self.settings = settings
        self.ask = ask
        self.journal = journal
        self.redact: Redact = Redactor(os.environ)
        self.unclean: dict[Path, str] = {}  # why a file may not be committed
        self.blocked: str | None = None  # why no fix may be committed: an unfinished merge, ...
        #: Each file's bytes as last read or written by this run, and the fixes written to it.
        self.current: dict[str, bytes] = {}
        self.afters: dict[str, list[bytes]] = {}
        self.committing: Fix | None = None  # the fix on disk whose commit is under way
        self.finished: Written | None = None  # what happened to the last fix written
        self.created: set[str] = set()  # files a fix makes (added to git when committed)
        self.command: str | None = None  # the command whose findings the fixes fix

    def check(self, paths: Sequence[Path]) -> None:
        """Find, before anything is written, what stops a commit: of a file, or of any."""
        if self.repository is None or not self.settings.commit:
            return
        try:
            self.unclean = self.repository.unclean(paths)
        except GitError as error:
            self.unclean = dict.fromkeys(paths, f"could not be checked with git ({error})")
        self.blocked = self.repository.operation()

    def write(self, fix: Fix) -> Written:
        if fix.unsure and self.ask is None and not self.settings.accept_unsure:
            return Written(fix, "skipped", UNSURE_SKIPPED)  # the tests cannot decide: a person
        changes = self._changes(fix)
        if isinstance(changes, str):
            return Written(fix, "skipped", f"not written: {changes}")
        if self.ask is not None and not self.ask(fix, changes):
            return Written(fix, "declined", "not written: declined in review")
        with held():  # Ctrl-C once the fix is on disk and committed (or not), not halfway
            self.finished = self._write(fix, changes)
        return self.finished

    def _write(self, fix: Fix, changes: Sequence[FileChange]) -> Written:
        self.journal.expect([self.root / change.path for change in changes])
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
            except FileNotFoundError as error:
                if applied.before:  # a change that makes a file (a log of fixes) finds none
                    return f"{applied.path} cannot be read ({error.strerror})"
                on_disk = b""
                self.created.add(applied.path)
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
        why = self.blocked if self.settings.commit else "--heal-no-commit"
        if self.repository is None or why is not None:
            why = why or "no git repository"  # (blocked is found in a repository only)
            return Written(fix, "written", f"written to {files}; not committed ({why})", "", why)
        paths = [self.root / change.path for change in changes]
        unclean = [
            (change.path, self.unclean[path])
            for change, path in zip(changes, paths, strict=True)
            if path in self.unclean
        ]
        if unclean:
            reasons = "; ".join(f"{path} {reason}" for path, reason in unclean)
            return Written(fix, "written", f"written, not committed: {reasons}", "", _why(unclean))
        try:
            new = [self.root / change.path for change in changes if change.path in self.created]
            commit = self.repository.commit(paths, message(fix, self.redact, self.command), new)
        except GitError as error:
            said = f"git said: {error}"
            return Written(fix, "written", f"written, not committed: {said}", "", said)
        return Written(
            fix, "committed", f"committed {commit[:7]} {subject(fix, self.redact)}", commit
        )


def _why(unclean: Sequence[tuple[str, str]]) -> str:
    """Why files that were not clean keep a fix uncommitted, in the report's few words: the
    user's own edits, most often (their work is never committed for them)."""
    if all(reason == UNCOMMITTED for _, reason in unclean):
        return "your edits in that file" if len(unclean) == 1 else "your edits in those files"
    return "; ".join(f"{path} {reason}" for path, reason in unclean)
