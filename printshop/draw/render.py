"""Draw SVG pages straight onto a cairo context: the subset printshop's templates use.

cairosvg draws any SVG but spends most of a build walking its tree in Python (and draws text
letter by letter). Pages made only of shapes, paths, groups, nested viewports and text are drawn
here in one pass; a page with anything else (gradients, clip paths, images, CSS) returns False
and is drawn by cairosvg instead.
"""

from __future__ import annotations

import math
import re
from functools import lru_cache
from xml.etree import ElementTree

import cairocffi as cairo

from . import colours
from ..load import fonts
from .canvas import Canvas
from .text import GLYPHS_ATTR, RUN_CLASS

# Shaped runs name glyphs by their index in the shipped font files: cairo must find those files
# (and no same-named system font) before it first draws text in this process.
fonts.use_shipped_fonts()

SVG = "{http://www.w3.org/2000/svg}"
SHAPES = {"rect", "circle", "ellipse", "line", "polyline", "polygon", "path"}
CONTAINERS = {"svg", "g"}
SKIPPED = {"title", "desc", "metadata"}
SUPPORTED = SHAPES | CONTAINERS | SKIPPED | {"text", "tspan"}
INHERITED = ("fill", "fill-opacity", "fill-rule", "stroke", "stroke-width", "stroke-opacity",
             "stroke-dasharray", "stroke-dashoffset", "stroke-linecap", "stroke-linejoin",
             "stroke-miterlimit", "font-family", "font-size", "font-weight", "font-style",
             "text-anchor", "visibility", "color")
_INHERITED_SET = frozenset(INHERITED)
_NUMBER = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")
_TRANSFORM = re.compile(r"(matrix|translate|scale|rotate|skewX|skewY)\s*\(([^)]*)\)")
_PATH_TOKEN = re.compile(r"([MmLlHhVvCcSsQqTtAaZz])|([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)")
# Path data and lists of numbers are read once and kept (a card's icons and frames repeat on
# every card): this many distinct ones, each at most this long (a map's coast is not kept).
PATH_KEPT = 1024
PATH_KEPT_CHARS = 2000
_CAPS = {"butt": cairo.LINE_CAP_BUTT, "round": cairo.LINE_CAP_ROUND,
         "square": cairo.LINE_CAP_SQUARE}
_JOINS = {"miter": cairo.LINE_JOIN_MITER, "round": cairo.LINE_JOIN_ROUND,
          "bevel": cairo.LINE_JOIN_BEVEL}


class Unsupported(Exception):
    """The SVG uses something this renderer leaves to cairosvg."""


class DrawError(Exception):
    """A page that passed every check but could not be drawn: never skipped in silence."""


def colour(value: str | None) -> tuple[float, float, float] | None:
    """Return an (r, g, b) tuple for an SVG paint, or None for no paint."""
    try:
        return colours.parse(value)
    except ValueError:
        raise Unsupported(f"paint {value!r}") from None


def _num(value, default: float = 0.0) -> float:
    if value is None:
        return default
    try:
        number = float(value)  # the common case: a plain number, read in C
    except (TypeError, ValueError):
        return _num_with_unit(value, default)
    if number - number == 0 and "_" not in str(value):  # finite, and not Python's 1_000
        return number
    return _num_with_unit(value, default)


def _num_with_unit(value, default: float) -> float:
    """Read a number that float() does not take as it is: a px unit, or trailing junk."""
    text = str(value).strip()
    match = _NUMBER.match(text)
    if not match:
        return default
    rest = text[match.end():]
    if rest and rest not in ("px",):
        raise Unsupported(f"unit {rest!r}")
    return float(match.group())


def _kept(read):
    """Return ``read`` (a function of an attribute's text) with its results kept for text up
    to PATH_KEPT_CHARS long, PATH_KEPT of them."""
    kept = lru_cache(maxsize=PATH_KEPT)(read)

    def get(text: str):
        return kept(text) if len(text) <= PATH_KEPT_CHARS else read(text)
    get.__doc__ = read.__doc__
    return get


@_kept
def _read_numbers(value: str) -> tuple[float, ...]:
    """Return the numbers in an attribute (a polygon's points, a viewBox, a dash pattern)."""
    return tuple(map(float, _NUMBER.findall(value)))


