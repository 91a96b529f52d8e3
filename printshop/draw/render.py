"""Draw SVG pages straight onto a cairo context: the subset printshop's templates use.

cairosvg draws any SVG but spends most of a build walking its tree in Python (and draws text
letter by letter). Pages made only of shapes, paths, groups, nested viewports and text are drawn
here in one pass; a page with anything else (gradients, clip paths, images, CSS) is refused
before anything is drawn (subset.py) and is drawn by cairosvg instead. How an element's
attributes, path data and text are read and drawn: svgread.py, svgpath.py, svgtext.py.
"""

from __future__ import annotations

import math
import re

import cairocffi as cairo

from .canvas import Canvas
from .svgpath import append_path
from .svgread import (CONTAINERS, SHAPES, SKIPPED, SUPPORTED, TAGS, Unsupported, apply_transform,
                      colour, local_name, number, numbers, read_style)
from .svgtext import draw_text

CAPS = {"butt": cairo.LINE_CAP_BUTT, "round": cairo.LINE_CAP_ROUND,
        "square": cairo.LINE_CAP_SQUARE}
JOINS = {"miter": cairo.LINE_JOIN_MITER, "round": cairo.LINE_JOIN_ROUND,
         "bevel": cairo.LINE_JOIN_BEVEL}


class DrawError(Exception):
    """A page that passed every check but could not be drawn: never skipped in silence."""


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


def shape_path(ctx, tag: str, a: dict) -> None:
    """Append a shape's outline (its attributes ``a``) to the context's path."""
    if tag == "rect":
        _rect_path(ctx, number(a.get("x")), number(a.get("y")), number(a.get("width")),
                   number(a.get("height")), number(a.get("rx")), number(a.get("ry")))
    elif tag == "circle":
        r = number(a.get("r"))
        _ellipse_path(ctx, number(a.get("cx")), number(a.get("cy")), r, r)
    elif tag == "ellipse":
        _ellipse_path(ctx, number(a.get("cx")), number(a.get("cy")), number(a.get("rx")),
                      number(a.get("ry")))
    elif tag == "line":
        ctx.move_to(number(a.get("x1")), number(a.get("y1")))
        ctx.line_to(number(a.get("x2")), number(a.get("y2")))
    elif tag in ("polyline", "polygon"):
        pts = numbers(a.get("points"))
        if len(pts) >= 2:
            ctx.move_to(pts[0], pts[1])
            for k in range(2, len(pts) - 1, 2):
                ctx.line_to(pts[k], pts[k + 1])
            if tag == "polygon":
                ctx.close_path()
    elif tag == "path":
        append_path(ctx, a.get("d", ""))


def _paint(ctx, tag: str, style: dict, opacity: float) -> None:
    """Fill and stroke the current path as the style says."""
    fill = colour(style.get("fill", "black")) if tag != "line" else None
    stroke = style.get("stroke")
    if stroke is not None:
        stroke = colour(stroke)
    stroked = stroke is not None and number(style.get("stroke-width"), 1.0) > 0
    if fill is not None:
        ctx.set_fill_rule(cairo.FILL_RULE_EVEN_ODD if style.get("fill-rule") == "evenodd"
                          else cairo.FILL_RULE_WINDING)
        ctx.set_source_rgba(*fill, number(style.get("fill-opacity"), 1.0) * opacity)
        if stroked:
            ctx.fill_preserve()
        else:
            ctx.fill()
    if stroked:
        ctx.set_source_rgba(*stroke, number(style.get("stroke-opacity"), 1.0) * opacity)
        ctx.set_line_width(number(style.get("stroke-width"), 1.0))
        ctx.set_line_cap(CAPS.get(style.get("stroke-linecap", "butt"), cairo.LINE_CAP_BUTT))
        ctx.set_line_join(JOINS.get(style.get("stroke-linejoin", "miter"),
                                     cairo.LINE_JOIN_MITER))
        ctx.set_miter_limit(number(style.get("stroke-miterlimit"), 4.0))
        dashes = [v for v in numbers(style.get("stroke-dasharray"))
                  if style.get("stroke-dasharray") != "none"]
        if dashes and sum(dashes) > 0:
            if len(dashes) % 2:
                dashes = dashes * 2
            ctx.set_dash(dashes, number(style.get("stroke-dashoffset")))
        else:
            ctx.set_dash([])
        ctx.stroke()
    elif fill is None:
        ctx.new_path()   # filling or stroking clears the path; nothing did


