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

from ..draw.drawing import multiply, parse_transform
from ..draw.text import RUN_CLASS
from ..files import limits
from ..files.errors import PrintshopError, Problem
from ..load import fonts
from ..load.models import Game, Part

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
    image: object              # the upload image before it is laid on white (PIL RGBA), or
                               # its alpha channel alone (PIL L)
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
    alpha = image if image.mode == "L" else image.getchannel("A")
    blank = ImageChops.multiply(ImageChops.invert(alpha), mask)
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

def pdf_warnings(pdf: bytes, name: str, cmyk: bool, max_ink: int | None,
                 source: bytes | None = None, pages=None) -> list[Problem]:
    """Check an upload PDF: fonts embedded before conversion (``source``) and after, no page
    turned into a picture; for CMYK shops no RGB, an output intent, and ink by place."""
    from pypdf import PdfReader

    reader = PdfReader(io.BytesIO(pdf))
    before = PdfReader(io.BytesIO(source)).pages if source is not None else None
    out = []
    for n, page in enumerate(reader.pages, start=1):
        for font in _page_fonts(page):
            out.append(Problem(name, f"page {n}: font {font} is not embedded",
                               rule="pod.fonts"))
        if before is not None and n <= len(before):
            out.extend(_lost(name, n, before[n - 1], page))
        if cmyk and _uses_rgb(page):
            out.append(Problem(name, f"page {n}: RGB colour left after conversion to CMYK",
                               rule="pod.cmyk"))
        if cmyk and _see_through(page):
            out.append(Problem(name, f"page {n}: something is drawn see-through, which "
                               "PDF/X-1a does not allow (a gradient's or a picture's "
                               "transparency)", rule="pod.transparency"))
    if cmyk and "/OutputIntents" not in reader.trailer["/Root"]:
        out.append(Problem(name, "no output intent: not a PDF/X file", rule="pod.cmyk"))
    if cmyk and max_ink:
        out.extend(ink_warnings(pdf, name, max_ink, pages))
    return _unique(out)


def _lost(name: str, n: int, before, after) -> list[Problem]:
    """Return what a page lost in conversion: its fonts (text made into pictures)."""
    out = []
    for font in _page_fonts(before):
        out.append(Problem(name, f"page {n}: font {font} is not embedded (before "
                           "conversion)", rule="pod.fonts"))
    had, has = _font_names(before), _font_names(after)
    if had - has:
        out.append(Problem(name, f"page {n}: conversion lost its text in "
                           f"{', '.join(sorted(had - has))}", rule="pod.fonts"))
    if _images(after) > _images(before):
        out.append(Problem(name, f"page {n}: conversion turned part of it into a picture",
                           rule="pod.vector"))
    return out


def xobjects(resources, seen: set) -> Iterator:
    """Yield each XObject a resource dictionary draws, and those its forms draw, once."""
    found = resources.get("/XObject") if resources is not None else None
    for ref in (found.get_object().values() if found else []):
        key = getattr(ref, "idnum", id(ref))
        if key in seen:
            continue
        seen.add(key)
        x = ref.get_object()
        yield x
        if x.get("/Subtype") == "/Form" and "/Resources" in x:
            yield from xobjects(x["/Resources"].get_object(), seen)


def _drawn_resources(page) -> list:
    """Return a page's resource dictionary and those of every form it draws."""
    res = _resources(page)
    return [res] + [x["/Resources"].get_object() for x in xobjects(res, set())
                    if x.get("/Subtype") == "/Form" and "/Resources" in x]


def _fonts_of(page) -> Iterator:
    """Yield every font a page uses, forms' included."""
    for res in _drawn_resources(page):
        fonts_dict = res.get("/Font")
        for _, ref in (fonts_dict.get_object().items() if fonts_dict else []):
            yield ref.get_object()


def _font_names(page) -> set[str]:
    return {re.sub(r"^[A-Z]{6}\+", "", str(f.get("/BaseFont", "?")).lstrip("/"))
            for f in _fonts_of(page)}


def _see_through(page) -> bool:
    """Return True when a page or a form it draws is a transparency group or sets alpha."""
    for obj in [page, *xobjects(_resources(page), set())]:
        group = obj.get("/Group")
        if group is not None and group.get_object().get("/S") == "/Transparency":
            return True
        if obj.get("/Subtype") == "/Image" and obj.get("/SMask") is not None:
            return True
    for res in _drawn_resources(page):
        states = res.get("/ExtGState")
        for state in (states.get_object().values() if states else []):
            state = state.get_object()
            if float(state.get("/ca", 1)) < 1 or float(state.get("/CA", 1)) < 1 or \
                    str(state.get("/SMask", "/None")) != "/None":
                return True
    return False


def _images(page) -> int:
    return sum(1 for x in xobjects(_resources(page), set()) if x.get("/Subtype") == "/Image")


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
    for font in _fonts_of(page):
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


INK_DPI = 48              # ink is measured at this resolution (enough for areas, not hairs)
INK_SLACK = 1.0           # % over the limit a rendered pixel may show (8-bit rounding)
WHOLE = 0.9               # ink over the limit on this share of a card is the whole card


