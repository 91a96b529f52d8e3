"""Pre-flight checks of a print-on-demand upload: text in the safe zone, bleed filled, images
at the shop's dpi, fonts embedded, CMYK with an output intent and ink within the shop's limit.

Card checks are registered by id (``@check("pod.safe-zone", ...)``) and run on every drawn
face; each finding is a located warning naming the deck's data file, the card and its line.
"""

from __future__ import annotations

import base64
import io
import math
import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from typing import Callable, Iterator

from .. import fonts
from ..drawing import multiply, parse_transform
from ..errors import Problem
from ..models import Game, Part
from ..text import RUN_CLASS

SVG_NS = "{http://www.w3.org/2000/svg}"
TOLERANCE_MM = 0.05         # rounding in the drawing, not a real overshoot
BLANK_ALPHA = 250           # a bleed pixel less opaque than this shows the paper
RGB_OPERATORS = re.compile(rb"(?<![A-Za-z])(rg|RG)(?![A-Za-z])")


@dataclass
class CardSide:
    """One drawn face of a card as the shop gets it, with what the checks need."""

    game: Game
    part: Part
    index: int                 # the card's place in its deck's data
    side: str                  # front or back
    svg: str                   # the face's SVG fragment, card mm, (0, 0) at the trim corner
    w: float                   # card trim in mm
    h: float
    shape: str
    per_mm: float              # upload pixels per card millimetre
    safe_mm: float             # the shop's safe zone in card millimetres
    image: object              # the upload image before it is laid on white (PIL RGBA)
    bleed_px: tuple[float, float]
    dpi: int


Finding = tuple[str, str]      # (rule id, message)
CHECKS: dict[str, tuple[str, Callable[[CardSide], Iterator[str]]]] = {}


def check(rule_id: str, sentence: str):
    """Register a card check under its id; the sentence says what it asks."""
    def register(fn):
        CHECKS[rule_id] = (sentence, fn)
        return fn
    return register


def card_warnings(side: CardSide) -> list[Problem]:
    """Run every card check on one face; return located warnings."""
    card = side.part.cards[side.index]
    file = side.part.data_file or f"data/{side.game.id}/game.yaml"
    out = []
    for rule_id, (_, fn) in CHECKS.items():
        for message in fn(side):
            out.append(Problem(file, f"card '{card.id}' ({side.side}): {message}",
                               ("cards", side.index), card.line, rule_id))
    return out


# Text extents, from the runs printshop's text boxes lay out

def _apply(m: tuple, x: float, y: float) -> tuple[float, float]:
    return m[0] * x + m[2] * y + m[4], m[1] * x + m[3] * y + m[5]


def _num(value, default=0.0) -> float:
    try:
        return float(str(value).replace("mm", "").replace("px", ""))
    except (TypeError, ValueError):
        return default


def _nested_svg(el) -> tuple:
    x, y = _num(el.get("x")), _num(el.get("y"))
    box = el.get("viewBox")
    if not box:
        return (1, 0, 0, 1, x, y)
    vx, vy, vw, vh = (float(v) for v in box.replace(",", " ").split())
    sx = _num(el.get("width"), vw) / vw if vw else 1.0
    sy = _num(el.get("height"), vh) / vh if vh else 1.0
    return multiply((1, 0, 0, 1, x, y), (sx, 0, 0, sy, -vx * sx, -vy * sy))


def text_runs(svg: str) -> list[tuple[str, tuple[float, float, float, float]]]:
    """Return every text box of a face: its text and extent (x0, y0, x1, y1) in card mm."""
    root = ET.fromstring(f'<svg xmlns="http://www.w3.org/2000/svg">{svg}</svg>')
    out = []

    def walk(el, m):
        tag = el.tag.replace(SVG_NS, "")
        m = multiply(m, parse_transform(el.get("transform") or ""))
        if tag == "svg" and el is not root:
            m = multiply(m, _nested_svg(el))
        if tag == "text" and el.get("class") == RUN_CLASS:
            out.extend(_text_extent(el, m))
            return
        for child in el:
            walk(child, m)

    walk(root, (1.0, 0.0, 0.0, 1.0, 0.0, 0.0))
    return out


