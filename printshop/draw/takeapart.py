"""A drawing taken apart the way render.py draws it, for collide.py: each text unit (a `<g>`
that text.py made, its runs and inline icons, or a template's own `<text>`) and each shape's
fill and stroke, with their transforms, clips and opacity. A laid-out run's box comes from its
glyphs' extents and a shape's from its path's, in pixels at SCALE a millimetre; each is drawn
alone onto a recording or a mask only when a check first needs its ink.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from xml.etree import ElementTree

from ..load.fonts import use_shipped_fonts

use_shipped_fonts()

import cairocffi as cairo  # noqa: E402  (fontconfig must be pointed at our fonts first)
import numpy as np  # noqa: E402

from . import render  # noqa: E402
from .canvas import Canvas  # noqa: E402
from .svgread import (INHERITED_SET, SHAPES, SKIPPED, TAGS, apply_transform,  # noqa: E402
                      local_name, number, read_style)
from .svgtext import font_face  # noqa: E402
from .text import RUN_CLASS  # noqa: E402

# Set on the five built-in games with collide.py's (docs/design.md).
SCALE = 8.0            # pixels a millimetre where ink is compared
TOLERANCE = 0.15       # mm: ink this far into a run's box, or out of its container, is not seen
INK = 64               # alpha (of 255) from which a pixel counts as ink

_UNHINTED = cairo.FontOptions(hint_metrics=cairo.HINT_METRICS_OFF,
                              hint_style=cairo.HINT_STYLE_NONE)


class Ink:
    """A shape's fill or stroke drawn alone: its box in pixels (x0, y0, x1, y1), drawn onto a
    recording when first needed."""

    def __init__(self, order: int, name: str, box, draw, solid: bool = False,
                 core=None, hole=None):
        self.order = order
        self.name = name
        self.box = box
        self.solid = solid     # an upright rectangle, opaque: it covers its box exactly
        self.core = core       # a box it covers wholly (a panel's middle), or None
        self.hole = hole       # a box it leaves alone (inside a frame's stroke), or None
        self._draw = draw
        self._recording = None

    @property
    def recording(self):
        """Return the recording of this alone (made once)."""
        if self._recording is None:
            self._recording = self._draw()
        return self._recording


@dataclass
class Run:
    """A run of text (or an inline icon): its ink box in pixels, its font size in pixels (0
    for an icon) and what paints it alone (for its mask, made when first needed)."""

    box: tuple[int, int, int, int]
    em: float
    paint: object
    upright: bool = True
    _mask: np.ndarray | None = None

    @property
    def mask(self) -> np.ndarray:
        """Return the run's alpha over its box."""
        if self._mask is None:
            x0, y0, x1, y1 = self.box
            surface = cairo.ImageSurface(cairo.FORMAT_A8, x1 - x0, y1 - y0)
            self.paint(_Context(surface), x0, y0)
            self._mask = alpha_of(surface)
        return self._mask


@dataclass
class TextUnit:
    """A text unit: its runs and inline icons, drawn as one."""

    order: int
    words: str
    runs: list[Run] = field(default_factory=list)


@dataclass
class Parts:
    """A drawing taken apart: its text units and its shapes' fills and strokes, in order."""

    texts: list[TextUnit] = field(default_factory=list)
    marks: list[Ink] = field(default_factory=list)
    clipped: list[tuple[TextUnit, Run, tuple]] = field(default_factory=list)


