"""The model process, started per session or kept for the next one (llm/kept.py), for the
benchmarks to measure both ways side by side (not part of the tests).

    env = keeping(600)              # pytest runs with this environment keep it
    ...
    end_kept(env)                   # and it ends here, not 10 minutes later
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket

from pytest_caretaker.llm import kept, remote

#: (label, seconds): a first heal, which starts the model process, and the next one.
MODES = (("model process started", 0.0), ("model process kept", 600.0))


def keeping(seconds: float) -> dict[str, str]:
    """This process's environment, the model process kept ``seconds`` after each session."""
    return {**os.environ, "CARETAKER_MODEL_KEEP": f"{seconds:g}"}


def end_kept(env: dict[str, str]) -> None:
    """End the kept model process of sessions run with ``env``, if one listens."""
    with (
        contextlib.suppress(OSError),
        socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as connection,
    ):
        connection.connect("\0" + kept.address(remote.environment(env)))
        os.kill(kept.peer(connection)[0], signal.SIGKILL)
