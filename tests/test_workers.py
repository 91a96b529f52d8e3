"""The build's jobs: urgent parts first, and the same files whatever the number of workers."""

from __future__ import annotations

import pickle
import shutil
import signal
from pathlib import Path

import pytest

from printshop import build as build_module
from printshop.build import build
from printshop.files.errors import PrintshopError, Problem
from printshop.load.geometry import PrintOptions
from printshop.files.project import Project
from printshop.run.workers import URGENT, Workers

from test_printrun import poker_project


def test_a_job_added_as_urgent_runs_before_the_jobs_still_waiting():
    ran = []
    workers = Workers(1)

    def component(name):
        ran.append(name)
        if name == "deck":
            workers.add(ran.append, ("contents",), lambda _: None, URGENT)

    for name in ("deck", "board", "tokens"):
        workers.add(lambda n=name: n, (), component)
    workers.run()
    assert ran == ["deck", "contents", "board", "tokens"]


def test_a_workers_result_comes_back_to_this_process():
    got = []
    workers = Workers(2)
    for n in range(5):
        workers.add(pow, (n, 2), got.append)
    workers.run()
    assert sorted(got) == [0, 1, 4, 9, 16]


def test_a_users_mistake_found_in_a_worker_keeps_its_file_and_key_path():
    error = PrintshopError(Problem("data/g/cards.yaml", "expected a number", ("cards", 3)))
    again = pickle.loads(pickle.dumps(error))
    assert again.problems == error.problems and str(again) == str(error)


def two_games(root: Path) -> Project:
    """Two games, one with two decks sharing sheets (its print run draws them afresh)."""
    poker_project(root / "a", spare="poker")
    poker_project(root / "b", spare="tarot")
    shutil.move(str(root / "b" / "data" / "poker"), root / "a" / "data" / "poker2")
    shutil.move(str(root / "b" / "templates" / "poker"), root / "a" / "templates" / "poker2")
    return Project.open(root / "a")


def files(out: Path) -> dict[str, bytes]:
    return {str(p.relative_to(out)): p.read_bytes() for p in sorted(out.rglob("*.pdf"))}


def test_print_and_play_files_drawn_by_workers_are_the_bytes_one_process_draws(
        tmp_path, monkeypatch):
    project = two_games(tmp_path / "p")
    build(project, ["poker", "poker2"], PrintOptions(), tmp_path / "one", jobs=1)
    drawn_by = []
    real = build_module.combine
    monkeypatch.setattr(build_module, "combine", lambda b, opts, workers, rank, ref: (
        drawn_by.append(workers.processes), real(b, opts, workers, rank, ref)))
    report = build(project, ["poker", "poker2"], PrintOptions(), tmp_path / "two", jobs=2)
    assert drawn_by == [2, 2]            # both print-and-play files were drawn by workers
    gangs = [s for r in report.games[0].run.runs for s in r.sources if s.pages]
    assert gangs                         # and one of them had shared sheets to draw
    one, two = files(tmp_path / "one"), files(tmp_path / "two")
    assert "poker/poker-print-and-play.pdf" in one and one.keys() == two.keys()
    assert one == two


