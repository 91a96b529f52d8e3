"""Each game's print-and-play file printed whole with one setting (double-sided, long-edge
flip), in software: no face is backed by another component's face, no page comes out upside
down; and what the file says about itself (contents page, labels, `printshop bom`) is true.
"""

from __future__ import annotations

import re
import subprocess

import numpy as np
import pytest
from PIL import Image
from pypdf import PdfReader

from printshop.build import bom_plan as plan
from printshop.layout.bom import bom_text, run_lines
from printshop.build import build
from printshop.components import RENDERERS
from printshop.check.gather import load_one
from printshop.load.geometry import PrintOptions
from printshop.layout.impose import Page
from printshop.layout.printrun import MODES, SETTINGS
from printshop.files.project import Project

GAMES = ["civilizations-cards", "cvlizations", "deity", "playing-gods", "pocketciv"]
EDGE_MM = 5.0


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    out = tmp_path_factory.mktemp("one-setting")
    build(Project.open(None), GAMES, PrintOptions(), out, jobs=2)
    return out


@pytest.fixture(scope="module")
def boms():
    return {g: plan(Project.open(None), g) for g in GAMES}


_PAGES: dict[str, list[tuple]] = {}


def who(page: Page, component: str) -> str:
    """Return what a card sheet holds (the components on it), else the component's id."""
    return " + ".join(page.owners) if page.owners else component


def file_pages(game_id: str, bom, opts: PrintOptions = PrintOptions()) -> list[tuple]:
    """Return each page of the file as (component or '', mode, Page or None): the pages
    each component draws, as the print run takes them; None for the cover, the contents
    and the empty backs."""
    if opts == PrintOptions() and game_id in _PAGES:
        return _PAGES[game_id]
    game = load_one(Project.open(None), game_id)
    drawn = {p.id: RENDERERS[p.kind](game, p, opts).pages for p in game.parts}
    pages: list[tuple] = [("cover", "two-sided", None), ("contents", "two-sided", None)]
    if bom.run.blank_after_contents:
        pages.append(("", "one-sided", None))
    for r in bom.run.runs:
        for s in r.sources:
            if s.blank:
                pages.append(("", "empty", None))
            elif s.pages or s.laid:
                pages += [(who(p, s.component or "shared"), s.mode, p)
                          for p in s.pages or s.laid]
            else:
                pages += [(who(drawn[s.component][i], s.component), s.mode,
                           drawn[s.component][i]) for i in s.indexes]
    assert len(pages) == bom.pages
    if opts == PrintOptions():
        _PAGES[game_id] = pages
    return pages


def behind(x: float, y: float, w: float, h: float, page: Page) -> tuple[float, float]:
    """Return where a box lands on the back of the sheet turned over its long edge."""
    if page.height >= page.width:   # portrait: the long edge is upright
        return page.width - x - w, y
    return x, page.height - y - h


@pytest.mark.parametrize("game", GAMES)
def test_the_whole_file_printed_duplex_long_edge_spoils_nothing(boms, game):
    bom = boms[game]
    assert bom.run.setting == SETTINGS["long"]
    pages = file_pages(game, bom, PrintOptions())
    assert len(pages) % 2 == 0
    checked = 0
    for n in range(0, len(pages), 2):
        (c1, m1, front), (c2, m2, back) = pages[n], pages[n + 1]
        if c1 in ("cover",) or back is None:
            # A page backed by nothing: one-sided pages are followed by an empty page.
            assert m2 in ("empty", "two-sided"), (game, n + 2)
            continue
        # Two faces on one sheet: only a two-sided component's front and its own back.
        assert c1 == c2 and m1 == m2 == "two-sided", (game, n + 1, c1, c2)
        assert front.side == "front" and back.side == "back", (game, n + 1)
        assert (front.width, front.height) == (back.width, back.height)
        owed: dict[str, list] = {}
        for f in front.placements:
            owed.setdefault(f.card_id, []).append(behind(f.x, f.y, f.w, f.h, front))
            if c1 == "scenarios":
                continue   # booklet pages: the test below
            # Whatever is behind a face is its own back or nothing (tokens in a card sheet's
            # empty places have nothing behind them).
            x, y = behind(f.x, f.y, f.w, f.h, front)
            under = {b.card_id for b in back.placements if b.x < x + f.w - 0.01 and
                     x < b.x + b.w - 0.01 and b.y < y + f.h - 0.01 and y < b.y + b.h - 0.01}
            assert under <= {f.card_id}, (game, n + 1, f.card_id, under)
        for b in back.placements:
            spots = owed.get(b.card_id, [])
            hit = [s for s in spots if abs(s[0] - b.x) < 0.01 and abs(s[1] - b.y) < 0.01]
            if game == "pocketciv" and c1 == "scenarios":
                break
            assert hit, f"{game} page {n + 2}: the back of {b.card_id} is not behind it"
            spots.remove(hit[0])
        checked += 1
    assert checked


