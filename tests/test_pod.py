"""Print-on-demand uploads: shop sizes from shops.yaml, names, backs, README, PDF/X, pre-flight."""

from __future__ import annotations

import io
import re
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner
from PIL import Image
from pypdf import PdfReader

from conftest import EXAMPLE
from printshop import cli
from printshop.cli import main
from printshop.files.errors import PrintshopError
from printshop.export import pod
from printshop.export.shops import Product, parse_shops, shops

MM = 72 / 25.4
STALLS = ["noodle-cart", "sweet-buns", "ring-toss", "goldfish", "paper-lanterns", "fireworks"]
FOOD = (0xC2, 0x57, 0x1A)      # the stall colour lantern-fair draws into the bleed


def run(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def export(tmp_path, shop, *extra, project=EXAMPLE, game="lantern-fair"):
    out = tmp_path / shop
    where = ["--project", project] if project is not None else []
    result = run("export", "pod", game, *where, "--shop", shop, "--out", out, *extra)
    return result, out


def image(path: Path) -> Image.Image:
    with Image.open(path) as im:
        im.load()
        return im


# The data

def test_every_shop_names_its_source_and_prints_poker_cards():
    known = shops()
    assert set(known) == set(cli.POD_SHOPS)
    assert {k: tuple(s.short) for k, s in known.items()} == cli.POD_SHOPS
    assert {"thegamecrafter", "makeplayingcards", "drivethrucards", "printplaygames"} <= set(known)
    for shop in known.values():
        assert shop.url.startswith("https://")
        poker = shop.product_for("poker", 63, 88)[1]
        assert poker.url.startswith("https://")
        assert poker.confirmed or poker.note, "an unconfirmed number says so"
    assert known["thegamecrafter"].products["poker"].size == (825, 1125)
    assert known["makeplayingcards"].products["poker"].size == (822, 1122)
    assert known["makeplayingcards"].products["poker"].bleed == 36


SIZE_IN_NAME = re.compile(r"\(([\d.]+) x ([\d.]+) (in|mm)\)")


@pytest.mark.parametrize("shop_id", sorted(cli.POD_SHOPS))
def test_a_size_in_a_product_name_is_the_trim_it_prints(shop_id):
    """A product named "(2.5 x 3.5 in)" prints a 2.5 x 3.5 in trim: its pixels less its bleed
    at the shop's dpi, to half a millimetre (MakePlayingCards' poker product was named 63 x 88
    mm while its template is 2.5 x 3.5 in)."""
    shop = shops()[shop_id]
    for key, product in shop.products.items():
        found = SIZE_IN_NAME.search(product.name)
        if not found:
            continue
        unit = 25.4 if found[3] == "in" else 1.0
        named = sorted([float(found[1]) * unit, float(found[2]) * unit])
        trim = sorted(shop.trim_mm(product))
        assert named == pytest.approx(trim, abs=0.5), f"{key}: {product.name} prints {trim} mm"
        assert product.url.startswith("https://")
        assert product.confirmed or product.note, f"{key}: an unconfirmed number says why"


def test_short_names_choose_a_shop_and_a_near_miss_is_suggested(tmp_path):
    from printshop.export.shops import shop_id

    assert shop_id("tgc") == shop_id("TGC") == "thegamecrafter"
    assert shop_id("mpc") == "makeplayingcards" and shop_id("dtc") == "drivethrucards"
    result = run("export", "pod", "deity", "--shop", "thegamecrafte", "--out", tmp_path / "x")
    assert result.exit_code == 1
    assert "no shop 'thegamecrafte' (did you mean 'thegamecrafter'?)" in result.output
    assert "thegamecrafter (tgc, gamecrafter)" in result.output
    assert "Traceback" not in result.output and not (tmp_path / "x").exists()


def test_a_mistake_in_shop_data_is_located():
    text = ("shops:\n  x:\n    name: X\n    url: https://x.example/\n    upload: images\n"
            "    file_type: png\n    colour: rgb\n    dpi: 300\n    backs: one\n"
            "    order: front-back\n    copies_in_name: false\n    next_steps: go\n"
            "    names: {front: '{deck}/{nope}.png', back: b.png, card_back: c.png}\n"
            "    products:\n      poker: {name: P, fits: [poker], size: [825, 1125], "
            "bleed: 37.5, safe: 37.5, url: https://x.example/, colour: red}\n")
    with pytest.raises(PrintshopError) as err:
        parse_shops(text, "shops.yaml")
    report = err.value.report()
    assert "shops.yaml:13: shops.x.names.front: unknown name field {nope}" in report
    assert "shops.yaml:15: shops.x.products.poker.colour: unknown key 'colour'" in report


# Card images

def test_the_game_crafter_gets_one_deck_per_back_at_its_size(tmp_path):
    """TGC takes one back per deck: Deity's four decks become two Poker Decks, one per
    back (nations and interventions share theirs, civilization and progression theirs)."""
    result, out = export(tmp_path, "tgc", project=None, game="deity")
    assert result.exit_code == 0, result.output
    spec = shops()["thegamecrafter"].products["poker"]
    deck = out / "civilization+progression"
    fronts = sorted(deck.glob("0*.png"))
    assert len(fronts) == 26 + 12
    assert fronts[0].name == "001-civilization-technology.png"
    for path in fronts[:3] + [deck / "back.png"]:
        im = image(path)
        assert im.size == spec.size == (825, 1125)
        assert im.info["dpi"] == pytest.approx((300, 300), abs=0.01)
    assert not list(deck.glob("*-back.png")), "one back for the deck"
    readme = (out / "README.txt").read_text()
    assert "1. Poker Deck: 8 cards, one back - 'nations' + 'interventions'" in readme
    assert "2. Poker Deck: 64 cards, one back - 'civilization' + 'progression'" in readme
    assert ("civilization+progression/001-civilization-technology.png  x2  Technology"
            in readme)
    assert "back (one for the whole order): civilization+progression/back.png" in readme
    assert "Document (8.5 x 11 in): 'turn-reference'" in readme
    assert "turn-reference.pdf from `printshop build deity --paper letter` (1 page)" in readme


def test_makeplayingcards_sizes_copies_in_names_and_the_bleed_is_the_cards_own(tmp_path):
    result, out = export(tmp_path, "makeplayingcards")
    assert result.exit_code == 0, result.output
    spec = shops()["makeplayingcards"].products["poker"]
    names = sorted(p.name for p in (out / "stalls" / "front").iterdir())
    assert names == [f"{n:03d}-{c}-x1.png" for n, c in enumerate(STALLS, start=1)]
    noodle = image(out / "stalls" / "front" / "001-noodle-cart-x1.png").convert("RGB")
    assert noodle.size == spec.size == (822, 1122)
    # the outermost pixels are the card's background, drawn into the bleed, not white paper
    for xy in [(0, 0), (821, 0), (0, 1121), (821, 1121), (411, 2)]:
        assert noodle.getpixel(xy) == FOOD
    readme = (out / "README.txt").read_text()
    assert ("tokens 'coins' (Coins): 25 x 25 mm: MakePlayingCards sells no circle chit of "
            "this size. Sold by The Game Crafter, Print & Play Games (Admagic).") in readme
    assert not (out / "coins").exists()


def test_printplaygames_takes_a_front_and_a_back_per_card(tmp_path):
    result, out = export(tmp_path, "printplaygames")
    assert result.exit_code == 0, result.output
    spec = shops()["printplaygames"]
    files = sorted(p.name for p in (out / "coins").iterdir())
    assert files == ["001-one-x12-BACK.png", "001-one-x12-FRONT.png",
                     "002-three-x6-BACK.png", "002-three-x6-FRONT.png"]
    assert image(out / "coins" / files[0]).size == spec.products["token"].size
    assert image(out / "stalls" / "001-noodle-cart-x1-FRONT.png").size == \
        spec.products["poker"].size
    assert "NOT CONFIRMED" in (out / "README.txt").read_text()


def test_the_same_data_gives_the_same_bytes(tmp_path):
    first = pod.pod_export(pod.load_one(pod.Project.open(EXAMPLE), "lantern-fair"),
                           shops()["thegamecrafter"]).files
    second = pod.pod_export(pod.load_one(pod.Project.open(EXAMPLE), "lantern-fair"),
                            shops()["thegamecrafter"]).files
    assert first == second


# DriveThruCards: one PDF per deck, back then front, PDF/X-1a in CMYK

def pdf_pages(path: Path):
    reader = PdfReader(path)
    return reader, reader.pages


def test_drivethrucards_without_ghostscript_writes_rgb_and_says_so(tmp_path, monkeypatch):
    monkeypatch.setattr(pod, "gs_binary", lambda: None)
    result, out = export(tmp_path, "drivethrucards")
    assert result.exit_code == 0, result.output
    assert "Ghostscript (gs) was not found" in result.output
    assert "Ghostscript (gs) was not found" in (out / "README.txt").read_text()
    reader, pages = pdf_pages(out / "stalls.pdf")
    assert len(pages) == 2 * len(STALLS)
    for page in pages:
        assert [round(float(v), 1) for v in page.mediabox] == [0, 0, 198.0, 270.0]
        assert [round(float(v), 1) for v in page.trimbox] == [9.0, 9.0, 189.0, 261.0]
        assert [round(float(v), 1) for v in page.bleedbox] == [0, 0, 198.0, 270.0]
    # back first: the card's name is on the second page of each pair
    assert "Noodle Cart" not in pages[0].extract_text()
    assert "Noodle Cart" in pages[1].extract_text()


@pytest.mark.skipif(shutil.which("gs") is None, reason="Ghostscript is not installed")
def test_drivethrucards_pdf_is_cmyk_pdfx_with_an_output_intent(tmp_path):
    from printshop.export.preflight import pdf_warnings

    result, out = export(tmp_path, "drivethrucards")
    assert result.exit_code == 0, result.output
    data = (out / "stalls.pdf").read_bytes()
    reader = PdfReader(io.BytesIO(data))
    assert "/OutputIntents" in reader.trailer["/Root"]
    intent = reader.trailer["/Root"]["/OutputIntents"][0].get_object()
    assert intent["/S"] == "/GTS_PDFX"
    assert reader.metadata["/GTS_PDFXVersion"] == "PDF/X-1:2003"
    assert len(reader.pages) == 12
    assert float(reader.pages[0].trimbox[0]) == pytest.approx(9.0, abs=0.05)
    rules = {w.rule for w in pdf_warnings(data, "stalls.pdf", True, None)}
    assert not rules & {"pod.cmyk", "pod.fonts"}, "no RGB left, fonts embedded"


# Pre-flight

def bad_project(tmp_path: Path, extra: str = "", no_bleed: bool = False) -> Path:
    project = tmp_path / "project"
    shutil.copytree(EXAMPLE, project)
    template = project / "templates" / "lantern-fair" / "stall.svg.j2"
    text = template.read_text()
    if no_bleed:
        text = text.replace('x="{{ -size.bleed }}" y="{{ -size.bleed }}" width="{{ size.w + 2 '
                            '* size.bleed }}" height="{{ size.h + 2 * size.bleed }}"',
                            'x="0" y="0" width="{{ size.w }}" height="{{ size.h }}"', 1)
    template.write_text(text + extra)
    return project


def test_check_flags_text_outside_the_safe_zone_and_writes_nothing(tmp_path):
    project = bad_project(tmp_path, "{% if card.id == 'ring-toss' %}{{ text('Too close', 1, 40, "
                                    "30, 6, size=8) }}{% endif %}\n")
    result, out = export(tmp_path, "thegamecrafter", "--check", project=project)
    assert result.exit_code == 1, result.output
    assert ("data/lantern-fair/stalls.yaml:4: cards[2]: [pod.safe-zone] card 'ring-toss' "
            "(front): text 'Too close' leaves the shop's safe zone by") in result.output
    assert "Traceback" not in result.output
    assert "card 'noodle-cart'" not in result.output
    assert not out.exists()


def test_check_of_a_clean_game_passes(tmp_path):
    result, out = export(tmp_path, "makeplayingcards", "--check")
    assert result.exit_code == 0, result.output
    assert "pre-flight for makeplayingcards: 0 warnings" in result.output
    assert not out.exists()


def test_check_flags_a_bleed_left_blank(tmp_path):
    result, _ = export(tmp_path, "makeplayingcards", "--check",
                       project=bad_project(tmp_path, no_bleed=True))
    assert result.exit_code == 1
    assert "[pod.bleed] card 'noodle-cart' (front): the bleed is not filled" in result.output


def test_a_deck_no_product_fits_is_a_located_error(tmp_path):
    project = bad_project(tmp_path)
    manifest = project / "data" / "lantern-fair" / "game.yaml"
    manifest.write_text(manifest.read_text().replace("size: poker", "size: [100, 100]")
                        .replace("size: token", "size: [11, 11]"))
    result, out = export(tmp_path, "makeplayingcards", project=project)
    assert result.exit_code == 1
    assert "data/lantern-fair/game.yaml: no component of lantern-fair fits a product of " \
           "MakePlayingCards" in result.output
    assert "Traceback" not in result.output and not out.exists()


@pytest.mark.parametrize("game_id", ["deity", "pocketciv", "playing-gods", "cvlizations",
                                     "civilizations-cards"])
def test_built_in_card_text_stays_inside_the_safe_margin(game_id):
    """Every word on every built-in card and token sits 3 mm inside the trim, so no shop's
    pre-flight (3.1-3.2 mm with rounding) and no home cutter's wobble takes a letter off."""
    from printshop.components.base import SAFE_MARGIN
    from printshop.export import DECK_KINDS, drawn_cards, load_one
    from printshop.export.preflight import TOLERANCE_MM, text_runs
    from printshop.load.geometry import PrintOptions
    from printshop.files.project import Project, builtin_root

    game = load_one(Project.open(builtin_root()), game_id)
    outside = []
    for part in game.parts:
        if part.kind not in DECK_KINDS:
            continue
        for card, front, back in drawn_cards(game, part, PrintOptions()):
            for side, face in (("front", front), ("back", back)):
                if face is None:
                    continue
                for text, (x0, y0, x1, y1) in text_runs(face.svg):
                    over = max(SAFE_MARGIN - x0, SAFE_MARGIN - y0, x1 - (face.w - SAFE_MARGIN),
                               y1 - (face.h - SAFE_MARGIN))
                    if over > TOLERANCE_MM:
                        outside.append(f"{part.id}/{card.id} {side}: {text[:30]!r} by {over:.1f}")
    assert not outside, "\n".join(sorted(set(outside)))


# Products, not decks: each game's components grouped into each shop's products

GAMES = ["civilizations-cards", "cvlizations", "deity", "playing-gods", "pocketciv"]


def orders_of(game_id: str, shop_key: str):
    """Group a built-in game's decks into a shop's orders (faces drawn as SVG, not rasterised)."""
    from printshop.export.products import group, match
    from printshop.files.project import Project, builtin_root

    game = pod.load_one(Project.open(builtin_root()), game_id)
    shop = shops()[shop_key]
    found = match(game, shop)
    orders = []
    for key, parts in found.cards.items():
        pieces, _ = pod.draw_pieces(game, shop, shop.products[key], parts, [])
        orders += group(shop, key, shop.products[key], pieces)
    return game, found, orders


def summary(orders):
    return [(o.id, o.key, o.count, len({p.back.svg for p in o.pieces})) for o in orders]


@pytest.mark.parametrize("game_id", GAMES)
def test_every_component_is_sold_somewhere_or_said_why_not(game_id):
    from printshop.export.products import match
    from printshop.files.project import Project, builtin_root

    game = pod.load_one(Project.open(builtin_root()), game_id)
    placed, why = set(), {}
    for shop in shops().values():
        found = match(game, shop)
        placed |= {p.id for parts in found.cards.values() for p in parts}
        placed |= {o.parts[0].id for o in found.sheets}
        for part, reason in found.missing:
            why.setdefault(part.id, reason)
    for part in game.parts:
        assert part.id in placed or why.get(part.id), part.id
    left = sorted(p.id for p in game.parts if p.id not in placed)
    assert left == {"playing-gods": ["chips", "idols"]}.get(game_id, [])
    if game_id == "playing-gods":
        assert why["chips"] == ("22 x 22 mm: The Game Crafter sells no circle chit of this "
                                "size (its sizes: 19 x 19, 25 x 25, 38 x 38 mm)")
        assert "37 x 168 mm" in why["idols"]


def test_deity_is_one_72_card_deck_with_mixed_backs_where_backs_go_per_card():
    for shop in ("makeplayingcards", "drivethrucards", "printplaygames"):
        _, _, orders = orders_of("deity", shop)
        assert summary(orders) == [("poker", "poker", 72, 2)], shop
        assert [p.id for p in orders[0].parts] == ["nations", "civilization", "progression",
                                                   "interventions"]
    _, _, orders = orders_of("deity", "thegamecrafter")
    assert summary(orders) == [("nations+interventions", "poker", 8, 1),
                               ("civilization+progression", "poker", 64, 1)]
    assert [o.note for o in orders] == ["", ""], "no deck was split"


def test_a_deck_with_two_backs_is_split_where_the_shop_takes_one():
    _, _, orders = orders_of("civilizations-cards", "thegamecrafter")
    assert summary(orders) == [("double-deck-1", "poker", 55, 1),
                               ("double-deck-2", "poker", 55, 1)]
    assert orders[0].note == orders[1].note == (
        "deck 'double-deck' is split over 2 orders: its cards have different backs and The "
        "Game Crafter takes one back per Poker Deck")
    _, _, orders = orders_of("civilizations-cards", "makeplayingcards")
    assert summary(orders) == [("double-deck", "poker", 110, 2)]
    _, _, orders = orders_of("cvlizations", "thegamecrafter")
    by_key = {}
    for o in orders:
        by_key.setdefault(o.key, []).append((o.count, len({p.back.svg for p in o.pieces})))
    assert all(backs == 1 for _, backs in by_key["poker"]), "a Poker Deck has one back"
    assert sum(c for c, _ in by_key["poker"]) == 5 * 8 + 48
    assert len(by_key["poker"]) > 2, "the ideas' two backs are two decks"
    # chits are sold one design at a time, each with its own back
    assert [c for c, _ in by_key["medium-circle-chit"]] == [104]
    assert by_key["tarot"] == [(4, 1)]


def test_pocketcivs_counters_are_chits_and_its_book_a_booklet():
    game, found, orders = orders_of("pocketciv", "thegamecrafter")
    keys = {o.parts[0].id: o.key for o in orders if len(o.parts) == 1}
    assert keys["counters"] == "small-square-chit" and keys["cities"] == "small-circle-chit"
    sheets = {o.parts[0].id: (o.key, round(o.scale, 2)) for o in found.sheets}
    assert sheets["scenarios"] == ("medium-booklet", 0.94)
    assert not found.missing


def test_an_order_larger_than_the_product_is_split():
    from printshop.export.products import group

    game, found, _ = orders_of("civilizations-cards", "makeplayingcards")
    shop = shops()["makeplayingcards"]
    data = shop.products["poker"].model_dump()
    data["quantity"]["max"] = 60
    product = Product(**data)
    pieces, _ = pod.draw_pieces(game, shop, product, found.cards["poker"], [])
    orders = group(shop, "poker", product, pieces)
    assert [o.id for o in orders] == ["double-deck-1", "double-deck-2"]
    assert [o.count for o in orders] == [60, 50]
    assert "one Poker size cards (2.5 x 3.5 in) order holds at most 60 cards" in orders[0].note
    assert shop.products["poker"].quantity.ordered(50) == 54, "MPC's steps of 18"


BOARD_SHOP = """shops:
  boards:
    name: Board Shop
    url: https://boards.example/
    upload: images
    file_type: png
    colour: rgb
    dpi: 72
    backs: one
    order: front-back
    copies_in_name: false
    next_steps: go
    names: {{front: 'a.png', back: b.png, card_back: c.png}}
    products:
      board: {{name: Board, kind: board, size: [{w}, {h}], bleed: 0, safe: 0,
              url: https://boards.example/b}}
"""


@pytest.mark.parametrize("w, h", [(1440, 1152), (1152, 1440)])
def test_a_board_is_one_image_at_its_products_size_turned_to_fit(tmp_path, w, h):
    """A 400 x 300 mm board on a 20 x 16 in board (16 x 20 in: turned) at 72 dpi, at its own
    size, centred on white."""
    from test_tts import board_project

    shop = parse_shops(BOARD_SHOP.format(w=w, h=h), "shops.yaml")["boards"]
    game = pod.load_one(pod.Project.open(board_project(tmp_path)), "lantern-fair")
    result = pod.pod_export(game, shop)
    im = Image.open(io.BytesIO(result.files["map.png"])).convert("RGB")
    assert im.size == (w, h)
    import numpy as np
    ys, xs = np.nonzero(np.all(np.asarray(im) == (0x77, 0xaa, 0x66), axis=2))
    long_px, short_px = 400 / 25.4 * 72, 300 / 25.4 * 72
    bw, bh = (long_px, short_px) if w > h else (short_px, long_px)
    assert max(xs) - min(xs) + 1 == pytest.approx(bw, abs=2)
    assert max(ys) - min(ys) + 1 == pytest.approx(bh, abs=2)
    assert (min(xs) + max(xs)) / 2 == pytest.approx(w / 2, abs=1.5), "centred"
    assert im.getpixel((0, 0)) == (255, 255, 255)
    assert "1. Board: 'map'" in result.readme and "file: map.png" in result.readme
    assert "deck 'stalls'" in result.readme.split("Not sold by Board Shop:")[1]
