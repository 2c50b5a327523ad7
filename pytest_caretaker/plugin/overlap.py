"""What a heal needs started at the first failure, while the rest of the run goes on.

The warm verification server collects the session's test files (so that each verification
run costs only its tests); the heal's own modules import in a thread (libcst among them: a
third of a second that would otherwise come after the run); and litellm, which takes seconds
to import and to make its first request, is made ready when a model is configured: in the
model process (llm/remote.py), which imports it on another core and makes the requests. With
the built-in repairer alone litellm is never imported.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest

from pytest_caretaker import syntax
from pytest_caretaker.plugin.addopts import runner_for
from pytest_caretaker.project.files import project_relpath
from pytest_caretaker.settings import Settings
from pytest_caretaker.verify.runner import Confinement, Runner

#: The most test items a warm server collects up front: all the session's files up to this
#: many items, else only the failing test's file (the others still run, as a whole session).
MAX_COLLECTED = 5_000


def start(
    config: pytest.Config,
    settings: Settings,
    confinement: Confinement | None,
    parser: pytest.Parser | None,
    nodeid: str,
    items: Sequence[pytest.Item] = (),
) -> Runner:
    """The session's runner, its first warm server collecting; litellm importing if needed."""
    from pytest_caretaker.llm import warmup

    models = warmup.ahead(settings.models)  # none when the built-in repairer comes first
    if models:
        warmup.start(models, settings.model_keep, config.rootpath)
    runner = runner_for(config, settings.timeout, confinement, parser)
    runner.collect = collected_files(runner.root, nodeid, items)
    runner.prestart()
    syntax.hold()  # caretaker's threads parse from now on beside pytest's; ending() releases
    threading.Thread(target=_import_heal, name="caretaker-import", daemon=True).start()
    return runner


def _import_heal() -> None:
    """Import the heal's modules; the session's end imports them again (waiting for this
    import if it is still going on), and an error is raised there, where it is reported."""
    with contextlib.suppress(Exception):
        import pytest_caretaker.engine  # noqa: F401


@contextlib.contextmanager
def ending(notes: list[str]) -> Iterator[None]:
    """Around healing: the model process, if one was started, ends with it, or is kept for the
    next session (llm/kept.py), which a note says when this session started it."""
    from pytest_caretaker.llm import remote

    try:
        yield
    finally:
        syntax.release()
        kept = remote.stop()
        if kept:
            notes.append(
                f"caretaker: the model process (litellm, imported) stays {kept:g} s for the next "
                "heal; caretaker model stop ends it, --heal-model-keep 0 ends it with the session"
            )


def collected_files(root: Path, nodeid: str, items: Sequence[pytest.Item]) -> tuple[str, ...]:
    """The test files a warm server collects: those of items (the session's), or when there
    are too many or none (pytest-xdist's controller collects nothing), the failing one's."""
    files = {nodeid.split("::", 1)[0]}
    if len(items) <= MAX_COLLECTED:
        for item in items:
            rel = project_relpath(str(item.path), root)
            if rel is not None:
                files.add(rel)
    return tuple(sorted(file for file in files if file.endswith(".py")))
