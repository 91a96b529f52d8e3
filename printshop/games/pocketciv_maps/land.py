"""The land stage of the map generator: a smooth blob per piece of land, fitted into the frame;
and how many lands a seed may draw before it gives up."""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np
import shapely
from shapely import Polygon

from .seed import Seed, below, between
from .variant import Variant


FRAME = 1000.0               # the land spans this many map units across
ATTEMPTS = 60                # lands drawn for a map at most

Bounds = tuple[float, float, float, float]      # x0, y0, x1, y1


class GenerationError(RuntimeError):
    """No legal map came out of the allowed number of tries (never seen in practice)."""


WAVES = (2, 3, 4, 5)          # the land's outline: r = 1 + a cosine wave of each frequency


@lru_cache(maxsize=None)
def _angles(points: int) -> tuple[np.ndarray, np.ndarray]:
    """Return, for ``points`` even steps t round a circle, each wave's multiple of them
    (k t for each k in WAVES, a row each) and their cosines and sines (two rows); the same
    for every map, so computed once."""
    steps = [2 * math.pi * i / points for i in range(points)]
    multiples = np.array([[k * t for t in steps] for k in WAVES])
    turns = np.array([[math.cos(t) for t in steps], [math.sin(t) for t in steps]])
    multiples.flags.writeable = turns.flags.writeable = False
    return multiples, turns


def _blob(stream, v: Variant, cx: float, cy: float, rx: float, ry: float,
          points: int) -> np.ndarray:
    """Return a smooth closed outline around (cx, cy), r = 1 + a few cosine waves, as an
    (n, 2) array of points."""
    waves = np.array([(between(stream, 0.0, v.shape.wobble / math.sqrt(k)),
                       between(stream, 0.0, 2 * math.pi)) for k in WAVES])
    multiples, turns = _angles(points)
    # math.cos, not numpy's: the same value on every machine that has the same C library
    angles = (multiples + waves[:, 1:]).ravel().tolist()
    cosines = np.fromiter(map(math.cos, angles), float, len(angles)).reshape(len(WAVES), -1)
    terms = waves[:, :1] * cosines
    radii = 1.0 + terms[0] + terms[1] + terms[2] + terms[3]       # added in this order
    return ((np.array([[rx], [ry]]) * radii) * turns + np.array([[cx], [cy]])).T


def _fit(outlines: list[np.ndarray], aspect: float) -> list[np.ndarray]:
    """Scale and move outlines together into the frame, rounding every point."""
    every = outlines[0] if len(outlines) == 1 else np.concatenate(outlines)
    (x0, y0), (x1, y1) = every.min(axis=0).tolist(), every.max(axis=0).tolist()
    scale = min(FRAME / (x1 - x0), FRAME / aspect / (y1 - y0))
    fitted = ((every - (x0, y0)) * scale).round(1) + 0.0
    if len(outlines) == 1:
        return [fitted]
    return np.split(fitted, np.cumsum([len(o) for o in outlines])[:-1])


def _pieces_plan(stream, v: Variant) -> list[int]:
    """Return how many regions each piece of land holds (at least two each)."""
    low, high = v.land
    count = low + below(stream, high - low + 1)
    sizes = [2] * count if count > 1 else [v.regions]
    for _ in range(v.regions - sum(sizes)):
        sizes[below(stream, count)] += 1
    return sizes


# Where the pieces of land sit in the frame (fractions of its width and height), by count.
_SLOTS = {1: [(0.5, 0.5)], 2: [(0.26, 0.42), (0.74, 0.58)],
          3: [(0.18, 0.34), (0.52, 0.7), (0.82, 0.3)]}


def draw_land(seed: Seed, v: Variant, attempt: int) -> tuple[list[int], list[Polygon]] | None:
    """Draw the outline of every piece of land."""
    stream = seed.stream(f"land:{attempt}")
    sizes = _pieces_plan(stream, v)
    aspect = v.shape.aspect
    outlines = []
    for (sx, sy), n in zip(_SLOTS[len(sizes)], sizes):
        r = 0.5 * math.sqrt(n / v.regions) * (1.0 if len(sizes) == 1 else 0.7)
        pts = max(24, int(v.shape.coast_points * math.sqrt(n / v.regions)))
        outlines.append(_blob(stream, v, sx * aspect, sy, r * aspect, r, pts))
    shapes = [shapely.polygons(o) for o in _fit(outlines, aspect)]
    for i in range(len(shapes)):
        for j in range(i + 1, len(shapes)):
            if shapes[i].distance(shapes[j]) < 0.06 * FRAME:
                return None
    return sizes, shapes
