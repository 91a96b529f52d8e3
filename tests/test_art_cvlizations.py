"""CVlizations' art and design system: every idea draws a picture of its own in an art window of
at least a third of the face, the type scale holds (no text on a card under 7 pt, titles at one
size or its one fallback), the pieces' icons keep the palette's colours, and the defects the art
issue found stay fixed (tokens' icons inside their rings, the order aid's cells apart)."""

from __future__ import annotations

import re
from itertools import combinations
from pathlib import Path

import pytest

from printshop.load import icons
from printshop.components.deck import render_deck
from printshop.load.geometry import PrintOptions
from printshop.load.loader import load_game
from printshop.files.project import Project
from printshop.draw.text import PT

GAME = "cvlizations"
ROOT = Path(__file__).resolve().parent.parent
_PATH_D = re.compile(r'<path[^>]*\sd="([^"]+)"')
_FONT = re.compile(r'<text[^>]*font-family="([^"]+)"[^>]*font-size="([\d.]+)"')
_ATTR = re.compile(r'([a-z-]+)="([^"]*)"')
# An icon placed by icon(): its box's corner and its scale (the box is 100 x 100 units).
_PLACED = re.compile(r'<g transform="translate\(([\d.]+) ([\d.]+)\) scale\(([\d.]+)\)"')


@pytest.fixture(scope="module")
def game():
    return load_game(Project.open(None).game(GAME))


@pytest.fixture(scope="module", params=[False, True], ids=["colour", "low-ink"])
def faces(game, request):
    """Every deck's and token sheet's faces: {component: {card id: (front, back)}}."""
    opts = PrintOptions(low_ink=request.param)
    return {p.id: render_deck(game, p, opts).faces for p in game.parts
            if p.kind in ("deck", "tokens")}


def _elements(svg: str, tag: str) -> list[dict]:
    return [dict(_ATTR.findall(m.group(1))) for m in re.finditer(rf"<{tag}\s([^>]*)/?>", svg)]


# -- A picture for every idea -------------------------------------------------------------

def test_every_idea_names_a_picture_no_other_idea_uses(game):
    arts = {c.id: c.fields["art"] for c in game.part("ideas").cards}
    assert len(arts) == 48
    assert len(set(arts.values())) == len(arts)
    for art in arts.values():
        # A Game Icons reference or a name of the game's icons.yaml, never the type's glyph.
        assert art in game.icons or icons.set_icon(art)
        assert art not in ("building", "tool", "invention", "ideology", "idea")


def test_every_idea_front_draws_a_shape_no_other_idea_draws(faces):
    fronts = {cid: f[0].svg for cid, f in faces["ideas"].items()}
    shapes = {cid: set(_PATH_D.findall(svg)) for cid, svg in fronts.items()}
    for cid, own in shapes.items():
        others = set().union(*(s for k, s in shapes.items() if k != cid))
        assert own - others, f"{cid} draws no shape of its own"


def test_the_art_window_takes_a_third_of_the_face(faces):
    for cid, (front, _) in faces["ideas"].items():
        windows = [r for r in _elements(front.svg, "rect") if r.get("class") == "cv-art-window"]
        assert len(windows) == 1, cid
        w, h = float(windows[0]["width"]), float(windows[0]["height"])
        assert w * h >= 0.30 * front.w * front.h, (cid, round(w * h / (front.w * front.h), 3))


def test_the_picture_sits_inside_the_art_window(faces):
    front = faces["ideas"]["axe"][0]
    window = next(r for r in _elements(front.svg, "rect") if r.get("class") == "cv-art-window")
    x0, y0 = float(window["x"]), float(window["y"])
    x1, y1 = x0 + float(window["width"]), y0 + float(window["height"])
    # The first icon drawn after the window is the picture (the axe's own path inside).
    after = front.svg[front.svg.index("cv-art-window"):]
    x, y, k = (float(v) for v in _PLACED.search(after).groups())
    assert icons.set_icon("game-icons:wood-axe").split('d="')[1][:40] in after
    assert x0 <= x and y0 <= y and x + 100 * k <= x1 and y + 100 * k <= y1
    # The picture is big: at least 20 mm square on a 63 x 88 mm card.
    assert 100 * k >= 20


# -- The type scale -----------------------------------------------------------------------

def test_the_type_scale_is_set_in_the_manifest(game):
    t = game.manifest.style.type
    assert t.title_fallback < t.title
    assert t.body >= 7 and t.label >= 7


def test_no_text_on_a_card_is_under_7_pt(faces):
    for component, cards in faces.items():
        for cid, pair in cards.items():
            for face in pair:
                if face is None:
                    continue
                for family, mm in _FONT.findall(face.svg):
                    # Sizes are written in mm to a millionth: allow for the rounding.
                    assert float(mm) / PT >= 7 - 1e-3, (component, cid, family,
                                                       round(float(mm) / PT, 2))


def test_idea_titles_use_the_title_size_or_its_one_fallback(game, faces):
    t = game.manifest.style.type
    title_font = game.manifest.style.title_font
    sizes = set()
    for front, _ in faces["ideas"].values():
        sizes |= {round(float(mm) / PT, 3) for family, mm in _FONT.findall(front.svg)
                  if family == title_font}
    assert sizes <= {t.title, t.title_fallback}
    assert t.title_fallback in sizes   # the long names ("Cinematography") need it


# -- One icon language --------------------------------------------------------------------

def test_the_pieces_icons_use_the_palette(game):
    palette = {v.lower() for v in game.manifest.style.colors.values()}
    source = (ROOT / "templates" / GAME / "icons.yaml").read_text(encoding="utf-8")
    used = {c.lower() for c in re.findall(r"#[0-9a-fA-F]{6}", source)}
    assert used and used <= palette, used - palette
    for piece in ("food", "wood", "stone", "happiness", "helm", "crown"):
        assert 'fill="#' in game.icons[piece], piece