def _numbers(value: str | None) -> tuple[float, ...]:
    return _read_numbers(value) if value else ()


def _style(element, inherited: dict) -> dict:
    """Return the element's presentation attributes, inherited ones included (the inherited
    dict itself when the element adds none: callers never change what they are given)."""
    attrib = element.attrib
    names = [name for name in attrib if name in _INHERITED_SET]
    inline = attrib.get("style")
    if not names and not inline:
        return inherited
    style = dict(inherited)
    for name in names:
        style[name] = attrib[name]
    if inline:
        for item in inline.split(";"):
            if ":" in item:
                key, value = item.split(":", 1)
                key = key.strip()
                if key in _INHERITED_SET:
                    style[key] = value.strip()
                elif key in ("opacity", "display"):
                    attrib[key] = value.strip()
                elif key:
                    raise Unsupported(f"style property {key!r}")
    return style


def _transform(ctx, value: str | None) -> None:
    if value:
        for name, args in _steps(value):
            getattr(ctx, name)(*args)


@lru_cache(maxsize=4096)
def _steps(value: str) -> tuple:
    """Return an SVG transform list as cairo operations (name, arguments); IndexError when a
    function has too few numbers. Cached: a template repeats its transforms card after card."""
    steps = []
    for name, args in _TRANSFORM.findall(value):
        a = _numbers(args)
        if name == "translate":
            steps.append(("translate", (a[0], a[1] if len(a) > 1 else 0.0)))
        elif name == "scale":
            steps.append(("scale", (a[0], a[1] if len(a) > 1 else a[0])))
        elif name == "rotate":
            if len(a) == 3:
                steps += [("translate", (a[1], a[2])), ("rotate", (math.radians(a[0]),)),
                          ("translate", (-a[1], -a[2]))]
            else:
                steps.append(("rotate", (math.radians(a[0]),)))
        elif name == "matrix":
            steps.append(("transform", (cairo.Matrix(*a[:6]),)))
        elif name == "skewX":
            steps.append(("transform", (cairo.Matrix(1, 0, math.tan(math.radians(a[0])), 1, 0,
                                                     0),)))
        elif name == "skewY":
            steps.append(("transform", (cairo.Matrix(1, math.tan(math.radians(a[0])), 0, 1, 0,
                                                     0),)))
    return tuple(steps)


def _ellipse_path(ctx, cx, cy, rx, ry) -> None:
    if rx <= 0 or ry <= 0:
        return
    if rx == ry:   # a circle: one arc, without scaling a unit circle (three calls, not seven)
        ctx.new_sub_path()
        ctx.arc(cx, cy, rx, 0, 2 * math.pi)
        ctx.close_path()
        return
    ctx.save()
    ctx.translate(cx, cy)
    ctx.scale(rx, ry)
    ctx.new_sub_path()
    ctx.arc(0, 0, 1, 0, 2 * math.pi)
    ctx.close_path()
    ctx.restore()


def _rect_path(ctx, x, y, w, h, rx, ry) -> None:
    if w <= 0 or h <= 0:
        return
    if rx <= 0 and ry <= 0:
        ctx.rectangle(x, y, w, h)
        return
    rx = min(rx or ry, w / 2)
    ry = min(ry or rx, h / 2)
    ctx.new_sub_path()
    for cx, cy, start in ((x + w - rx, y + ry, -math.pi / 2), (x + w - rx, y + h - ry, 0),
                          (x + rx, y + h - ry, math.pi / 2), (x + rx, y + ry, math.pi)):
        if rx == ry:   # round corners: each one arc
            ctx.arc(cx, cy, rx, start, start + math.pi / 2)
            continue
        ctx.save()
        ctx.translate(cx, cy)
        ctx.scale(rx, ry)
        ctx.arc(0, 0, 1, start, start + math.pi / 2)
        ctx.restore()
    ctx.close_path()


