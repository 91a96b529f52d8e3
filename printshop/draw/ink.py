"""Low-ink drawings: any game's SVG rewritten with pale fills, dark text and no full-bleed fills.

Templates need not know about low ink: every drawing passes through ``low_ink`` when the
option is on, so a user's game gets the same treatment as a built-in one.
"""

from __future__ import annotations

import math
import re
import xml.etree.ElementTree as ET
from functools import partial

from . import colours

SVG_NS = "http://www.w3.org/2000/svg"
XLINK_NS = "http://www.w3.org/1999/xlink"
FILL_KEEP = 0.16      # share of a fill's ink kept: dark navy becomes a pale grey-blue
DETAIL_KEEP = 0.5     # for shapes drawn under a transform: icons and details stay legible
LIGHT_DETAIL = 0.85   # a detail this light (white icons on coloured discs) keeps its colour...
OUTLINE_MM = 0.2      # ...and, when its ground was dark, gets an outline this wide
DARK_GROUND = 0.5     # a ground darker than this turns pale: what sat on it needs help
GROUND_SCALE = 0.5    # shapes drawn at least this large count as a ground (icons do not)
TEXT_LIGHT = 0.55     # text lighter than this on a dark ground would vanish once it is pale...
TEXT_DARKEN = 0.3     # ...so it is darkened to this share of its value
TEXT_TAGS = {"text", "tspan", "textPath"}
SHAPE_TAGS = {"rect", "circle", "ellipse", "path", "polygon", "polyline"}
_STYLE_COLOUR = re.compile(r"(?P<key>(?:^|;)\s*(?:fill|stop-color)\s*:\s*)(?P<value>[^;]+)")

ET.register_namespace("", SVG_NS)
ET.register_namespace("xlink", XLINK_NS)


def parse_colour(value: str) -> tuple[float, float, float] | None:
    """Return (r, g, b) in 0-1 for a plain SVG colour, or None for none, url(...) and the like."""
    try:
        return colours.parse(value)
    except ValueError:
        return None


def hex_colour(rgb) -> str:
    """Return an (r, g, b) colour in 0-1 as #rrggbb."""
    return "#" + "".join(f"{round(max(0.0, min(1.0, c)) * 255):02x}" for c in rgb)


def luminance(rgb) -> float:
    """Return the relative brightness of a colour, 0 (black) to 1 (white)."""
    r, g, b = rgb
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def pale(rgb, keep: float = FILL_KEEP) -> tuple[float, float, float]:
    """Return a fill colour mixed with white, keeping ``keep`` of its ink."""
    return tuple(1 - keep * (1 - c) for c in rgb)


def readable(rgb) -> tuple[float, float, float]:
    """Return a text colour dark enough to read on a pale background."""
    if luminance(rgb) <= TEXT_LIGHT:
        return tuple(rgb)
    return tuple(c * TEXT_DARKEN for c in rgb)


def detail(rgb) -> tuple[float, float, float]:
    """Return the low-ink colour of an icon or detail: paler, never darker (a cream sail on
    a cream card stays cream; one on a dark ground that turns pale gets an outline)."""
    return pale(rgb, DETAIL_KEEP)


_STEP = re.compile(r"(matrix|translate|scale|rotate)\s*\(([^)]*)\)")
_NUM = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")
IDENTITY = (1.0, 0.0, 0.0, 1.0, 0.0, 0.0)


def _times(m, n):
    """Return the affine matrix m . n (SVG's a b c d e f)."""
    a, b, c, d, e, f = m
    p, q, r, s, t, u = n
    return (a * p + c * q, b * p + d * q, a * r + c * s, b * r + d * s,
            a * t + c * u + e, b * t + d * u + f)


def _matrix(transform: str | None, m=IDENTITY):
    """Return ``m`` followed by an SVG transform list (matrix, translate, scale, rotate)."""
    for name, args in _STEP.findall(transform or ""):
        n = [float(v) for v in _NUM.findall(args)]
        if name == "matrix" and len(n) == 6:
            m = _times(m, tuple(n))
        elif name == "translate" and n:
            m = _times(m, (1, 0, 0, 1, n[0], n[1] if len(n) > 1 else 0))
        elif name == "scale" and n:
            m = _times(m, (n[0], 0, 0, n[1] if len(n) > 1 else n[0], 0, 0))
        elif name == "rotate" and n:
            cx, cy = (n[1], n[2]) if len(n) == 3 else (0, 0)
            t = math.radians(n[0])
            m = _times(m, (1, 0, 0, 1, cx, cy))
            m = _times(m, (math.cos(t), math.sin(t), -math.sin(t), math.cos(t), 0, 0))
            m = _times(m, (1, 0, 0, 1, -cx, -cy))
    return m


def _apply(m, x: float, y: float) -> tuple[float, float]:
    return m[0] * x + m[2] * y + m[4], m[1] * x + m[3] * y + m[5]


def _scale_of(m) -> float:
    return math.sqrt(abs(m[0] * m[3] - m[1] * m[2]))


def _box(el: ET.Element, tag: str, m):
    """Return the page box (x0, y0, x1, y1) of a rect, circle or ellipse, or None."""
    if tag == "rect":
        x, y = _number(el.get("x")), _number(el.get("y"))
        corners = [(x, y), (x + _number(el.get("width")), y + _number(el.get("height")))]
    elif tag in ("circle", "ellipse"):
        cx, cy = _number(el.get("cx")), _number(el.get("cy"))
        rx = _number(el.get("r") or el.get("rx"))
        ry = _number(el.get("r") or el.get("ry"))
        corners = [(cx - rx, cy - ry), (cx + rx, cy + ry)]
    else:
        return None
    (x0, y0), (x1, y1) = corners
    pts = [_apply(m, x, y) for x, y in ((x0, y0), (x1, y0), (x0, y1), (x1, y1))]
    return (min(p[0] for p in pts), min(p[1] for p in pts), max(p[0] for p in pts),
            max(p[1] for p in pts))


