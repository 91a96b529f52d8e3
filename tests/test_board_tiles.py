"""Boards ask for their tiling (`tiles: [2, 1]`), refused with the reason when it cannot fit;
the printable area per paper is known to the reference."""

from __future__ import annotations

import shutil
import subprocess
import sys

import pytest

from printshop.load.geometry import PrintOptions
from printshop.scaffold import new_game
from printshop.layout.tiles import TilingError, printable_area, tile_plan


def test_printable_area_per_paper():
    a4 = printable_area("a4")
    assert a4["portrait"] == (200, 282) and a4["landscape"] == (287, 195)
    assert a4["landscape tile"] == (281, 189)
    letter = printable_area("letter")
    assert letter["landscape"] == pytest.approx((269.4, 200.9))


def test_a_board_asks_for_two_tiles():
    plan = tile_plan(400, 180, PrintOptions(), 10, (2, 1))
    assert (plan.cols, plan.rows, len(plan.tiles)) == (2, 1, 2)
    assert plan.page_w > plan.page_h           # landscape holds each half
    # Left alone, the same board takes the fewest pages, which are the same here.
    assert len(tile_plan(400, 180, PrintOptions(), 10).tiles) == 2
    # More tiles than needed is the designer's choice.
    assert len(tile_plan(400, 180, PrintOptions(), 10, (2, 2)).tiles) == 4


def test_a_tiling_that_cannot_hold_the_board_says_why_and_what_would():
    with pytest.raises(TilingError) as info:
        tile_plan(560, 180, PrintOptions(), 10, (2, 1))
    assert str(info.value) == (
        "2 x 1 tiles cannot hold a 560 x 180 mm board on A4: each tile would print 290 x 180 mm"
        " (glue strip and join included), and one holds 194 x 276 mm (portrait) or 281 x 189 mm"
        " (landscape); it fits as tiles: [3, 1], or make the board smaller")


def test_build_refuses_the_tiling_located_at_the_component(tmp_path):
    new_game("harbour-lights", tmp_path)
    manifest = tmp_path / "data" / "harbour-lights" / "game.yaml"
    text = manifest.read_text()
    manifest.write_text(text.replace("    size: [270, 180]", "    size: [400, 180]\n"
                                     "    tiles: [2, 1]"))
    run = [sys.executable, "-m", "printshop.cli", "build", "harbour-lights", "--project",
           str(tmp_path), "--out", str(tmp_path / "out"), "--only", "board"]
    done = subprocess.run(run, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    manifest.write_text(text.replace("    size: [270, 180]", "    size: [560, 180]\n"
                                     "    tiles: [2, 1]"))
    done = subprocess.run(run, capture_output=True, text=True)
    assert done.returncode == 1
    line = next(n for n, text in enumerate(manifest.read_text().splitlines(), 1)
                if text.startswith("    tiles: [2, 1]"))
    assert f"data/harbour-lights/game.yaml:{line}: components.board.tiles: 2 x 1 tiles cannot " \
        "hold" in done.stderr
