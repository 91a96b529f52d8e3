"""Deity's art and design system (docs/style/deity.md): every civilization card draws a
picture of its own in an art window of at least 30% of its face, the type scale holds on
every card, and every icon is a Game Icons silhouette."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from printshop.load.geometry import PrintOptions, card_size
from printshop.load.loader import load_game

from conftest import deck_faces

MM_PER_PT = 25.4 / 72
DECKS = ["nations", "civilization", "progression", "interventions"]
PATH_D = re.compile(r'<path\b[^>]*?\sd="([^"]+)"')
FONT_SIZE = re.compile(r'<text\b[^>]*?\sfont-size="([0-9.]+)"')
WINDOW = re.compile(r'<rect class="art-window" x="([0-9.]+)" y="([0-9.]+)" '
                    r'width="([0-9.]+)" height="([0-9.]+)"')
ART = re.compile(r'<g class="art"><g transform="translate\(([0-9.]+) ([0-9.]+)\) '
                 r'scale\(([0-9.]+)\)"')


@pytest.fixture(scope="module")
def game(builtin):
    return load_game(builtin.game("deity"))


@pytest.fixture(scope="module")
def faces(game):
    """Every Deity card's drawn faces, by deck and card id (drawn once, no PDF needed)."""
    return deck_faces(game, DECKS)


@pytest.fixture(scope="module")
def fronts(faces):
    return {deck: {card_id: sides[0] for card_id, sides in cards.items()}
            for deck, cards in faces.items()}


@pytest.fixture(scope="module")
def backs(faces):
    return [svg for cards in faces.values() for sides in cards.values() for svg in sides[1:]]


def paths(svg: str) -> set[str]:
    return set(PATH_D.findall(svg))


def test_every_civilization_card_names_a_picture_of_its_own(game):
    cards = game.part("civilization").cards
    assert len(cards) == 26
    arts = [c.fields.get("art") for c in cards]
    assert all(arts), [c.id for c in cards if not c.fields.get("art")]
    assert len(set(arts)) == len(arts), "two civilization cards share a picture"


def test_every_civilization_front_draws_a_path_no_other_front_draws(fronts):
    drawn = {card_id: paths(svg) for card_id, svg in fronts["civilization"].items()}
    assert len(drawn) == 26
    for card_id, mine in drawn.items():
        others = set().union(*(p for other, p in drawn.items() if other != card_id))
        assert mine - others, f"{card_id}: every path it draws is drawn by another card too"


def test_the_picture_is_the_one_the_data_names(game, fronts):
    from printshop.load.icons import set_icon
    for card in game.part("civilization").cards:
        art_paths = paths(set_icon(card.fields["art"]))
        assert art_paths and art_paths <= paths(fronts["civilization"][card.id]), card.id


def test_art_window_takes_at_least_30_percent_of_the_face(game, fronts):
    w, h = card_size(game.part("civilization").spec.size)
    for card_id, svg in fronts["civilization"].items():
        (x, y, ww, wh), = [tuple(map(float, m)) for m in WINDOW.findall(svg)]
        assert ww * wh >= 0.30 * w * h, (card_id, ww * wh / (w * h))
        # The window lies inside the card's frame, and the picture inside the window.
        assert x >= 2.2 and y >= 2.2 and x + ww <= w - 2.2 and y + wh <= h - 2.2
        (px, py, scale), = [tuple(map(float, m)) for m in ART.findall(svg)]
        size = 100 * scale
        assert size >= 25, (card_id, size)
        assert x <= px and px + size <= x + ww and y <= py and py + size <= y + wh, card_id


@pytest.mark.parametrize("deck", DECKS)
def test_no_text_under_7pt_on_a_card_front(fronts, deck):
    for card_id, svg in fronts[deck].items():
        sizes = [float(s) / MM_PER_PT for s in FONT_SIZE.findall(svg)]
        assert sizes, card_id
        small = [round(s, 2) for s in sizes if s < 7 - 1e-3]
        assert not small, f"{deck}/{card_id}: text at {small} pt"


def test_backs_keep_the_floor_too(backs):
    for svg in backs:
        assert all(float(s) / MM_PER_PT >= 7 - 1e-3 for s in FONT_SIZE.findall(svg))


def test_cards_use_only_the_type_scale_and_its_display_numerals(game, fronts):
    """Titles, body and labels come from style.type; only the age numerals (28 pt) and the
    deal counts (11 pt) are set apart, as the style guide says."""
    scale = game.manifest.style.type
    allowed = {scale.title, scale.title_fallback, scale.body, scale.label, 28.0, 11.0}
    assert scale.body >= 7 and scale.label >= 7      # on cards, labels keep the 7 pt floor
    for deck in DECKS:
        for card_id, svg in fronts[deck].items():
            sizes = {round(float(s) / MM_PER_PT, 2) for s in FONT_SIZE.findall(svg)}
            assert sizes <= allowed, (deck, card_id, sizes - allowed)


