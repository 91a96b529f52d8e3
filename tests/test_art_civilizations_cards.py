"""Civilizations (two standard decks): the art and the design system, read from the drawn cards.

Every Great Person and wonder has a picture of its own (its front draws a shape no other named
card's front draws), in an art window of at least 30% of the face; the type scale holds (no text
on a front under 7 pt, one title size with one fallback); a name is printed once and breaks only
where a typesetter would. See docs/style/civilizations-cards.md.
"""

from __future__ import annotations

import re
from collections import defaultdict
from xml.etree import ElementTree

import pytest
import yaml

from printshop.load import icons
from printshop.components.deck import render_deck
from printshop.load.geometry import PrintOptions
from printshop.load.loader import load_game
from printshop.files.project import Project

GAME = "civilizations-cards"
SVG = "{http://www.w3.org/2000/svg}"
PT = 25.4 / 72                      # millimetres per point: SVG font sizes are in mm
CARD_W, CARD_H = 63, 88
PARTICLES = {"da", "of", "the", "d'", "de", "von"}


@pytest.fixture(scope="module")
def game():
    return load_game(Project.open(None).game(GAME))


@pytest.fixture(scope="module")
def cards(game):
    return [c.context() for c in game.part("double-deck").cards]


@pytest.fixture(scope="module")
def faces(game):
    return render_deck(game, game.part("double-deck"), PrintOptions()).faces


def _name(card):
    named = card["person"] or card["wonder"]
    return named["name"] if named else None


def _named(cards):
    return [c for c in cards if _name(c)]


def _parse(face) -> ElementTree.Element:
    return ElementTree.fromstring(f'<svg xmlns="http://www.w3.org/2000/svg">{face.svg}</svg>')


def _group(root, cls):
    found = [g for g in root.iter(SVG + "g") if g.get("class") == cls]
    assert len(found) == 1, cls
    return found[0]


def _paths(root) -> set[str]:
    return {p.get("d") for p in root.iter(SVG + "path") if p.get("d")}


def _lines(node) -> list[str]:
    """The lines of text under node, top to bottom (a line is the runs sharing a baseline)."""
    rows: dict[float, list[tuple[float, str]]] = defaultdict(list)
    for text in node.iter(SVG + "text"):
        for span in text:
            rows[float(span.get("y"))].append((float(span.get("x")), span.text or ""))
    return [" ".join(t for _, t in sorted(rows[y])).replace("\u00a0", " ") for y in sorted(rows)]


def _texts(node) -> list[str]:
    """Each text block under node, its lines joined by spaces."""
    out = []
    for text in node.iter(SVG + "text"):
        rows: dict[float, list[tuple[float, str]]] = defaultdict(list)
        for span in text:
            rows[float(span.get("y"))].append((float(span.get("x")), span.text or ""))
        out.append(" ".join(t for y in sorted(rows) for _, t in sorted(rows[y]))
                   .replace("\u00a0", " "))
    return out


def _sizes_pt(node) -> list[float]:
    return [float(t.get("font-size")) / PT for t in node.iter(SVG + "text")]


# ---- the data --------------------------------------------------------------------------------

def test_every_named_card_names_its_own_picture(cards):
    art_of: dict[str, set[str]] = defaultdict(set)
    for card in _named(cards):
        assert card.get("art"), (card["id"], "has no art")
        art_of[_name(card)].add(card["art"])
    # 24 Great Persons and 4 wonders; a wonder's two copies (Sun and Moon) show the same picture
    assert len(art_of) == 28
    assert all(len(pictures) == 1 for pictures in art_of.values()), art_of
    pictures = [next(iter(p)) for p in art_of.values()]
    assert len(set(pictures)) == len(pictures), "two named cards share a picture"


def test_every_picture_is_a_game_icon_or_a_drawing_of_the_games_icons(cards):
    folder = Project.open(None).game(GAME)
    own = yaml.safe_load((folder.template_dir / "icons.yaml").read_text())
    for card in cards:
        art = card.get("art")
        if not art:
            continue
        if art.startswith("game-icons:"):
            assert icons.set_icon(art), art          # raises on an unknown name
        else:
            assert art in own and not own[art].startswith("game-icons:"), art


