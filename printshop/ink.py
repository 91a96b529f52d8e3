"""Low-ink drawings: any game's SVG rewritten with pale fills, dark text and no full-bleed fills.

Templates need not know about low ink: every drawing passes through ``low_ink`` when the
option is on, so a user's game gets the same treatment as a built-in one.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from functools import partial

from . import colours

SVG_NS = "http://www.w3.org/2000/svg"
XLINK_NS = "http://www.w3.org/1999/xlink"
FILL_KEEP = 0.16      # share of a fill's ink kept: dark navy becomes a pale grey-blue
DETAIL_KEEP = 0.5     # for shapes drawn under a transform: icons and details stay legible
LIGHT_DETAIL = 0.85   # a detail this light (white icons on coloured discs) is darkened instead
TEXT_LIGHT = 0.55     # text lighter than this would vanish on a pale background...
TEXT_DARKEN = 0.3     # ...so it is darkened to this share of its value
TEXT_TAGS = {"text", "tspan", "textPath"}
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
    """Return the low-ink colour of an icon or detail: white ones turn dark, since what they
    sat on turns pale."""
    if luminance(rgb) > LIGHT_DETAIL:
        return readable(rgb)
    return pale(rgb, DETAIL_KEEP)


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


def _rewrite(el: ET.Element, inherited: str, transformed: bool) -> None:
    tag = _local(el.tag)
    own = el.get("fill")
    style = el.get("style")
    moved = transformed or el.get("transform") is not None or tag in ("svg", "symbol", "use")
    if tag in TEXT_TAGS:
        change = readable
        rgb = parse_colour(own or inherited)
        if rgb is not None and readable(rgb) != tuple(rgb):
            el.set("fill", hex_colour(readable(rgb)))
    else:
        change = detail if moved else partial(pale, keep=FILL_KEEP)
        if own is not None:
            bleed = not moved and _reaches_bleed(el, tag) and parse_colour(own) is not None
            el.set("fill", "none" if bleed else _map_value(own, change))
        if el.get("stop-color") is not None:
            el.set("stop-color", _map_value(el.get("stop-color"), change))
    if style:
        el.set("style", _STYLE_COLOUR.sub(
            lambda m: m.group("key") + _map_value(m.group("value"), change), style))
    for child in el:
        _rewrite(child, own or inherited, moved)


def low_ink(fragment: str) -> str:
    """Return an SVG fragment redrawn for low ink: pale fills, dark text, no bleed fills."""
    try:
        root = ET.fromstring(f'<svg xmlns="{SVG_NS}" xmlns:xlink="{XLINK_NS}">{fragment}</svg>')
    except ET.ParseError:
        return fragment  # drawing it will report the real problem, with its place
    for child in root:
        _rewrite(child, "#000", False)
    out = [root.text or ""]
    for child in root:
        text = ET.tostring(child, encoding="unicode")
        out.append(text.replace(f' xmlns="{SVG_NS}"', "", 1))
    return "".join(out)
