"""SVG text drawn onto cairo: a template's own <text> and <tspan>, and the runs text.py laid
out, each drawn at the glyphs it was shaped to."""

from __future__ import annotations

from functools import lru_cache

import cairocffi as cairo

from ..load import fonts
from .svgread import Unsupported, colour, local_name, number, read_style
from .text import GLYPHS_ATTR, RUN_CLASS

# Shaped runs name glyphs by their index in the shipped font files: cairo must find those files
# (and no same-named system font) before it first draws text in this process.
fonts.use_shipped_fonts()

_SLANTS = {"italic": cairo.FONT_SLANT_ITALIC, "oblique": cairo.FONT_SLANT_OBLIQUE}


@lru_cache(maxsize=256)
def font_face(family: str, style: str | None, weight: str) -> tuple:
    """Return cairo's (family, slant, weight) for SVG font attributes."""
    bold = weight == "bold" or (weight.isdigit() and int(weight) >= 550)
    return (family.split(",")[0].strip("'\" "), _SLANTS.get(style, cairo.FONT_SLANT_NORMAL),
            cairo.FONT_WEIGHT_BOLD if bold else cairo.FONT_WEIGHT_NORMAL)


class _Pen:
    """The font and paint of one text element's runs, set on the context only when they
    change: a card's lines are many runs in one or two fonts and one colour."""

    __slots__ = ("ctx", "font", "paint")

    def __init__(self, ctx):
        self.ctx = ctx
        self.font = None
        self.paint = None

    def use(self, style: dict) -> None:
        """Select the style's font and size."""
        font = (font_face(style.get("font-family", "DejaVu Sans Condensed"),
                           style.get("font-style"), style.get("font-weight", "normal")),
                number(style.get("font-size"), 16.0))
        if font != self.font:
            self.ctx.select_font_face(*font[0])
            self.ctx.set_font_size(font[1])
            self.font = font

    def show(self, text: str, x: float, y: float, style: dict, opacity: float,
             advance: bool = True) -> float:
        """Draw one run of text with its anchor; return the x after it (measured only when
        ``advance`` asks for it or the anchor needs it; else x itself)."""
        fill = colour(style.get("fill", "black"))
        self.use(style)
        anchor = style.get("text-anchor", "start")
        width = self.ctx.x_advance(text) if advance or anchor != "start" else 0.0
        if anchor == "middle":
            x -= width / 2
        elif anchor == "end":
            x -= width
        if fill is not None and text.strip():
            paint = (*fill, number(style.get("fill-opacity"), 1.0) * opacity)
            if paint != self.paint:
                self.ctx.set_source_rgba(*paint)
                self.paint = paint
            self.ctx.move_to(x, y)
            self.ctx.show_text(text)
        return x + width

    def show_glyphs(self, text: str, placed: str, y: float, style: dict,
                    opacity: float) -> None:
        """Draw a shaped run: its glyphs where the layout placed them, with its text."""
        fill = colour(style.get("fill", "black"))
        if fill is None:
            return
        family = style.get("font-family", "DejaVu Sans Condensed")
        if not fonts.known_family(family.split(",")[0].strip("'\" ")):
            raise Unsupported(f"font {family!r}")
        self.use(style)
        paint = (*fill, number(style.get("fill-opacity"), 1.0) * opacity)
        if paint != self.paint:
            self.ctx.set_source_rgba(*paint)
            self.paint = paint
        utf8, glyphs, clusters, backward = glyph_run(text, placed)
        if glyphs:
            self.ctx.show_text_glyphs(utf8, tuple((g, gx, y + gy) for g, gx, gy in glyphs),
                                      clusters, backward)


@lru_cache(maxsize=8192)
def glyph_run(text: str, placed: str) -> tuple:
    """Return (utf8, glyphs, clusters, backward) for cairo from a run's text and its
    ``data-glyphs`` ("id:x" or "id:character:x[:dy] ..."): clusters map the text's characters to the
    glyphs drawing them (a ligature, a joined Arabic letter, a mark on its base)."""
    glyphs, chars = [], []
    for k, token in enumerate(placed.split()):
        parts = token.split(":")
        if len(parts) == 2:               # the glyph of the character at its own index
            parts = [parts[0], str(k), parts[1]]
        if len(parts) not in (3, 4):
            raise Unsupported(f"{GLYPHS_ATTR} entry {token[:20]!r}")
        glyphs.append((int(parts[0]), float(parts[2]),
                       float(parts[3]) if len(parts) == 4 else 0.0))
        chars.append(int(parts[1]))
    utf8 = text.encode("utf-8")
    if not glyphs:
        return utf8, (), (), False
    backward = len(chars) > 1 and chars[0] > chars[-1]
    order = chars[::-1] if backward else chars
    clusters = []
    if all(a <= b for a, b in zip(order, order[1:])) and order[0] == 0 and \
            order[-1] < len(text) and all(0 <= c for c in order):
        starts = sorted(set(order))
        counts = {c: 0 for c in starts}
        for c in order:
            counts[c] += 1
        for k, c in enumerate(starts):
            end = starts[k + 1] if k + 1 < len(starts) else len(text)
            clusters.append((len(text[c:end].encode("utf-8")), counts[c]))
    else:   # glyphs that do not follow the text: one cluster, the text still whole
        clusters, backward = [(len(utf8), len(glyphs))], False
    return utf8, tuple(glyphs), tuple(clusters), backward


def draw_text(ctx, el, style: dict, opacity: float) -> None:
    x, y = number(el.get("x")), number(el.get("y"))
    pen = _Pen(ctx)
    if el.get("class") == RUN_CLASS:
        # Laid out by printshop: each run carries its own x, y, family and weight (a forged
        # run without them goes on from the last one, as SVG would place it, so a run is
        # measured only when the next one has no x of its own).
        runs = list(el)
        for i, run in enumerate(runs):
            x, y = number(run.get("x"), x), number(run.get("y"), y)
            placed = run.get(GLYPHS_ATTR)
            if placed is not None and run.text:
                pen.show_glyphs(run.text, placed, y, read_style(run, style), opacity)
                continue
            if run.text:
                then = i + 1 < len(runs) and runs[i + 1].get("x") is None
                x = pen.show(run.text, x, y, read_style(run, style), opacity, then)
        return
    if el.text and el.text.strip():
        x = pen.show(" ".join(el.text.split()), x, y, style, opacity)
    for child in el:
        if local_name(child.tag) != "tspan":
            raise Unsupported("text content other than tspan")
        if len(child):
            raise Unsupported("nested tspan")
        x = number(child.get("x"), x)
        y = number(child.get("y"), y)
        if child.text and child.text.strip():
            x = pen.show(" ".join(child.text.split()), x, y, read_style(child, style), opacity)
        if child.tail and child.tail.strip():
            x = pen.show(" " + " ".join(child.tail.split()), x, y, style, opacity)