def _arc_to(ctx, x1, y1, rx, ry, angle, large, sweep, x2, y2) -> None:
    """Append an SVG elliptical arc as cairo arcs (endpoint to centre parameterisation)."""
    if rx == 0 or ry == 0 or (x1 == x2 and y1 == y2):
        ctx.line_to(x2, y2)
        return
    rx, ry = abs(rx), abs(ry)
    phi = math.radians(angle)
    cos_p, sin_p = math.cos(phi), math.sin(phi)
    dx, dy = (x1 - x2) / 2, (y1 - y2) / 2
    x1p, y1p = cos_p * dx + sin_p * dy, -sin_p * dx + cos_p * dy
    lam = (x1p / rx) ** 2 + (y1p / ry) ** 2
    if lam > 1:
        rx, ry = rx * math.sqrt(lam), ry * math.sqrt(lam)
    num = rx * rx * ry * ry - rx * rx * y1p * y1p - ry * ry * x1p * x1p
    den = rx * rx * y1p * y1p + ry * ry * x1p * x1p
    coef = math.sqrt(max(0.0, num / den)) if den else 0.0
    if large == sweep:
        coef = -coef
    cxp, cyp = coef * rx * y1p / ry, -coef * ry * x1p / rx
    cx = cos_p * cxp - sin_p * cyp + (x1 + x2) / 2
    cy = sin_p * cxp + cos_p * cyp + (y1 + y2) / 2
    start = math.atan2((y1p - cyp) / ry, (x1p - cxp) / rx)
    end = math.atan2((-y1p - cyp) / ry, (-x1p - cxp) / rx)
    ctx.save()
    ctx.translate(cx, cy)
    ctx.rotate(phi)
    ctx.scale(rx, ry)
    if sweep:
        ctx.arc(0, 0, 1, start, end)
    else:
        ctx.arc_negative(0, 0, 1, start, end)
    ctx.restore()


def _path(ctx, d: str) -> None:
    """Append SVG path data to the cairo path: the operations it reads to, read once for
    path data a drawing repeats (an icon on every card), are replayed on the context."""
    for name, args in _ops(d):
        getattr(ctx, name)(*args)


class _Trace:
    """Stands in for a cairo context while path data is read: keeps each operation, with
    its arguments, to be replayed on a real context (the same calls, so the same bytes)."""

    def __init__(self):
        self.ops: list[tuple[str, tuple]] = []

    def __getattr__(self, name: str):
        return lambda *args: self.ops.append((name, args))


@_kept
def _ops(d: str) -> tuple:
    """Return the cairo operations SVG path data reads to; Unsupported when it is malformed."""
    trace = _Trace()
    _read_path(trace, d)
    return tuple(trace.ops)


def _read_path(ctx, d: str) -> None:
    """Append SVG path data to the path of ``ctx`` (a _Trace)."""
    tokens = _PATH_TOKEN.findall(d or "")
    i, n = 0, len(tokens)
    cmd = None
    x = y = sx = sy = 0.0
    last_ctrl = None
    last_cmd = ""

    def nums(count):
        nonlocal i
        out = []
        for _ in range(count):
            if i >= n or tokens[i][1] == "":
                raise Unsupported("malformed path")
            out.append(float(tokens[i][1]))
            i += 1
        return out

    while i < n:
        if tokens[i][0]:
            cmd = tokens[i][0]
            i += 1
            if cmd in "Zz":
                ctx.close_path()
                x, y = sx, sy
                last_cmd, last_ctrl = cmd, None
                continue
        elif cmd is None:
            raise Unsupported("path data must start with a command")
        rel = cmd.islower()
        c = cmd.upper()
        if c == "M":
            px, py = nums(2)
            x, y = (x + px, y + py) if rel else (px, py)
            ctx.move_to(x, y)
            sx, sy = x, y
            cmd = "l" if rel else "L"
            last_ctrl = None
        elif c == "L":
            px, py = nums(2)
            x, y = (x + px, y + py) if rel else (px, py)
            ctx.line_to(x, y)
            last_ctrl = None
        elif c == "H":
            (px,) = nums(1)
            x = x + px if rel else px
            ctx.line_to(x, y)
            last_ctrl = None
        elif c == "V":
            (py,) = nums(1)
            y = y + py if rel else py
            ctx.line_to(x, y)
            last_ctrl = None
        elif c == "C":
            a = nums(6)
            if rel:
                a = [a[0] + x, a[1] + y, a[2] + x, a[3] + y, a[4] + x, a[5] + y]
            ctx.curve_to(*a)
            last_ctrl = (a[2], a[3])
            x, y = a[4], a[5]
        elif c == "S":
            a = nums(4)
            if rel:
                a = [a[0] + x, a[1] + y, a[2] + x, a[3] + y]
            if last_ctrl and last_cmd.upper() in "CS":
                c1 = (2 * x - last_ctrl[0], 2 * y - last_ctrl[1])
            else:
                c1 = (x, y)
            ctx.curve_to(c1[0], c1[1], a[0], a[1], a[2], a[3])
            last_ctrl = (a[0], a[1])
            x, y = a[2], a[3]
        elif c in "QT":
            if c == "Q":
                a = nums(4)
                if rel:
                    a = [a[0] + x, a[1] + y, a[2] + x, a[3] + y]
                qx, qy, ex, ey = a
            else:
                ex, ey = nums(2)
                if rel:
                    ex, ey = ex + x, ey + y
                if last_ctrl and last_cmd.upper() in "QT":
                    qx, qy = 2 * x - last_ctrl[0], 2 * y - last_ctrl[1]
                else:
                    qx, qy = x, y
            ctx.curve_to(x + 2 / 3 * (qx - x), y + 2 / 3 * (qy - y),
                         ex + 2 / 3 * (qx - ex), ey + 2 / 3 * (qy - ey), ex, ey)
            last_ctrl = (qx, qy)
            x, y = ex, ey
        elif c == "A":
            rx, ry, angle = nums(3)
            large, sweep = nums(2)
            ex, ey = nums(2)
            if rel:
                ex, ey = ex + x, ey + y
            _arc_to(ctx, x, y, rx, ry, angle, bool(large), bool(sweep), ex, ey)
            x, y = ex, ey
            last_ctrl = None
        last_cmd = cmd


