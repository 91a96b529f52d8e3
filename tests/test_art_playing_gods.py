"""Playing Gods' art and design system (issue 26): every named Wrath and Conversion card draws
a picture of its own in an art window of at least 30% of the card, the picture fits inside
its window, the type scale holds on every card front (nothing under 7 pt), the backs set
their words on a panel, and the board's starfield keeps off the words."""

from __future__ import annotations

import html
import math
import re

import pytest

from printshop.load import icons
from printshop.components import RENDERERS
from printshop.load.geometry import PrintOptions
from printshop.load.loader import load_game
from printshop.files.project import Project
from printshop.draw.text import text_width

GAME = "playing-gods"
DECKS = ("wrath", "conversion")
MM_PER_PT = 25.4 / 72
PATH_D = re.compile(r'<path\b[^>]*?\bd="([^"]+)"')
FONT_SIZE = re.compile(r'<text\b[^>]*?\bfont-size="([0-9.]+)"')
WINDOW = re.compile(r'<rect x="([0-9.]+)" y="([0-9.]+)" width="([0-9.]+)" '
                    r'height="([0-9.]+)"[^>]*class="art-window"')
PLACED = re.compile(r'<g transform="translate\(([-0-9.]+) ([-0-9.]+)\) scale\(([0-9.]+)\)"')


@pytest.fixture(scope="module")
def game():
    return load_game(Project.open(None).game(GAME))


@pytest.fixture(scope="module")
def fronts(game):
    """Every named card's drawn front: {(deck, card id): Face}."""
    out = {}
    for deck in DECKS:
        part = game.part(deck)
        rendered = RENDERERS[part.kind](game, part, PrintOptions())
        for card in part.cards:
            out[(deck, card.id)] = rendered.faces[card.id][0]
    return out


@pytest.fixture(scope="module")
def backs(game):
    out = {}
    for deck in DECKS:
        part = game.part(deck)
        rendered = RENDERERS[part.kind](game, part, PrintOptions())
        out[deck] = rendered.faces[part.cards[0].id][1]
    return out


def cards(game):
    return [(deck, card) for deck in DECKS for card in game.part(deck).cards]


def art_fragment(game, name: str) -> str:
    """The SVG a card's `art` names: an icons.yaml entry or a shipped set's icon."""
    return game.icons[name] if name in game.icons else icons.set_icon(name)


def test_the_decks_hold_the_named_cards_the_issue_counts(game):
    assert len(game.part("wrath").cards) == 28
    assert len(game.part("conversion").cards) == 11


def test_every_named_card_names_a_picture_of_its_own(game):
    arts = [card.fields["art"] for _, card in cards(game)]
    assert len(set(arts)) == len(arts), sorted(a for a in arts if arts.count(a) > 1)
    for deck, card in cards(game):
        fragment = art_fragment(game, card.fields["art"])
        assert "<path" in fragment, (deck, card.id)


def test_every_named_card_front_draws_a_path_no_other_front_draws(fronts):
    paths = {key: set(PATH_D.findall(face.svg)) for key, face in fronts.items()}
    for key, own in paths.items():
        others = set().union(*(p for k, p in paths.items() if k != key))
        assert own - others, f"{key} draws no picture of its own"


def test_the_picture_fitting_the_name_is_the_one_drawn(game, fronts):
    """Lightning shows a lightning bolt and Drought cracked, dry earth (the issue's examples),
    and each front draws the very fragment its data names."""
    wrath = {c.name: c for c in game.part("wrath").cards}
    assert "lightning" in wrath["Lightning"].fields["art"]
    cracked_earth = icons.set_icon("game-icons:earth-spit")
    assert PATH_D.findall(cracked_earth)[0] in art_fragment(game, wrath["Drought"].fields["art"])
    assert PATH_D.findall(icons.set_icon("game-icons:water-drop"))[0] not in \
        art_fragment(game, wrath["Drought"].fields["art"])
    for (deck, cid), face in fronts.items():
        card = next(c for c in game.part(deck).cards if c.id == cid)
        fragment = art_fragment(game, card.fields["art"])
        assert all(d in face.svg for d in PATH_D.findall(fragment)), (deck, cid)


def test_the_art_window_is_at_least_thirty_percent_and_holds_the_picture(game, fronts):
    for (deck, cid), face in fronts.items():
        found = WINDOW.findall(face.svg)
        assert len(found) == 1, (deck, cid)
        x, y, w, h = map(float, found[0])
        assert w * h >= 0.30 * face.w * face.h, (deck, cid, w * h / (face.w * face.h))
        # The window lies inside the safe area.
        assert x >= 3 and y >= 3 and x + w <= face.w - 3 and y + h <= face.h - 3
        # The picture: the group that places the card's art, inside the window.
        card = next(c for c in game.part(deck).cards if c.id == cid)
        fragment = art_fragment(game, card.fields["art"])
        at = face.svg.index(fragment)
        px, py, k = map(float, PLACED.findall(face.svg[:at])[-1])
        side = 100 * k
        assert side >= 0.4 * h, (deck, cid, side)
        assert x <= px and y <= py and px + side <= x + w and py + side <= y + h, (deck, cid)


def test_no_text_on_a_card_front_is_under_seven_points(fronts):
    for key, face in fronts.items():
        sizes = [float(s) / MM_PER_PT for s in FONT_SIZE.findall(face.svg)]
        assert sizes, key
        assert min(sizes) >= 7 - 1e-3, (key, min(sizes))


