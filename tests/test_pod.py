"""Print-on-demand uploads: shop sizes from shops.yaml, names, backs, README, PDF/X, pre-flight."""

from __future__ import annotations

import io
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner
from PIL import Image
from pypdf import PdfReader

from conftest import EXAMPLE
from printshop import cli
from printshop.cli import main
from printshop.errors import PrintshopError
from printshop.export import pod
from printshop.export.shops import parse_shops, shops

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
    assert {"thegamecrafter", "makeplayingcards", "drivethrucards", "printplaygames"} <= set(known)
    for shop in known.values():
        assert shop.url.startswith("https://")
        poker = shop.product_for("poker", 63, 88)[1]
        assert poker.url.startswith("https://")
        assert poker.confirmed or poker.note, "an unconfirmed number says so"
    assert known["thegamecrafter"].products["poker"].size == (825, 1125)
    assert known["makeplayingcards"].products["poker"].size == (822, 1122)
    assert known["makeplayingcards"].products["poker"].bleed == 36


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

def test_the_game_crafter_gets_poker_fronts_at_its_size_and_one_back(tmp_path):
    result, out = export(tmp_path, "thegamecrafter", project=None, game="deity")
    assert result.exit_code == 0, result.output
    spec = shops()["thegamecrafter"].products["poker"]
    fronts = sorted((out / "civilization").glob("0*.png"))
    assert fronts and fronts[0].name == "001-technology.png"
    for path in fronts + [out / "civilization" / "back.png"]:
        im = image(path)
        assert im.size == spec.size == (825, 1125)
        assert im.info["dpi"] == pytest.approx((300, 300), abs=0.01)
    assert not list((out / "civilization").glob("*-back.png")), "one back for the deck"
    readme = (out / "README.txt").read_text()
    assert "Deck 'civilization' (Civilization deck): Poker Deck, 52 cards, 26 distinct" in readme
    assert "civilization/001-technology.png  x2  Technology" in readme
    assert "back (one for the whole deck): civilization/back.png" in readme


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
    assert "tokens 'coins' (25 x 25 mm): MakePlayingCards has no product of this size" in readme
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
    assert "data/lantern-fair/game.yaml: no deck of lantern-fair fits a product of " \
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
    from printshop.geometry import PrintOptions
    from printshop.project import Project, builtin_root

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
