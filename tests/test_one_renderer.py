"""One renderer for every output: a card's PNG, its Tabletop Simulator cell and its
print-on-demand upload are its PDF page in pixels, and abutting shapes show no seam."""

from __future__ import annotations

import io
import math
import re
import shutil
import subprocess
import sys

import numpy as np
import pytest
from PIL import Image

from conftest import EXAMPLE, REPO
from printshop.write import pdf, raster
from printshop.export import drawing, drawn_cards, load_one
from printshop.export import images, pod, tts
from printshop.export.shops import shop as find_shop
from printshop.load.geometry import PrintOptions, card_size
from printshop.layout.impose import Face, Nested, Page
from printshop.files.project import Project

DPI = 300
PT = 72 / 25.4           # points per mm
EDGE = 2                 # pixels at the image's edge left out: a render of a page whose size
                         # is not whole pixels covers its last row and column in part
PAIRED = "Pair it with"  # the Wrath attack cards' line that cairosvg set as "withWater"
ELEMENTS = {"Earth", "Water", "Fire", "Air"}

needs_poppler = pytest.mark.skipif(shutil.which("pdftoppm") is None or
                                   shutil.which("pdftotext") is None,
                                   reason="poppler-utils (pdftoppm, pdftotext) not installed")


def pdf_render(pages: list[Page], size: tuple[int, int], folder) -> tuple[list, list]:
    """Return each page drawn by the PDF (pdftoppm at exactly ``size`` pixels, RGB arrays)
    and its words with their boxes in points (pdftotext -bbox)."""
    folder.mkdir(exist_ok=True)
    file = folder / "pages.pdf"
    file.write_bytes(pdf.pages_to_pdf(pages, "one renderer"))
    subprocess.run(["pdftoppm", "-png", "-r", str(DPI), "-scale-to-x", str(size[0]),
                    "-scale-to-y", str(size[1]), str(file), str(folder / "p")], check=True)
    renders = [rgb(Image.open(p))[:size[1], :size[0]]
               for p in sorted(folder.glob("p-*.png"))]
    html = subprocess.run(["pdftotext", "-bbox", str(file), "-"], check=True,
                          capture_output=True, text=True).stdout
    words = [[(w, *map(float, box)) for *box, w in re.findall(
        r'<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="([\d.]+)">([^<]*)</word>',
        page)] for page in html.split("<page ")[1:]]
    assert len(renders) == len(words) == len(pages)
    return renders, words


def rgb(image) -> np.ndarray:
    return np.asarray(image.convert("RGB")).astype(int)


