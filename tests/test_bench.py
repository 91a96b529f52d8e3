"""The benchmark's generated projects are real printshop projects (no timings asserted)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

from pypdf import PdfReader

from printshop.build import build
from printshop.load.geometry import PrintOptions
from printshop.files.project import Project

RUN = Path(__file__).resolve().parent.parent / "bench" / "run.py"
spec = importlib.util.spec_from_file_location("bench_run", RUN)
bench = importlib.util.module_from_spec(spec)
sys.modules["bench_run"] = bench  # dataclasses look their module up by name
spec.loader.exec_module(bench)


def test_the_poker_project_builds_the_hundred_cards_it_promises(tmp_path):
    project = bench.poker_project(tmp_path / "p", 100)
    report = build(Project.open(project), [], PrintOptions(backs="none"), tmp_path / "out",
                   jobs=1)
    deck = report.games[0].game.part("deck")
    assert deck.card_count() == 100
    pages = PdfReader(tmp_path / "out" / "poker" / "deck.pdf").pages
    assert len(pages) == 13  # 8 poker cards with bleed per A4 sheet
    assert "Line 5 of card 100: gain one" in pages[-1].extract_text()


def test_the_stress_project_counts_copies(tmp_path):
    project = bench.poker_project(tmp_path / "s", 30, copies=10)
    from printshop.load.loader import load_game
    game = load_game(Project.open(project).game("poker"))
    assert game.part("deck").card_count() == 300


def test_the_table_marks_targets():
    text = bench.table([bench.Row("x", 1.0, 10.0, 100, "note", "< 2 s", True)])
    assert "| x | 1.000 | 10 |  | 100 | < 2 s | yes | note |" in text


def test_the_peer_scripts_are_python(tmp_path):
    for peer in bench.PEERS:
        cmd, target = peer.command(tmp_path)
        compile(Path(cmd[1]).read_text(), cmd[1], "exec")
        assert target.parent == tmp_path


def test_a_failing_process_is_reported_by_its_last_line():
    run = bench.measure([sys.executable, "-c", "import sys; print('x'); sys.exit('boom')"])
    assert not run.ok and run.error == "boom"


def test_peak_memory_counts_the_workers_of_a_process():
    # after the fork, parent and worker each hold 80 MB of their own: no single process
    # reaches 160 MB, the two together do
    script = ("import os, time\npid = os.fork()\n"
              "block = b\"x\" * (80 << 20)\ntime.sleep(0.6)\n"
              "os._exit(0) if pid == 0 else os.waitpid(pid, 0)\n")
    run = bench.measure([sys.executable, "-c", script])
    assert run.ok and run.peak_mb > 2 * 80


def test_the_builtin_games_are_found_without_importing_printshop():
    assert "deity" in bench.builtin_games()
