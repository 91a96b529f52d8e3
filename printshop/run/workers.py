"""Jobs on worker processes, the most urgent first.

A build is a small graph of jobs: every component (or share of a long deck) is a job, and when
all of a game's components are drawn, the parts of its print-and-play file become jobs too.
Those are urgent: they run before the components still waiting, so one game's print-and-play
file is drawn while the next game's components are, instead of all of them at the end.

Results are handed to each job's ``then`` in the main process, which may add more jobs. What
a build writes never depends on the order jobs finish in: every result goes to its own place.
"""

from __future__ import annotations

import heapq
import os
import itertools
from dataclasses import dataclass, field
from typing import Any, Callable

URGENT, LATER = 0, 1


@dataclass(order=True)
class _Job:
    rank: int
    seq: int
    fn: Callable = field(compare=False)
    args: tuple = field(compare=False)
    then: Callable[[Any], None] = field(compare=False)


class Workers:
    """A queue of jobs run on ``processes`` forked workers (or in this process when 1).

    The workers are this process forked (forked.py): they start with everything it has
    loaded, and each is sent its jobs down a pipe and answers up another. A worker holds
    the job it runs and, while the queue is long, the next one, so it never waits while this
    process handles an answer; near the end of the queue it holds one, so that no job waits
    behind a long one while another worker is idle."""

    def __init__(self, processes: int):
        self.processes = max(1, processes)
        self._queue: list[_Job] = []
        self._seq = itertools.count()

    def add(self, fn: Callable, args: tuple, then: Callable[[Any], None],
            rank: int = LATER) -> None:
        """Queue fn(*args); its result goes to then(result), in this process."""
        heapq.heappush(self._queue, _Job(rank, next(self._seq), fn, args, then))

    def run(self, meanwhile: Callable[[], None] | None = None) -> None:
        """Run every job, including those added while running, until none is left.

        ``meanwhile()`` runs in this process once the workers have their first jobs (before
        any job when there are no workers); if it raises, no result is handed on and the
        error is raised at once (the workers are stopped). So is a job's error, with where
        it happened in the worker as its cause.
        """
        if self.processes == 1:
            if meanwhile is not None:
                meanwhile()
            while self._queue:
                job = heapq.heappop(self._queue)
                job.then(job.fn(*job.args))
            return
        if not self._queue:
            if meanwhile is not None:
                meanwhile()
            return
        import select

        from .forked import RemoteTraceback, fork, stop

        workers: list = []
        finished = False
        try:
            for _ in range(min(self.processes, len(self._queue))):
                workers.append(fork(workers, _worker_start))
            while True:
                # While meanwhile() runs no answer is read, so the workers get more to go on.
                self._deal(workers, 3 if meanwhile is not None else 2)
                if meanwhile is not None:
                    meanwhile()
                    meanwhile = None
                    continue
                busy = [w for w in workers if w.held]
                if not busy:
                    break
                readable, writable, _ = select.select(
                    [w.answers for w in busy], [w.jobs for w in workers if w.out], [])
                for w in workers:
                    if w.jobs in writable:
                        w.send()
                done = [d for w in busy if w.answers in readable for d in w.receive()]
                for job, answer in sorted(done, key=lambda d: d[0].seq):
                    if not answer[0]:
                        raise answer[1] from RemoteTraceback(answer[2])
                    job.then(answer[1])
            finished = True
        finally:
            stop(workers, finished)

    def _deal(self, workers: list, most: int) -> None:
        """Hand queued jobs to the workers, round by round: one each first, more only while
        the queue holds more jobs than there are workers; write what the pipes take."""
        for held in range(most):
            for w in workers:
                if self._queue and len(w.held) == held and \
                        (held == 0 or len(self._queue) > len(workers)):
                    w.give(heapq.heappop(self._queue))
        for w in workers:
            w.send()


GC_YOUNG = 10_000   # objects allocated between collections of the youngest generation


def short_lived() -> None:
    """Set up the collector of a process that does one job and ends (the ``printshop``
    command): young objects examined every GC_YOUNG allocations, as in the workers, and
    nothing examined at exit, when the process is about to hand back all of its memory
    anyway (in a 100-card build, about 20 ms of collections while it runs and 20 ms at exit).
    Files are closed where they are written; exit handlers still run."""
    import atexit
    import gc

    gc.set_threshold(GC_YOUNG, *gc.get_threshold()[1:])
    atexit.register(gc.freeze)


def _worker_start() -> None:
    """Set up a worker's garbage collector: what it was forked with (the loaded games) is
    never examined, and young objects are examined less often (a worker makes and drops
    trees of thousands of elements; Python's default, 700, examined them over and over)."""
    import gc

    gc.freeze()
    gc.set_threshold(GC_YOUNG, *gc.get_threshold()[1:])


def default_jobs() -> int:
    """Return how many worker processes to use: one per core, at most four."""
    return max(1, min(os.cpu_count() or 1, 4))
