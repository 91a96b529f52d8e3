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
    """A queue of jobs run on ``processes`` forked workers (or in this process when 1)."""

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
        error is raised once the jobs already running end.
        """
        if self.processes == 1:
            if meanwhile is not None:
                meanwhile()
            while self._queue:
                job = heapq.heappop(self._queue)
                job.then(job.fn(*job.args))
            return
        import multiprocessing
        from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait

        ctx = multiprocessing.get_context("fork")
        with ProcessPoolExecutor(max_workers=self.processes, mp_context=ctx,
                                 initializer=_worker_start) as pool:
            flying: dict = {}
            while self._queue or flying:
                # One job more than workers: a worker never waits while this process
                # handles a result. While meanwhile() runs no result is handled, so the
                # workers get more to go on with (no urgent job can arrive before it ends).
                most = self.processes * (3 if meanwhile is not None else 1)
                while self._queue and len(flying) <= most:
                    job = heapq.heappop(self._queue)
                    flying[pool.submit(job.fn, *job.args)] = job
                if meanwhile is not None:
                    try:
                        meanwhile()
                    except BaseException:
                        pool.shutdown(wait=False, cancel_futures=True)
                        raise
                    meanwhile = None
                done, _ = wait(flying, return_when=FIRST_COMPLETED)
                for future in sorted(done, key=lambda f: flying[f].seq):
                    flying.pop(future).then(future.result())
        if meanwhile is not None:   # there was no job at all
            meanwhile()


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
