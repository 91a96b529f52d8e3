"""Print geometry, measured on the PDFs themselves: card sizes, backs behind fronts, boxes, marks.

A test game paints each card's trim area in its own colour and its bleed grey; the PDFs are
rendered without anti-aliasing at 10 pixels per millimetre and the coloured areas measured.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from PIL import Image, ImageChops
from pypdf import PdfReader

from printshop.build import build
from printshop.load.geometry import PrintOptions
from printshop.files.project import Project

PX_PER_MM = 10
TOL = 0.1 + 1e-6  # one pixel at 10 px/mm: the measurement's own resolution
MM = 72 / 25.4
COLOURS = ["#c81e1e", "#1ec81e", "#1e1ec8", "#c8c81e", "#c81ec8", "#1ec8c8", "#f08c00",
           "#8c00f0", "#00f08c", "#643200", "#006432", "#320064"]
GREY = (128, 128, 128)

MANIFEST = """
name: Geometry Test
components:
  - id: cards
    kind: deck
    name: Test cards
    size: {size}
    data: cards.yaml
    front: face.svg.j2
    back: face.svg.j2
    fields:
      colour: {{type: str}}
"""
FACE = """<rect x="{{ -size.bleed }}" y="{{ -size.bleed }}" width="{{ size.w + 2 * size.bleed }}" \
height="{{ size.h + 2 * size.bleed }}" fill="#808080"/>
<rect x="0" y="0" width="{{ size.w }}" height="{{ size.h }}" fill="{{ card.colour }}"/>
{{ text(card.name ~ ' ' ~ side, 4, 4, size.w - 8, 8, size=9) }}"""


def make_project(root: Path, size="poker", n=len(COLOURS)) -> Path:
    data = root / "data" / "geo"
    tpl = root / "templates" / "geo"
    data.mkdir(parents=True)
    tpl.mkdir(parents=True)
    (data / "game.yaml").write_text(MANIFEST.format(size=size))
    cards = "\n".join(f"  - {{id: c{i}, name: 'Card {i}', colour: '{c}'}}"
                      for i, c in enumerate(COLOURS[:n]))
    (data / "cards.yaml").write_text("cards:\n" + cards + "\n")
    (tpl / "face.svg.j2").write_text(FACE)
    return root


def rgb(hex_colour: str) -> tuple[int, int, int]:
    return tuple(int(hex_colour[i:i + 2], 16) for i in (1, 3, 5))


def render(pdf: Path, tmp: Path) -> list[Image.Image]:
    if shutil.which("pdftoppm") is None:
        pytest.skip("pdftoppm (poppler-utils) is not installed")
    prefix = tmp / f"{pdf.stem}-px"
    subprocess.run(["pdftoppm", "-r", str(int(25.4 * PX_PER_MM)), "-aa", "no", "-aaVector", "no",
                    "-png", str(pdf), str(prefix)], check=True, capture_output=True)
    return [Image.open(p).convert("RGB") for p in sorted(tmp.glob(f"{pdf.stem}-px-*.png"))]


def colour_mask(img: Image.Image, colour) -> Image.Image:
    """Return a mask of the pixels within a few levels of ``colour`` on every channel."""
    r, g, b = ImageChops.difference(img, Image.new("RGB", img.size, colour)).split()
    worst = ImageChops.lighter(ImageChops.lighter(r, g), b)
    return worst.point(lambda v: 255 if v < 24 else 0)


def bbox(img: Image.Image, colour) -> tuple[float, float, float, float] | None:
    """Return the (x0, y0, x1, y1) in mm of the pixels of one colour."""
    box = colour_mask(img, colour).getbbox()
    return None if box is None else tuple(v / PX_PER_MM for v in box)


def page_mm(reader: PdfReader, index: int) -> tuple[float, float]:
    """Return a page's width and height in mm, from its MediaBox."""
    box = reader.pages[index].mediabox
    return float(box.width) / MM, float(box.height) / MM


def built(tmp_path: Path, size="poker", n=len(COLOURS), **options) -> Path:
    root = make_project(tmp_path / "proj", size, n)
    out = tmp_path / "out"
    build(Project.open(root), [], PrintOptions(**options), out, jobs=1)
    return out / "geo" / "cards.pdf"


@pytest.mark.parametrize("paper", ["a4", "letter"])
@pytest.mark.parametrize("size,w,h", [("poker", 63, 88), ("bridge", 57, 89), ("tarot", 70, 120)])
def test_cards_measure_their_nominal_size(tmp_path, paper, size, w, h):
    pdf = built(tmp_path, size, n=4, paper=paper, backs="none")
    page = render(pdf, tmp_path)[0]
    for colour in COLOURS[:4]:
        x0, y0, x1, y1 = bbox(page, rgb(colour))
        assert abs((x1 - x0) - w) <= TOL, (colour, x1 - x0)
        assert abs((y1 - y0) - h) <= TOL, (colour, y1 - y0)


