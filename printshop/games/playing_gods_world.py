"""Playing Gods' board drawn: the ``playing_gods_world`` template helper lays out the track's
ring of spaces and each continent's coast, shallows and regions."""

from __future__ import annotations

import math

from ..draw.helpers import template_global

from .playing_gods import mappings, ring_order

def _pt(cx: float, cy: float, r: float, degrees: float) -> tuple[float, float]:
    a = math.radians(degrees)
    return cx + r * math.cos(a), cy + r * math.sin(a)


def _n(v: float) -> str:
    text = f"{v:.2f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def _path(points, close: bool = True) -> str:
    d = "M" + " L".join(f"{_n(x)} {_n(y)}" for x, y in points)
    return d + (" Z" if close else "")


def _centroid(points) -> tuple[float, float]:
    area = cx = cy = 0.0
    for (x0, y0), (x1, y1) in zip(points, points[1:] + points[:1]):
        cross = x0 * y1 - x1 * y0
        area += cross
        cx += (x0 + x1) * cross
        cy += (y0 + y1) * cross
    return cx / (3 * area), cy / (3 * area)


def _sector(cx, cy, r0, r1, a0, a1) -> str:
    """Return the path of a ring sector between radii r0 < r1 and angles a0 < a1."""
    (x0, y0), (x1, y1) = _pt(cx, cy, r1, a0), _pt(cx, cy, r1, a1)
    (x2, y2), (x3, y3) = _pt(cx, cy, r0, a1), _pt(cx, cy, r0, a0)
    return (f"M{_n(x0)} {_n(y0)} A{_n(r1)} {_n(r1)} 0 0 1 {_n(x1)} {_n(y1)} "
            f"L{_n(x2)} {_n(y2)} A{_n(r0)} {_n(r0)} 0 0 0 {_n(x3)} {_n(y3)} Z")


COAST_STEP = 4  # degrees between the points of a coastline
BORDER_BEND = 0.07  # how far a border bows sideways, as a share of the radius


def _coast(c: dict, ox: float, oy: float, degrees: float, scale: float = 1.0):
    r = c["radius"] * scale * (1 + sum(depth * math.cos(math.radians(bumps * degrees + turn))
                                       for bumps, depth, turn in c["outline"]))
    return _pt(ox, oy, r, degrees)


def _border(c: dict, ox: float, oy: float, degrees: float, steps: int = 8):
    """Return a bowed border from the continent's centre out to its coast."""
    ex, ey = _coast(c, ox, oy, degrees)
    nx, ny = -(ey - oy), ex - ox
    length = math.hypot(nx, ny) or 1.0
    bend = BORDER_BEND * c["radius"]
    return [(ox + (ex - ox) * t + nx / length * bend * math.sin(math.pi * t),
             oy + (ey - oy) * t + ny / length * bend * math.sin(math.pi * t))
            for t in (i / steps for i in range(steps + 1))]


def _continent_layout(c: dict, cx: float, cy: float) -> dict:
    """Return one continent's coast, shallows, region shapes and label points."""
    ox, oy = _pt(cx, cy, c["distance"], c["bearing"])
    regions = []
    for i, region in enumerate(c["regions"]):
        a0 = c["turn"] + i * 360 / len(c["regions"])
        a1 = a0 + 360 / len(c["regions"])
        coast = [_coast(c, ox, oy, a0 + (a1 - a0) * k / 24) for k in range(25)]
        points = _border(c, ox, oy, a0)[:-1] + coast + list(reversed(_border(c, ox, oy, a1)))[1:]
        lx, ly = _centroid(points)
        regions.append({**region, "index": i, "path": _path(points), "x": lx, "y": ly})
    outline = [_coast(c, ox, oy, d) for d in range(0, 360, COAST_STEP)]
    shallows = [_coast(c, ox, oy, d, 1.09) for d in range(0, 360, COAST_STEP)]
    # The name goes in the open sea between the continent and the middle of the globe.
    nx, ny = _pt(cx, cy, c["distance"] - c["radius"] * 1.3, c["bearing"])
    return {**c, "x": ox, "y": oy, "regions": regions, "coast": _path(outline),
            "shallows": _path(shallows), "label_x": nx, "label_y": ny}


@template_global("playing_gods_world")
def world_layout(world: dict, cx: float, cy: float, ring_inner: float, ring_outer: float) -> dict:
    """Return the board's geometry: track spaces in ring order, continents and regions."""
    ring, _ = ring_order(mappings(world["track"]["spaces"]))
    step = 360 / len(ring)
    start = world["track"]["start_angle"]
    spaces = []
    for i, space in enumerate(ring):
        a0 = start + i * step
        mid = a0 + step / 2
        x, y = _pt(cx, cy, (ring_inner + ring_outer) / 2, mid)
        ix, iy = _pt(cx, cy, ring_inner, mid)
        spaces.append({**space, "number": i + 1, "angle": mid, "x": x, "y": y,
                       "inner_x": ix, "inner_y": iy,
                       "path": _sector(cx, cy, ring_inner, ring_outer, a0, a0 + step)})
    lands = [_continent_layout(c, cx, cy) for c in mappings(world["continents"])]
    return {"spaces": spaces, "continents": lands, "by_id": {c["id"]: c for c in lands},
            "arc": 2 * math.pi * (ring_inner + ring_outer) / 2 / len(ring)}