class _Ground:
    """The shapes painted large so far, in drawing order: what a detail or text sits on."""

    def __init__(self):
        self.shapes: list[tuple[tuple, tuple]] = []

    def add(self, box, rgb) -> None:
        self.shapes.append((box, rgb))

    def at(self, x: float, y: float) -> tuple[float, float, float] | None:
        """Return the colour last painted under a point, or None when no rectangle, circle
        or ellipse is known there (it may be a path's)."""
        for (x0, y0, x1, y1), rgb in reversed(self.shapes):
            if x0 <= x <= x1 and y0 <= y <= y1:
                return rgb
        return None


def _dark(rgb) -> bool:
    """Say whether a ground is dark, or unknown (and so perhaps dark)."""
    return rgb is None or luminance(rgb) < DARK_GROUND


def _point(el: ET.Element, tag: str, m) -> tuple[float, float]:
    """Return the page point an element sits at: a text's first baseline (a little above it),
    a shape's centre, an icon's middle."""
    if tag in TEXT_TAGS:
        first = el if el.get("x") is not None else next(
            (c for c in el.iter() if c.get("x") is not None), el)
        size = _number(el.get("font-size")) or 3.0
        return _apply(m, _number(first.get("x")) + 0.5, _number(first.get("y")) - size / 3)
    if tag in ("circle", "ellipse"):
        return _apply(m, _number(el.get("cx")), _number(el.get("cy")))
    if tag == "rect":
        return _apply(m, _number(el.get("x")) + _number(el.get("width")) / 2,
                      _number(el.get("y")) + _number(el.get("height")) / 2)
    # A group: an icon is drawn in a 100 x 100 box.
    return _apply(m, 50.0, 50.0) if _scale_of(m) < GROUND_SCALE else _apply(m, 0.0, 0.0)


def _map_value(value: str, change) -> str:
    rgb = parse_colour(value)
    return value if rgb is None else hex_colour(change(rgb))


def _local(tag: str) -> str:
    return tag.rsplit("}", 1)[-1]


def _number(value: str | None) -> float:
    try:
        return float(value) if value is not None else 0.0
    except ValueError:
        return 0.0


def _reaches_bleed(el: ET.Element, tag: str) -> bool:
    """Say whether an untransformed rectangle starts outside the trim corner (a bleed fill)."""
    return tag == "rect" and _number(el.get("x")) < 0 and _number(el.get("y")) < 0


def _rewrite(el: ET.Element, inherited: str, transformed: bool, m, ground: _Ground) -> None:
    tag = _local(el.tag)
    own = el.get("fill")
    style = el.get("style")
    moved = transformed or el.get("transform") is not None or tag in ("svg", "symbol", "use")
    m = _matrix(el.get("transform"), m)
    if tag in TEXT_TAGS:
        # Light text is darkened only where its ground was dark (and now is pale).
        under = ground.at(*_point(el, tag, m))
        change = readable if _dark(under) else (lambda rgb: rgb)
        rgb = parse_colour(own or inherited)
        if rgb is not None and change(rgb) != tuple(rgb):
            el.set("fill", hex_colour(change(rgb)))
    else:
        change = detail if moved else partial(pale, keep=FILL_KEEP)
        rgb = parse_colour(own) if own is not None else None
        if own is not None:
            bleed = not moved and _reaches_bleed(el, tag) and rgb is not None
            el.set("fill", "none" if bleed else _map_value(own, change))
        if el.get("stop-color") is not None:
            el.set("stop-color", _map_value(el.get("stop-color"), change))
        if rgb is not None and moved and luminance(rgb) > LIGHT_DETAIL and \
                el.get("stroke") is None and _scale_of(m) > 0:
            under = ground.at(*_point(el, tag, m))
            if under is not None and _dark(under):
                # A light detail whose dark ground turns pale: outlined, never filled dark.
                el.set("stroke", hex_colour(under))
                el.set("stroke-width", f"{OUTLINE_MM / _scale_of(m):.4g}")
        box = _box(el, tag, m) if rgb is not None and _scale_of(m) >= GROUND_SCALE and \
            _number(el.get("fill-opacity") or "1") >= 0.5 else None
        if box is not None:
            ground.add(box, rgb)
    if style:
        el.set("style", _STYLE_COLOUR.sub(
            lambda m: m.group("key") + _map_value(m.group("value"), change), style))
    for child in el:
        _rewrite(child, own or inherited, moved, m, ground)


def low_ink(fragment: str) -> str:
    """Return an SVG fragment redrawn for low ink: pale fills, dark text, no bleed fills."""
    try:
        root = ET.fromstring(f'<svg xmlns="{SVG_NS}" xmlns:xlink="{XLINK_NS}">{fragment}</svg>')
    except ET.ParseError:
        return fragment  # drawing it will report the real problem, with its place
    ground = _Ground()
    for child in root:
        _rewrite(child, "#000", False, IDENTITY, ground)
    out = [root.text or ""]
    for child in root:
        text = ET.tostring(child, encoding="unicode")
        out.append(text.replace(f' xmlns="{SVG_NS}"', "", 1))
    return "".join(out)