def _shape(ctx, tag: str, a: dict) -> None:
    if tag == "rect":
        _rect_path(ctx, _num(a.get("x")), _num(a.get("y")), _num(a.get("width")),
                   _num(a.get("height")), _num(a.get("rx")), _num(a.get("ry")))
    elif tag == "circle":
        r = _num(a.get("r"))
        _ellipse_path(ctx, _num(a.get("cx")), _num(a.get("cy")), r, r)
    elif tag == "ellipse":
        _ellipse_path(ctx, _num(a.get("cx")), _num(a.get("cy")), _num(a.get("rx")),
                      _num(a.get("ry")))
    elif tag == "line":
        ctx.move_to(_num(a.get("x1")), _num(a.get("y1")))
        ctx.line_to(_num(a.get("x2")), _num(a.get("y2")))
    elif tag in ("polyline", "polygon"):
        pts = _numbers(a.get("points"))
        if len(pts) >= 2:
            ctx.move_to(pts[0], pts[1])
            for k in range(2, len(pts) - 1, 2):
                ctx.line_to(pts[k], pts[k + 1])
            if tag == "polygon":
                ctx.close_path()
    elif tag == "path":
        _path(ctx, a.get("d", ""))


def _paint(ctx, tag: str, style: dict, opacity: float) -> None:
    """Fill and stroke the current path as the style says."""
    fill = colour(style.get("fill", "black")) if tag != "line" else None
    stroke = style.get("stroke")
    if stroke is not None:
        stroke = colour(stroke)
    stroked = stroke is not None and _num(style.get("stroke-width"), 1.0) > 0
    if fill is not None:
        ctx.set_fill_rule(cairo.FILL_RULE_EVEN_ODD if style.get("fill-rule") == "evenodd"
                          else cairo.FILL_RULE_WINDING)
        ctx.set_source_rgba(*fill, _num(style.get("fill-opacity"), 1.0) * opacity)
        if stroked:
            ctx.fill_preserve()
        else:
            ctx.fill()
    if stroked:
        ctx.set_source_rgba(*stroke, _num(style.get("stroke-opacity"), 1.0) * opacity)
        ctx.set_line_width(_num(style.get("stroke-width"), 1.0))
        ctx.set_line_cap(_CAPS.get(style.get("stroke-linecap", "butt"), cairo.LINE_CAP_BUTT))
        ctx.set_line_join(_JOINS.get(style.get("stroke-linejoin", "miter"),
                                     cairo.LINE_JOIN_MITER))
        ctx.set_miter_limit(_num(style.get("stroke-miterlimit"), 4.0))
        dashes = [v for v in _numbers(style.get("stroke-dasharray"))
                  if style.get("stroke-dasharray") != "none"]
        if dashes and sum(dashes) > 0:
            if len(dashes) % 2:
                dashes = dashes * 2
            ctx.set_dash(dashes, _num(style.get("stroke-dashoffset")))
        else:
            ctx.set_dash([])
        ctx.stroke()
    elif fill is None:
        ctx.new_path()   # filling or stroking clears the path; nothing did