def differences(ref: np.ndarray, img: np.ndarray) -> tuple[float, float]:
    """Return the share of pixels more than 128 levels apart in some channel, and the largest
    difference of the mean colour of 8 x 8 pixel cells (both without the image's edge)."""
    ref, img = ref[EDGE:-EDGE, EDGE:-EDGE], img[EDGE:-EDGE, EDGE:-EDGE]
    far = (np.abs(ref - img).max(axis=2) > 128).mean()
    h, w = (ref.shape[0] // 8) * 8, (ref.shape[1] // 8) * 8

    def cells(a):
        return a[:h, :w].reshape(h // 8, 8, w // 8, 8, 3).mean(axis=(1, 3))
    return far, float(np.abs(cells(ref) - cells(img)).max())


def assert_same_pixels(ref: np.ndarray, img: np.ndarray, what: str) -> None:
    """The image is the PDF's render up to antialiasing: glyph edges placed a fraction of a
    pixel apart (poppler's Splash rounds glyph origins to whole pixels), never a shape or a
    word out of place. Measured: under 0.4% of pixels and 8 x 8 cells within 41 levels where
    the images agree; cairosvg's images, with words moved, 1.1% and 108 levels or more."""
    assert ref.shape == img.shape, what
    far, cell = differences(ref, img)
    assert far < 0.006 and cell < 64, f"{what}: {far:.2%} of pixels differ, a cell by {cell:.0f}"


def assert_gap_kept(img: np.ndarray, ref: np.ndarray, words: list, scale: tuple,
                    what: str) -> None:
    """Between 'with' and the element after it ('Water', 'Fire'...: boxes from the PDF's
    text layer, in points) the image is as blank as the PDF's render: the space is there.
    Where the line breaks between them, the same is asked of 'Kills' and the bold count
    after it: another space between a regular and a bold run on one line."""
    at = [i for i, w in enumerate(words) if words[i - 1][0] == "with" and w[0] in ELEMENTS]
    assert at, f"{what}: the PDF reads no 'with' and an element"
    if abs(words[at[0]][2] - words[at[0] - 1][2]) > 1:     # on the next line
        at = [i for i, w in enumerate(words) if words[i - 1][0] == "Kills" and w[0].isdigit()
              and abs(w[2] - words[i - 1][2]) <= 1]
        assert at, f"{what}: 'with' ends a line, and no 'Kills N' shares one"
    (_, _, top, left, bottom), (_, right, _, _, _) = words[at[0] - 1], words[at[0]]
    sx, sy = scale
    x0, x1 = math.ceil(left * sx) + 1, math.floor(right * sx) - 1
    y0, y1 = round(top * sy), round(bottom * sy)
    assert x1 - x0 >= 1, f"{what}: no room between the words to look at"
    lum = np.array([0.299, 0.587, 0.114])
    mine, theirs = img[y0:y1, x0:x1 + 1] @ lum, ref[y0:y1, x0:x1 + 1] @ lum
    assert theirs.max() - theirs.min() < 40, f"{what}: the PDF's own gap is not blank"
    assert (theirs - mine).max() < 40, f"{what}: ink between 'with' and '{words[at[0]][0]}'"


@pytest.fixture(scope="module")
def wrath():
    """Playing Gods' Wrath deck: the game, the deck, and its attack cards (front faces)."""
    game = load_one(Project.open(None), "playing-gods")
    part = next(p for p in game.parts if p.id == "wrath")
    cards = drawn_cards(game, part, PrintOptions())
    attacks = [(card, front) for card, front, _ in cards if PAIRED in front.svg]
    assert len(attacks) == 16
    return game, part, attacks


@needs_poppler
def test_card_pngs_are_their_pdf_pages_in_pixels_with_every_space(wrath, tmp_path):
    game, part, attacks = wrath
    files = images.card_images(game, DPI, deck="wrath")
    pngs = [rgb(Image.open(io.BytesIO(files[f"wrath/{card.id}.png"])))
            for card, _ in attacks]
    size = pngs[0].shape[1], pngs[0].shape[0]
    assert size == images.face_size(attacks[0][1], DPI)
    pages = [Page(face.w, face.h, [Nested(face, 0.0, 0.0)]) for _, face in attacks]
    renders, words = pdf_render(pages, size, tmp_path / "png")
    scale = (size[0] / (attacks[0][1].w * PT), size[1] / (attacks[0][1].h * PT))
    for (card, _), png, ref, page_words in zip(attacks, pngs, renders, words):
        assert_same_pixels(ref, png, f"wrath/{card.id}.png")
        assert_gap_kept(png, ref, page_words, scale, f"wrath/{card.id}.png")


@needs_poppler
def test_tts_cells_and_pod_uploads_are_the_pdf_in_pixels(wrath, tmp_path):
    game, part, attacks = wrath
    # Tabletop Simulator: the cell of the sheet holding each attack card
    faces = tts.FaceImages(game)
    plan = tts.plan_deck(game, part, 1, tts.DEFAULT_DPI, faces)
    faces.draw()
    tts.compose_deck(plan, faces)
    sheet, = plan.sheets
    grid = rgb(Image.open(io.BytesIO(plan.files[sheet.face_file])))
    cw, ch = plan.card_px
    ids = [card.id for card, _, _ in sheet.cards]
    w, h = card_size(part.spec.size)
    pages = [Page(face.w, face.h, [Nested(face, 0.0, 0.0)]) for _, face in attacks]
    renders, words = pdf_render(pages, (cw, ch), tmp_path / "tts")
    for (card, _), ref, page_words in zip(attacks, renders, words):
        slot = ids.index(card.id)
        cell = grid[(slot // sheet.cols) * ch:(slot // sheet.cols + 1) * ch,
                    (slot % sheet.cols) * cw:(slot % sheet.cols + 1) * cw]
        assert_same_pixels(ref, cell, f"TTS cell of {card.id}")
        assert_gap_kept(cell, ref, page_words, (cw / (w * PT), ch / (h * PT)),
                        f"TTS cell of {card.id}")
    # print on demand: The Game Crafter's poker upload, bleed included
    shop = find_shop("thegamecrafter")
    product = shop.products["poker"]
    g = pod.geometry(shop, product, w, h)
    from printshop.components.deck import card_faces
    card = attacks[0][0]
    with drawing(game, part.id):
        face, _ = card_faces(game, part, PrintOptions(bleed=g.bleed), card)
        upload = rgb(raster.on_white(pod.upload_image(face, g, product)))
    page = Page(w + 2 * g.bleed_x, h + 2 * g.bleed_y, [Nested(face, g.bleed_x, g.bleed_y)])
    (ref,), (page_words,) = pdf_render([page], product.size, tmp_path / "pod")
    assert_same_pixels(ref, upload, f"The Game Crafter upload of {card.id}")
    assert_gap_kept(upload, ref, page_words, (g.per_mm / PT, g.per_mm / PT),
                    f"The Game Crafter upload of {card.id}")


# Seams

BAND, PAPER = (0x2B, 0x50, 0x6E), (0xF5, 0xEE, 0xDF)


def _hex(c) -> str:
    return "#%02x%02x%02x" % c


def header_card(w: float = 63.0, h: float = 88.0, bleed: float = 3.0) -> Face:
    """A card drawn as PocketCiv's advances are: a band colour to the bleed, a paper panel
    inside, and a header band laid over the panel's top, edge on edge."""
    return Face(f'<rect x="{-bleed}" y="{-bleed}" width="{w + 2 * bleed}" '
                f'height="{h + 2 * bleed}" fill="{_hex(BAND)}"/>'
                f'<rect x="2.1" y="2.1" width="{w - 4.2}" height="{h - 4.2}" rx="2.5" '
                f'fill="{_hex(PAPER)}"/>'
                f'<rect x="2.1" y="2.1" width="{w - 4.2}" height="13" rx="2.5" '
                f'fill="{_hex(BAND)}"/>', w, h, bleed)


def lighter(pixels: np.ndarray, colour) -> int:
    """Return how much lighter than ``colour`` the lightest of the pixels is (levels)."""
    return int((pixels[..., :3].astype(int) - np.array(colour)).max())


@pytest.mark.parametrize("dpi", [100, 150, 300, 317])
def test_no_seam_where_a_header_band_meets_the_band_under_it(dpi):
    face = header_card()
    img = np.asarray(images.face_image(face, *images.face_size(face, dpi)))
    px = dpi / 25.4
    row = img[round(8.5 * px), :round(6 * px)]                 # across the header's left edge
    column = img[:round(6 * px), round(30 * px)]               # across its top edge
    assert lighter(row, BAND) <= 2 and lighter(column, BAND) <= 2
    assert lighter(img[round(40 * px), round(30 * px)], PAPER) <= 2   # the panel is drawn


def test_no_seam_between_neighbouring_backs():
    back = Face(f'<rect x="-3" y="-3" width="69" height="94" fill="{_hex(BAND)}"/>',
                63.0, 88.0, 3.0)
    # three backs edge on edge (bleed on bleed), at positions that fall inside pixels
    page = Page(230.0, 100.0, [Nested(back, 3.37 + i * 69.0, 5.0) for i in range(3)])
    img = np.asarray(raster.page_image(page, 1, 1, (2717, 1181)))   # about 300 dpi
    row = img[600, round(3.37 * 11.81):round((3.37 + 3 * 69.0 - 6) * 11.81)]
    assert lighter(row, BAND) <= 2


def test_tts_sheet_cells_sit_on_whole_pixels():
    face = header_card()
    cell = (109, 151)
    sheet = Image.open(io.BytesIO(tts.compose(
        {i: images.face_image(face, *cell) for i in range(3)}, 3, 1, cell)))
    img = np.asarray(sheet.convert("RGB"))
    for x in (cell[0] - 1, cell[0], 2 * cell[0] - 1, 2 * cell[0]):
        assert lighter(img[10:140, x], BAND) <= 2


# Where cairosvg still draws

def test_the_exports_of_the_builtin_games_do_not_load_cairosvg(tmp_path):
    code = ("import sys; from printshop.export.images import card_images; "
            "from printshop.export import load_one; from printshop.files.project import Project; "
            "card_images(load_one(Project.open(None), 'playing-gods'), 30, deck='wrath'); "
            "print('cairosvg' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True,
                         text=True, check=True).stdout
    assert out.strip() == "False"


def test_a_face_with_foreign_svg_is_drawn_by_cairosvg_into_the_same_image():
    face = Face('<defs><linearGradient id="g"><stop offset="0" stop-color="#f00"/>'
                '<stop offset="1" stop-color="#00f"/></linearGradient></defs>'
                '<rect x="0" y="0" width="20" height="10" fill="url(#g)"/>', 20.0, 10.0, 0.0)
    img = np.asarray(images.face_image(face, 200, 100))
    left, right = img[50, 5], img[50, 194]
    assert left[0] > 200 and left[2] < 60 and right[2] > 200 and right[0] < 60
    assert img.shape == (100, 200, 3)   # opaque: RGB


def test_round_tokens_are_transparent_outside_their_circle_in_bands(monkeypatch):
    face = Face('<circle cx="10" cy="10" r="12" fill="#c2571a"/>', 20.0, 20.0, 1.5, "circle")
    whole = images.face_image(face, 200, 200)
    monkeypatch.setattr(raster, "BAND_SAMPLES", 200 * 16 * 7)   # 7 rows a band
    banded = images.face_image(face, 200, 200)
    assert whole.tobytes() == banded.tobytes()
    assert whole.getpixel((0, 0))[3] == 0 and whole.getpixel((100, 100)) == (0xC2, 0x57, 0x1A,
                                                                             255)


def test_images_are_byte_identical_on_a_second_run():
    game = load_one(Project.open(EXAMPLE), "lantern-fair")
    first = images.card_images(game, 60)
    assert first == images.card_images(game, 60)