def test_icons_are_flat_shapes_without_outlines(game):
    for name in ("food", "wood", "stone", "any", "happiness", "helm", "crown", "one-player",
                 "two-players", "crowd", "building", "tool", "invention", "ideology",
                 "thieving", "logging", "hunting", "quarrying", "cunning", "slacking",
                 "trading", "doubling", "typewriter", "larder"):
        assert "stroke" not in game.icons[name], name


# -- The defects the art issue found ------------------------------------------------------

def test_token_icons_stay_inside_their_ring(faces):
    for cid, (front, _) in faces["tokens"].items():
        circles = _elements(front.svg, "circle")
        ring = next(c for c in circles if c.get("fill") == "none")
        cx, cy, r = float(ring["cx"]), float(ring["cy"]), float(ring["r"])
        placed = _PLACED.search(front.svg)
        if placed is None:
            assert cid == "multiplier"   # the x3 token is a numeral, not an icon
            continue
        x, y, k = (float(v) for v in placed.groups())
        s = 100 * k
        corners = [(x, y), (x + s, y), (x, y + s), (x + s, y + s)]
        far = max(((px - cx) ** 2 + (py - cy) ** 2) ** 0.5 for px, py in corners)
        assert far <= r - 0.5, (cid, round(far, 2), r)


def test_the_crowns_ring_stands_out_from_its_disc(faces, game):
    colors = game.manifest.style.colors
    front = faces["tokens"]["crown"][0]
    disc, ring = _elements(front.svg, "circle")[:2]

    def luminance(hex_colour):
        rgb = [int(hex_colour[i:i + 2], 16) / 255 for i in (1, 3, 5)]
        lin = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in rgb]
        return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]

    a, b = sorted((luminance(disc["fill"]), luminance(ring["stroke"])))
    assert (b + 0.05) / (a + 0.05) >= 3, (disc["fill"], ring["stroke"])
    assert ring["stroke"] != colors["muted"]


def test_the_order_aids_cells_are_separate_tiles(faces):
    front = faces["aids"]["order-aid"][0]
    tiles = [r for r in _elements(front.svg, "rect") if r.get("rx") == "1.2"]
    assert len(tiles) == 24   # 8 orders x 3 player counts
    boxes = [(float(t["x"]), float(t["y"]), float(t["x"]) + float(t["width"]),
              float(t["y"]) + float(t["height"])) for t in tiles]
    for a, b in combinations(boxes, 2):
        apart_x = a[2] + 0.5 <= b[0] or b[2] + 0.5 <= a[0]
        apart_y = a[3] + 0.5 <= b[1] or b[3] + 0.5 <= a[1]
        assert apart_x or apart_y, (a, b)


def test_a_theft_is_set_on_two_lines_and_a_trade_on_one(faces):
    svg = faces["aids"]["order-aid"][0].svg
    texts = re.findall(r"<text[^>]*>(.*?)</text>", svg)
    steal = [t for t in texts if ">steal<" in t]
    assert len(steal) == 2
    assert all(t.count("<tspan") == 1 for t in steal)   # "steal", then the icons below
    trade = [t for t in texts if "→" in t]
    assert len(trade) == 3
    assert all(len(set(re.findall(r'y="([\d.]+)"', t))) == 1 for t in trade)


def _effect_lines(svg: str) -> list[list[str]]:
    """Return the effect text of an idea front as lines of tokens (words, and '@' per icon)."""
    for group in svg.splitlines():        # a laid-out text is one line: its runs, then icons
        if not group.startswith("<g><text"):
            continue
        em = float(re.search(r'font-size="([\d.]+)"', group).group(1))
        runs = re.findall(r'<tspan x="([\d.]+)" y="([\d.]+)"[^>]*>([^<]*)</tspan>', group)
        if not runs or not 54 < float(runs[0][1]) < 76:
            continue
        baselines = sorted({float(y) for _, y, _ in runs})
        line_of = {b: [] for b in baselines}
        for x, y, words in runs:
            for k, word in enumerate(words.split()):
                line_of[float(y)].append((float(x) + k * 1e-3, word))
        for x, y, k in _PLACED.findall(group):
            if float(k) >= 1:            # a layer inside a composed icon, not an icon
                continue
            base = min(baselines, key=lambda b: abs(b - (float(y) + 0.86 * em)))
            line_of[base].append((float(x), "@"))
        return [[w for _, w in sorted(line_of[b])] for b in baselines]
    raise AssertionError("no effect text found")


def test_idea_effects_break_well(faces):
    """No one-word last line, and no number parted from the icon it counts ("1 / :)")."""
    for cid, (front, _) in faces["ideas"].items():
        lines = _effect_lines(front.svg)
        if len(lines) > 1:
            assert len(lines[-1]) >= 2, (cid, lines)
        for line, after in zip(lines, lines[1:]):
            assert not (line[-1].isdigit() and after[0].startswith("@")), (cid, lines)


def test_an_ideas_cost_and_type_mark_stay_apart_and_inside(faces):
    """The footer's icons (cost, then the type mark) never touch, even at the dearest idea."""
    for cid, (front, _) in faces["ideas"].items():
        boxes = sorted((float(x), float(x) + 100 * float(k))
                       for x, y, k in _PLACED.findall(front.svg)
                       if 77 <= float(y) <= 78 and float(k) < 1)
        assert len(boxes) >= 2, cid
        for (_, right), (left, _) in zip(boxes, boxes[1:]):
            assert left - right >= 0.3, (cid, right, left)
        assert boxes[0][0] >= 5.5 and boxes[-1][1] <= front.w - 5.5, (cid, boxes)
