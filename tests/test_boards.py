"""Tiled boards assemble into the board: cut, glue and align the printed tiles as the assembly
page says, in software, and compare the result with the board drawn whole."""

from __future__ import annotations

import numpy as np
import pytest
import yaml
from PIL import Image
from pypdf import PdfReader

from printshop.components.board import draw_board
from printshop.load.geometry import PrintOptions
from printshop.layout.impose import Page
from printshop.load.loader import load_game
from printshop.write.pdf import pages_to_pdf
from printshop.files.project import builtin_root
from printshop.layout.tiles import ALIGN_COLOUR, STEPS, impose_tiles, tile_plan

from conftest import pdf_to_png

PX_PER_MM = 2
DPI = 25.4 * PX_PER_MM  # every join and tile origin falls on whole millimetres: whole pixels


def _boards() -> list[tuple[str, str]]:
    """Return (game, component) for every board of the built-in games, from the manifests."""
    found = []
    for manifest in sorted((builtin_root() / "data").glob("*/game.yaml")):
        components = yaml.safe_load(manifest.read_text(encoding="utf-8"))["components"]
        found += [(manifest.parent.name, c["id"]) for c in components if c["kind"] == "board"]
    return found


BOARDS = _boards()


def _pixels(pages: list[Page], folder) -> list[np.ndarray]:
    """Print pages to PDF, then to RGB pixels at PX_PER_MM."""
    folder.mkdir(parents=True, exist_ok=True)
    pdf = folder / "pages.pdf"
    pdf.write_bytes(pages_to_pdf(pages, "test"))
    return [np.asarray(Image.open(p).convert("RGB"), dtype=np.int16)
            for p in pdf_to_png(pdf, folder / "png", DPI)]


def _px(v: float) -> int:
    return int(round(v * PX_PER_MM))


def assemble(images, tiles, draw_w, draw_h) -> np.ndarray:
    """Cut each tile at its crop marks and lay it, in order, with its cut edge on the join."""
    board = np.full((_px(draw_h), _px(draw_w), 3), 255, dtype=np.int16)
    for image, t in zip(images, tiles):
        x0, y0, x1, y1 = t.cut_box
        piece = image[_px(y0 + t.page_y):_px(y1 + t.page_y), _px(x0 + t.page_x):_px(x1 + t.page_x)]
        board[_px(y0):_px(y0) + piece.shape[0], _px(x0):_px(x0) + piece.shape[1]] = piece
    return board


def whole(drawing: str, draw_w: float, draw_h: float, folder) -> np.ndarray:
    """Print the board on one page of its own size."""
    page = Page(draw_w, draw_h, parts=[f'<svg x="0" y="0" width="{draw_w:g}" height="{draw_h:g}" '
                                        f'viewBox="0 0 {draw_w:g} {draw_h:g}">{drawing}</svg>'])
    return _pixels([page], folder)[0][:_px(draw_h), :_px(draw_w)]


def _near(image: np.ndarray, hex_colour: str, tolerance: int = 60) -> np.ndarray:
    rgb = np.array([int(hex_colour[i:i + 2], 16) for i in (1, 3, 5)], dtype=np.int16)
    return np.abs(image - rgb).sum(axis=2) < tolerance


@pytest.fixture(scope="module")
def loaded(builtin):
    """Return a function loading a built-in game once per module."""
    cache = {}

    def load(game_id: str):
        if game_id not in cache:
            cache[game_id] = load_game(builtin.game(game_id))
        return cache[game_id]
    return load