def test_the_booklet_reads_the_right_way_up_after_a_long_edge_flip(boms):
    pages = file_pages("pocketciv", boms["pocketciv"], PrintOptions())
    sheets = [(pages[n][2], pages[n + 1][2]) for n in range(0, len(pages), 2)
              if pages[n][0] == "scenarios"]
    assert sheets
    for front, back in sheets:
        assert front.width > front.height   # landscape, two booklet pages a side
        assert not any(p.shape == "turned" for p in front.placements)
        for f in front.placements:
            spot = behind(f.x, f.y, f.w, f.h, front)
            b = next(p for p in back.placements if abs(p.x - spot[0]) < 0.01
                     and abs(p.y - spot[1]) < 0.01)
            # The other side of a leaf: pages k and k+1 (k odd), the back turned half round
            # so that it is upright when the folded sheet is turned like a page.
            low = min(int(f.card_id), int(b.card_id))
            assert low % 2 == 1 and {int(f.card_id), int(b.card_id)} == {low, low + 1}
            assert b.shape == "turned"


def test_a_short_edge_flip_leaves_the_booklet_upright():
    pages = RENDERERS["booklet"](load_one(Project.open(None), "pocketciv"),
                                 load_one(Project.open(None), "pocketciv").part("scenarios"),
                                 PrintOptions(flip="short")).pages
    assert not any(p.shape == "turned" for page in pages for p in page.placements)


def text_of(reader, n: int) -> str:
    return " ".join(reader.pages[n].extract_text().split())


@pytest.mark.parametrize("game", GAMES)
def test_every_label_gives_its_page_in_the_file_and_empty_backs_are_empty(built, boms, game):
    reader = PdfReader(built / game / f"{game}-print-and-play.pdf")
    bom = boms[game]
    total = len(reader.pages)
    assert total == bom.pages
    kinds = {p.id: p.kind for p in load_one(Project.open(None), game).parts}
    for n, (label, (component, mode, _)) in enumerate(zip(bom.run.labels,
                                                         file_pages(game, bom))):
        text = text_of(reader, n)
        found = re.findall(r"page (\d+) of (\d+)", text)
        if label is None:
            # An empty back is empty; a booklet's pages fill the sheet and number themselves.
            assert mode == "empty" and text == "" or kinds.get(component) == "booklet", \
                (game, n + 1)
            continue
        assert found[-1:] == [(str(n + 1), str(total))], (game, n + 1, text[-120:])
        # One label a page: the component's own ("page 1 of 4") is gone.
        assert len([f for f in found if f[1] == str(total)]) == 1, (game, n + 1)
        assert " ".join(label.split()) in text, (game, n + 1, label)


def test_labels_name_the_sheet_and_how_it_prints(boms):
    labels = boms["deity"].run.labels
    assert labels[2] == "Deity · Civilization deck · sheet 1 of 6 · fronts"
    assert labels[3] == "Deity · Civilization deck · sheet 1 of 6 · backs of page 3"
    assert "shared sheet" in labels[16] and "Nation cards" in labels[16]
    assert labels[20] == "Deity · Turn reference · back left empty"
    tokens = [t for t in boms["cvlizations"].run.labels if t and "Tokens" in t]
    assert tokens and all("glue onto 1-2 mm greyboard" in t for t in tokens)
    assert not any("duplex" in (t or "") for b in boms.values() for t in b.run.labels)


@pytest.mark.parametrize("game", GAMES)
def test_the_contents_page_counts_what_the_file_holds(built, boms, game):
    reader = PdfReader(built / game / f"{game}-print-and-play.pdf")
    text = text_of(reader, 1)
    bom = boms[game]
    run = bom.run
    assert f"Print the whole file with one setting: {run.setting}" in text
    for (_, head, pieces), r in zip(run_lines(run), run.runs):
        assert head in text, (game, head)
        for line in pieces:
            assert line.split(" (")[0] in text
        # The sheets of a run are its pages over two, every copy counted.
        assert r.sheets * 2 == r.pages and r.first % 2 == 1
    assert sum(r.pages for r in run.runs) + run.contents_pages == len(reader.pages)
    total = sum(r.sheets * r.copies for r in run.runs) + run.cover_sheets
    assert total == bom.sheets
    paper = "; ".join(f"{n} sheet{'s' if n != 1 else ''} of {s}" for s, n in bom.stock())
    assert paper.replace(";", ",") in text and f"({total} in all" in text


def test_the_shopping_lists_are_complete(boms):
    get = {g: " ".join(b.get) for g, b in boms.items()}
    for game in ("pocketciv", "cvlizations"):
        assert "1-2 mm greyboard" in get[game] and "Glue" in get[game], game
    assert "Card or 1-2 mm greyboard" in get["cvlizations"]          # behind the board
    assert "Card or foam board, 500 x 500 mm" in get["playing-gods"]
    # Idols are folded stand-ups: no sleeves for them (37 x 168 mm).
    assert "37 x 168" not in get["playing-gods"]
    civ = boms["civilizations-cards"]
    city = next(r for r in civ.run.runs if any(p.component == "city-state-mat"
                                               for p in r.pieces))
    assert city.copies == 3 and "3 times: 1 sheet each, 3 sheets in all" in \
        f"{city.instruction()}: {city.sheet_count()}"
    mats = next(r for r in civ.run.runs if r.copies == 7)
    assert f"{mats.sheets} sheets each, {mats.sheets * 7} sheets in all" in mats.sheet_count()


