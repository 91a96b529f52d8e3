"""The benchmark's generated projects are real printshop projects (no timings asserted)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

from pypdf import PdfReader

from printshop.build import build
from printshop.geometry import PrintOptions
from printshop.project import Project

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
    from printshop.loader import load_game
    game = load_game(Project.open(project).game("poker"))
    assert game.part("deck").card_count() == 300


def test_the_table_marks_targets():
    text = bench.table([bench.Row("x", 1.0, 10.0, 100, "note", "< 2 s", True)])
    assert "| x | 1.000 | 10 | 100 | < 2 s | yes | note |" in text