@pytest.mark.parametrize("paper", ["a4", "letter"])
@pytest.mark.parametrize("game_id,board_id", BOARDS)
def test_tiles_assemble_into_the_board(loaded, game_id, board_id, paper, tmp_path):
    game = loaded(game_id)
    part = game.part(board_id)
    opts = PrintOptions(paper=paper)
    draw_w, draw_h = part.spec.size
    drawing = draw_board(game, part, opts)
    pages, tiles = impose_tiles(drawing, draw_w, draw_h, opts, "board", part.spec.overlap)
    images = _pixels(pages[:len(tiles)], tmp_path / "tiles")
    assembled = assemble(images, tiles, draw_w, draw_h)
    expected = whole(drawing, draw_w, draw_h, tmp_path / "whole")
    Image.fromarray(assembled.astype(np.uint8)).save(tmp_path / f"{board_id}-assembled.png")
    assert assembled.shape == expected.shape
    diff = np.abs(assembled - expected)
    assert diff.mean() / 255 < 0.02
    # A seam of anti-aliasing is allowed; a shifted or missing strip of board is not.
    assert (diff.max(axis=2) > 64).mean() < 0.005
    assert not (_near(assembled, ALIGN_COLOUR) & ~_near(expected, ALIGN_COLOUR)).any()

    # The same tiles printed with a plain grey board: only the marks differ from the grey.
    # Cut and glued the same way, they must leave a plain grey board.
    grey = f'<rect x="0" y="0" width="{draw_w:g}" height="{draw_h:g}" fill="#808080"/>'
    blank_pages, _ = impose_tiles(grey, draw_w, draw_h, opts, "board", part.spec.overlap)
    blank = _pixels(blank_pages[:len(tiles)], tmp_path / "blank")
    left_over = assemble(blank, tiles, draw_w, draw_h)
    assert (np.abs(left_over - 128).max(axis=2) <= 2).all(), "a mark shows on the board"

    # Each glue strip carries the board's picture (where no mark is), for the next tile to
    # cover; it is the glue margin the board spec asks for.
    glue = part.spec.overlap
    for image, mask, t in zip(images, blank, tiles):
        x0, y0, x1, y1 = t.cut_box
        for gx0, gy0, gx1, gy1, width in ((t.x + t.w, y0, x1, y1, t.glue_right),
                                          (x0, t.y + t.h, x1, y1, t.glue_bottom)):
            if not width:
                continue
            assert width == glue
            rows = slice(_px(gy0 + t.page_y), _px(gy1 + t.page_y))
            cols = slice(_px(gx0 + t.page_x), _px(gx1 + t.page_x))
            clean = np.abs(mask[rows, cols] - 128).max(axis=2) <= 2
            strip = np.abs(image[rows, cols] - expected[_px(gy0):_px(gy1), _px(gx0):_px(gx1)])
            assert clean.mean() > 0.5
            assert strip[clean].mean() / 255 < 0.02


@pytest.mark.parametrize("game_id,board_id", BOARDS)
def test_joins_have_a_fixed_glue_strip_and_the_rest_of_the_paper_is_margin(loaded, game_id,
                                                                            board_id):
    part = loaded(game_id).part(board_id)
    w, h = part.spec.size
    plan = tile_plan(w, h, PrintOptions(), part.spec.overlap)
    at = {(t.col, t.row): t for t in plan.tiles}
    for t in plan.tiles:
        # Each tile is cut where its neighbour's part begins, plus the glue strip.
        right, below = at.get((t.col + 1, t.row)), at.get((t.col, t.row + 1))
        assert t.glue_right == (part.spec.overlap if right else 0)
        assert t.glue_bottom == (part.spec.overlap if below else 0)
        if right:
            assert right.x == t.x + t.w and right.y == t.y
        if below:
            assert below.y == t.y + t.h and below.x == t.x
        # The printed picture stays inside the page's margins.
        x0, y0, x1, y1 = t.print_box
        assert x0 + t.page_x >= 5 and x1 + t.page_x <= plan.page_w - 5
        assert y0 + t.page_y >= 5 and y1 + t.page_y <= plan.page_h - 5
    assert sum(t.w for t in plan.tiles if t.row == 0) == pytest.approx(w)
    assert sum(t.h for t in plan.tiles if t.col == 0) == pytest.approx(h)


def test_assembly_page_names_the_tiles_in_order_and_says_how_to_join(loaded, tmp_path):
    part = loaded("playing-gods").part("board")
    pages, tiles = impose_tiles("<g/>", *part.spec.size, PrintOptions(), "World board",
                                part.spec.overlap)
    assert pages[-1].side == "assembly" and len(pages) == len(tiles) + 1
    assert [t.name for t in tiles] == ["A1", "A2", "A3", "B1", "B2", "B3"]
    pdf = tmp_path / "assembly.pdf"
    pdf.write_bytes(pages_to_pdf(pages[-1:], "assembly"))
    text = " ".join(PdfReader(pdf).pages[0].extract_text().split())
    assert "6 tiles, 3 across and 2 down" in text and "10 mm glue strip" in text
    for n, t in enumerate(tiles, start=1):
        assert t.name in text and f"lay it {n}" in text
    for n, step in enumerate(STEPS, start=1):
        assert f"{n}. {' '.join(step.split()[:4])}" in text
    # The joins are drawn: two column joins and one row join, in the alignment colour.
    assert "".join(pages[-1].parts).count(f'stroke="{ALIGN_COLOUR}"') == 2 * 2 + 3 + 1
