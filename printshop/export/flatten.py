"""Transparency taken out of a drawing for a press that forbids it (PDF/X-1a), shape by shape.

A translucent shape (``opacity``, ``fill-opacity``, ``stroke-opacity`` below 1, its own or a
group's) becomes an opaque one in the colour it shows: its colour mixed with what lies under
it. What lies under it is drawn at SAMPLE_PER_MM pixels per mm without the shape and what
comes after it, and averaged under the shape's own footprint. Where that background is one
colour (a tint over a panel, the common case) the result is exact and stays a vector shape;
where it varies, the shape takes the mix with the average and the difference is reported.

Everything else on the card is kept as drawn: text stays text, shapes stay shapes, and no
page is turned into pixels (which is what a PDF/X-1a conversion does to a page with
transparency).
"""

from __future__ import annotations

import re
from contextlib import contextmanager
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from ..draw.ink import SVG_NS, XLINK_NS, hex_colour, parse_colour
from ..layout.impose import Face

SAMPLE_PER_MM = 1.5       # pixels per mm the background is sampled at
VARIED = 12 / 255         # a ground pixel this far from the ground's mean is another colour
VARIED_SHARE = 0.005      # a ground with more of its footprint in other colours is varied
MOVE_BACK = 32            # earlier siblings a tint may move beneath (details under it)
DETAIL_SHARE = 0.25       # ... covering at most this share of it
SHAPES = {"rect", "circle", "ellipse", "line", "polyline", "polygon", "path"}
TEXTS = {"text"}
OPACITIES = ("opacity", "fill-opacity", "stroke-opacity")
_NS = "{" + SVG_NS + "}"


@dataclass(frozen=True)
class Blend:
    """One translucent paint made opaque: where, how see-through, how varied its ground."""

    what: str                   # the element, e.g. "rect (fill)"
    alpha: float
    box: tuple[float, float, float, float]    # its footprint, x0 y0 x1 y1 in card mm
    varied: float               # share of its footprint where its ground's other colours show


def _tag(el) -> str:
    return el.tag.replace(_NS, "")


def _style(el) -> dict[str, str]:
    out = {}
    for item in (el.get("style") or "").split(";"):
        if ":" in item:
            key, value = item.split(":", 1)
            out[key.strip()] = value.strip()
    return out


def _get(el, key: str) -> str | None:
    return _style(el).get(key, el.get(key))


def _set(el, key: str, value: str) -> None:
    style = _style(el)
    if key in style:
        del style[key]
        if style:
            el.set("style", ";".join(f"{k}:{v}" for k, v in style.items()))
        else:
            del el.attrib["style"]
    el.set(key, value)


@contextmanager
def _changed(el, values: dict[str, str]):
    """Set presentation values on an element for a while, then put its attributes back."""
    saved = dict(el.attrib)
    for key, value in values.items():
        _set(el, key, value)
    try:
        yield el
    finally:
        el.attrib.clear()
        el.attrib.update(saved)


def _number(value: str | None) -> float:
    try:
        return max(0.0, min(1.0, float(value))) if value is not None else 1.0
    except ValueError:
        return 1.0


def translucent(svg: str) -> bool:
    """Return True when a fragment may draw anything see-through (a quick textual look)."""
    return re.search(r"opacity\s*[=:]", svg) is not None