class _Walk:
    """Walk a tree as render.py draws it, recording each text unit and shape alone."""

    def __init__(self, clip):
        # The walk's own context, only for its transforms, clips and paths' extents; the pen
        # makes its calls straight to cairo (render.py's Canvas).
        self.tracker = cairo.Context(cairo.RecordingSurface(cairo.CONTENT_ALPHA, None))
        self.tracker.set_font_options(_UNHINTED)
        self.tracker.scale(SCALE, SCALE)
        self.pen = Canvas(self.tracker)
        self.drawing = Parts()
        self.order = 0
        x, y, w, h = clip
        self.clip = self.outermost = (x * SCALE, y * SCALE, (x + w) * SCALE, (y + h) * SCALE)

    def children(self, el, style: dict, alpha: float, names: tuple) -> None:
        for child in el:
            self.visit(child, style, alpha, names)

    def visit(self, el, inherited: dict, alpha: float, names: tuple) -> None:
        tag = TAGS.get(el.tag) or local_name(el.tag)
        if tag in SKIPPED:
            return
        style = read_style(el, inherited)
        if el.get("display") == "none" or style.get("visibility") == "hidden":
            return
        self.order += 1
        name = _name(el, tag, names)
        if tag == "text":   # its own opacity is drawn with it
            self.text([el], inherited, alpha, _words([el]))
            return
        alpha *= number(el.get("opacity"), 1.0)
        if tag in SHAPES:
            self.shape(el, tag, style, alpha, name)
            return
        ctx, pen = self.tracker, self.pen
        pen.save()
        apply_transform(pen, el.get("transform"))
        clip = self.clip
        if tag == "svg":
            if not render.viewport(pen, el):
                pen.restore()
                return
            self.clip = _intersect(self.clip, _device_box(ctx, ctx.clip_extents()))
        if _is_unit(el):
            self.text(list(el), style, alpha, _words(el[:1]))
        else:
            outer = names + ((name,) if el.get("id") or el.get("class") else ())
            self.children(el, style, alpha, outer)
        self.clip = clip
        pen.restore()

    def shape(self, el, tag: str, style: dict, alpha: float, name) -> None:
        """Record a shape's fill and its stroke as two marks (a panel's border is a mark of
        its own), each with the box of its path."""
        attrib = {k: v for k, v in el.attrib.items() if k not in INHERITED_SET
                  and k not in ("style", "opacity")}
        layers = []
        if tag != "line" and style.get("fill", "black") != "none":
            layers.append((_painted(name, "fill", style.get("fill", "black")),
                           {**style, "stroke": "none"}))
        if style.get("stroke", "none") != "none" and \
                number(style.get("stroke-width"), 1.0) > 0:
            layers.append((_painted(name, "stroke", style["stroke"]), {**style, "fill": "none"}))
        if not layers:
            return
        ctx, pen = self.tracker, self.pen
        pen.save()
        apply_transform(pen, el.get("transform"))
        upright = ctx.get_matrix()[1] == 0 and ctx.get_matrix()[2] == 0
        render.shape_path(pen, tag, attrib)
        boxes = []
        for _, layer in layers:
            if layer.get("fill") == "none":
                ctx.set_line_width(number(style.get("stroke-width"), 1.0))
                ctx.set_line_cap(render.CAPS.get(style.get("stroke-linecap", "butt"),
                                                 cairo.LINE_CAP_BUTT))
                ctx.set_line_join(render.JOINS.get(style.get("stroke-linejoin", "miter"),
                                                   cairo.LINE_JOIN_MITER))
                boxes.append(_device_box(ctx, ctx.stroke_extents()))
            else:
                boxes.append(_device_box(ctx, ctx.fill_extents()))
        inside = _inside(ctx, tag, attrib, style) if upright else (None, None)
        pen.new_path()
        pen.restore()
        plain = (tag == "rect" and not el.get("rx") and not el.get("ry") and upright
                 and alpha == 1 and number(style.get("fill-opacity"), 1.0) == 1)
        for (named, layer), box in zip(layers, boxes):
            box = _intersect(box, self.clip)
            if box[2] <= box[0] or box[3] <= box[1]:
                continue
            alone = ElementTree.Element(el.tag, attrib)
            draw = self.recorder(alone, layer, alpha)
            filled = layer.get("fill") != "none"
            self.drawing.marks.append(Ink(self.order, named, box, draw,
                                          plain and filled, inside[0] if filled else None,
                                          None if filled else inside[1]))

    def text(self, parts: list, style: dict, alpha: float, words: str) -> None:
        """Record a text unit: each run of its <text> elements, each inline icon."""
        unit = TextUnit(self.order, words)
        for part in parts:
            tag = TAGS.get(part.tag) or local_name(part.tag)
            if tag == "text" and part.get("class") == RUN_CLASS and not part.get("transform"):
                own = read_style(part, style)
                pieces = [(_one_run(part, run),
                           self.run_box(run, own) if _plain_run(run) else None)
                          for run in part if (run.text or "").strip()]
            elif tag != "text" or "".join(part.itertext()).strip():
                pieces = [(part, None)]
            else:
                continue
            for piece, box in pieces:
                em = _em(self.tracker, piece, style) if tag == "text" else 0.0
                paint = self.painter(piece, style, alpha)
                if box is None:
                    x, y, w, h = self.recorder(piece, style, alpha)().ink_extents()
                    run = exact(paint, (x, y, x + w, y + h), em) if w > 0 and h > 0 else None
                else:   # the glyphs' own ink box, to the nearest pixel
                    run = Run(tuple(round(v) for v in box), em, paint)
                    run = run if run.box[2] > run.box[0] and run.box[3] > run.box[1] else None
                if run is not None:
                    matrix = self.tracker.get_matrix()
                    run.upright = matrix[1] == 0 and matrix[2] == 0 and not part.get("transform")
                    unit.runs.append(run)
                    if self.clip != self.outermost and not within(run.box, self.clip):
                        self.drawing.clipped.append((unit, run, self.clip))
        if unit.runs:
            self.drawing.texts.append(unit)

    def run_box(self, run, style: dict) -> tuple[float, float, float, float]:
        """Return the device box of a laid-out run's ink, from its font's glyph extents."""
        style = read_style(run, style)
        ctx = self.tracker
        ctx.select_font_face(*font_face(
            style.get("font-family", "DejaVu Sans Condensed"), style.get("font-style"),
            style.get("font-weight", "normal")))
        ctx.set_font_size(number(style.get("font-size"), 16.0))
        xb, yb, w, h, advance, _ = ctx.text_extents(run.text)
        x, y = number(run.get("x")), number(run.get("y"))
        x -= {"middle": advance / 2, "end": advance}.get(style.get("text-anchor"), 0.0)
        return _device_box(ctx, (x + xb, y + yb, x + xb + w, y + yb + h))

    def painter(self, el, style: dict, alpha: float):
        """Return what draws one element alone, as it is placed now, onto a cairo context
        whose origin is at a given device pixel."""
        matrix, clip = self.tracker.get_matrix(), self.clip

        def paint(ctx, x0: int, y0: int) -> None:
            ctx.set_font_options(_UNHINTED)
            ctx.translate(-x0, -y0)
            cx0, cy0, cx1, cy1 = clip
            ctx.rectangle(cx0, cy0, cx1 - cx0, cy1 - cy0)
            ctx.clip()
            ctx.transform(matrix)
            if alpha < 1:
                ctx.push_group()
            render.draw_element(ctx, el, style)
            if alpha < 1:
                ctx.pop_group_to_source()
                ctx.paint_with_alpha(alpha)
        return paint

    def recorder(self, el, style: dict, alpha: float):
        """Return what draws one element alone, as it is placed now, onto a recording."""
        paint = self.painter(el, style, alpha)

        def draw():
            surface = cairo.RecordingSurface(cairo.CONTENT_COLOR_ALPHA, None)
            paint(_Context(surface), 0, 0)
            return surface
        return draw


