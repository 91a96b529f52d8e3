"""Worker processes: this process forked, each fed jobs down a pipe and answering up another.

A message on a pipe is its length and a pickle: a job is (function, arguments), an answer
(True, result) or (False, error, the worker's traceback). This process writes jobs without
blocking and reads answers as they come, so neither end waits on a full pipe whatever the
sizes. There is no pool and no thread: two workers forked, given a small job each and ended
take 4-5 ms, where concurrent.futures' pool took 6-7 ms and 11 ms more to import (measured in
a slow period of the machine), enough to cancel what drawing a 100-card deck in two halves
saves. workers.py decides which job goes where; this module only carries them.
"""

from __future__ import annotations

import os
import pickle
import signal
import struct
import traceback
from collections import deque
from typing import Any, Callable

from ..files.errors import PrintshopError


class WorkerLost(PrintshopError):
    """A worker process ended without answering (killed, or crashed inside a C library):
    reported as the build's error, not as a traceback; nothing is written."""


class RemoteTraceback(Exception):
    """Where a job failed in its worker: set as the cause of the error raised here."""

    def __str__(self) -> str:
        return "\n" + self.args[0]


_HEADER = struct.Struct("<Q")     # each message on a pipe: its length, then the pickle
_CHUNK = 1 << 20                  # bytes read from, or written to, a pipe at once


def _message(obj) -> bytes:
    data = pickle.dumps(obj, pickle.HIGHEST_PROTOCOL)
    return _HEADER.pack(len(data)) + data


class Worker:
    """A forked worker seen from this process: the pipe its jobs go down (non-blocking, with
    what is still to be written), the one its answers come up, and the jobs it holds."""

    __slots__ = ("pid", "jobs", "answers", "out", "inbox", "held")

    def __init__(self, pid: int, jobs: int, answers: int):
        self.pid, self.jobs, self.answers = pid, jobs, answers
        self.out, self.inbox = bytearray(), bytearray()
        self.held: deque = deque()     # jobs given: anything with .fn and .args

    def give(self, job: Any) -> None:
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

    def receive(self) -> list[tuple[Any, tuple]]:
        """Read what has come up the pipe; return the jobs answered, with their answers."""
        chunk = os.read(self.answers, _CHUNK)
        if not chunk:
            _, status = os.waitpid(self.pid, 0)
            self.pid = 0
            raise WorkerLost(f"a worker process ended without answering "
                             f"({how_it_ended(status)}) while drawing")
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


def how_it_ended(status: int) -> str:
    """Say how a process with this wait status ended (SIGKILL: most often memory ran out)."""
    if not os.WIFSIGNALED(status):
        return f"exit status {os.waitstatus_to_exitcode(status)}"
    if os.WTERMSIG(status) == signal.SIGKILL:
        return "killed by signal 9, which is how the system stops a process when memory " \
               "runs out: --jobs 1 uses less"
    return f"killed by signal {os.WTERMSIG(status)}"


def fork(others: list[Worker], start: Callable[[], None]) -> Worker:
    """Fork a worker, set up by ``start()``; it closes the pipes of the workers forked before
    it, so that each of them sees the end of its jobs when this process closes them."""
    jobs_r, jobs_w = os.pipe()
    answers_r, answers_w = os.pipe()
    pid = os.fork()
    if pid == 0:   # the worker: it never returns from here
        code = 1
        try:
            signal.signal(signal.SIGINT, signal.SIG_IGN)   # this process stops the workers
            for fd in [jobs_w, answers_r] + [f for w in others for f in (w.jobs, w.answers)]:
                os.close(fd)
            start()
            serve(jobs_r, answers_w)
            code = 0
        finally:
            os._exit(code)
    os.close(jobs_r)
    os.close(answers_w)
    os.set_blocking(jobs_w, False)
    return Worker(pid, jobs_w, answers_r)


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


def serve(jobs: int, answers: int) -> None:
    """Run the jobs that come down the pipe, one at a time, until it closes; answer each
    with (True, result) or (False, error, traceback)."""
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


def stop(workers: list[Worker], finished: bool) -> None:
    """End the workers: told there are no more jobs when the run finished, else killed."""
    for w in workers:
        os.close(w.jobs)
        if w.pid and not finished:
            os.kill(w.pid, signal.SIGKILL)
    for w in workers:
        os.close(w.answers)
        if w.pid:
            os.waitpid(w.pid, 0)