_SLANTS = {"italic": cairo.FONT_SLANT_ITALIC, "oblique": cairo.FONT_SLANT_OBLIQUE}


@lru_cache(maxsize=256)
def _font_face(family: str, style: str | None, weight: str) -> tuple:
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
        font = (_font_face(style.get("font-family", "DejaVu Sans Condensed"),
                           style.get("font-style"), style.get("font-weight", "normal")),
                _num(style.get("font-size"), 16.0))
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
            paint = (*fill, _num(style.get("fill-opacity"), 1.0) * opacity)
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
        paint = (*fill, _num(style.get("fill-opacity"), 1.0) * opacity)
        if paint != self.paint:
            self.ctx.set_source_rgba(*paint)
            self.paint = paint
        utf8, glyphs, clusters, backward = _glyph_run(text, placed)
        if glyphs:
            self.ctx.show_text_glyphs(utf8, tuple((g, gx, y + gy) for g, gx, gy in glyphs),
                                      clusters, backward)


@lru_cache(maxsize=8192)
def _glyph_run(text: str, placed: str) -> tuple:
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


def _text(ctx, el, style: dict, opacity: float) -> None:
    x, y = _num(el.get("x")), _num(el.get("y"))
    pen = _Pen(ctx)
    if el.get("class") == RUN_CLASS:
        # Laid out by printshop: each run carries its own x, y, family and weight (a forged
        # run without them goes on from the last one, as SVG would place it, so a run is
        # measured only when the next one has no x of its own).
        runs = list(el)
        for i, run in enumerate(runs):
            x, y = _num(run.get("x"), x), _num(run.get("y"), y)
            placed = run.get(GLYPHS_ATTR)
            if placed is not None and run.text:
                pen.show_glyphs(run.text, placed, y, _style(run, style), opacity)
                continue
            if run.text:
                then = i + 1 < len(runs) and runs[i + 1].get("x") is None
                x = pen.show(run.text, x, y, _style(run, style), opacity, then)
        return
    if el.text and el.text.strip():
        x = pen.show(" ".join(el.text.split()), x, y, style, opacity)
    for child in el:
        if _local(child.tag) != "tspan":
            raise Unsupported("text content other than tspan")
        if len(child):
            raise Unsupported("nested tspan")
        x = _num(child.get("x"), x)
        y = _num(child.get("y"), y)
        if child.text and child.text.strip():
            x = pen.show(" ".join(child.text.split()), x, y, _style(child, style), opacity)
        if child.tail and child.tail.strip():
            x = pen.show(" " + " ".join(child.tail.split()), x, y, style, opacity)


def _local(tag) -> str:
    if not isinstance(tag, str):
        return ""
    return tag[len(SVG):] if tag.startswith(SVG) else tag


_TAGS = {**{SVG + tag: tag for tag in SUPPORTED}, **{tag: tag for tag in SUPPORTED}}


def _viewport(ctx, el) -> bool:
    """Set up a nested <svg>: its position, viewBox scaling and clip; False if it is empty."""
    x, y = _num(el.get("x")), _num(el.get("y"))
    w, h = _num(el.get("width")), _num(el.get("height"))
    if w <= 0 or h <= 0:
        return False  # SVG draws nothing in a viewport without area
    ctx.translate(x, y)
    if el.get("overflow", "hidden") != "visible":
        ctx.rectangle(0, 0, w, h)
        ctx.clip()
    box = _numbers(el.get("viewBox"))
    if len(box) == 4 and box[2] > 0 and box[3] > 0:
        aspect = el.get("preserveAspectRatio", "xMidYMid meet")
        sx, sy = w / box[2], h / box[3]
        if aspect != "none":
            s = min(sx, sy) if "slice" not in aspect else max(sx, sy)
            ctx.translate((w - box[2] * s) / 2, (h - box[3] * s) / 2)
            sx = sy = s
        ctx.scale(sx, sy)
        ctx.translate(-box[0], -box[1])
    return True