class _Context(cairo.Context):
    """A cairocffi context with what render.py asks of a Canvas (cheaper to make, for one
    element's few calls)."""

    def x_advance(self, text: str) -> float:
        """Return how far drawing ``text`` moves the current point along x."""
        return self.text_extents(text)[4]


def _inside(ctx, tag: str, a: dict, style: dict) -> tuple:
    """Return the device boxes that an upright rectangle, circle or ellipse's fill covers
    wholly and that its stroke leaves alone (None where there is none).

    A rounded corner of radius r reaches at most 0.3 r in from both edges, so a box inset by
    0.3 r lies inside the fill and, further inset by half the stroke, inside the stroke."""
    num = number
    if tag == "rect":
        x, y, w, h = num(a.get("x")), num(a.get("y")), num(a.get("width")), num(a.get("height"))
        rx, ry = num(a.get("rx")), num(a.get("ry"))
        round_by = 0.3 * max(min(rx or ry, w / 2), min(ry or rx, h / 2))
        outline = (x, y, x + w, y + h)
    elif tag in ("circle", "ellipse"):
        rx = num(a.get("r")) if tag == "circle" else num(a.get("rx"))
        ry = num(a.get("r")) if tag == "circle" else num(a.get("ry"))
        cx, cy = num(a.get("cx")), num(a.get("cy"))
        round_by = 0.3 * max(rx, ry)     # the square inside an ellipse: 1 - 1/sqrt(2) < 0.3
        outline = (cx - rx, cy - ry, cx + rx, cy + ry)
    else:
        return None, None
    half = num(style.get("stroke-width"), 1.0) / 2
    boxes = []
    for inset in (round_by, round_by + half):
        x0, y0, x1, y1 = outline[0] + inset, outline[1] + inset, outline[2] - inset, \
            outline[3] - inset
        if x1 - x0 <= 0 or y1 - y0 <= 0:
            boxes.append(None)
            continue
        bx0, by0, bx1, by1 = _device_box(ctx, (x0, y0, x1, y1))
        boxes.append((bx0 + 1, by0 + 1, bx1 - 1, by1 - 1))   # clear of edge pixels' blur
    return tuple(boxes)


def take_apart(root, clip) -> Parts:
    walk = _Walk(clip)
    walk.children(root, {}, 1.0, ())
    return walk.drawing


