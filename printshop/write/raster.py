"""Pixels drawn as the PDF is drawn: a page or a face through render.py onto a cairo image.

The image exports (card PNGs, Tabletop Simulator sheets, print-on-demand uploads) take a
page's drawing plan from pdf.py and draw it with the same renderer onto a cairo image
surface, so text, shapes and their positions are the PDF's; a page that render.py leaves to
cairosvg (foreign SVG: images, gradients, clip paths, CSS) goes through cairosvg here too,
as it does in the PDF. Glyphs are placed with unhinted metrics, as on the PDF surface: an
image surface would otherwise round every advance to its pixels and move the words.

Abutting shapes: cairo antialiases each shape by its own coverage, so where two shapes share
an edge inside a pixel (a header band laid over a panel's edge) the colour under both shows
through as a light hairline. The image is drawn at SUPERSAMPLE times its size each way with
shapes unantialiased (every sample lies in one shape or the other) and each block of samples
averaged into one pixel: edges keep SUPERSAMPLE**2 + 1 levels of coverage and shared edges
show no seam, whatever the factor. Text keeps cairo's grey antialiasing (glyphs do not abut).
3 x 3 samples, not 4 x 4: 40 % less time per card, and at 300 dpi the images differ from 4 x 4's
only on glyph and shape edges (mean under 0.6 levels of 255, at most 0.05 % of a card's pixels
by more than 48; docs/performance.md).
"""

from __future__ import annotations

import io
import math
import sys
import threading

from ..draw.render import PT_PER_MM
from ..layout.impose import Face, Nested, Page
from . import pdf
from .faces import Stamps

import cairocffi as cairo  # noqa: E402  (after pdf: fontconfig points at the shipped fonts)

SUPERSAMPLE = 3
PNG_LEVEL = 3            # zlib's level for PNGs: level 6 took 60 % longer for 14 % less
BAND_SAMPLES = 1 << 24   # samples drawn at once (64 MB); a larger image is drawn in bands
WHITE = (1.0, 1.0, 1.0)
_TEXT = cairo.FontOptions(hint_metrics=cairo.HINT_METRICS_OFF,
                          hint_style=cairo.HINT_STYLE_NONE, antialias=cairo.ANTIALIAS_GRAY)
# cairo's ARGB32 is a native-endian 32-bit word: B, G, R, A bytes on a little-endian machine.
_RAW = "BGRa" if sys.byteorder == "little" else "aRGB"
# The image surface last drawn on, kept for the next image of its size: one for the process
# (at most BAND_SAMPLES x 4 bytes), taken out while a thread draws on it.
_spare: list = []
_spare_lock = threading.Lock()


def face_image(face: Face, size: tuple[int, int], margin: tuple[float, float] = (0.0, 0.0),
               background: tuple | None = WHITE, cut: str = "rect"):
    """Draw a face as its own PDF page draws it: an image of ``size`` pixels showing its
    trim and ``margin`` (mm, each way) of its bleed (RGB or RGBA, as page_image says)."""
    b = face.bleed
    page = Page(face.w + 2 * b, face.h + 2 * b, [Nested(face, b, b)])
    mx, my = margin
    return page_image(page, 1, 1, size, (b - mx, b - my, face.w + 2 * mx, face.h + 2 * my),
                      background, cut)


def page_image(page: Page, number: int, total: int, size: tuple[int, int],
               region: tuple | None = None, background: tuple | None = WHITE,
               cut: str = "rect"):
    """Draw page ``number`` of ``total`` as the PDF draws it: an image of ``size`` pixels
    showing ``region`` (x, y, w, h in mm; the whole page by default), on ``background``
    (None: transparent), cut to a circle when ``cut`` is 'circle'. It is RGB when opaque (a
    background and no circle), else RGBA."""
    plan = pdf.page_plan(page, number, total, Stamps([page], reuse=False).stamps(0))
    if plan.root is None:
        draw = _foreign(plan.svg, number)
    else:
        def draw(ctx) -> None:
            pdf.draw_planned(ctx, page, number, plan)
    return _rasterize(draw, size, region or (0.0, 0.0, page.width, page.height), background,
                      cut)