def _draw(ctx, el, inherited: dict) -> None:
    tag = _TAGS.get(el.tag) or _local(el.tag)
    if tag in SKIPPED:
        return
    if tag not in SUPPORTED:
        raise Unsupported(f"<{tag}>")
    style = _style(el, inherited)
    attrib = el.attrib
    if attrib.get("display") == "none" or style.get("visibility") == "hidden":
        return
    opacity = _num(attrib.get("opacity"), 1.0)
    transform = attrib.get("transform")
    if tag in SHAPES:
        # Without a transform, nothing to restore: a shape's paint sets everything it uses,
        # as every later shape and text does before drawing.
        if transform:
            ctx.save()
            _transform(ctx, transform)
        _shape(ctx, tag, attrib)
        _paint(ctx, tag, style, opacity)
        if transform:
            ctx.restore()
        return
    group = opacity < 1 and tag != "tspan"
    ctx.save()
    _transform(ctx, transform)
    if group:
        ctx.push_group()
    if tag in CONTAINERS:
        if tag != "svg" or _viewport(ctx, el):
            for child in el:
                _draw(ctx, child, style)
    elif tag == "text":
        _text(ctx, el, style, 1.0 if group else opacity)
    if group:
        ctx.pop_group_to_source()
        ctx.paint_with_alpha(opacity)
    ctx.restore()


_UNSUPPORTED_ATTRS = {"clip-path", "mask", "filter", "marker-start", "marker-mid", "marker-end",
                      "letter-spacing", "word-spacing", "writing-mode", "dominant-baseline",
                      "alignment-baseline", "baseline-shift", "textLength", "lengthAdjust",
                      "rotate", "dx", "dy", "clip", "font", "transform-origin"}
_LENGTHS = {"x", "y", "width", "height", "cx", "cy", "r", "rx", "ry", "x1", "y1", "x2", "y2",
            "stroke-width", "font-size", "opacity", "fill-opacity", "stroke-opacity",
            "stroke-dashoffset", "stroke-miterlimit"}


_STYLE_NUMBERS = ("stroke-width", "font-size", "fill-opacity", "stroke-opacity",
                  "stroke-dashoffset", "stroke-miterlimit")


class _Nothing:
    """A cairo context that draws nothing: lets _check read transforms the way _draw will,
    so that nothing draw_page meets halfway down a page is a surprise."""

    def _skip(self, *args):
        pass

    save = restore = translate = rotate = scale = transform = _skip


_NOTHING = _Nothing()


@lru_cache(maxsize=4096)
def _path_problem(d: str) -> str:
    """Return why _path cannot read path data, or ''. Cached: icons repeat on every card."""
    try:
        _ops(d)
    except Unsupported as exc:
        return str(exc)
    return ""


# Elements _check found drawable, by tag and attributes: what it reads of an element other
# than the root is a function of those alone, and cards of one template repeat them (the same
# rectangles, styles and text positions on every card). Bounded: emptied when full.
_FINE: dict[tuple, bool] = {}
FINE_KEPT = 16384


def _check(root) -> None:
    """Refuse, before anything is drawn, a page with anything draw_page cannot draw."""
    for el in root.iter():
        tag = _TAGS.get(el.tag) or _local(el.tag)
        if tag not in SUPPORTED:
            raise Unsupported(f"<{tag}>")
        if tag == "text":
            if any(_local(child.tag) != "tspan" or len(child) for child in el):
                raise Unsupported("text content other than a flat tspan")
            if el.get("class") == RUN_CLASS and any((c.tail or "").strip() for c in el):
                raise Unsupported("text between runs")
            for child in el:
                if child.get(GLYPHS_ATTR) is not None:
                    _check_glyphs(child, el)
        if el is root:
            _check_element(el, tag, True)
            continue
        key = (tag, tuple(el.attrib.items()))
        if key not in _FINE:
            _check_element(el, tag, False)
            if len(_FINE) >= FINE_KEPT:
                _FINE.clear()
            _FINE[key] = True


def _check_glyphs(run, text) -> None:
    """Refuse a shaped run whose glyphs cannot be read or whose font is not one printshop
    shaped with (glyph ids mean nothing in another font)."""
    family = run.get("font-family") or text.get("font-family") or ""
    if not fonts.known_family(family.split(",")[0].strip("'\" ")):
        raise Unsupported(f"shaped text in the font {family[:40]!r}")
    try:
        _glyph_run(run.text or "", run.get(GLYPHS_ATTR))
    except (ValueError, OverflowError):
        raise Unsupported(f"{GLYPHS_ATTR} that is not glyphs") from None