def _text_extent(el, m):
    em = _num(el.get("font-size"), 1.0)
    family = el.get("font-family", "body")
    words, xs, ys = [], [], []
    for span in el.iter(f"{SVG_NS}tspan"):
        text = span.text or ""
        face = fonts.face(span.get("font-family", family), span.get("font-weight", "normal"))
        x, y = _num(span.get("x")), _num(span.get("y"))
        # A shaped run's kerning is its dx list (text.py): the glyphs sit that much nearer.
        kerned = sum(_num(d) for d in span.get("dx", "").replace(",", " ").split())
        right = x + face.width(text) * em + kerned
        for px, py in ((x, y - face.ascent * em), (right, y + face.descent * em),
                       (x, y + face.descent * em), (right, y - face.ascent * em)):
            tx, ty = _apply(m, px, py)
            xs.append(tx)
            ys.append(ty)
        words.append(text)
    if not words:
        return []
    return [(" ".join(words), (min(xs), min(ys), max(xs), max(ys)))]


@check("pod.safe-zone", "text stays inside the shop's safe zone")
def safe_zone(side: CardSide) -> Iterator[str]:
    s = side.safe_mm
    for text, (x0, y0, x1, y1) in text_runs(side.svg):
        over = max(s - x0, s - y0, x1 - (side.w - s), y1 - (side.h - s))
        if over > TOLERANCE_MM:
            short = text if len(text) <= 40 else text[:37] + "..."
            yield (f"text {short!r} leaves the shop's safe zone by {over:.1f} mm (keep it "
                   f"{s:.1f} mm inside the trim)")


@check("pod.bleed", "the background fills the bleed")
def bleed_filled(side: CardSide) -> Iterator[str]:
    from PIL import Image, ImageChops, ImageDraw

    image = side.image
    w, h = image.size
    bx, by = side.bleed_px
    mask = Image.new("L", (w, h), 0)
    draw = ImageDraw.Draw(mask)
    if side.shape == "circle":
        # a round token's bleed is a ring around the circle, not the square's corners
        draw.ellipse((1, 1, w - 2, h - 2), fill=255)
        draw.ellipse((bx, by, w - 1 - bx, h - 1 - by), fill=0)
    else:
        draw.rectangle((0, 0, w - 1, h - 1), fill=255)
        draw.rectangle((math.ceil(bx), math.ceil(by), w - 1 - math.ceil(bx),
                        h - 1 - math.ceil(by)), fill=0)
    blank = ImageChops.multiply(ImageChops.invert(image.getchannel("A")), mask)
    hist = blank.point(lambda v: 255 if v > 255 - BLANK_ALPHA else 0).histogram()
    ring = mask.histogram()[255]
    if ring and hist[255]:
        share = hist[255] / ring
        yield (f"the bleed is not filled: {share:.0%} of it is blank (draw the background "
               f"to size.bleed beyond the trim)")


@check("pod.dpi", "pictures in the card are at the shop's dpi")
def image_dpi(side: CardSide) -> Iterator[str]:
    from PIL import Image

    if "<image" not in side.svg:
        return
    root = ET.fromstring(f'<svg xmlns="http://www.w3.org/2000/svg">{side.svg}</svg>')
    for el in root.iter(f"{SVG_NS}image"):
        href = el.get("href") or el.get("{http://www.w3.org/1999/xlink}href") or ""
        if not href.startswith("data:") or "," not in href:
            continue
        try:
            pic = Image.open(io.BytesIO(base64.b64decode(href.split(",", 1)[1])))
        except Exception:  # an undecodable picture is the renderer's to report
            continue
        width_mm = _num(el.get("width"), 0.0)
        if width_mm <= 0:
            continue
        printed_in = width_mm * side.per_mm / side.dpi
        dpi = pic.size[0] / printed_in
        if dpi < side.dpi - 1:
            yield (f"a picture {width_mm:g} mm wide prints at {dpi:.0f} dpi; the shop "
                   f"asks for {side.dpi} dpi")


# The PDF as a whole

