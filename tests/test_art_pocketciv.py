"""PocketCiv's art and design system (issue 26): every Advance and Wonder draws a picture of its
own in an art window of at least 30% of the face, the Wonder markers show their Wonder's
picture, no card text is under 7 pt, titles keep to the type scale, and the Advance list and
tracking sheet defects stay fixed. Read from the drawn SVG, as a reviewer would measure it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from printshop.load import icons
from printshop.components.sheet import render_sheet
from printshop.load.geometry import PrintOptions
from printshop.load.loader import load_game
from printshop.files.project import Project
from printshop.draw.text import PT, text_width

from conftest import deck_faces

REPO = Path(__file__).resolve().parent.parent
CARD_DECKS = ("events", "event-guide", "advances", "counters", "cities")
FLOOR_PT = 7.0
MIN_ART_SHARE = 0.30

_PATH_D = re.compile(r'<path\b[^>]*?\sd="([^"]+)"')
_FONT = re.compile(r'font-size="([\d.]+)"')
_TEXT = re.compile(r'<text\b([^>]*)>(.*?)</text>', re.S)
_TSPAN = re.compile(r'<tspan\b([^>]*)>([^<]*)</tspan>')


def _attr(tag: str, name: str) -> str | None:
    m = re.search(rf'\s{name}="([^"]*)"', tag)
    return m.group(1) if m else None


@pytest.fixture(scope="module")
def game():
    return load_game(Project.open(None).game("pocketciv"))


@pytest.fixture(scope="module")
def fronts(game):
    """Every card's drawn front, deck by deck: {deck: {card id: svg}}."""
    return {deck: {cid: sides[0] for cid, sides in cards.items()}
            for deck, cards in deck_faces(game, CARD_DECKS).items()}


@pytest.fixture(scope="module")
def named(game):
    """The 59 named cards: the 49 Advances and the 10 Wonders."""
    return {c.id: c for c in game.part("advances").cards}


def test_fifty_nine_named_cards(named):
    kinds = [c.fields["type"] for c in named.values()]
    assert kinds.count("advance") == 49 and kinds.count("wonder") == 10


def test_every_named_card_draws_a_picture_no_other_draws(fronts, named):
    paths = {cid: set(_PATH_D.findall(fronts["advances"][cid])) for cid in named}
    alone = []
    for cid, mine in paths.items():
        others = set().union(*(p for other, p in paths.items() if other != cid))
        if not mine - others:
            alone.append(cid)
    assert alone == [], f"cards whose front draws no path of its own: {alone}"


def _picture(art: str) -> str:
    """The SVG an `art` value draws: a Game Icons icon, or a composition in icons.yaml."""
    if art.startswith("game-icons:"):
        return icons.set_icon(art)
    own = icons.load_icons(REPO / "templates" / "pocketciv" / "icons.yaml", "icons.yaml")
    return own[art]


def test_each_card_names_a_different_icon(named):
    drawn = {}
    for cid, card in named.items():
        drawn.setdefault(_picture(card.fields["art"]), []).append(cid)   # aliases draw alike
    shared = [ids for ids in drawn.values() if len(ids) > 1]
    assert shared == []


def _art_window(svg: str) -> tuple[float, float, float, float]:
    tag = re.search(r'<rect\b[^>]*class="art-window"[^>]*>', svg).group(0)
    return tuple(float(_attr(tag, k)) for k in ("x", "y", "width", "height"))


def test_the_art_window_is_a_third_of_the_face_and_holds_the_picture(fronts, named, game):
    w, h = 63.0, 88.0
    for cid in named:
        svg = fronts["advances"][cid]
        x, y, ww, hh = _art_window(svg)
        assert ww * hh >= MIN_ART_SHARE * w * h, (cid, ww * hh / (w * h))
        m = re.search(r'<g class="art"><g transform="translate\(([-\d.]+) ([-\d.]+)\) '
                      r'scale\(([\d.]+)\)"', svg)
        assert m, cid
        px, py, size = float(m.group(1)), float(m.group(2)), float(m.group(3)) * 100
        assert size >= 25, (cid, size)           # the picture is big, not a pictogram
        assert x <= px and px + size <= x + ww and y <= py and py + size <= y + hh, cid


def test_no_text_runs_into_the_picture(fronts, named):
    """The cost and resources stand in columns beside the picture, never over it."""
    for cid in named:
        svg = fronts["advances"][cid]
        m = re.search(r'<g class="art"><g transform="translate\(([-\d.]+) ([-\d.]+)\) '
                      r'scale\(([\d.]+)\)"', svg)
        px, py, size = float(m.group(1)), float(m.group(2)), float(m.group(3)) * 100
        for tag, body in _TEXT.findall(svg):
            em = float(_attr(tag, "font-size"))
            bold = 'font-weight="bold"' in body
            for attrs, run in _TSPAN.findall(body):
                x, base = float(_attr(attrs, "x")), float(_attr(attrs, "y"))
                w = text_width(run, em / PT, weight="bold" if bold else "normal")
                overlaps_x = x < px + size and px < x + w
                overlaps_y = base - 0.95 * em < py + size and py < base + 0.25 * em
                assert not (overlaps_x and overlaps_y), (cid, run)