def viewport(ctx, el) -> bool:
    """Set up a nested <svg>: its position, viewBox scaling and clip; False if it is empty."""
    x, y = number(el.get("x")), number(el.get("y"))
    w, h = number(el.get("width")), number(el.get("height"))
    if w <= 0 or h <= 0:
        return False  # SVG draws nothing in a viewport without area
    ctx.translate(x, y)
    if el.get("overflow", "hidden") != "visible":
        ctx.rectangle(0, 0, w, h)
        ctx.clip()
    box = numbers(el.get("viewBox"))
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


def draw_element(ctx, el, inherited: dict) -> None:
    """Draw an element and its children with the styles they inherit."""
    tag = TAGS.get(el.tag) or local_name(el.tag)
    if tag in SKIPPED:
        return
    if tag not in SUPPORTED:
        raise Unsupported(f"<{tag}>")
    style = read_style(el, inherited)
    attrib = el.attrib
    if attrib.get("display") == "none" or style.get("visibility") == "hidden":
        return
    opacity = number(attrib.get("opacity"), 1.0)
    transform = attrib.get("transform")
    if tag in SHAPES:
        # Without a transform, nothing to restore: a shape's paint sets everything it uses,
        # as every later shape and text does before drawing.
        if transform:
            ctx.save()
            apply_transform(ctx, transform)
        shape_path(ctx, tag, attrib)
        _paint(ctx, tag, style, opacity)
        if transform:
            ctx.restore()
        return
    group = opacity < 1 and tag != "tspan"
    ctx.save()
    apply_transform(ctx, transform)
    if group:
        ctx.push_group()
    if tag in CONTAINERS:
        if tag != "svg" or viewport(ctx, el):
            for child in el:
                draw_element(ctx, child, style)
    elif tag == "text":
        draw_text(ctx, el, style, 1.0 if group else opacity)
    if group:
        ctx.pop_group_to_source()
        ctx.paint_with_alpha(opacity)
    ctx.restore()


def cairo_reason(exc: Exception) -> str:
    """Return cairo's own words for an error, without the status code around them."""
    found = re.search(r"b'([^']*)'", str(exc))
    return found.group(1) if found else str(exc)


PT_PER_MM = 72 / 25.4


def draw_page(ctx, root, width: float, height: float, stamps=()) -> bool:
    """Draw a page that subset.drawable() accepted (user units = mm), scaled to points; each
    of ``stamps`` (a function of the context, faces.py's placed faces) draws first, in mm.

    subset.py has read everything this reads, so a failure here is a real one (cairo refusing a
    matrix, say): it is raised as a DrawError, never swallowed with half a page drawn.
    """
    ctx.save()
    ctx.scale(PT_PER_MM, PT_PER_MM)
    try:
        box = numbers(root.get("viewBox"))
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
    """Draw the children of a tree subset.drawable() accepted, in the context's user space."""
    canvas = Canvas(ctx)
    try:
        for child in root:
            draw_element(canvas, child, {})
    finally:
        canvas.check()   # cairo's first error, if it met one, is the one to report


def record(root, width: float, height: float):
    """Return a cairo recording, in points, of a tree subset.drawable() accepted that is
    ``width`` x ``height`` mm: drawn once, it is painted wherever it is placed (one form in a
    PDF)."""
    surface = cairo.RecordingSurface(cairo.CONTENT_COLOR_ALPHA,
                                     (0, 0, width * PT_PER_MM, height * PT_PER_MM))
    ctx = cairo.Context(surface)
    ctx.set_font_options(_UNHINTED)   # glyphs placed as the PDF surface itself places them
    ctx.scale(PT_PER_MM, PT_PER_MM)
    draw_tree(ctx, root)
    return surface


_UNHINTED = cairo.FontOptions(hint_metrics=cairo.HINT_METRICS_OFF,
                              hint_style=cairo.HINT_STYLE_NONE)
