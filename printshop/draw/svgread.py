"""How render.py reads an SVG element: its tag, numbers and units, presentation styles,
paints and transform lists; Unsupported for anything it leaves to cairosvg.

What a drawing repeats card after card (path data, lists of numbers, transforms) is read once
and kept.
"""

from __future__ import annotations

import math
import re
from functools import lru_cache

import cairocffi as cairo

from . import colours

SVG = "{http://www.w3.org/2000/svg}"
SHAPES = {"rect", "circle", "ellipse", "line", "polyline", "polygon", "path"}
CONTAINERS = {"svg", "g"}
SKIPPED = {"title", "desc", "metadata"}
SUPPORTED = SHAPES | CONTAINERS | SKIPPED | {"text", "tspan"}
INHERITED = ("fill", "fill-opacity", "fill-rule", "stroke", "stroke-width", "stroke-opacity",
             "stroke-dasharray", "stroke-dashoffset", "stroke-linecap", "stroke-linejoin",
             "stroke-miterlimit", "font-family", "font-size", "font-weight", "font-style",
             "text-anchor", "visibility", "color")
INHERITED_SET = frozenset(INHERITED)
_NUMBER = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")
_TRANSFORM = re.compile(r"(matrix|translate|scale|rotate|skewX|skewY)\s*\(([^)]*)\)")
# Path data and lists of numbers are read once and kept (a card's icons and frames repeat on
# every card): this many distinct ones, each at most this long (a map's coast is not kept).
PATH_KEPT = 1024
PATH_KEPT_CHARS = 2000


class Unsupported(Exception):
    """The SVG uses something this renderer leaves to cairosvg."""


def colour(value: str | None) -> tuple[float, float, float] | None:
    """Return an (r, g, b) tuple for an SVG paint, or None for no paint."""
    try:
        return colours.parse(value)
    except ValueError:
        raise Unsupported(f"paint {value!r}") from None


def number(value, default: float = 0.0) -> float:
    """Return a length or number attribute (``default`` when absent); Unsupported for a unit."""
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


def kept(read):
    """Return ``read`` (a function of an attribute's text) with its results kept for text up
    to PATH_KEPT_CHARS long, PATH_KEPT of them."""
    kept = lru_cache(maxsize=PATH_KEPT)(read)

    def get(text: str):
        return kept(text) if len(text) <= PATH_KEPT_CHARS else read(text)
    get.__doc__ = read.__doc__
    return get


@kept
def _read_numbers(value: str) -> tuple[float, ...]:
    """Return the numbers in an attribute (a polygon's points, a viewBox, a dash pattern)."""
    return tuple(map(float, _NUMBER.findall(value)))


def numbers(value: str | None) -> tuple[float, ...]:
    """Return the numbers in an attribute, none when it is absent."""
    return _read_numbers(value) if value else ()


def read_style(element, inherited: dict) -> dict:
    """Return the element's presentation attributes, inherited ones included (the inherited
    dict itself when the element adds none: callers never change what they are given)."""
    attrib = element.attrib
    names = [name for name in attrib if name in INHERITED_SET]
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
                if key in INHERITED_SET:
                    style[key] = value.strip()
                elif key in ("opacity", "display"):
                    attrib[key] = value.strip()
                elif key:
                    raise Unsupported(f"style property {key!r}")
    return style


def apply_transform(ctx, value: str | None) -> None:
    """Apply an SVG transform list to a cairo context (or anything with its methods)."""
    if value:
        for name, args in _steps(value):
            getattr(ctx, name)(*args)


@lru_cache(maxsize=4096)
def _steps(value: str) -> tuple:
    """Return an SVG transform list as cairo operations (name, arguments); IndexError when a
    function has too few numbers. Cached: a template repeats its transforms card after card."""
    steps = []
    for name, args in _TRANSFORM.findall(value):
        a = numbers(args)
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


def local_name(tag) -> str:
    """Return an element's tag without the SVG namespace ('' for a comment)."""
    if not isinstance(tag, str):
        return ""
    return tag[len(SVG):] if tag.startswith(SVG) else tag


TAGS = {**{SVG + tag: tag for tag in SUPPORTED}, **{tag: tag for tag in SUPPORTED}}