def _is_unit(el) -> bool:
    """Return whether a <g> is text.py's: its <text class="ps-runs"> and inline icons."""
    first = el[0] if len(el) else None
    return (first is not None and local_name(first.tag) == "text"
            and first.get("class") == RUN_CLASS
            and all(local_name(child.tag) == "g" for child in el[1:]))


_RUN_ATTRIBUTES = frozenset({"x", "y", "font-family", "font-weight"})


def _plain_run(run) -> bool:
    """Return whether a run is placed by one x and y alone, as text.py writes it today: its
    glyphs' extents are then its ink. Anything else (a list of x, glyphs placed one by one)
    is measured by drawing it the way render.py does."""
    return set(run.attrib) <= _RUN_ATTRIBUTES and " " not in run.get("x", "").strip() \
        and "," not in run.get("x", "")


def _one_run(text, run):
    """Return a copy of a laid-out <text> holding one of its runs."""
    alone = ElementTree.Element(text.tag, text.attrib)
    copy = ElementTree.SubElement(alone, run.tag, run.attrib)
    copy.text = run.text
    return alone


def _words(parts, limit: int = 40) -> str:
    said = " ".join(" ".join(" ".join(p.itertext()).split()) for p in parts).strip()
    return said if len(said) <= limit else said[:limit].rsplit(" ", 1)[0] + " ..."


def _name(el, tag: str, names: tuple) -> str:
    """Return how a finding names an element: its tag, id and class, and the group it is in."""
    own = f"<{tag}"
    if el.get("id"):
        own += f' id="{el.get("id")}"'
    if el.get("class"):
        own += f' class="{el.get("class")}"'
    own += ">"
    return f"{own} in {names[-1]}" if names and own == f"<{tag}>" else own


def _painted(name: str, paint: str, value: str) -> str:
    """Return an element's name with the paint of one of its layers: <rect stroke="#222">."""
    head, _, rest = name.partition(">")
    return f'{head} {paint}="{value}">{rest}'


def _em(ctx, text_el, style: dict) -> float:
    """Return a text element's font size in device pixels."""
    size = number(read_style(text_el, style).get("font-size"), 16.0)
    xx, yx, xy, yy, _, _ = ctx.get_matrix()
    return size * math.sqrt(abs(xx * yy - xy * yx))


def _device_box(ctx, extents) -> tuple[float, float, float, float]:
    """Return the device-space box around a user-space box (x0, y0, x1, y1)."""
    xx, yx, xy, yy, dx, dy = ctx.get_matrix().as_tuple()
    x0, y0, x1, y1 = extents
    xs = [xx * x + xy * y + dx for x in (x0, x1) for y in (y0, y1)]
    ys = [yx * x + yy * y + dy for x in (x0, x1) for y in (y0, y1)]
    return min(xs), min(ys), max(xs), max(ys)


def _intersect(a, b) -> tuple[float, float, float, float]:
    return max(a[0], b[0]), max(a[1], b[1]), min(a[2], b[2]), min(a[3], b[3])


def within(box, outer, slack: float = TOLERANCE * SCALE) -> bool:
    return (box[0] >= outer[0] - slack and box[1] >= outer[1] - slack
            and box[2] <= outer[2] + slack and box[3] <= outer[3] + slack)


def alpha_of(surface) -> np.ndarray:
    """Return the pixels of an A8 surface as an array."""
    surface.flush()
    rows = np.frombuffer(surface.get_data(), np.uint8).reshape(surface.get_height(),
                                                               surface.get_stride())
    return rows[:, :surface.get_width()].copy()


def exact(paint, box, em: float) -> Run | None:
    """Return a run with the exact pixel box of its ink (``box``, a recording's, is rounded
    outward) and its mask."""
    x0, y0, x1, y1 = box
    outer = (math.floor(x0) - 2, math.floor(y0) - 2, math.ceil(x1) + 2, math.ceil(y1) + 2)
    surface = cairo.ImageSurface(cairo.FORMAT_A8, outer[2] - outer[0], outer[3] - outer[1])
    paint(_Context(surface), outer[0], outer[1])
    mask = alpha_of(surface)
    inked = mask >= INK
    rows = np.flatnonzero(inked.any(axis=1))
    if not len(rows):
        return None
    cols = np.flatnonzero(inked.any(axis=0))
    box = (outer[0] + int(cols[0]), outer[1] + int(rows[0]), outer[0] + int(cols[-1]) + 1,
           outer[1] + int(rows[-1]) + 1)
    return Run(box, em, paint, _mask=mask[rows[0]:rows[-1] + 1, cols[0]:cols[-1] + 1])