class _Drawing:
    """A face's SVG tree with what is needed to draw parts of it."""

    def __init__(self, face: Face):
        self.face = face
        self.root = ET.fromstring(f'<svg xmlns="{SVG_NS}" xmlns:xlink="{XLINK_NS}">'
                                  f'{face.svg}</svg>')
        self.parent = {c: p for p in self.root.iter() for c in p}
        b = face.bleed
        self.size = (max(1, round((face.w + 2 * b) * SAMPLE_PER_MM)),
                     max(1, round((face.h + 2 * b) * SAMPLE_PER_MM)))

    def svg(self) -> str:
        out = [self.root.text or ""]
        for child in self.root:
            out.append(ET.tostring(child, encoding="unicode")
                       .replace(f' xmlns="{SVG_NS}"', "", 1))
        return "".join(out)

    def chain(self, el) -> list:
        """Return el and its ancestors up to (not including) the root, innermost first."""
        out = []
        while el is not self.root:
            out.append(el)
            el = self.parent[el]
        return out

    def draw(self, hidden: list, background=(1.0, 1.0, 1.0)) -> np.ndarray:
        from ..write import raster

        saved = [(el, el.get("display")) for el in hidden]
        for el in hidden:
            el.set("display", "none")
        try:
            face = Face(self.svg(), self.face.w, self.face.h, self.face.bleed, self.face.shape)
            image = raster.face_image(face, self.size, (self.face.bleed, self.face.bleed),
                                      background)
        finally:
            for el, value in saved:
                if value is None:
                    del el.attrib["display"]
                else:
                    el.set("display", value)
        return np.asarray(image.convert("RGBA" if background is None else "RGB"),
                          dtype=np.float64) / 255.0

    def after(self, el) -> list:
        """Return what is drawn after el (its later siblings and its ancestors')."""
        out = []
        for node in self.chain(el):
            siblings = list(self.parent[node])
            out.extend(siblings[siblings.index(node) + 1:])
        return out

    def to_mm(self, cols: np.ndarray, rows: np.ndarray) -> tuple:
        b = self.face.bleed
        return (round(cols.min() / SAMPLE_PER_MM - b, 1), round(rows.min() / SAMPLE_PER_MM - b, 1),
                round((cols.max() + 1) / SAMPLE_PER_MM - b, 1),
                round((rows.max() + 1) / SAMPLE_PER_MM - b, 1))


def _inherited(d: _Drawing, el, key: str, default: str | None) -> str | None:
    for node in d.chain(el):
        value = _get(node, key)
        if value is not None and value != "inherit":
            return value
    return default


def _cover(d: _Drawing, leaf, key: str) -> np.ndarray:
    """Return how much of each pixel one paint of a leaf covers, drawn alone and opaque:
    the leaf inside copies of its ancestors (their transforms and styles), nothing else."""
    import copy

    other = "stroke" if key == "fill" else "fill"
    alone = copy.deepcopy(leaf)
    with _changed(alone, {other: "none", **{k: "1" for k in OPACITIES}}):
        for node in d.chain(leaf)[1:]:
            holder = ET.Element(node.tag, {k: v for k, v in node.attrib.items()
                                           if k not in OPACITIES})
            holder.append(alone)
            alone = holder
        svg = ET.tostring(alone, encoding="unicode").replace(f' xmlns="{SVG_NS}"', "", 1)
    f = d.face
    return _alone(Face(svg, f.w, f.h, f.bleed, f.shape), d.size)


@lru_cache(maxsize=2048)
def _alone(face: Face, size: tuple[int, int]) -> np.ndarray:
    from ..write import raster

    image = raster.face_image(face, size, (face.bleed, face.bleed), None)
    out = np.asarray(image.convert("RGBA"), dtype=np.float64)[:, :, 3] / 255.0
    out.setflags(write=False)
    return out


def _under(cover: np.ndarray, ground: np.ndarray, alpha: float):
    """Return the ground's main colour under a footprint and the share of the footprint
    where mixing with that colour instead of the real ground shows (by more than VARIED)."""
    rows, cols = np.nonzero(cover > 0.02)
    if len(rows) == 0:
        return np.ones(3), 0.0
    weights = cover[rows, cols]
    under = ground[rows, cols]
    main = np.median(under, axis=0)
    near = np.abs(under - main).max(axis=1) <= VARIED
    mean = (under[near] * weights[near, None]).sum(axis=0) / weights[near].sum() \
        if near.any() else main
    shows = (1 - alpha) * np.abs(under - mean).max(axis=1) > VARIED
    return mean, float((weights * shows).sum() / weights.sum())


def _paint(d: _Drawing, leaf, key: str, alpha: float, ground: np.ndarray,
           cover: np.ndarray | None = None) -> Blend | None:
    """Make one paint of a leaf opaque in the colour it shows over ``ground``."""
    colour = parse_colour(_inherited(d, leaf, key, "#000" if key == "fill" else None) or "none")
    if colour is None or alpha >= 1.0:
        return None
    cover = _cover(d, leaf, key) if cover is None else cover
    mean, varied = _under(cover, ground, alpha)
    rows, cols = np.nonzero(cover > 0.02)
    box = d.to_mm(cols, rows) if len(rows) else (0.0, 0.0, 0.0, 0.0)
    shown = tuple(alpha * c + (1 - alpha) * m for c, m in zip(colour, mean))
    _set(leaf, key, hex_colour(shown))
    _set(leaf, f"{key}-opacity", "1")
    return Blend(f"{_tag(leaf)} ({key})", round(alpha, 3), box, round(varied, 4))


