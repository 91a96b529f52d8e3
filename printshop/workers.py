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
import os
import pickle
import select
import signal
import struct
import traceback
from collections import deque
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


class WorkerLost(RuntimeError):
    """A worker process ended without answering (killed, or crashed inside a C library)."""


class _RemoteTraceback(Exception):
    """Where a job failed in its worker: set as the cause of the error raised here."""

    def __str__(self) -> str:
        return "\n" + self.args[0]


_HEADER = struct.Struct("<Q")     # each message on a pipe: its length, then the pickle
_CHUNK = 1 << 20                  # bytes read from, or written to, a pipe at once


def _message(obj) -> bytes:
    data = pickle.dumps(obj, pickle.HIGHEST_PROTOCOL)
    return _HEADER.pack(len(data)) + data


class _Worker:
    """A forked worker seen from this process: the pipe its jobs go down (non-blocking, with
    what is still to be written), the one its answers come up, and the jobs it holds."""

    __slots__ = ("pid", "jobs", "answers", "out", "inbox", "held")

    def __init__(self, pid: int, jobs: int, answers: int):
        self.pid, self.jobs, self.answers = pid, jobs, answers
        self.out, self.inbox = bytearray(), bytearray()
        self.held: deque[_Job] = deque()

    def give(self, job: _Job) -> None:
        self.out += _message((job.fn, job.args))
        self.held.append(job)

    def send(self) -> None:
        """Write what the pipe takes now of the jobs not yet written."""
        while self.out:
            try:
                n = os.write(self.jobs, self.out[:_CHUNK])
            except BlockingIOError:
                return
            del self.out[:n]

    def receive(self) -> list[tuple[_Job, tuple]]:
        """Read what has come up the pipe; return the jobs answered, with their answers."""
        chunk = os.read(self.answers, _CHUNK)
        if not chunk:
            _, status = os.waitpid(self.pid, 0)
            self.pid = 0
            raise WorkerLost(f"a worker process ended without answering "
                             f"({_how_it_ended(status)}) while drawing")
        self.inbox += chunk
        done = []
        while len(self.inbox) >= _HEADER.size:
            (size,) = _HEADER.unpack_from(self.inbox)
            if len(self.inbox) < _HEADER.size + size:
                break
            answer = pickle.loads(self.inbox[_HEADER.size:_HEADER.size + size])
            del self.inbox[:_HEADER.size + size]
            done.append((self.held.popleft(), answer))
        return done


def _how_it_ended(status: int) -> str:
    if os.WIFSIGNALED(status):
        return f"killed by signal {os.WTERMSIG(status)}"
    return f"exit status {os.waitstatus_to_exitcode(status)}"


class Workers:
    """A queue of jobs run on ``processes`` forked workers (or in this process when 1).

    The workers are this process forked (os.fork): they start with everything it has loaded,
    and each is sent its jobs down a pipe and answers up another (pickled). A worker holds
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
        workers: list[_Worker] = []
        finished = False
        try:
            for _ in range(min(self.processes, len(self._queue))):
                workers.append(_fork(workers))
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
                        raise answer[1] from _RemoteTraceback(answer[2])
                    job.then(answer[1])
            finished = True
        finally:
            _stop(workers, finished)

    def _deal(self, workers: list[_Worker], most: int) -> None:
        """Hand queued jobs to the workers, round by round: one each first, more only while
        the queue holds more jobs than there are workers; write what the pipes take."""
        for held in range(most):
            for w in workers:
                if self._queue and len(w.held) == held and \
                        (held == 0 or len(self._queue) > len(workers)):
                    w.give(heapq.heappop(self._queue))
        for w in workers:
            w.send()


def _fork(others: list[_Worker]) -> _Worker:
    """Fork a worker; it closes the pipes of the workers forked before it, so that each of
    them sees the end of its jobs when this process closes them."""
    jobs_r, jobs_w = os.pipe()
    answers_r, answers_w = os.pipe()
    pid = os.fork()
    if pid == 0:   # the worker: it never returns from here
        code = 1
        try:
            signal.signal(signal.SIGINT, signal.SIG_IGN)   # this process stops the workers
            for fd in [jobs_w, answers_r] + [f for w in others for f in (w.jobs, w.answers)]:
                os.close(fd)
            _serve(jobs_r, answers_w)
            code = 0
        finally:
            os._exit(code)
    os.close(jobs_r)
    os.close(answers_w)
    os.set_blocking(jobs_w, False)
    return _Worker(pid, jobs_w, answers_r)


def _read(fd: int, n: int) -> bytes | None:
    """Read exactly n bytes from a blocking pipe; None at its end."""
    parts, left = [], n
    while left:
        chunk = os.read(fd, min(left, _CHUNK))
        if not chunk:
            return None
        parts.append(chunk)
        left -= len(chunk)
    return b"".join(parts)


def _serve(jobs: int, answers: int) -> None:
    """Run the jobs that come down the pipe, one at a time, until it closes; answer each
    with (True, result) or (False, error, traceback)."""
    _worker_start()
    while True:
        head = _read(jobs, _HEADER.size)
        body = _read(jobs, _HEADER.unpack(head)[0]) if head is not None else None
        if body is None:
            return
        fn, args = pickle.loads(body)
        try:
            answer: tuple = (True, fn(*args))
        except BaseException as exc:  # noqa: BLE001 - every error goes back to be raised
            answer = (False, exc, traceback.format_exc())
        try:
            data = _message(answer)
        except Exception as exc:  # noqa: BLE001 - a result or error pickle cannot carry
            data = _message((False, WorkerLost(f"a worker's answer could not be sent back "
                                               f"({type(exc).__name__}: {exc})"),
                             traceback.format_exc()))
        view = memoryview(data)
        while view:
            view = view[os.write(answers, view):]


def _stop(workers: list[_Worker], finished: bool) -> None:
    """End the workers: told there are no more jobs when the run finished, else killed."""
    for w in workers:
        os.close(w.jobs)
        if w.pid and not finished:
            os.kill(w.pid, signal.SIGKILL)
    for w in workers:
        os.close(w.answers)
        if w.pid:
            os.waitpid(w.pid, 0)


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
