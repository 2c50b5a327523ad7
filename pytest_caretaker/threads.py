"""Jobs in threads that Ctrl-C can stop: what the engine runs concurrently (problems, whose model
round trips overlap). Standard library only.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import Generic, TypeVar

J = TypeVar("J")
R = TypeVar("R")


def in_threads(
    jobs: Sequence[J], work: Callable[[J], list[R]], concurrency: int, into: list[R]
) -> None:
    """Run work on each job, up to concurrency at once, adding each job's results to into as it
    finishes. Threads are daemons: on Ctrl-C the caller returns at once, and what is still in
    flight (a model call) is dropped, never added after the interruption. (A pool of our own, not
    concurrent.futures: its executor joins its threads at exit, so Ctrl-C would wait for them.)"""
    pool = _Pool(list(jobs), work, into)
    if concurrency <= 1 or len(jobs) <= 1:
        pool.work_off()  # in this thread: nothing to overlap
    else:
        pool.run(min(concurrency, len(jobs)))
    if pool.failed:
        raise pool.failed[0]


class _Pool(Generic[J, R]):
    def __init__(self, queue: list[J], work: Callable[[J], list[R]], into: list[R]) -> None:
        self.queue, self.work, self.into = queue, work, into
        self.lock = threading.Lock()
        self.stopped = False
        self.failed: list[BaseException] = []

    def work_off(self) -> None:
        while (job := self._next()) is not None:
            try:
                results = self.work(job)
            except BaseException as error:  # a repair contains its own; this is a bug
                with self.lock:
                    self.failed.append(error)
                return
            with self.lock:
                if not self.stopped:
                    self.into.extend(results)

    def _next(self) -> J | None:
        with self.lock:
            return None if self.stopped or not self.queue else self.queue.pop(0)

    def run(self, count: int) -> None:
        threads = [
            threading.Thread(target=self.work_off, name=f"caretaker-{n}", daemon=True)
            for n in range(count)
        ]
        for thread in threads:
            thread.start()
        try:
            for thread in threads:
                while thread.is_alive():
                    thread.join(0.1)  # a timeout, so that Ctrl-C reaches this thread
        except KeyboardInterrupt:
            with self.lock:
                self.stopped = True
            raise