def png(image, dpi: float | None = None) -> bytes:
    """Return an image as PNG bytes, with a pHYs chunk saying ``dpi`` when given (print
    tools read the size from it).

    RGB and RGBA images are encoded here: every row filtered by its difference from the row
    above (PNG's 'Up') and deflated at level PNG_LEVEL. Pillow tries all five filters on
    every row, which cost twice the time for files 8 % smaller (card images, 300 dpi)."""
    import struct
    import zlib

    import numpy as np

    channels = {"RGB": 3, "RGBA": 4}.get(image.mode)
    if channels is None:
        buf = io.BytesIO()
        image.save(buf, format="PNG", **({"dpi": (dpi, dpi)} if dpi else {}))
        return buf.getvalue()
    w, h = image.size
    rows = np.asarray(image, dtype=np.uint8).reshape(h, w * channels)
    filtered = np.empty((h, w * channels + 1), dtype=np.uint8)
    filtered[:, 0] = 2                           # Up; the first row's "above" is zeros
    filtered[0, 1:] = rows[0]
    np.subtract(rows[1:], rows[:-1], out=filtered[1:, 1:])   # modulo 256, as PNG asks

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + \
            struct.pack(">I", zlib.crc32(kind + data))

    out = [b"\x89PNG\r\n\x1a\n",
           chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 6 if channels == 4 else 2, 0, 0,
                                      0))]
    if dpi:
        per_metre = int(dpi / 0.0254 + 0.5)
        out.append(chunk(b"pHYs", struct.pack(">IIB", per_metre, per_metre, 1)))
    out += [chunk(b"IDAT", zlib.compress(filtered.tobytes(), PNG_LEVEL)), chunk(b"IEND", b"")]
    return b"".join(out)


def on_white(image):
    """Return an image laid on white, as RGB."""
    from PIL import Image

    if image.mode == "RGB":
        return image
    flat = Image.new("RGB", image.size, "white")
    flat.paste(image, (0, 0), image)
    return flat


def _rasterize(draw, size: tuple[int, int], region: tuple, background, cut: str):
    """Return what ``draw`` (a function of a context in points) draws in ``region`` as an
    image of ``size`` pixels: supersampled, a band of rows at a time."""
    from PIL import Image

    w, h = size
    s = SUPERSAMPLE
    rows = max(1, min(h, BAND_SAMPLES // (w * s * s)))
    image = None
    for top in range(0, h, rows):
        band = min(rows, h - top)
        surface = _surface(w * s, band * s)
        ctx = cairo.Context(surface)
        ctx.set_antialias(cairo.ANTIALIAS_NONE)
        ctx.set_font_options(_TEXT)
        ctx.translate(0, -top * s)
        x, y, rw, rh = region
        ctx.scale(w * s / rw, h * s / rh)
        ctx.translate(-x, -y)
        if cut == "circle":
            ctx.arc(x + rw / 2, y + rh / 2, min(rw, rh) / 2, 0, 2 * math.pi)
            ctx.clip()
            if background is not None:
                ctx.set_source_rgb(*background)
                ctx.paint()
        ctx.scale(1 / PT_PER_MM, 1 / PT_PER_MM)
        draw(ctx)
        pixels = _averaged(surface, (w, band))
        with _spare_lock:
            _spare[:] = [surface]
        if band == h:
            image = pixels
        else:
            if image is None:
                image = Image.new("RGBA", size)
            image.paste(pixels, (0, top))
    if background is not None and cut != "circle":
        # the same as painting it first ('over' is associative and the average linear), on
        # the pixels rather than the samples; opaque, so without an alpha channel to carry
        under = Image.new("RGB", size, tuple(round(v * 255) for v in background))
        under.paste(image, (0, 0), image)
        image = under
    return image


def _surface(width: int, height: int):
    """Return a blank image surface of that size: the spare one, cleared, when it has the
    size (a new one costs the page faults of its memory, about a third of the time drawing a
    card took)."""
    with _spare_lock:
        surface = _spare.pop() if _spare else None
    if surface is not None and (surface.get_width(), surface.get_height()) == (width, height):
        ctx = cairo.Context(surface)
        ctx.set_operator(cairo.OPERATOR_CLEAR)
        ctx.paint()
        return surface
    return cairo.ImageSurface(cairo.FORMAT_ARGB32, width, height)


def _foreign(svg: str, number: int):
    """Return what draws a page render.py leaves to cairosvg: recorded once, in points, as
    the PDF gets it."""
    recording = cairo.RecordingSurface(cairo.CONTENT_COLOR_ALPHA, None)
    pdf.draw_with_cairosvg(svg, number, recording)

    def draw(ctx) -> None:
        ctx.set_source_surface(recording, 0, 0)
        ctx.paint()
    return draw


def _averaged(surface, size: tuple[int, int]):
    """Return the supersampled surface averaged down to ``size``, as an RGBA image."""
    from PIL import Image

    surface.flush()
    s = SUPERSAMPLE
    # CMYK is PIL's plain four-channel image: read in place, each channel averaged alone, so
    # cairo's premultiplied samples are averaged as they are, which is right.
    samples = Image.frombuffer("CMYK", (size[0] * s, size[1] * s), surface.get_data(), "raw",
                               "CMYK", surface.get_stride(), 1)
    image = Image.frombuffer("RGBa", size, samples.reduce(s).tobytes(), "raw", _RAW, 0, 1)
    return image.convert("RGBA")