def test_one_title_size_per_deck_with_at_most_one_fallback(game, fronts):
    scale = game.manifest.style.type
    title_font = re.compile(r'<text\b[^>]*font-family="([^"]+)"[^>]*font-size="([0-9.]+)"')
    from printshop.load import fonts
    title_family = fonts.resolve_family("title")
    for deck in DECKS:
        sizes = set()
        for svg in fronts[deck].values():
            sizes |= {round(float(s) / MM_PER_PT, 2) for fam, s in title_font.findall(svg)
                      if fam == title_family}
        titles = sizes - {28.0}                  # the age numerals are display, not titles
        assert titles <= {scale.title, scale.title_fallback}, (deck, titles)


def test_every_deity_icon_is_a_game_icons_silhouette():
    icons = yaml.safe_load((Path(__file__).parent.parent / "templates" / "deity"
                            / "icons.yaml").read_text())
    for name, entry in icons.items():
        layers = entry if isinstance(entry, list) else [entry]
        for layer in layers:
            ref = layer["icon"] if isinstance(layer, dict) else layer
            assert ref.startswith("game-icons:"), (name, ref)


def test_the_crossed_swords_are_a_game_icon(fronts):
    from printshop.load.icons import set_icon
    war = fronts["progression"]["war-1"]
    assert paths(set_icon("game-icons:sword-clash")) <= paths(war)
    assert "M14 8 L22 8 L72 70" not in war          # the old four-stroke glyph is gone


def test_nation_cards_are_framed_like_every_other_deity_card(fronts):
    for deck in DECKS:
        for card_id, svg in fronts[deck].items():
            assert re.search(r'<rect x="2.2" y="2.2" [^>]*fill="none" stroke="#[0-9a-f]{6}" '
                             r'stroke-width="0.6"', svg), (deck, card_id)


def _boxes(svg: str):
    """Return (x0, y0, x1, y1) of every white write-in box of a sheet."""
    rect = re.compile(r'<rect x="([0-9.]+)" y="([0-9.]+)" width="([0-9.]+)" '
                      r'height="([0-9.]+)" fill="#fff"')
    return [(float(x), float(y), float(x) + float(w), float(y) + float(h))
            for x, y, w, h in rect.findall(svg)]


def test_scoring_pad_sum_labels_clear_every_box(game):
    """The defect of issue 26: the "sum" labels ran over the corners of the boxes above."""
    from printshop.components import RENDERERS
    from printshop.draw.text import text_width
    part = game.part("scoring-pad")
    svg = "".join(p if isinstance(p, str) else "" for p in
                  RENDERERS[part.kind](game, part, PrintOptions()).pages[0].parts)
    boxes = _boxes(svg)
    labels = re.findall(r'<text\b[^>]*font-size="([0-9.]+)"[^>]*><tspan x="([0-9.]+)" '
                        r'y="([0-9.]+)"[^>]*>(sum[^<]*)</tspan>', svg)
    assert len(labels) == 12 and len(boxes) > 12          # 3 sums in each of 4 games
    for em, x, baseline, words in labels:
        em, x, baseline = float(em), float(x), float(baseline)
        x1 = x + text_width(words, em / MM_PER_PT)
        top, bottom = baseline - 0.95 * em, baseline + 0.25 * em
        for bx0, by0, bx1, by1 in boxes:
            assert x1 <= bx0 or x >= bx1 or bottom <= by0 or top >= by1, \
                (words, (x, top, x1, bottom), (bx0, by0, bx1, by1))


def _text_boxes(svg: str):
    """Yield (x0, y0, x1, y1, words) for every run of text in a card face, in the card's
    coordinates (the civilization cards' turned halves are turned back)."""
    import xml.etree.ElementTree as ET
    from printshop.draw.text import text_width
    root = ET.fromstring(f'<svg xmlns="http://www.w3.org/2000/svg">{svg}</svg>')
    ns = "{http://www.w3.org/2000/svg}"
    turn = re.compile(r"rotate\(180 ([0-9.]+) ([0-9.]+)\)")

    def walk(node, centre):
        m = turn.fullmatch(node.get("transform", ""))
        if m:
            centre = (float(m.group(1)), float(m.group(2)))
        if node.tag == ns + "text":
            em = float(node.get("font-size"))
            for span in node.findall(ns + "tspan"):
                family = span.get("font-family") or node.get("font-family")
                weight = span.get("font-weight", "normal")
                x, y = float(span.get("x")), float(span.get("y"))
                x1 = x + text_width(span.text or "", em / MM_PER_PT, family, weight)
                box = (x, y - 0.95 * em, x1, y + 0.25 * em)
                if centre:
                    cx, cy = centre
                    box = (2 * cx - box[2], 2 * cy - box[3], 2 * cx - box[0], 2 * cy - box[1])
                yield (*box, span.text)
            return
        for child in node:
            yield from walk(child, centre)

    yield from walk(root, None)


@pytest.mark.parametrize("deck", DECKS)
def test_card_text_stays_inside_the_3mm_safe_zone(game, fronts, backs, deck):
    w, h = card_size(game.part(deck).spec.size)
    for card_id, svg in fronts[deck].items():
        runs = list(_text_boxes(svg))
        assert runs, card_id
        for x0, y0, x1, y1, words in runs:
            assert x0 >= 3 and y0 >= 3 and x1 <= w - 3 and y1 <= h - 3, \
                (deck, card_id, words, (round(x0, 2), round(y0, 2), round(x1, 2), round(y1, 2)))
