"""Proof sheets hold every distinct card, labelled; low ink lightens any game's drawings."""

from __future__ import annotations

import math
import re

from click.testing import CliRunner
from PIL import Image, ImageStat
from pypdf import PdfReader

from conftest import EXAMPLE, pdf_to_png
from printshop.cli import main
from printshop.export import load_one
from printshop.load.geometry import LABEL_BAND, PrintOptions
from printshop.draw.ink import low_ink, parse_colour
from printshop.files.project import Project
from printshop.export.proof import best_layout, sections


def run(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def pdf_text(path) -> str:
    return "\n".join(page.extract_text() for page in PdfReader(path).pages)


def labels(text: str) -> set[tuple[str, int]]:
    return {(m.group(1), int(m.group(2))) for m in re.finditer(r"([a-z0-9-]+) ×(\d+)", text)}


def test_proof_labels_every_distinct_card_with_its_copies(tmp_path):
    result = run("proof", "lantern-fair", "--project", EXAMPLE, "--out", tmp_path)
    assert result.exit_code == 0, result.output
    pdf = tmp_path / "lantern-fair-proof.pdf"
    game = load_one(Project.open(EXAMPLE), "lantern-fair")
    found = labels(pdf_text(pdf))
    for part in game.parts[:2]:
        for card in part.cards:
            assert (card.id, card.copies) in found
    # the stalls' one back under six cards; each coin's own back
    assert sorted(re.findall(r"back ×(\d+)", pdf_text(pdf))) == ["12", "6", "6"]
    assert "Fireworks Café" in pdf_text(pdf)          # the cards themselves are drawn
    assert len(PdfReader(pdf).pages) == 2


def test_proof_of_a_builtin_game_holds_every_card(tmp_path):
    result = run("proof", "deity", "--out", tmp_path)
    assert result.exit_code == 0, result.output
    pdf = tmp_path / "deity-proof.pdf"
    found = labels(pdf_text(pdf))
    game = load_one(Project.open(None), "deity")
    cards = [(c.id, c.copies) for p in game.parts if p.kind == "deck" for c in p.cards]
    assert set(cards) <= found
    # each distinct drawing once, packed tighter than the 8-up print sheets
    drawings = sum(len(s.tiles) for s in sections(game, PrintOptions()))
    assert drawings == 46 + 4                         # 46 distinct fronts, 4 decks' backs
    assert len(PdfReader(pdf).pages) <= math.ceil(drawings / 8)


def test_layout_keeps_tiles_on_the_page_without_overlap():
    game = load_one(Project.open(None), "deity")
    opts = PrintOptions()
    secs = sections(game, opts)
    w, h, pages, scale = best_layout(secs, opts)
    assert sum(1 for page in pages for p in page if p.tile) == sum(len(s.tiles) for s in secs)
    for page in pages:
        boxes = []
        for p in page:
            height = p.tile.face.h * scale + 5.0 if p.tile else 9.0
            assert opts.margin - 1e-6 <= p.x and p.x + p.w <= w - opts.margin + 1e-6
            assert opts.margin - 1e-6 <= p.y
            assert p.y + height <= h - opts.margin - LABEL_BAND + 1e-6
            boxes.append((p.x, p.y, p.x + p.w, p.y + height))
        for i, a in enumerate(boxes):
            for b in boxes[i + 1:]:
                assert a[2] <= b[0] + 1e-6 or b[2] <= a[0] + 1e-6 or \
                    a[3] <= b[1] + 1e-6 or b[3] <= a[1] + 1e-6


def brightness(png) -> float:
    return ImageStat.Stat(Image.open(png).convert("L")).mean[0]


def test_low_ink_proof_and_build_use_less_ink(tmp_path):
    for args in ((), ("--low-ink",)):
        result = run("proof", "lantern-fair", "--project", EXAMPLE, "--out", tmp_path, *args)
        assert result.exit_code == 0, result.output
    normal = pdf_to_png(tmp_path / "lantern-fair-proof.pdf", tmp_path / "n")[0]
    light = pdf_to_png(tmp_path / "lantern-fair-proof-low-ink.pdf", tmp_path / "l")[0]
    assert brightness(light) > brightness(normal) + 5
    assert "Noodle Cart" in pdf_text(tmp_path / "lantern-fair-proof-low-ink.pdf")

    for name, args in (("full", ()), ("low", ("--low-ink",))):
        result = run("build", "--project", EXAMPLE, "--out", tmp_path / name, "--quiet", *args)
        assert result.exit_code == 0, result.output
    pages = {name: pdf_to_png(tmp_path / name / "lantern-fair" / "stalls.pdf",
                              tmp_path / f"{name}-png") for name in ("full", "low")}
    for full, low in zip(pages["full"], pages["low"]):   # fronts and the dark backs alike
        assert brightness(low) > brightness(full) + 5


def test_low_ink_rewrites_any_drawing():
    svg = ('<rect x="-3" y="-3" width="69" height="94" fill="#24324a"/>'
           '<rect x="3" y="3" width="57" height="82" fill="#c2571a" stroke="#000"/>'
           '<g fill="#ffffff"><text x="5" y="9">Title</text></g>'
           '<text fill="#222">Body</text>'
           '<g transform="translate(10 10)"><rect x="-2" y="-2" width="4" height="4" '
           'fill="rgb(200,40,40)"/></g>'
           '<rect x="1" y="1" width="2" height="2" style="fill: navy; stroke: red"/>')
    out = low_ink(svg)
    fills = re.findall(r'fill="([^"]+)"', out)
    assert fills[0] == "none"                                # the full-bleed fill is gone
    panel = parse_colour(fills[1])
    assert min(panel) > 0.8 and 'stroke="#000"' in out       # pale panel, outline kept
    title = parse_colour(re.search(r'<text[^>]*fill="([^"]+)"', out).group(1))
    assert max(title) < 0.5                                  # white text turned dark
    assert 'fill="#222"' in out                              # dark text left alone
    icon = parse_colour(re.search(r'translate\(10 10\)"><rect[^>]*fill="([^"]+)"', out)
                        .group(1))
    assert 0.5 < min(icon) < 0.7                             # details under a transform: mid tint
    assert "stroke: red" in out and "fill: navy" not in out
    assert low_ink("<g><unclosed></g>") == "<g><unclosed></g>"   # left for the renderer