def test_the_advance_face_has_no_empty_stretch(fronts, named):
    """The art window grows into whatever room the rules text leaves: below the text, only
    the footer label, never an empty band of more than a few millimetres."""
    for cid in named:
        svg = fronts["advances"][cid]
        texts = [(_attr(t, "font-size"), body) for t, body in _TEXT.findall(svg)]
        effect_tag, effect_body = [(t, b) for t, b in _TEXT.findall(svg)][-2]
        em = float(_attr(effect_tag, "font-size"))
        last = max(float(_attr(a, "y")) for a, _ in _TSPAN.findall(effect_body))
        footer_tag, footer_body = _TEXT.findall(svg)[-1]
        assert re.sub("<[^>]+>", "", footer_body) in ("ADVANCE", "WONDER"), cid
        foot_top = min(float(_attr(a, "y")) for a, _ in _TSPAN.findall(footer_body)) - \
            0.95 * float(_attr(footer_tag, "font-size"))
        gap = foot_top - (last + 0.25 * em)
        assert 0.3 < gap < 6.0, (cid, gap, len(texts))


@pytest.mark.parametrize("deck", CARD_DECKS)
def test_no_card_text_under_7_pt(fronts, deck):
    small = {}
    for cid, svg in fronts[deck].items():
        for size in _FONT.findall(svg):
            pt = float(size) / PT
            if pt < FLOOR_PT - 1e-3:   # sizes are written in mm to a millionth
                small.setdefault(cid, set()).add(round(pt, 2))
    assert small == {}


def _title_pt(svg: str, name: str) -> float:
    for tag, body in _TEXT.findall(svg):
        words = " ".join(t for _, t in _TSPAN.findall(body)).split()
        if words == name.split():
            return float(_attr(tag, "font-size")) / PT
    raise AssertionError(f"no title {name!r}")


@pytest.mark.parametrize("deck", ["advances", "event-guide"])
def test_titles_keep_to_the_type_scale(fronts, game, deck):
    scale = game.manifest.style.type
    sizes = {round(_title_pt(fronts[deck][c.id], c.name), 3) for c in game.part(deck).cards}
    assert sizes <= {scale.title, scale.title_fallback}, sizes


def test_type_scale_is_declared(game):
    scale = game.manifest.style.type
    assert scale.body >= 7 and scale.label >= 7 and scale.title_fallback < scale.title


def test_wonder_markers_show_their_wonder_card_picture(game, named, fronts):
    markers = [c for c in game.part("counters").cards if c.fields.get("kind") == "wonder"]
    assert len(markers) == 10
    for m in markers:
        wonder = named[m.fields["wonder"]]
        assert m.fields["art"] == wonder.fields["art"], m.id
        assert _picture(wonder.fields["art"]) in fronts["counters"][m.id]


def test_design_notes_record_every_picture(named):
    notes = (REPO / "data" / "pocketciv" / "DESIGN.md").read_text(encoding="utf-8")
    for card in named.values():
        assert f"| {card.name} | `{card.fields['art'].split(':')[-1]}` |" in notes, card.name


def test_design_system_is_written_down():
    doc = (REPO / "docs" / "style" / "pocketciv.md").read_text(encoding="utf-8")
    for heading in ("Palette", "Type scale", "Icon treatment", "Margins and safe areas"):
        assert f"## {heading}" in doc, heading


# --- the defects of issue 26 ----------------------------------------------------------------

@pytest.fixture(scope="module")
def sheets(game):
    out = {}
    for paper in ("a4", "letter"):
        for sid in ("advance-list", "tracking"):
            pages = render_sheet(game, game.part(sid), PrintOptions(paper=paper)).pages
            out[sid, paper] = ["".join(p for p in page.parts if isinstance(p, str))
                               for page in pages]
    return out


@pytest.mark.parametrize("paper", ["a4", "letter"])
def test_coinage_reminder_sits_on_no_rule(sheets, paper):
    svg = sheets["tracking", paper][0]
    for tag, body in _TEXT.findall(svg):
        spans = _TSPAN.findall(body)
        said = " ".join(t for _, t in spans)
        if "unless you own Coinage" not in said:
            continue
        em = float(_attr(tag, "font-size"))
        for attrs, run in spans:
            x, base = float(_attr(attrs, "x")), float(_attr(attrs, "y"))
            x2 = x + text_width(run, em / PT)
            for line in re.findall(r"<line\b[^>]*>", svg):
                x1_, y1_, x2_, y2_ = (float(_attr(line, k)) for k in ("x1", "y1", "x2", "y2"))
                if abs(y1_ - y2_) > 1e-6 or max(x1_, x2_) < x or min(x1_, x2_) > x2:
                    continue
                assert not base - 0.95 * em <= y1_ <= base + 0.3 * em, (paper, line)
        return
    raise AssertionError("the Coinage reminder is not printed")


@pytest.mark.parametrize("paper", ["a4", "letter"])
def test_advance_list_rows_come_in_few_heights(sheets, paper):
    """Rows of the same number of lines are the same height on both pages: one, two and
    three lines make three heights at most (the shaded rows show the steps)."""
    heights = set()
    for svg in sheets["advance-list", paper]:
        ys = [float(_attr(t, "y1")) for t in re.findall(r'<line\b[^>]*stroke-width="0.15"[^>]*>',
                                                       svg)]
        # the step from the last Advance to the first Wonder spans the Wonders' heading
        heights |= {round(b - a, 1) for a, b in zip(ys, ys[1:]) if 0 < b - a < 15}
    assert 1 <= len(heights) <= 3, heights


@pytest.mark.parametrize("paper", ["a4", "letter"])
def test_advance_list_draws_resources_at_4_mm(sheets, named, paper):
    want = sum(len(c.fields.get("resources") or []) for c in named.values())
    drawn = sum(svg.count("scale(0.04)") for svg in sheets["advance-list", paper])
    assert drawn == want


def test_explanation_cards_each_show_their_own_picture(game, fronts):
    cards = game.part("event-guide").cards
    drawn = {_picture(c.fields["art"]) for c in cards}
    assert len(drawn) == len(cards) == 17
    for c in cards:
        assert _picture(c.fields["art"]) in fronts["event-guide"][c.id], c.id