def test_one_title_size_per_deck_with_at_most_one_fallback(game, fronts):
    scale = game.manifest.style.type
    assert scale.body >= 7 and scale.label >= 6
    for deck in DECKS:
        titles = set()
        for (d, _), face in fronts.items():
            if d != deck:
                continue
            runs = re.findall(r'<text\b[^>]*font-family="Linux Libertine O"[^>]*'
                              r'font-size="([0-9.]+)"', face.svg)
            titles.add(round(float(runs[0]) / MM_PER_PT, 2))   # the first title run: the name
        assert titles <= {scale.title, scale.title_fallback}, (deck, titles)


def test_the_backs_set_their_words_on_a_panel(backs):
    """The deck names sit on a filled panel, not straight on the burst of rays."""
    for deck, face in backs.items():
        svg = face.svg
        panel = re.search(r'<rect x="([0-9.]+)" y="([0-9.]+)" width="([0-9.]+)" '
                          r'height="([0-9.]+)" rx="2" fill="#[0-9a-f]{6}"', svg)
        assert panel, deck
        x, y, w, h = map(float, panel.groups())
        word = "WRATH" if deck == "wrath" else "CONVERSION"
        text = svg[svg.index(word) - 300: svg.index(word)]
        ty = float(re.findall(r'y="([0-9.]+)"', text)[-1])      # the word's baseline
        assert y < ty < y + h, deck
        assert svg.index(word) > panel.start()                   # drawn over the panel


def text_boxes(svg: str):
    """Yield (x0, y0, x1, y1) of every run of words in an SVG drawn by text(), in mm."""
    for attrs, body in re.findall(r"<text\b([^>]*)>(.*?)</text>", svg, flags=re.S):
        em = float(re.search(r'font-size="([0-9.]+)"', attrs).group(1))
        family = re.search(r'font-family="([^"]+)"', attrs).group(1)
        for span, words in re.findall(r"<tspan\b([^>]*)>([^<]*)</tspan>", body):
            x = float(re.search(r' x="([-0-9.]+)"', span).group(1))
            y = float(re.search(r' y="([-0-9.]+)"', span).group(1))
            own = re.search(r'font-family="([^"]+)"', span)
            weight = "bold" if 'font-weight="bold"' in span else "normal"
            w = text_width(html.unescape(words), em / MM_PER_PT, own.group(1) if own else family,
                           weight)
            yield x, y - 0.9 * em, x + w, y + 0.3 * em


def test_the_starfield_keeps_off_the_board_s_words(game):
    """Board tiles A1 and A3 had stars over the legend's "Wrath" and the credit line: no star
    of the sky outside the ring touches a run of words there (measured from the drawing)."""
    part = game.part("board")
    rendered = RENDERERS[part.kind](game, part, PrintOptions())
    face = rendered.faces["board"][0]
    svg = face.svg
    cx, cy = face.w / 2, face.h / 2
    stars = [(float(x), float(y), float(r)) for x, y, r in re.findall(
        r'<circle cx="([0-9.]+)" cy="([0-9.]+)" r="([0-9.]+)" fill="#f8f2e4" fill-opacity', svg)]
    stars = [s for s in stars if math.hypot(s[0] - cx, s[1] - cy) > 250]   # outside the ring
    boxes = [b for b in text_boxes(svg) if math.hypot(b[0] - cx, b[1] - cy) > 250]
    assert len(stars) > 10 and len(boxes) > 10
    for sx, sy, r in stars:
        for x0, y0, x1, y1 in boxes:
            near_x = min(max(sx, x0), x1)
            near_y = min(max(sy, y0), y1)
            assert math.hypot(sx - near_x, sy - near_y) > r + 0.5, ((sx, sy), (x0, y0, x1, y1))


def test_the_game_credits_the_icon_set_its_art_comes_from(game):
    """Game Icons are CC BY 3.0: using them puts the set's credit on the contents page and a
    NOTICE beside the PDFs (the core does it for any game whose icons name the set)."""
    assert "game-icons" in {s.prefix for s in icons.credits(game)}
    notice = icons.notice(game)
    assert any(b"game-icons.net" in body or b"Game Icons" in body for body in notice.values())


def test_words_on_a_front_stay_in_the_safe_area_and_off_the_picture(fronts):
    """Every run of words sits inside the safe area (3 mm in from the trim), and none crosses
    the art window except the badge's number and caption, inside their own disc."""
    for key, face in fronts.items():
        x, y, w, h = map(float, WINDOW.findall(face.svg)[0])
        discs = [(float(cx), float(cy), float(r)) for cx, cy, r in re.findall(
            r'<circle cx="([0-9.]+)" cy="([0-9.]+)" r="([0-9.]+)" fill="#f8f2e4"', face.svg)]
        for x0, y0, x1, y1 in text_boxes(face.svg):
            assert 3 - 1e-6 <= x0 and x1 <= face.w - 3 + 1e-6, (key, x0, x1)
            assert 3 - 1e-6 <= y0 and y1 <= face.h - 3 + 1e-6, (key, y0, y1)
            if x1 <= x or x0 >= x + w or y1 <= y or y0 >= y + h:
                continue                                          # clear of the window
            assert any(cx - r <= x0 and x1 <= cx + r and cy - r <= y0 and y1 <= cy + r
                       for cx, cy, r in discs), (key, (x0, y0, x1, y1))