@pytest.mark.parametrize("paper,size", [("a4", "poker"), ("letter", "poker"), ("a4", "tarot")])
@pytest.mark.parametrize("offset", [(0.0, 0.0), (1.5, -0.8)])
def test_duplex_back_lands_behind_its_front(tmp_path, paper, size, offset):
    pdf = built(tmp_path, size, paper=paper, backs="duplex", back_offset=offset)
    pages = render(pdf, tmp_path)
    reader = PdfReader(pdf)
    assert len(pages) % 2 == 0
    for i in range(0, len(pages), 2):
        front, back = pages[i], pages[i + 1]
        width, height = page_mm(reader, i)
        landscape = width > height
        placed = 0
        for colour in COLOURS:
            f = bbox(front, rgb(colour))
            if f is None:
                continue
            b = bbox(back, rgb(colour))
            assert b is not None, f"card {colour} has no back on page {i + 2}"
            # A long-edge flip mirrors a portrait sheet left-right, a landscape one top-bottom.
            if landscape:
                want = (f[0], height - f[3], f[2], height - f[1])
            else:
                want = (width - f[2], f[1], width - f[0], f[3])
            want = (want[0] + offset[0], want[1] + offset[1], want[2] + offset[0],
                    want[3] + offset[1])
            assert all(abs(a - e) <= TOL for a, e in zip(b, want)), (colour, b, want)
            placed += 1
        assert placed > 0
        assert float(reader.pages[i].mediabox.width) == float(reader.pages[i + 1].mediabox.width)


