"""Imposition arithmetic: grids, mirroring, tiling coverage, booklet order."""

from __future__ import annotations

import pytest

from printshop.load.geometry import PrintOptions, card_size
from printshop.layout.impose import (Face, Item, impose_booklet, impose_sheets, mirror_back,
                              saddle_order, sheet_plan)
from printshop.layout.tiles import impose_tiles, tile_plan


def face(w=63, h=88, bleed=3.0):
    return Face("<g/>", w, h, bleed)


def test_named_sizes():
    assert card_size("poker") == (63, 88)
    assert card_size("bridge") == (57, 89)
    assert card_size([50, 70]) == (50, 70)
    with pytest.raises(KeyError):
        card_size("huge")


def test_orientation_is_chosen_to_fit_the_most_cards():
    w, h, grid = sheet_plan(face(), PrintOptions(paper="a4"))
    assert (w, h) == (297, 210) and grid.count == 8
    w, h, grid = sheet_plan(face(bleed=0), PrintOptions(paper="a4", bleed=0))
    assert grid.count == 9


def test_cards_stay_inside_the_page_margins():
    for paper in ("a4", "letter"):
        opts = PrintOptions(paper=paper)
        items = [Item(face(), face(), f"c{i}") for i in range(20)]
        for page in impose_sheets(items, opts, "t"):
            for p in page.placements:
                assert p.x - p.bleed >= opts.margin and p.y - p.bleed >= opts.margin
                assert p.x + p.w + p.bleed <= page.width - opts.margin + 1e-9
                assert p.y + p.h + p.bleed <= page.height - opts.margin + 1e-9


@pytest.mark.parametrize("flip,portrait,expect", [
    ("long", True, "x"), ("long", False, "y"), ("short", True, "y"), ("short", False, "x")])
def test_back_mirroring_follows_the_flip_edge(flip, portrait, expect):
    W, H = (210, 297) if portrait else (297, 210)
    x, y = mirror_back(10, 20, 63, 88, W, H, PrintOptions(flip=flip))
    assert (x, y) == ((W - 10 - 63, 20) if expect == "x" else (10, H - 20 - 88))


def test_tiles_split_the_board_and_each_join_has_a_fixed_glue_strip():
    plan = tile_plan(500, 500, PrintOptions(paper="a4"), 10)
    assert plan.cols * plan.rows == len(plan.tiles) == 6
    at = {(t.col, t.row): t for t in plan.tiles}
    # The parts the tiles show once assembled meet edge to edge and fill the board.
    assert sum(t.w * t.h for t in plan.tiles) == pytest.approx(500 * 500)
    for (c, r), t in at.items():
        if (c + 1, r) in at:
            assert at[c + 1, r].x == t.x + t.w and t.glue_right == 10
            assert t.cut_box[2] == t.x + t.w + 10  # cut 10 mm into the next tile's part
        else:
            assert t.x + t.w == 500 and t.glue_right == 0
        if (c, r + 1) in at:
            assert at[c, r + 1].y == t.y + t.h and t.glue_bottom == 10
        else:
            assert t.y + t.h == 500 and t.glue_bottom == 0
    pages, _ = impose_tiles("<g/>", 500, 500, PrintOptions(), "Board", 10)
    assert len(pages) == len(plan.tiles) + 1 and pages[-1].side == "assembly"


def test_small_board_fits_one_page_without_assembly():
    pages, tiles = impose_tiles("<g/>", 150, 150, PrintOptions(), "Board", 10)
    assert len(tiles) == 1 and len(pages) == 1


def test_saddle_stitch_order_for_eight_pages():
    # Sheet 1: 8|1 on the front, 2|7 on the back; sheet 2: 6|3, then 4|5.
    assert saddle_order(8) == [(7, 0), (1, 6), (5, 2), (3, 4)]
    assert saddle_order(6) == [(None, 0), (1, None), (5, 2), (3, 4)]


def test_booklet_pages_are_two_up_on_landscape_paper():
    pages = impose_booklet([Face("<g/>", 148, 210, 0)] * 8, PrintOptions(paper="letter"), "B")
    assert len(pages) == 4
    assert pages[0].width > pages[0].height
    # Each A5 page is scaled down to half a Letter sheet, never up.
    assert all(pl.w <= page.width / 2 + 1e-9 and pl.w <= 148 for page in pages
               for pl in page.placements)


def test_crop_marks_stay_out_of_the_label_band():
    import re

    from printshop.load.geometry import LABEL_BAND

    opts = PrintOptions(backs="none")
    face = Face("<rect width='63' height='88'/>", 63, 88, 3)
    page = impose_sheets([Item(face, None, str(i)) for i in range(8)], opts, "t")[0]
    lines = [p for p in page.parts if isinstance(p, str) and p.startswith("<line")]
    assert len(lines) == 2 * (8 + 4)   # every trim line, above and below, left and right
    label_top = page.height - opts.margin - LABEL_BAND
    for line in lines:
        y1, y2 = (float(v) for v in re.findall(r' y[12]="([-\d.]+)"', line))
        assert max(y1, y2) <= label_top + 1e-9, line
