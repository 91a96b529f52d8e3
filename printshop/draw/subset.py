"""The SVG subset render.py draws: every element of a page read once, as render.py will read
it, before anything is drawn; a page with anything else (gradients, clip paths, images, CSS)
is refused here and drawn by cairosvg instead."""

from __future__ import annotations

from functools import lru_cache
from xml.etree import ElementTree

from ..load import fonts
from .svgpath import path_ops
from .svgread import (SUPPORTED, TAGS, Unsupported, apply_transform, colour, local_name, number,
                      read_style)
from .svgtext import glyph_run
from .text import GLYPHS_ATTR, RUN_CLASS

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
    """A cairo context that draws nothing: lets _check read transforms the way render.py
    will, so that nothing render.draw_page meets halfway down a page is a surprise."""

    def _skip(self, *args):
        pass

    save = restore = translate = rotate = scale = transform = _skip


_NOTHING = _Nothing()


@lru_cache(maxsize=4096)
def _path_problem(d: str) -> str:
    """Return why svgpath cannot read path data, or ''. Cached: icons repeat on every card."""
    try:
        path_ops(d)
    except Unsupported as exc:
        return str(exc)
    return ""


# Elements _check found drawable, by tag and attributes: what it reads of an element other
# than the root is a function of those alone, and cards of one template repeat them (the same
# rectangles, styles and text positions on every card). Bounded: emptied when full.
_FINE: dict[tuple, bool] = {}
FINE_KEPT = 16384


def _check(root) -> None:
    """Refuse, before anything is drawn, a page with anything render.py cannot draw."""
    for el in root.iter():
        tag = TAGS.get(el.tag) or local_name(el.tag)
        if tag not in SUPPORTED:
            raise Unsupported(f"<{tag}>")
        if tag == "text":
            if any(local_name(child.tag) != "tspan" or len(child) for child in el):
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
        glyph_run(run.text or "", run.get(GLYPHS_ATTR))
    except (ValueError, OverflowError):
        raise Unsupported(f"{GLYPHS_ATTR} that is not glyphs") from None


def _check_element(el, tag: str, is_root: bool) -> None:
    """Refuse an element whose styles, paints, numbers, transform or path cannot be drawn."""
    if not is_root:
        style = read_style(el, {})
        for name in ("fill", "stroke"):
            if name in style:
                colour(style[name])
        for name in _STYLE_NUMBERS:
            if name in style:
                number(style[name])
    try:
        apply_transform(_NOTHING, el.get("transform"))
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
            number(value)


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