def test_the_picture_list_in_design_md_matches_the_data(cards):
    design = (Project.open(None).game(GAME).data_dir / "DESIGN.md").read_text()
    for card in _named(cards):
        art = card["art"].removeprefix("game-icons:")
        row = re.search(rf"^\| [^|]+ \| {re.escape(_name(card))} \| `([^`]+)`", design, re.M)
        assert row, _name(card)
        assert row.group(1).removeprefix("game-icons:") == art, (_name(card), row.group(1), art)


# ---- the drawn fronts ------------------------------------------------------------------------

def test_each_named_front_draws_a_picture_no_other_named_front_draws(cards, faces):
    drawn: dict[str, set[str]] = defaultdict(set)
    for card in _named(cards):
        drawn[_name(card)] |= _paths(_group(_parse(faces[card["id"]][0]), "art"))
    for name, paths in drawn.items():
        others = set().union(*(p for n, p in drawn.items() if n != name))
        assert paths - others, f"{name} draws no shape of its own"
    assert len(drawn) == 28


def test_the_art_window_is_at_least_30_percent_of_the_face_and_holds_the_picture(cards, faces):
    for card in _named(cards):
        art = _group(_parse(faces[card["id"]][0]), "art")
        window = [r for r in art.iter(SVG + "rect") if r.get("class") == "art-window"]
        assert len(window) == 1, card["id"]
        x, y = float(window[0].get("x")), float(window[0].get("y"))
        w, h = float(window[0].get("width")), float(window[0].get("height"))
        assert w * h >= 0.30 * CARD_W * CARD_H, (card["id"], w * h / (CARD_W * CARD_H))
        assert 3 <= x and x + w <= CARD_W - 3 and 3 <= y and y + h <= CARD_H - 3, card["id"]
        # the picture: the largest icon drawn in the window, inside it
        placed = []
        for g in art.iter(SVG + "g"):
            m = re.fullmatch(r"translate\(([-\d.]+) ([-\d.]+)\) scale\(([\d.]+)\)",
                             g.get("transform", ""))
            if m:
                gx, gy, s = (float(v) for v in m.groups())
                placed.append((100 * s, gx, gy))
        size, gx, gy = max(placed)
        assert size >= 20, (card["id"], size)
        assert x <= gx and gx + size <= x + w and y <= gy and gy + size <= y + h, card["id"]


def test_no_text_on_a_front_is_under_7_pt(cards, faces):
    for card in cards:
        for pt in _sizes_pt(_parse(faces[card["id"]][0])):
            assert pt >= 7 - 1e-4, (card["id"], round(pt, 2))   # sizes are in mm to 6 places


def test_one_title_size_per_deck_with_one_fallback(game, cards, faces):
    scale = game.manifest.style.type
    assert scale.body >= 7 and scale.label >= 6
    seen = set()
    for card in cards:
        if card["rank"] in {"J", "Q", "K", "A", "joker"}:
            title = _group(_parse(faces[card["id"]][0]), "title")
            seen |= {round(pt, 2) for pt in _sizes_pt(title)}
    assert seen <= {scale.title, scale.title_fallback}, seen


def test_a_name_is_printed_once(cards, faces):
    for card in _named(cards):
        text = " | ".join(_texts(_parse(faces[card["id"]][0])))
        assert text.count(_name(card)) == 1, (card["id"], text)


def test_a_name_breaks_only_where_a_typesetter_would(cards, faces):
    """A particle stays with the word after it (Leonardo / da Vinci), and a name is set on at
    most two lines."""
    for card in _named(cards):
        lines = _lines(_group(_parse(faces[card["id"]][0]), "title"))
        assert " ".join(lines) == _name(card), (card["id"], lines)
        assert len(lines) <= 2, (card["id"], lines)
        for line in lines[:-1]:
            assert line.split()[-1] not in PARTICLES, (card["id"], lines)
    leonardo = next(c for c in cards if _name(c) == "Leonardo da Vinci")
    assert _lines(_group(_parse(faces[leonardo["id"]][0]), "title")) in (
        ["Leonardo da Vinci"], ["Leonardo", "da Vinci"])


def test_a_paragraph_never_ends_on_a_line_of_one_word(cards, faces):
    for card in cards:
        if card["pile"] != "exploration":
            continue
        root = _parse(faces[card["id"]][0])
        power = (card["person"] or {}).get("power") or (card["wonder"] or {}).get("effect")
        if not power:
            continue
        lines = _lines(root)
        last_word = power.split()[-1]
        ending = [line for line in lines if line.endswith(last_word)]
        assert ending and len(ending[-1].split()) >= 2, (card["id"], ending)