@pytest.mark.parametrize("game", GAMES)
def test_bom_says_what_the_print_run_says_line_for_line(boms, game):
    bom = boms[game]
    text = bom_text(bom).splitlines()
    start = text.index(f"One printer setting for the whole file: {bom.run.setting}, "
                       "at 100% scale")
    expect = [bom.run.cover_line()] + [line for _, head, pieces in run_lines(bom.run)
                                       for line in [head] + pieces]
    assert [t.strip() for t in text[start + 1:start + 1 + len(expect)]] == expect
    assert text[start + 1 + len(expect)] == ""
    for p in bom.printed:
        modes = {piece.mode for r in bom.run.runs for piece in r.pieces
                 if piece.component == p.component and not piece.assembly}
        assert modes == {p.how}, (game, p.component)
    assert "duplex " not in "\n".join(text[start:])


def test_bom_takes_the_builds_flip_and_states_the_one_setting():
    from click.testing import CliRunner

    from printshop.cli import main

    short = CliRunner().invoke(main, ["bom", "pocketciv", "--flip", "short"])
    assert short.exit_code == 0, short.output
    bom = plan(Project.open(None), "pocketciv", PrintOptions(flip="short"))
    assert bom.run.setting == SETTINGS["short"] == "double-sided, flip on short edge"
    assert "One printer setting for the whole file: double-sided, flip on short edge, at " \
           "100% scale" in short.output
    assert short.output == bom_text(bom)
    # Marks and bleed change how many cards a sheet holds: bom plans with the build's.
    bare = CliRunner().invoke(main, ["bom", "deity", "--no-crop-marks", "--bleed", "0"])
    assert bare.output == bom_text(plan(Project.open(None), "deity",
                                        PrintOptions(crop_marks=False, bleed=0.0)))


def ink_near_edge(pdf, dpi: int = 72) -> list[tuple[int, float]]:
    """Return (page, mm from the edge) of every page with ink within EDGE_MM of the edge."""
    import tempfile
    from pathlib import Path

    found = []
    with tempfile.TemporaryDirectory() as d:
        subprocess.run(["pdftoppm", "-r", str(dpi), "-gray", str(pdf), f"{d}/p"], check=True)
        for f in sorted(Path(d).glob("p-*.pgm")):
            a = np.asarray(Image.open(f))
            m = int(EDGE_MM / 25.4 * dpi) - 1   # a pixel's slack for rounding
            band = a < 250
            band[m:-m, m:-m] = False
            if band.any():
                ys, xs = np.nonzero(band)
                near = min(xs.min(), ys.min(), a.shape[1] - 1 - xs.max(),
                           a.shape[0] - 1 - ys.max()) * 25.4 / dpi
                found.append((int(f.stem.rsplit("-", 1)[1]), round(float(near), 1)))
    return found


@pytest.mark.parametrize("paper", ["a4", "letter"])
def test_nothing_is_printed_within_5_mm_of_the_paper_edge(built, tmp_path, paper):
    out = built
    if paper != "a4":
        out = tmp_path / paper
        build(Project.open(None), GAMES, PrintOptions(paper=paper), out, jobs=2)
    for game in GAMES:
        assert ink_near_edge(out / game / f"{game}-print-and-play.pdf") == [], (game, paper)


def test_fold_mode_advises_a_stock_that_folds_and_prints_both_faces_of_tokens():
    opts = PrintOptions(backs="fold")
    bom = plan(Project.open(None), "cvlizations", opts)
    ideas = next(p for p in bom.printed if p.component == "ideas")
    assert ideas.stock == "160 gsm paper" and "score" in ideas.advice
    assert any("score each fold" in line for line in bom.get)
    # The mounted tokens, drawn alike on both sides, print both faces beside each other.
    game = load_one(Project.open(None), "cvlizations")
    pages = RENDERERS["tokens"](game, game.part("tokens"), opts).pages
    assert pages and all(p.side == "fold" for p in pages)
    assert all({q.side for q in p.placements} == {"front", "back"} for p in pages)
    taken = [s for r in bom.run.runs for s in r.sources if s.component == "tokens"]
    assert taken and all(s.laid and s.laid[0].side == "fold" for s in taken)
    # Nothing two-sided is left: the file prints single-sided, without empty backs.
    assert bom.run.setting == SETTINGS["none"]
    assert not any(s.blank for r in bom.run.runs for s in r.sources)
    assert all(not MODES[p.mode].two_sided for r in bom.run.runs for p in r.pieces)