def _check_element(el, tag: str, is_root: bool) -> None:
    """Refuse an element whose styles, paints, numbers, transform or path cannot be drawn."""
    if not is_root:
        style = _style(el, {})
        for name in ("fill", "stroke"):
            if name in style:
                colour(style[name])
        for name in _STYLE_NUMBERS:
            if name in style:
                _num(style[name])
    try:
        _transform(_NOTHING, el.get("transform"))
    except IndexError:
        raise Unsupported("transform without numbers") from None
    if tag == "path":
        problem = _path_problem(el.get("d", ""))
        if problem:
            raise Unsupported(problem)
    for name, value in el.attrib.items():
        if "url(" in value or name.endswith("}href") or name == "href":
            raise Unsupported("reference")
        if name in _UNSUPPORTED_ATTRS and not (name == "dx" and GLYPHS_ATTR in el.attrib):
            raise Unsupported(name)   # a shaped run's dx (for other readers) is not drawn
        if name in ("fill", "stroke"):
            colour(value)
        elif name in _LENGTHS and not is_root:
            _num(value)


def cairo_reason(exc: Exception) -> str:
    """Return cairo's own words for an error, without the status code around them."""
    found = re.search(r"b'([^']*)'", str(exc))
    return found.group(1) if found else str(exc)


def drawable(root) -> bool:
    """Return whether every part of a parsed page can be drawn here (else cairosvg draws it)."""
    try:
        _check(root)
    except Unsupported:
        return False
    return True


def parse(svg: str):
    """Parse a page and return its root if every part of it can be drawn here, else None."""
    try:
        root = ElementTree.fromstring(svg)
    except ElementTree.ParseError:
        return None
    return root if drawable(root) else None


PT_PER_MM = 72 / 25.4


def draw_page(ctx, root, width: float, height: float, stamps=()) -> bool:
    """Draw a page that drawable() accepted (user units = mm), scaled to points; each of
    ``stamps`` (a function of the context, faces.py's placed faces) draws first, in mm.

    _check has read everything this reads, so a failure here is a real one (cairo refusing a
    matrix, say): it is raised as a DrawError, never swallowed with half a page drawn.
    """
    ctx.save()
    ctx.scale(PT_PER_MM, PT_PER_MM)
    try:
        box = _numbers(root.get("viewBox"))
        if len(box) == 4 and box[2] > 0 and box[3] > 0:
            ctx.scale(width / box[2], height / box[3])
            ctx.translate(-box[0], -box[1])
        ctx.rectangle(0, 0, width, height)
        ctx.clip()
        for stamp in stamps:
            stamp(ctx)
        draw_tree(ctx, root)
    except cairo.CairoError as exc:
        raise DrawError(f"cairo could not draw it ({cairo_reason(exc)})") from None
    except RecursionError:
        raise DrawError("it nests elements too deeply to draw") from None
    except (Unsupported, ValueError, IndexError, TypeError) as exc:
        raise DrawError(f"it could not be drawn ({exc})") from None
    ctx.restore()
    return True


def draw_tree(ctx, root) -> None:
    """Draw the children of a tree drawable() accepted, in the context's user space."""
    canvas = Canvas(ctx)
    try:
        for child in root:
            _draw(canvas, child, {})
    finally:
        canvas.check()   # cairo's first error, if it met one, is the one to report


def record(root, width: float, height: float):
    """Return a cairo recording, in points, of a tree drawable() accepted that is ``width`` x
    ``height`` mm: drawn once, it is painted wherever it is placed (one form in a PDF)."""
    surface = cairo.RecordingSurface(cairo.CONTENT_COLOR_ALPHA,
                                     (0, 0, width * PT_PER_MM, height * PT_PER_MM))
    ctx = cairo.Context(surface)
    ctx.set_font_options(_UNHINTED)   # glyphs placed as the PDF surface itself places them
    ctx.scale(PT_PER_MM, PT_PER_MM)
    draw_tree(ctx, root)
    return surface


_UNHINTED = cairo.FontOptions(hint_metrics=cairo.HINT_METRICS_OFF,
                              hint_style=cairo.HINT_STYLE_NONE)