def pdf_warnings(pdf: bytes, name: str, cmyk: bool, max_ink: int | None) -> list[Problem]:
    """Check an upload PDF: fonts embedded; for CMYK shops no RGB, an output intent, ink."""
    from pypdf import PdfReader

    reader = PdfReader(io.BytesIO(pdf))
    out = []
    for n, page in enumerate(reader.pages, start=1):
        for font in _page_fonts(page):
            out.append(Problem(name, f"page {n}: font {font} is not embedded",
                               rule="pod.fonts"))
        if cmyk and _uses_rgb(page):
            out.append(Problem(name, f"page {n}: RGB colour left after conversion to CMYK",
                               rule="pod.cmyk"))
    if cmyk and "/OutputIntents" not in reader.trailer["/Root"]:
        out.append(Problem(name, "no output intent: not a PDF/X file", rule="pod.cmyk"))
    if cmyk and max_ink:
        ink = max_ink_percent(pdf)
        if ink is not None and ink > max_ink:
            out.append(Problem(name, f"total ink reaches {ink:.0f}% where the shop allows "
                               f"{max_ink}%: lighten the darkest colours (rich black "
                               f"#000 converts to about 300%)", rule="pod.ink"))
    return _unique(out)


def _unique(problems: list[Problem]) -> list[Problem]:
    seen, out = set(), []
    for p in problems:
        key = (p.rule, p.message.split(": ", 1)[-1])
        if key not in seen:
            seen.add(key)
            out.append(p)
    return out


def _resources(page):
    res = page.get("/Resources")
    return res.get_object() if res is not None else {}


def _page_fonts(page) -> list[str]:
    missing = []
    fonts_dict = _resources(page).get("/Font")
    for _, ref in (fonts_dict.get_object().items() if fonts_dict else []):
        font = ref.get_object()
        if font.get("/Subtype") == "/Type3":
            continue  # glyphs drawn in the file itself
        desc = font.get("/FontDescriptor")
        if desc is None and "/DescendantFonts" in font:
            desc = font["/DescendantFonts"][0].get_object().get("/FontDescriptor")
        desc = desc.get_object() if desc is not None else {}
        if not any(k in desc for k in ("/FontFile", "/FontFile2", "/FontFile3")):
            missing.append(str(font.get("/BaseFont", "?")).lstrip("/"))
    return missing


def _uses_rgb(page) -> bool:
    data = page.get_contents().get_data() if page.get_contents() is not None else b""
    if RGB_OPERATORS.search(data):
        return True
    res = _resources(page)
    spaces = [v.get_object() for v in (res.get("/ColorSpace") or {}).values()]
    images = [v.get_object() for v in (res.get("/XObject") or {}).values()]
    spaces += [x.get("/ColorSpace") for x in images if x.get("/Subtype") == "/Image"]
    for space in spaces:
        text = str(space.get_object() if hasattr(space, "get_object") else space)
        if "/DeviceRGB" in text or "/CalRGB" in text:
            return True
        if isinstance(space, list) and space and space[0] == "/ICCBased" \
                and space[1].get_object().get("/N") == 3:
            return True
    return False


def gs_binary() -> str | None:
    """Return the Ghostscript command, or None when it is not installed."""
    import shutil

    return shutil.which("gs")


def max_ink_percent(pdf: bytes, dpi: int = 36) -> float | None:
    """Return the highest total ink (C+M+Y+K, %) of any pixel, rendered by Ghostscript."""
    import subprocess
    import tempfile
    from pathlib import Path

    from PIL import Image, ImageMath

    gs = gs_binary()
    if gs is None:
        return None
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "in.pdf"
        src.write_bytes(pdf)
        worst = 0.0
        proc = subprocess.run([gs, "-q", "-dSAFER", "-dBATCH", "-dNOPAUSE", "-sDEVICE=tiff32nc",
                               f"-r{dpi}", f"-sOutputFile={tmp}/p%03d.tif", str(src)],
                              capture_output=True, timeout=300)
        if proc.returncode != 0:
            return None
        for tif in sorted(Path(tmp).glob("p*.tif")):
            with Image.open(tif) as im:
                c, m, y, k = im.convert("CMYK").split()
                if hasattr(ImageMath, "lambda_eval"):      # Pillow 11 and later
                    total = ImageMath.lambda_eval(lambda a: a["c"] + a["m"] + a["y"] + a["k"],
                                                  c=c, m=m, y=y, k=k)
                else:
                    total = ImageMath.eval("c + m + y + k", c=c, m=m, y=y, k=k)
                worst = max(worst, total.getextrema()[1] / 255 * 100)
        return worst
