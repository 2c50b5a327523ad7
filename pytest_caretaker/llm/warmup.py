"""Get litellm ready before the first model call, from the first failure on: in the model
process (remote.py), or here in a thread when litellm is imported here already (``start``).

Importing litellm takes seconds, and its first request as long again: that is when it imports
the provider's client (the OpenAI SDK's resources, the HTTP stack). So once litellm is imported,
one request goes through the whole path of an OpenAI-compatible model to a local port that
nothing listens on: it is refused at once, and the first real request starts warm. Nothing
leaves the machine: other providers, whose SDKs may ignore the API base, are only imported.
"""

from __future__ import annotations

import contextlib
import importlib
import socket
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from pytest_caretaker.llm import client, kept, remote
from pytest_caretaker.problem import Failed, Healed, Repairer, Task
from pytest_caretaker.settings import BUILTIN

#: Seconds the refused request may take at most.
WARM_TIMEOUT = 5.0
#: What litellm imports only once a reply arrives (a refused request never gets one): its cost
#: tracking's, from litellm 1.110 on. Imported ahead, where the release has them.
ON_REPLY = ("litellm.proxy.spend_tracking.savings",)


def ahead(chain: Sequence[str]) -> list[str]:
    """The models to make ready from the first failure on: those of the chain, unless the
    built-in repairer comes first; then each waits until it is asked (WhenAsked), since what
    the built-in repairer heals needs no model, and its import costs seconds of a core."""
    if not chain or chain[0] == BUILTIN:
        return []
    return [model for model in chain if model != BUILTIN]


@dataclass
class WhenAsked:
    """A model's repairer after the built-in repairer: litellm is made ready when it is first
    asked (the call then waits for the import, which ``start`` begins)."""

    repairer: Repairer
    models: Sequence[str]
    keep: float | None = None
    project: Path | None = None
    _started: threading.Event = field(default_factory=threading.Event, repr=False)

    @property
    def name(self) -> str:
        return self.repairer.name

    def repair(self, task: Task) -> Healed | Failed:
        if not self._started.is_set():
            self._started.set()
            start(self.models, self.keep, self.project)
        return self.repairer.repair(task)


def start(models: Sequence[str], keep: float | None = None, project: Path | None = None) -> None:
    """Have litellm made ready for ``models`` while other work goes on; ``keep``: the seconds
    the model process stays for the next session (kept.seconds); ``project``: the session's
    folder (the working directory when not given), which the kept process names when listed."""
    seconds = kept.seconds(keep)
    folder = str((project or Path.cwd()).resolve())

    # Where the kept one cannot be reached (its name held by another user, no abstract sockets),
    # one of the session's own.
    def opener() -> remote.Link | None:
        return kept.reach(models, seconds, folder) or remote.child(models)

    if not remote.begin(models, opener if seconds else None):
        threading.Thread(target=warm, args=(models,), name="caretaker-import", daemon=True).start()


def warm(models: Sequence[str] = ()) -> None:
    """Import litellm, then send one request that is refused, if a model is OpenAI-compatible."""
    client.preload()
    for name in ON_REPLY:
        with contextlib.suppress(ImportError), client.quiet():
            importlib.import_module(name)
    model = next((m for m in models if m.startswith("openai/")), None)
    if model is None:
        return
    with contextlib.suppress(Exception), socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))  # bound, not listening: a connection to it is refused
        base = f"http://127.0.0.1:{closed.getsockname()[1]}/v1"
        request = client._request(model, [{"role": "user", "content": "."}], base, True, 5.0)
        request["api_key"] = "no-key-needed"  # nothing is sent to a provider, no key is used
        with client.quiet():
            client.litellm().completion(**request)