def test_gutter_fold_puts_each_back_mirrored_across_the_fold(tmp_path):
    pdf = built(tmp_path, "poker", n=6, backs="fold")
    page = render(pdf, tmp_path)[0]
    width, height = page_mm(PdfReader(pdf), 0)
    # Each colour appears twice: once per half, mirrored about the fold line.
    target_found = 0
    for colour in COLOURS[:6]:
        mask = colour_mask(page, rgb(colour))
        left = mask.crop((0, 0, page.size[0] // 2, page.size[1])).getbbox()
        right = mask.crop((page.size[0] // 2, 0, page.size[0], page.size[1])).getbbox()
        top = mask.crop((0, 0, page.size[0], page.size[1] // 2)).getbbox()
        bottom = mask.crop((0, page.size[1] // 2, page.size[0], page.size[1])).getbbox()
        if left and right:
            l0 = left[0] / PX_PER_MM
            r1 = (right[2] + page.size[0] // 2) / PX_PER_MM
            assert abs((width - r1) - l0) <= TOL
            target_found += 1
        elif top and bottom:
            t0 = top[1] / PX_PER_MM
            b1 = (bottom[3] + page.size[1] // 2) / PX_PER_MM
            assert abs((height - b1) - t0) <= TOL
            target_found += 1
    assert target_found >= 1


def test_bleed_surrounds_each_card(tmp_path):
    pdf = built(tmp_path, "poker", n=2, backs="none", bleed=3)
    page = render(pdf, tmp_path)[0]
    x0, y0, x1, y1 = bbox(page, rgb(COLOURS[0]))
    for mx, my in ((x0 - 1.5, (y0 + y1) / 2), ((x0 + x1) / 2, y0 - 1.5),
                   (x1 + 1.5, (y0 + y1) / 2), ((x0 + x1) / 2, y1 + 1.5)):
        assert page.getpixel((int(mx * PX_PER_MM), int(my * PX_PER_MM))) == GREY


def test_zero_bleed_is_allowed(tmp_path):
    pdf = built(tmp_path, "poker", n=9, backs="none", bleed=0)
    reader = PdfReader(pdf)
    page = render(pdf, tmp_path)[0]
    assert page.getpixel((page.size[0] // 2, page.size[1] // 2)) != GREY
    # Without bleed, nine poker cards fit on one A4 page.
    assert len(reader.pages) == 1


def test_crop_marks_extend_every_trim_line_into_the_margin(tmp_path):
    pdf = built(tmp_path, "poker", n=8, backs="none")
    page = render(pdf, tmp_path)[0]
    boxes = [bbox(page, rgb(c)) for c in COLOURS[:8]]
    top = min(b[1] for b in boxes) - 3  # outer edge of the bleed
    xs = sorted({round(v, 1) for b in boxes for v in (b[0], b[2])})
    for x in xs:
        column = [page.getpixel((int(round(x * PX_PER_MM)) + dx, int((top - 2.5) * PX_PER_MM)))
                  for dx in (-1, 0, 1)]
        assert any(sum(p) < 200 for p in column), f"no crop mark at x={x} mm"


def test_no_crop_marks_when_turned_off(tmp_path):
    pdf = built(tmp_path, "poker", n=8, backs="none", crop_marks=False)
    page = render(pdf, tmp_path)[0]
    boxes = [bbox(page, rgb(c)) for c in COLOURS[:8]]
    top = min(b[1] for b in boxes) - 3
    strip = page.crop((0, 0, page.size[0], int((top - 0.5) * PX_PER_MM)))
    assert strip.convert("L").getextrema()[0] > 200


def test_single_card_pages_carry_trim_and_bleed_boxes(tmp_path):
    pdf = built(tmp_path, "poker", n=3, layout="single", bleed=3)
    reader = PdfReader(pdf)
    assert len(reader.pages) == 6  # front, back, front, back...
    for page in reader.pages:
        trim, bleed, media = page.trimbox, page.bleedbox, page.mediabox
        assert abs(float(trim.width) - 63 * MM) < 0.1 * MM
        assert abs(float(trim.height) - 88 * MM) < 0.1 * MM
        assert abs(float(bleed.width) - 69 * MM) < 0.1 * MM
        assert abs(float(bleed.height) - 94 * MM) < 0.1 * MM
        assert float(bleed.left) <= float(trim.left) and float(media.width) >= float(bleed.width)
        # The trim box is centred in the bleed box: 3 mm on every side.
        assert abs(float(trim.left) - float(bleed.left) - 3 * MM) < 0.01 * MM
        assert abs(float(bleed.top) - float(trim.top) - 3 * MM) < 0.01 * MM
    images = render(pdf, tmp_path)
    x0, y0, x1, y1 = bbox(images[0], rgb(COLOURS[0]))
    assert abs(x0 - float(reader.pages[0].trimbox.left) / MM) <= TOL
    assert abs(images[1].getpixel((images[1].size[0] // 2, images[1].size[1] // 2))[0] - 0xc8) < 4


@pytest.mark.parametrize("paper,size", [("a4", (595.28, 841.89)), ("letter", (612.0, 792.0))])
def test_paper_sizes(tmp_path, paper, size):
    pdf = built(tmp_path, "poker", n=2, paper=paper, backs="none")
    box = PdfReader(pdf).pages[0].mediabox
    assert sorted((round(float(box.width), 1), round(float(box.height), 1))) == \
        sorted((round(size[0], 1), round(size[1], 1)))


def test_fonts_are_embedded_and_subset(tmp_path):
    pdf = built(tmp_path, "poker", n=2)
    reader = PdfReader(pdf)
    fonts = []
    for page in reader.pages:
        resources = page["/Resources"]
        stack = [resources]
        while stack:
            res = stack.pop().get_object()
            for font in (res.get("/Font") or {}).values():
                fonts.append(font.get_object())
            for xobj in (res.get("/XObject") or {}).values():
                xobj = xobj.get_object()
                if "/Resources" in xobj:
                    stack.append(xobj["/Resources"])
    assert fonts
    for font in fonts:
        descriptor = font.get("/FontDescriptor")
        if descriptor is None:  # composite font: the descriptor sits on the descendant
            descriptor = font["/DescendantFonts"][0].get_object()["/FontDescriptor"]
        descriptor = descriptor.get_object()
        assert any(k in descriptor for k in ("/FontFile", "/FontFile2", "/FontFile3"))
        assert "+" in str(font["/BaseFont"])  # subset tag, e.g. ABCDEF+DejaVuSansCondensed


def test_page_label_names_game_component_and_page(tmp_path):
    pdf = built(tmp_path, "poker", n=12, backs="duplex")
    reader = PdfReader(pdf)
    n = len(reader.pages)
    text = reader.pages[0].extract_text()
    assert "Geometry Test" in text and "Test cards" in text and f"page 1 of {n}" in text
    assert "sheet 1 of 2 backs" in reader.pages[1].extract_text()


def test_same_inputs_give_identical_bytes(tmp_path):
    a = built(tmp_path / "a", "poker", n=5).read_bytes()
    b = built(tmp_path / "b", "poker", n=5).read_bytes()
    assert a == b
    # cairo 1.16 writes the date without the "D:" prefix; poppler and Acrobat read it.
    assert b"/CreationDate (20000101000000" in a


def test_source_date_epoch_sets_the_pdf_date(tmp_path, monkeypatch):
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    data = built(tmp_path, "poker", n=2).read_bytes()
    assert b"/CreationDate (20231114" in data