def _beneath_details(d: _Drawing, leaf, alpha: float, ground: np.ndarray):
    """Return (cover, ground) with the leaf moved beneath the earlier details that made its
    ground vary (a line along a tinted row), or None when no such move helps.

    The details are its nearest earlier siblings (the fewest, at most MOVE_BACK), and they
    may cover at most DETAIL_SHARE of it: drawn over it now, they show in their own colour
    where they showed through it (a difference of alpha times theirs from the tint)."""
    cover = _cover(d, leaf, "fill")
    if _under(cover, ground, alpha)[1] <= VARIED_SHARE:
        return cover, ground
    parent = d.parent[leaf]
    siblings = list(parent)
    at = siblings.index(leaf)

    def ground_without(k: int) -> np.ndarray:
        return d.draw([leaf] + d.after(leaf) + siblings[at - k:at])

    # hiding more earlier siblings never brings a varied ground back: search for the fewest
    low, high, found = 1, min(MOVE_BACK, at), None
    while low <= high:
        k = (low + high) // 2
        moved = ground_without(k)
        if _under(cover, moved, alpha)[1] <= VARIED_SHARE:
            found, high = (k, moved), k - 1
        else:
            low = k + 1
    if found is None:
        return None
    k, moved = found
    solid = cover > 0.5
    changed = (np.abs(moved - ground).max(axis=2) > VARIED) & solid
    if changed.sum() > DETAIL_SHARE * max(1, solid.sum()):
        return None         # what it would move beneath is its ground, not details on it
    parent.remove(leaf)
    parent.insert(at - k, leaf)
    return cover, moved
    return None


def _leaves(d: _Drawing):
    for el in d.root.iter():
        if el is d.root or _tag(el) not in SHAPES | TEXTS:
            continue
        if any(_get(n, "display") == "none" for n in d.chain(el)):
            continue
        yield el


def flatten(face: Face) -> tuple[Face, list[Blend]]:
    """Return the face with every translucent shape made opaque, and what was blended."""
    if not translucent(face.svg):
        return face, []
    return _flatten(face)


@lru_cache(maxsize=512)
def _flatten(face: Face) -> tuple[Face, list[Blend]]:
    try:
        d = _Drawing(face)
    except ET.ParseError:
        return face, []     # drawing it reports the real problem, with its place
    blends: list[Blend] = []
    done_groups: list = []
    for leaf in list(_leaves(d)):
        chain = d.chain(leaf)
        groups = [n for n in chain[1:] if _number(_get(n, "opacity")) < 1]
        if _tag(leaf) in TEXTS and _number(_get(leaf, "opacity")) < 1:
            groups.insert(0, leaf)
        for g in done_groups:
            if g not in chain:
                _set(g, "opacity", "1")
        group_alpha = float(np.prod([_number(_get(g, "opacity")) for g in groups]))
        own = _number(_get(leaf, "opacity")) if _tag(leaf) in SHAPES else 1.0
        fill_a = group_alpha * own * _number(_inherited(d, leaf, "fill-opacity", "1"))
        stroke_a = group_alpha * own * _number(_inherited(d, leaf, "stroke-opacity", "1"))
        if fill_a >= 1 and stroke_a >= 1:
            continue
        outer = groups[-1] if groups else leaf
        ground = d.draw([outer] + d.after(outer))
        cover = None
        if not groups and fill_a < 1 and _tag(leaf) in SHAPES:
            found = _beneath_details(d, leaf, fill_a, ground)
            if found is not None:
                cover, ground = found
        blend = _paint(d, leaf, "fill", fill_a, ground, cover)
        if _tag(leaf) in SHAPES:
            _set(leaf, "opacity", "1")
        if blend:
            blends.append(blend)
            if not groups and stroke_a < 1:
                # its stroke is drawn over its own fill, now opaque
                with _changed(leaf, {"stroke": "none"}):
                    ground = d.draw(d.after(leaf))
        blend = _paint(d, leaf, "stroke", stroke_a, ground)
        if blend:
            blends.append(blend)
        done_groups.extend(g for g in groups if g not in done_groups)
    for g in done_groups:
        _set(g, "opacity", "1")
    return Face(d.svg(), face.w, face.h, face.bleed, face.shape), blends