def test_two_builds_at_once_in_one_process_each_find_their_games(tmp_path):
    """The studio serves downloads from threads: two print-and-play files drawn at once."""
    import threading

    project = poker_project(tmp_path / "p", spare="poker")
    errors, outs = [], []

    def one(n):
        try:
            build(project, ["poker"], PrintOptions(), tmp_path / f"out{n}", jobs=1)
            outs.append(n)
        except Exception as exc:      # noqa: BLE001 - reported below
            errors.append(repr(exc))

    threads = [threading.Thread(target=one, args=(n,)) for n in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == [] and sorted(outs) == [0, 1, 2]
    assert files(tmp_path / "out0") == files(tmp_path / "out1") == files(tmp_path / "out2")


def test_meanwhile_runs_while_the_workers_have_jobs_and_its_error_stops_the_run():
    got, seen = [], []
    workers = Workers(2)
    for n in range(6):
        workers.add(pow, (n, 2), got.append)
    workers.run(lambda: seen.append(list(got)))
    assert seen == [[]]                  # called once, before any result was handed on
    assert sorted(got) == [0, 1, 4, 9, 16, 25]

    def broken():
        raise PrintshopError("a rule failed")

    got.clear()
    for n in range(6):
        workers.add(pow, (n, 2), got.append)
    try:
        workers.run(broken)
    except PrintshopError as exc:
        assert "a rule failed" in str(exc)
    else:
        raise AssertionError("meanwhile's error was lost")
    assert got == []                     # no result was handed on after it


def test_a_build_whose_rules_fail_while_workers_draw_reports_the_rules_and_writes_nothing(
        tmp_path):
    project = poker_project(tmp_path / "p", spare="poker")
    manifest = tmp_path / "p" / "data" / "poker" / "game.yaml"
    manifest.write_text(manifest.read_text() + "rules:\n  - {id: thirteen, check: count, "
                        "component: deck, equals: 13}\n")
    for jobs in (1, 2):
        out = tmp_path / f"out{jobs}"
        try:
            build(project, ["poker"], PrintOptions(), out, jobs=jobs)
        except PrintshopError as exc:
            assert "[thirteen] expected 13" in str(exc), str(exc)
        else:
            raise AssertionError("the broken rule was not reported")
        assert not out.exists() or not any(out.rglob("*.pdf"))


def _fail(n):
    raise PrintshopError(Problem("data/g/cards.yaml", f"card {n} is broken", ("cards", n)))


def _die(n):
    import os
    os.kill(os.getpid(), signal.SIGKILL)


def _echo(data):
    return data[::-1]


@pytest.fixture
def within_a_minute():
    """Fail a test that hangs (two processes each waiting on the other) instead of waiting."""
    def hung(signum, frame):
        raise AssertionError("the workers hung")
    old = signal.signal(signal.SIGALRM, hung)
    signal.alarm(60)
    yield
    signal.alarm(0)
    signal.signal(signal.SIGALRM, old)


def test_a_jobs_error_in_a_worker_is_raised_here_with_where_it_happened(within_a_minute):
    workers = Workers(2)
    for n in range(4):
        workers.add(pow, (n, 2), lambda _: None)
    workers.add(_fail, (2,), lambda _: None)
    try:
        workers.run()
    except PrintshopError as exc:
        assert exc.problems[0].path == ("cards", 2) and "card 2 is broken" in str(exc)
        assert "_fail" in str(exc.__cause__)       # the worker's traceback
    else:
        raise AssertionError("the job's error was lost")


def test_a_worker_that_dies_is_reported_not_waited_for(within_a_minute):
    from printshop.run.forked import WorkerLost

    workers = Workers(2)
    workers.add(_die, (0,), lambda _: None)
    workers.add(pow, (3, 2), lambda _: None)
    try:
        workers.run()
    except WorkerLost as exc:       # a PrintshopError: the command reports it, no traceback
        assert isinstance(exc, PrintshopError)
        assert "killed by signal 9" in exc.report() and "--jobs 1" in exc.report()
        assert exc.report().endswith("nothing written")
    else:
        raise AssertionError("the lost worker went unnoticed")


def test_jobs_and_answers_larger_than_a_pipe_holds_pass_both_ways(within_a_minute):
    # Eight 3 MB jobs on two workers: a worker answering while more jobs are written to it
    # must not leave both ends waiting on full pipes.
    got = {}
    workers = Workers(2)
    for n in range(8):
        data = bytes([n]) * (3 << 20)
        workers.add(_echo, (data,), lambda res, n=n: got.__setitem__(n, res))
    workers.run(lambda: None)
    assert sorted(got) == list(range(8))
    assert all(len(v) == 3 << 20 and v[0] == n for n, v in got.items())
