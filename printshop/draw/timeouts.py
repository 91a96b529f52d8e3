"""A render's time limit (render_seconds, and the build's total time): a timer signal on the
main thread, a watchdog thread on any other."""

from __future__ import annotations

import ctypes
import signal
import threading
import time
from contextlib import contextmanager

from ..files import limits


class TemplateTimeout(Exception):
    """A template ran longer than the render_seconds limit, or the build's total time ran out."""


class RenderInterrupted(TemplateTimeout):
    """Raised inside a worker thread whose render ran out of time (by the watchdog)."""

    def __str__(self) -> str:
        return _over_message(limits.current().render_seconds)


def _over_message(seconds: float) -> str:
    return (f"the template ran for more than {seconds:g} seconds, over the limit "
            "render_seconds (raise it on purpose with --limit render_seconds=N)")


class _Watchdog:
    """One thread that stops renders running too long on other threads (the studio's pool).

    A signal reaches only the main thread; elsewhere the watchdog raises RenderInterrupted in
    the rendering thread (PyThreadState_SetAsyncExc), which a template's Python code meets at
    its next step: a looping template stops, the thread goes back to serving.
    """

    def __init__(self) -> None:
        self.cond = threading.Condition()
        self.armed: dict[int, list] = {}   # id -> [deadline, thread id, fired]
        self.next_id = 0
        self.thread: threading.Thread | None = None

    def arm(self, seconds: float) -> int:
        """Start the clock of a render on this thread; return its id."""
        with self.cond:
            self.next_id += 1
            self.armed[self.next_id] = [time.monotonic() + seconds, threading.get_ident(),
                                        False]
            if self.thread is None or not self.thread.is_alive():
                self.thread = threading.Thread(target=self._run, name="render-watchdog",
                                               daemon=True)
                self.thread.start()
            self.cond.notify()
            return self.next_id

    def disarm(self, key: int) -> bool:
        """Stop a render's clock; say whether it ran out (its pending interrupt is cleared)."""
        with self.cond:
            entry = self.armed.pop(key, None)
            if entry is not None and entry[2]:
                _async_raise(entry[1], None)
            return entry is not None and entry[2]

    def _run(self) -> None:
        with self.cond:
            while True:
                now = time.monotonic()
                waiting = [e for e in self.armed.values() if not e[2]]
                for entry in waiting:
                    if entry[0] <= now:
                        entry[2] = True
                        _async_raise(entry[1], RenderInterrupted)
                pending = [e[0] - now for e in waiting if e[0] > now]
                self.cond.wait(min(pending) if pending else None)


def _async_raise(thread_id: int, exc) -> None:
    """Raise ``exc`` in another thread at its next Python step (None: cancel a pending one)."""
    ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(thread_id),
                                               ctypes.py_object(exc) if exc else None)


_WATCHDOG = _Watchdog()


@contextmanager
def deadline(seconds: float):
    """Stop a render that runs too long: by a timer signal on the main thread, by the
    watchdog on any other."""
    left = limits.seconds_left()
    if left is not None and left <= 0:
        raise TemplateTimeout(limits.total_time_message())
    whole_build = left is not None and left < seconds
    message = limits.total_time_message() if whole_build else _over_message(seconds)
    if threading.current_thread() is not threading.main_thread() or \
            not hasattr(signal, "setitimer"):
        key = _WATCHDOG.arm(min(seconds, left) if whole_build else seconds)
        try:
            yield
        except TemplateTimeout:
            _WATCHDOG.disarm(key)
            raise TemplateTimeout(message) from None
        except BaseException:
            _WATCHDOG.disarm(key)
            raise
        if _WATCHDOG.disarm(key):
            raise TemplateTimeout(message)
        return

    def expire(signum, frame):
        raise TemplateTimeout(message)

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, min(seconds, left) if whole_build else seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)

