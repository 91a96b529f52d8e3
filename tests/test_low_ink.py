"""--low-ink adds ink nowhere: measured face by face and page by page on every built-in game,
the example and the scaffold, and shape by shape on the rules it follows."""

from __future__ import annotations

import io
import re

import pytest
from PIL import Image

from conftest import EXAMPLE
from printshop.components.board import draw_board
from printshop.components.deck import card_faces
from printshop.components.sheet import render_sheet
from printshop.export.images import face_png, face_size
from printshop.check.gather import load_games
from printshop.load.geometry import PrintOptions
from printshop.layout.impose import Face
from printshop.draw.ink import luminance, low_ink, parse_colour
from printshop.files.project import Project
from printshop.scaffold import new_game

DPI = 8          # enough to weigh ink; a face's ink is its pixels' mean darkness
SLACK = 0.002    # anti-aliasing of an outline at this size


def ink(png: bytes) -> float:
    """Return a picture's ink: the mean darkness of its pixels, 0 (white) to 1 (black)."""
    im = Image.open(io.BytesIO(png)).convert("L")
    return 1 - sum(im.histogram()[v] * v for v in range(256)) / (255 * im.width * im.height)


def drawings(game, opts):
    """Yield (what, Face) for every distinct card face and every sheet and board page."""
    for part in game.parts:
        if part.kind in ("deck", "tokens"):
            for card in part.cards:
                for side, face in zip(("front", "back"), card_faces(game, part, opts, card)):
                    if face is not None:
                        yield f"{part.id}/{card.id}/{side}", face
        elif part.kind == "sheet":
            for n, page in enumerate(render_sheet(game, part, opts).pages):
                yield f"{part.id}/page-{n + 1}", Face("".join(page.parts), page.width,
                                                        page.height, 0.0)
        elif part.kind == "board":
            w, h = part.spec.size
            yield f"{part.id}", Face(draw_board(game, part, opts), w, h, 0.0)


def projects(tmp_path_factory):
    scaffold = tmp_path_factory.mktemp("scaffold")
    new_game("harbour-lights", scaffold)
    return [(None, "civilizations-cards"), (None, "cvlizations"), (None, "deity"),
            (None, "playing-gods"), (None, "pocketciv"), (EXAMPLE, "lantern-fair"),
            (scaffold, "harbour-lights")]


@pytest.fixture(scope="module")
def measured(tmp_path_factory):
    rows = []
    for root, game_id in projects(tmp_path_factory):
        game = load_games(Project.open(root), [game_id])[0]
        normal = dict(drawings(game, PrintOptions()))
        low = dict(drawings(game, PrintOptions(low_ink=True)))
        seen = {}
        for what, face in normal.items():
            key = (face.svg, low[what].svg)
            if key not in seen:
                w, h = face_size(face, DPI)
                seen[key] = (ink(face_png(face, w, h)), ink(face_png(low[what], w, h)))
            rows.append((game_id, what, *seen[key]))
    return rows


GAMES = ["civilizations-cards", "cvlizations", "deity", "playing-gods", "pocketciv",
         "lantern-fair", "harbour-lights"]


@pytest.mark.parametrize("game_id", GAMES)
def test_low_ink_uses_less_ink_on_every_face_and_page(measured, game_id):
    rows = [r for r in measured if r[0] == game_id]
    assert len(rows) > 5
    more = [f"{what}: {a:.3f} -> {b:.3f}" for _, what, a, b in rows if b > a + SLACK]
    assert not more, f"{game_id}: more ink with --low-ink on " + "; ".join(more[:10])
    mean = sum(a for *_, a, _ in rows) / len(rows), sum(b for *_, b in rows) / len(rows)
    assert mean[1] < 0.5 * mean[0], f"{game_id}: mean ink {mean[0]:.3f} -> {mean[1]:.3f}"


def fills(svg: str) -> list:
    return [parse_colour(v) for v in re.findall(r' fill="([^"]+)"', svg)]


def test_a_light_shape_on_a_light_ground_stays_light():
    # The cream sail: a light shape inside a transformed group, on a cream card.
    svg = ('<rect x="-3" y="-3" width="69" height="94" fill="#f3ead6"/>'
           '<g transform="rotate(0 31.5 44)"><rect x="2" y="2" width="58" height="15" '
           'fill="#e7dabd"/></g>')
    band = fills(low_ink(svg))[1]
    assert luminance(band) >= luminance(parse_colour("#e7dabd"))


def test_a_light_detail_whose_dark_ground_turns_pale_is_outlined_not_filled_dark():
    svg = ('<circle cx="50" cy="10" r="6" fill="#2f6f3f"/>'
           '<g transform="translate(46 6) scale(0.08)" fill="#fff"><path d="M0 0 H100 V100 Z"/>'
           '</g>')
    out = low_ink(svg)
    icon = re.search(r'<g transform="translate\(46 6\) scale\(0.08\)"[^>]*>', out).group(0)
    assert 'fill="#ffffff"' in icon                    # still light
    assert 'stroke="#2f6f3f"' in icon and 'stroke-width="2.5"' in icon   # 0.2 mm at 0.08


def test_text_is_darkened_only_where_its_ground_was_dark():
    svg = ('<rect x="0" y="0" width="60" height="20" fill="#23303b"/>'
           '<text x="2" y="10" font-size="4" fill="#f7f1e3">On dark</text>'
           '<rect x="0" y="30" width="60" height="20" fill="#f7f1e3"/>'
           '<text x="2" y="40" font-size="4" fill="#ffffff">On cream</text>')
    out = low_ink(svg)
    dark, cream = re.findall(r'<text[^>]*fill="([^"]+)"', out)
    assert luminance(parse_colour(dark)) < 0.5
    assert cream == "#ffffff"
