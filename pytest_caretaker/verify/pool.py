"""Forked jobs, several at once: the trial server's children (trial_server.py).

A job is a function run in a forked child (channel.fork: its own session, killed with its process
group) that writes its answer to a pipe and exits. Up to ``size`` jobs run at once, each in a slot
of its own (0 to size - 1, reused), so that a child can keep its scratch files apart from its
siblings'; more wait in order. Each job has a time limit from when it starts: a child that
outlives it, or writes more than ``most`` bytes, is killed. One select loop reads every running
child's pipe and whatever else the caller waits on (the server's requests), so nothing waits
behind a slow child. Like every module a server imports, it depends on the standard library and
channel.py alone.
"""

from __future__ import annotations

import contextlib
import os
import select
import time
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import partial

from pytest_caretaker.verify.channel import fork, kill_group

#: A job's body, run in the child: given its slot and the pipe to write its answer to.
Body = Callable[[int, int], None]


@dataclass
class Done:
    """A job that ended: what its child wrote, and whether it ended in time."""

    key: int
    data: bytes
    finished: bool  # the child closed its pipe within the limit, having written at most `most`
    status: int  # the child's wait status
    seconds: float  # from its start to its end
    limit: float
    #: CPU seconds the child used (user and system, its reaped children included): the work
    #: a trial did, which a busy machine does not change as it changes seconds.
    cpu: float = 0.0


@dataclass
class _Job:
    key: int
    limit: float
    body: Body


@dataclass
class _Running:
    job: _Job
    pid: int
    read: int
    slot: int
    started: float
    data: bytearray = field(default_factory=bytearray)

    @property
    def deadline(self) -> float:
        return self.started + self.job.limit


class Pool:
    """Forked jobs, up to size at once, read in one loop (``wait``)."""

    def __init__(self, size: int, most: int) -> None:
        self.size = max(1, size)
        self.most = most
        self._queue: deque[_Job] = deque()
        self._running: dict[int, _Running] = {}  # by the read end of its pipe

    @property
    def busy(self) -> bool:
        return bool(self._queue or self._running)

    def submit(self, key: int, limit: float, body: Body) -> None:
        self._queue.append(_Job(key, limit, body))

    def cancel(self, keys: Iterable[int]) -> None:
        """Forget these jobs: queued ones never start, running ones are killed (no Done)."""
        unwanted = set(keys)
        self._queue = deque(job for job in self._queue if job.key not in unwanted)
        for read, running in list(self._running.items()):
            if running.job.key in unwanted:
                self._end(read, running)

    def wait(self, fds: Iterable[int]) -> tuple[list[int], list[Done]]:
        """Start what a free slot allows, then wait until one of fds can be read or jobs end (by
        themselves or at their limits): the fds ready and the jobs that ended."""
        self._start()
        watched = list(fds)
        now = time.monotonic()
        deadlines = [running.deadline - now for running in self._running.values()]
        left = max(0.0, min(deadlines)) if deadlines else None
        try:
            ready, _, _ = select.select([*watched, *self._running], [], [], left)
        except InterruptedError:
            ready = []
        done: list[Done] = []
        for fd in ready:
            running = self._running.get(fd)
            if running is not None:
                chunk = os.read(fd, 65536)
                running.data += chunk
                if not chunk or len(running.data) > self.most:
                    done.append(self._end(fd, running, finished=not chunk))
        now = time.monotonic()
        for fd, running in list(self._running.items()):
            if now >= running.deadline:
                done.append(self._end(fd, running, finished=False))
        self._start()
        return [fd for fd in ready if fd in watched], done

    def _start(self) -> None:
        while self._queue and len(self._running) < self.size:
            job = self._queue.popleft()
            used = {running.slot for running in self._running.values()}
            slot = min(set(range(self.size)) - used)
            read, write = os.pipe()
            siblings = list(self._running)
            pid = fork(partial(self._child, job, slot, read, write, siblings))
            os.close(write)
            self._running[read] = _Running(job, pid, read, slot, time.monotonic())

    @staticmethod
    def _child(job: _Job, slot: int, read: int, write: int, siblings: list[int]) -> None:
        # A child reads nobody's answer: not its own pipe's, nor its running siblings'.
        for fd in (read, *siblings):
            with contextlib.suppress(OSError):
                os.close(fd)
        job.body(slot, write)

    def _end(self, read: int, running: _Running, finished: bool = False) -> Done:
        del self._running[read]
        # Killed in any case: a child that closed its pipe has said all it may, even if it
        # meant to go on.
        kill_group(running.pid)
        os.close(read)
        _, status, usage = os.wait4(running.pid, 0)
        seconds = time.monotonic() - running.started
        data = bytes(running.data)
        cpu = usage.ru_utime + usage.ru_stime
        return Done(running.job.key, data, finished, status, seconds, running.job.limit, cpu)
