"""Find text that collides: with other text, with a shape, or with the edge of its container.

A drawing is taken apart the way render.py draws it: each text unit (a `<g>` that text.py made,
its runs and inline icons, or a template's own `<text>`) and each shape's fill and stroke are
drawn alone, with their transforms, clips and opacity. A laid-out run's box comes from its
glyphs' extents and a shape's from its path's; ink is drawn, at SCALE pixels a millimetre,
only where a shape's box meets a run's. Text collides when:

- two units' runs overlap, their ink touching; or stand side by side on one line closer than
  GAP_EM of the smaller text (cells that read as one line);
- a shape drawn after the text covers its ink;
- a shape drawn before the text covers part of a run's box or of CLEARANCE around it, not all
  of it, and the ground inside the shape and beside it differs (a rule, a frame edge, a dashed
  slot, a starfield's dots; a panel the text sits on wholly, or two panels of one colour
  meeting under it, are fine);
- a run lies partly outside its container (the card's trim, the board, the sheet's printable
  area) or is cut by a nested viewport's clip.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from xml.etree import ElementTree

from ..load.fonts import use_shipped_fonts

use_shipped_fonts()

import cairocffi as cairo  # noqa: E402  (fontconfig must be pointed at our fonts first)
import numpy as np  # noqa: E402

from . import drawing, render  # noqa: E402
from .canvas import Canvas  # noqa: E402
from .text import RUN_CLASS  # noqa: E402

# Set on the five built-in games (docs/design.md): they find the defects issue 26 names.
SCALE = 8.0            # pixels a millimetre where ink is compared
TOLERANCE = 0.15       # mm: ink this far into a run's box, or out of its container, is not seen
MIN_AREA = 0.04        # mm²: less ink than this over or under a run is not seen
CLEARANCE = 0.3        # mm: the edge of a shape under text keeps this far from its ink
GAP_EM = 0.8           # em of the smaller text: side by side on a line, closer reads as one
EDGE_CONTRAST = 0.09   # an edge is seen when the ground's colour either side differs this much
INK = 64               # alpha (of 255) from which a pixel counts as ink
COVERED = 40           # alpha from which a pixel counts as covered by a shape (a faint dot is)

_UNHINTED = cairo.FontOptions(hint_metrics=cairo.HINT_METRICS_OFF,
                              hint_style=cairo.HINT_STYLE_NONE)


# How text collides, the worst first: one text and one thing it hits make one finding.
HOW = ("overlaps", "is drawn over by", "runs outside", "is cut off by", "crosses the edge of",
       "runs into", "is too near the edge of")


@dataclass(frozen=True)
class Collision:
    """Text that collides: its first words, how (one of HOW), what it hits, and where (mm
    from the drawing's origin)."""

    text: str
    how: str
    what: str
    x: float
    y: float

    def __str__(self) -> str:
        near = f" (less than {CLEARANCE:g} mm)" if self.how == HOW[-1] else ""
        return f'"{self.text}" {self.how} {self.what}{near} at ({self.x:.1f}, {self.y:.1f}) mm'


class _Ink:
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
class _Run:
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
            self._mask = _alpha(surface)
        return self._mask


@dataclass
class _Text:
    """A text unit: its runs and inline icons, drawn as one."""

    order: int
    words: str
    runs: list[_Run] = field(default_factory=list)


@dataclass
class _Drawing:
    """A drawing taken apart: its text units and its shapes' fills and strokes, in order."""

    texts: list[_Text] = field(default_factory=list)
    marks: list[_Ink] = field(default_factory=list)
    clipped: list[tuple[_Text, _Run, tuple]] = field(default_factory=list)


def collisions(fragment: str, container: tuple[float, float, float, float],
               clip: tuple[float, float, float, float], edge: str) -> list[Collision]:
    """Return the collisions of an SVG fragment (in mm) whose text must stay inside
    ``container`` (x, y, w, h), drawn clipped to ``clip``; ``edge`` names the container."""
    root = drawing.take_tree(fragment)   # the tree the template check parsed, if kept
    if root is None:
        try:
            root = ElementTree.fromstring(f'<svg xmlns="{render.SVG[1:-1]}">{fragment}</svg>')
        except ElementTree.ParseError:
            return []   # never a template's output, which drawing.py has parsed and checked
    if not render.drawable(root):
        return []   # drawn by cairosvg, which this cannot take apart
    try:
        parts = _take_apart(root, clip)
    except cairo.CairoError as exc:
        raise render.DrawError(f"cairo could not draw it ({render.cairo_reason(exc)})") from None
    except RecursionError:
        raise render.DrawError("it nests elements too deeply to draw") from None
    except (render.Unsupported, ValueError, IndexError, TypeError) as exc:
        raise render.DrawError(f"it could not be drawn ({exc})") from None
    found = _outside(parts, container, edge) + _text_on_text(parts) + _text_and_shapes(parts)
    return _unique(found)


def _unique(found: list[Collision]) -> list[Collision]:
    """Return one collision per text and thing hit: the worst, where it was first seen."""
    worst: dict[tuple[str, str], Collision] = {}
    for hit in found:
        key = (hit.text, hit.what)
        if key not in worst or HOW.index(hit.how) < HOW.index(worst[key].how):
            worst[key] = hit
    return list(worst.values())


def _mm(px: float) -> float:
    return px / SCALE


# Taking a drawing apart


class _Walk:
    """Walk a tree as render.py draws it, recording each text unit and shape alone."""

    def __init__(self, clip):
        # The walk's own context, only for its transforms, clips and paths' extents; the pen
        # makes its calls straight to cairo (render.py's Canvas).
        self.tracker = cairo.Context(cairo.RecordingSurface(cairo.CONTENT_ALPHA, None))
        self.tracker.set_font_options(_UNHINTED)
        self.tracker.scale(SCALE, SCALE)
        self.pen = Canvas(self.tracker)
        self.drawing = _Drawing()
        self.order = 0
        x, y, w, h = clip
        self.clip = self.outermost = (x * SCALE, y * SCALE, (x + w) * SCALE, (y + h) * SCALE)

    def children(self, el, style: dict, alpha: float, names: tuple) -> None:
        for child in el:
            self.visit(child, style, alpha, names)

    def visit(self, el, inherited: dict, alpha: float, names: tuple) -> None:
        tag = render._TAGS.get(el.tag) or render._local(el.tag)
        if tag in render.SKIPPED:
            return
        style = render._style(el, inherited)
        if el.get("display") == "none" or style.get("visibility") == "hidden":
            return
        self.order += 1
        name = _name(el, tag, names)
        if tag == "text":   # its own opacity is drawn with it
            self.text([el], inherited, alpha, _words([el]))
            return
        alpha *= render._num(el.get("opacity"), 1.0)
        if tag in render.SHAPES:
            self.shape(el, tag, style, alpha, name)
            return
        ctx, pen = self.tracker, self.pen
        pen.save()
        render._transform(pen, el.get("transform"))
        clip = self.clip
        if tag == "svg":
            if not render._viewport(pen, el):
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
        attrib = {k: v for k, v in el.attrib.items() if k not in render._INHERITED_SET
                  and k not in ("style", "opacity")}
        layers = []
        if tag != "line" and style.get("fill", "black") != "none":
            layers.append((_painted(name, "fill", style.get("fill", "black")),
                           {**style, "stroke": "none"}))
        if style.get("stroke", "none") != "none" and \
                render._num(style.get("stroke-width"), 1.0) > 0:
            layers.append((_painted(name, "stroke", style["stroke"]), {**style, "fill": "none"}))
        if not layers:
            return
        ctx, pen = self.tracker, self.pen
        pen.save()
        render._transform(pen, el.get("transform"))
        upright = ctx.get_matrix()[1] == 0 and ctx.get_matrix()[2] == 0
        render._shape(pen, tag, attrib)
        boxes = []
        for _, layer in layers:
            if layer.get("fill") == "none":
                ctx.set_line_width(render._num(style.get("stroke-width"), 1.0))
                ctx.set_line_cap(render._CAPS.get(style.get("stroke-linecap", "butt"),
                                                  cairo.LINE_CAP_BUTT))
                ctx.set_line_join(render._JOINS.get(style.get("stroke-linejoin", "miter"),
                                                    cairo.LINE_JOIN_MITER))
                boxes.append(_device_box(ctx, ctx.stroke_extents()))
            else:
                boxes.append(_device_box(ctx, ctx.fill_extents()))
        inside = _inside(ctx, tag, attrib, style) if upright else (None, None)
        pen.new_path()
        pen.restore()
        plain = (tag == "rect" and not el.get("rx") and not el.get("ry") and upright
                 and alpha == 1 and render._num(style.get("fill-opacity"), 1.0) == 1)
        for (named, layer), box in zip(layers, boxes):
            box = _intersect(box, self.clip)
            if box[2] <= box[0] or box[3] <= box[1]:
                continue
            alone = ElementTree.Element(el.tag, attrib)
            draw = self.recorder(alone, layer, alpha)
            filled = layer.get("fill") != "none"
            self.drawing.marks.append(_Ink(self.order, named, box, draw,
                                           plain and filled, inside[0] if filled else None,
                                           None if filled else inside[1]))

    def text(self, parts: list, style: dict, alpha: float, words: str) -> None:
        """Record a text unit: each run of its <text> elements, each inline icon."""
        unit = _Text(self.order, words)
        for part in parts:
            tag = render._TAGS.get(part.tag) or render._local(part.tag)
            if tag == "text" and part.get("class") == RUN_CLASS and not part.get("transform"):
                own = render._style(part, style)
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
                    run = _exact(paint, (x, y, x + w, y + h), em) if w > 0 and h > 0 else None
                else:   # the glyphs' own ink box, to the nearest pixel
                    run = _Run(tuple(round(v) for v in box), em, paint)
                    run = run if run.box[2] > run.box[0] and run.box[3] > run.box[1] else None
                if run is not None:
                    matrix = self.tracker.get_matrix()
                    run.upright = matrix[1] == 0 and matrix[2] == 0 and not part.get("transform")
                    unit.runs.append(run)
                    if self.clip != self.outermost and not _within(run.box, self.clip):
                        self.drawing.clipped.append((unit, run, self.clip))
        if unit.runs:
            self.drawing.texts.append(unit)

    def run_box(self, run, style: dict) -> tuple[float, float, float, float]:
        """Return the device box of a laid-out run's ink, from its font's glyph extents."""
        style = render._style(run, style)
        ctx = self.tracker
        ctx.select_font_face(*render._font_face(
            style.get("font-family", "DejaVu Sans Condensed"), style.get("font-style"),
            style.get("font-weight", "normal")))
        ctx.set_font_size(render._num(style.get("font-size"), 16.0))
        xb, yb, w, h, advance, _ = ctx.text_extents(run.text)
        x, y = render._num(run.get("x")), render._num(run.get("y"))
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
            render._draw(ctx, el, style)
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
    num = render._num
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


def _take_apart(root, clip) -> _Drawing:
    walk = _Walk(clip)
    walk.children(root, {}, 1.0, ())
    return walk.drawing


def _is_unit(el) -> bool:
    """Return whether a <g> is text.py's: its <text class="ps-runs"> and inline icons."""
    first = el[0] if len(el) else None
    return (first is not None and render._local(first.tag) == "text"
            and first.get("class") == RUN_CLASS
            and all(render._local(child.tag) == "g" for child in el[1:]))


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
    size = render._num(render._style(text_el, style).get("font-size"), 16.0)
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


def _within(box, outer, slack: float = TOLERANCE * SCALE) -> bool:
    return (box[0] >= outer[0] - slack and box[1] >= outer[1] - slack
            and box[2] <= outer[2] + slack and box[3] <= outer[3] + slack)


def _raster(recording, box: tuple[int, int, int, int]) -> np.ndarray:
    """Return the alpha of a recording over a pixel box (x0, y0, x1, y1)."""
    x0, y0, x1, y1 = box
    surface = cairo.ImageSurface(cairo.FORMAT_A8, x1 - x0, y1 - y0)
    ctx = cairo.Context(surface)
    ctx.set_source_surface(recording, -x0, -y0)
    ctx.paint()
    return _alpha(surface)


def _alpha(surface) -> np.ndarray:
    """Return the pixels of an A8 surface as an array."""
    surface.flush()
    rows = np.frombuffer(surface.get_data(), np.uint8).reshape(surface.get_height(),
                                                               surface.get_stride())
    return rows[:, :surface.get_width()].copy()


def _colour(recordings: list, box: tuple[int, int, int, int]) -> np.ndarray:
    """Return the colour (r, g, b from 0 to 1) of recordings drawn in order on white paper."""
    x0, y0, x1, y1 = box
    surface = cairo.ImageSurface(cairo.FORMAT_RGB24, x1 - x0, y1 - y0)
    ctx = cairo.Context(surface)
    ctx.set_source_rgb(1, 1, 1)
    ctx.paint()
    for recording in recordings:
        ctx.set_source_surface(recording, -x0, -y0)
        ctx.paint()
    surface.flush()
    pixels = np.frombuffer(surface.get_data(), np.uint8).reshape(y1 - y0,
                                                                 surface.get_stride() // 4, 4)
    return pixels[:, :x1 - x0, :3] / 255.0


def _exact(paint, box, em: float) -> _Run | None:
    """Return a run with the exact pixel box of its ink (``box``, a recording's, is rounded
    outward) and its mask."""
    x0, y0, x1, y1 = box
    outer = (math.floor(x0) - 2, math.floor(y0) - 2, math.ceil(x1) + 2, math.ceil(y1) + 2)
    surface = cairo.ImageSurface(cairo.FORMAT_A8, outer[2] - outer[0], outer[3] - outer[1])
    paint(_Context(surface), outer[0], outer[1])
    mask = _alpha(surface)
    inked = mask >= INK
    rows = np.flatnonzero(inked.any(axis=1))
    if not len(rows):
        return None
    cols = np.flatnonzero(inked.any(axis=0))
    box = (outer[0] + int(cols[0]), outer[1] + int(rows[0]), outer[0] + int(cols[-1]) + 1,
           outer[1] + int(rows[-1]) + 1)
    return _Run(box, em, paint, _mask=mask[rows[0]:rows[-1] + 1, cols[0]:cols[-1] + 1])


def _inner(box, slack: int) -> tuple[int, int, int, int] | None:
    """Return a pixel box shrunk by ``slack`` on each side, or the box when too small."""
    x0, y0, x1, y1 = box
    if x1 - x0 > 2 * slack + 1 and y1 - y0 > 2 * slack + 1:
        return x0 + slack, y0 + slack, x1 - slack, y1 - slack
    return box


def _where(box, rows=None, cols=None) -> tuple[float, float]:
    """Return the middle of a pixel box (or of the given rows and columns in it) in mm."""
    x0, y0, x1, y1 = box
    if rows is not None and len(rows):
        return _mm(x0 + float(np.mean(cols)) + 0.5), _mm(y0 + float(np.mean(rows)) + 0.5)
    return _mm((x0 + x1) / 2), _mm((y0 + y1) / 2)


# The rules


def _outside(drawing: _Drawing, container, edge: str) -> list[Collision]:
    """Text partly outside its container, or cut by a viewport's clip."""
    x, y, w, h = container
    outer = (x * SCALE, y * SCALE, (x + w) * SCALE, (y + h) * SCALE)
    found = []
    for unit in drawing.texts:
        for run in unit.runs:
            if not _within(run.box, outer):
                x, y = (_beyond(run.box[0], run.box[2], outer[0], outer[2]),
                        _beyond(run.box[1], run.box[3], outer[1], outer[3]))
                found.append(Collision(unit.words, "runs outside", edge, _mm(x), _mm(y)))
    for unit, run, clip in drawing.clipped:
        found.append(Collision(unit.words, "is cut off by", "its viewport's edge",
                               *_where(run.box)))
    return found


def _beyond(low: float, high: float, start: float, end: float) -> float:
    """Return the middle of the part of [low, high] outside [start, end] (or of all of it)."""
    if high > end:
        return (max(low, end) + high) / 2
    if low < start:
        return (low + min(high, start)) / 2
    return (low + high) / 2


def _text_on_text(drawing: _Drawing) -> list[Collision]:
    """Two text units whose runs overlap, or stand on one line too close to read apart."""
    slack = TOLERANCE * SCALE
    found = []
    runs = [(unit, run) for unit in drawing.texts for run in unit.runs]
    runs.sort(key=lambda item: item[1].box[0])
    for i, (unit, run) in enumerate(runs):
        ax0, ay0, ax1, ay1 = run.box
        gap = GAP_EM * run.em
        for other_unit, other in runs[i + 1:]:
            bx0, by0, bx1, by1 = other.box
            if bx0 > ax1 + max(gap, GAP_EM * other.em):
                break
            if other_unit is unit:
                continue
            across = min(ax1, bx1) - max(ax0, bx0)
            down = min(ay1, by1) - max(ay0, by0)
            if across > slack and down > slack:
                box = (max(ax0, bx0), max(ay0, by0), min(ax1, bx1), min(ay1, by1))
                if _touch(run, other, box):
                    found.append(Collision(unit.words, "overlaps", f'"{other_unit.words}"',
                                           *_where(box)))
                continue
            if not (run.em and other.em and run.upright and other.upright) \
                    or _joins(unit.words) or _joins(other_unit.words):
                continue
            line = min(ay1 - ay0, by1 - by0)
            if down >= 0.5 * line and -across < GAP_EM * min(run.em, other.em):
                box = (min(ax1, bx1), max(ay0, by0), max(ax0, bx0), min(ay1, by1))
                found.append(Collision(unit.words, "runs into", f'"{other_unit.words}"',
                                       *_where(box)))
    return found


def _joins(words: str) -> bool:
    """Return whether a text is only a joining sign ("&", "+", "·"): set apart to colour the
    words either side, it makes them one line, meant to be read as one."""
    return not any(ch.isalnum() for ch in words)


def _touch(run: _Run, other: _Run, box) -> bool:
    """Return whether two runs' ink touches (within a pixel) inside a box where both lie."""
    x0, y0, x1, y1 = box
    a = _part(run, box) >= INK
    b = _grow(_part(other, box) >= INK, 1)
    return bool((a & b).any()) if a.size and x1 > x0 and y1 > y0 else False


def _part(run: _Run, box) -> np.ndarray:
    """Return a run's alpha inside a box that lies within its own."""
    x0, y0 = run.box[:2]
    return run.mask[box[1] - y0:box[3] - y0, box[0] - x0:box[2] - x0]


def _grow(mask: np.ndarray, pixels: int) -> np.ndarray:
    """Return a boolean mask grown by ``pixels`` in the four directions, step by step."""
    for _ in range(pixels):
        grown = mask.copy()
        grown[1:] |= mask[:-1]
        grown[:-1] |= mask[1:]
        grown[:, 1:] |= mask[:, :-1]
        grown[:, :-1] |= mask[:, 1:]
        mask = grown
    return mask


def _text_and_shapes(drawing: _Drawing) -> list[Collision]:
    """Shapes over a text's ink, and edges of shapes under it or too near it."""
    least = max(1, round(MIN_AREA * SCALE * SCALE))
    slack = max(1, round(TOLERANCE * SCALE))
    clear = round(CLEARANCE * SCALE)
    marks = drawing.marks
    if not marks:
        return []
    boxes = np.array([m.box for m in marks])
    orders = np.array([m.order for m in marks])
    found = []
    for unit in drawing.texts:
        later = orders > unit.order
        for run in unit.runs:
            inner = _inner(run.box, slack)
            x0, y0, x1, y1 = run.box
            ring = (x0 - clear, y0 - clear, x1 + clear, y1 + clear)
            over = [marks[i] for i in np.flatnonzero(later & _meeting(boxes, inner))
                    if not _holds(marks[i].hole, inner)]
            under = [marks[i] for i in np.flatnonzero(~later & _meeting(boxes, ring))]
            found += _drawn_over(unit, run, inner, over, least)
            found += _edges_under(unit, run, inner, ring, under, least)
    return found


def _meeting(boxes: np.ndarray, box) -> np.ndarray:
    """Return which of the boxes (rows x0, y0, x1, y1) meet a box."""
    return ((boxes[:, 0] < box[2]) & (box[0] < boxes[:, 2]) & (boxes[:, 1] < box[3])
            & (box[1] < boxes[:, 3]))


def _holds(outer, box) -> bool:
    return outer is not None and outer[0] <= box[0] and outer[1] <= box[1] \
        and outer[2] >= box[2] and outer[3] >= box[3]


def _covered(mark: _Ink, region) -> np.ndarray | None:
    """Return which pixels of a region a mark covers; None when it covers all of them or
    none, known without drawing (a card's ground or a panel around the region, a frame's
    stroke around it)."""
    if _holds(mark.core, region) or _holds(mark.hole, region):
        return None
    if not mark.solid:
        return _raster(mark.recording, region) >= COVERED
    x0, y0, x1, y1 = region
    bx0, by0, bx1, by1 = mark.box
    if bx0 <= x0 and by0 <= y0 and bx1 >= x1 and by1 >= y1:
        return None
    covered = np.zeros((y1 - y0, x1 - x0), bool)
    cols = [min(max(math.ceil(v - x0 - 0.5), 0), x1 - x0) for v in (bx0, bx1)]
    rows = [min(max(math.ceil(v - y0 - 0.5), 0), y1 - y0) for v in (by0, by1)]
    covered[rows[0]:rows[1], cols[0]:cols[1]] = True
    return covered


def _drawn_over(unit: _Text, run: _Run, inner, marks: list[_Ink], least: int
                ) -> list[Collision]:
    """A shape drawn after the text, over its ink."""
    found = []
    if not marks:
        return found
    x0, y0 = run.box[:2]
    text = run.mask[inner[1] - y0:inner[3] - y0, inner[0] - x0:inner[2] - x0] >= INK
    for mark in marks:
        hit = (_raster(mark.recording, inner) >= COVERED) & text
        if hit.sum() >= least:
            rows, cols = np.nonzero(hit)
            found.append(Collision(unit.words, "is drawn over by", mark.name,
                                   *_where(inner, rows, cols)))
    return found


def _edges_under(unit: _Text, run: _Run, inner, ring, marks: list[_Ink], least: int
                 ) -> list[Collision]:
    """A shape drawn before the text covering part of its box (or of the clearance around
    it), its edge seen: the ground inside the shape and beside it differ. Around a turned
    run, whose box holds much that is not near it, only the pixels near its ink count."""
    found = []
    ground = None
    clear = (inner[0] - ring[0]) if run.upright else run.box[0] - ring[0]
    near = None if run.upright else _grow(np.pad(run.mask >= INK, clear), clear)
    if run.upright:
        ink = np.zeros((ring[3] - ring[1], ring[2] - ring[0]), bool)
        ink[inner[1] - ring[1]:inner[3] - ring[1], inner[0] - ring[0]:inner[2] - ring[0]] = True
    else:
        ink = np.pad(run.mask >= INK, clear)
    for mark in marks:
        covered = _covered(mark, ring)
        if covered is None:
            continue
        mine, rest = (covered, ~covered) if near is None else (covered & near, near & ~covered)
        if int(mine.sum()) < least or int(rest.sum()) < least:
            continue
        if ground is None:
            ground = _colour([m.recording for m in marks], ring)
        if float(np.abs(ground[mine].mean(axis=0) - ground[rest].mean(axis=0)).max()) \
                < EDGE_CONTRAST:
            continue
        crossed = least <= int((covered & ink).sum()) <= int(ink.sum()) - least
        rows, cols = np.nonzero(mine)
        found.append(Collision(unit.words, HOW[4] if crossed else HOW[-1], mark.name,
                               *_where(ring, rows, cols)))
    return found