def ink_maps(pdf: bytes, page_numbers: list[int], dpi: int = INK_DPI,
             name: str = "the upload") -> dict:
    """Return each listed page's total ink (C+M+Y+K, %) per pixel, rendered by Ghostscript
    in CMYK (an outside measurement of the file as the shop reads it); empty without gs.

    Ghostscript that cannot be run, fails, or takes longer than the limit
    total_render_seconds is an error naming ``name``: a pre-flight that measured nothing
    must not pass."""
    import subprocess
    import tempfile
    from pathlib import Path

    import numpy as np
    from PIL import Image

    gs = gs_binary()
    if gs is None or not page_numbers:
        return {}
    seconds = limits.current().total_render_seconds
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "in.pdf"
        src.write_bytes(pdf)
        listed = ",".join(str(n) for n in page_numbers)
        try:
            proc = subprocess.run([gs, "-q", "-dSAFER", "-dBATCH", "-dNOPAUSE",
                                   "-sDEVICE=tiff32nc", f"-r{dpi}", f"-sPageList={listed}",
                                   f"-sOutputFile={tmp}/p%05d.tif", str(src)],
                                  capture_output=True, timeout=seconds)
        except subprocess.TimeoutExpired:
            raise PrintshopError(Problem(name, limits.exceeded(
                "total_render_seconds", f"Ghostscript ({gs}) measuring the ink took more than "
                f"{limits.number(seconds)} seconds", seconds))) from None
        except OSError as exc:
            raise PrintshopError(Problem(name, f"Ghostscript ({gs}) could not be run to "
                                         f"measure the ink: {exc.strerror or exc}")) from None
        if proc.returncode != 0:
            said = proc.stderr.decode("utf-8", "replace").strip().splitlines()[-1:] or ["?"]
            raise PrintshopError(Problem(name, f"Ghostscript ({gs}) could not measure the "
                                         f"ink (exit {proc.returncode}): {said[0][:200]}"))
        out = {}
        for n, tif in zip(page_numbers, sorted(Path(tmp).glob("p*.tif"))):
            with Image.open(tif) as im:
                out[n] = np.asarray(im, dtype=np.float32).sum(axis=2) / 2.55
        return out


def ink_warnings(pdf: bytes, name: str, max_ink: int, pages=None) -> list[Problem]:
    """Return where total ink passes the shop's limit: each card side (from the pages'
    placements) once, with the area in mm from its top-left trim corner."""
    firsts: dict = {}
    for n, page in enumerate(pages or [], start=1):
        place = page.placements[0] if page.placements else None
        key = (place.card_id, place.side) if place else n
        firsts.setdefault(key, (n, page, place))
    if pages is None:
        from pypdf import PdfReader

        firsts = {n: (n, None, None) for n in range(1, len(PdfReader(io.BytesIO(pdf)).pages)
                                                   + 1)}
    maps = ink_maps(pdf, [n for n, _, _ in firsts.values()], name=name)
    out = []
    for n, page, place in firsts.values():
        total = maps.get(n)
        if total is None:
            continue
        over = total > max_ink + INK_SLACK
        if not over.any():
            continue
        out.append(Problem(name, _ink_place(total, over, n, page, place, max_ink),
                           rule="pod.ink"))
    return out


def _ink_place(total, over, n: int, page, place, max_ink: int) -> str:
    import numpy as np

    h, w = total.shape
    per_mm = w / page.width if page is not None else INK_DPI / 25.4
    rows, cols = np.nonzero(over)
    x0, x1 = cols.min() / per_mm, (cols.max() + 1) / per_mm
    y0, y1 = rows.min() / per_mm, (rows.max() + 1) / per_mm
    worst = float(total[over].max())
    if place is None:
        return (f"page {n}: total ink reaches {worst:.0f}% (the shop allows {max_ink}%) over "
                f"{over.mean():.0%} of the page, x {x0:.0f} to {x1:.0f} mm, y {y0:.0f} to "
                f"{y1:.0f} mm")
    x, y = place.x * per_mm, place.y * per_mm
    share = over.sum() / max(1.0, place.w * place.h * per_mm * per_mm)
    where = "" if share >= WHOLE else _zones(over, x, y, place.w * per_mm, place.h * per_mm)
    return (f"card '{place.card_id}' ({place.side}, page {n}): total ink reaches {worst:.0f}% "
            f"(the shop allows {max_ink}%) over {min(share, 1.0):.0%} of the card{where}, x "
            f"{x0 - place.x:.0f} to {x1 - place.x:.0f} mm, y {y0 - place.y:.0f} to "
            f"{y1 - place.y:.0f} mm from its top-left trim corner")

ZONES = (("top-left", "top", "top-right"), ("left", "middle", "right"),
         ("bottom-left", "bottom", "bottom-right"))


def _zones(over, x: float, y: float, w: float, h: float) -> str:
    """Return where on a card (its ninths, the bleed counted with the nearest) ink is over."""
    import numpy as np

    rows, cols = np.nonzero(over)
    col = np.clip(((cols - x) * 3 // max(w, 1)).astype(int), 0, 2)
    row = np.clip(((rows - y) * 3 // max(h, 1)).astype(int), 0, 2)
    ninth = max(1.0, w * h / 9)
    shares = {}
    for r, c in zip(row, col):
        shares[(r, c)] = shares.get((r, c), 0) + 1
    named = sorted(shares.items(), key=lambda kv: -kv[1])[:3]
    return " (" + ", ".join(f"{min(1.0, v / ninth):.0%} of its {ZONES[r][c]} ninth"
                            for (r, c), v in named) + ")"
