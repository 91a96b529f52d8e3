"""A try's layout: each region's ring, what lies beyond each of its edges, each piece's coast
runs; and the check that its borders are long enough to print and its regions roomy enough."""

from __future__ import annotations

import math
from dataclasses import dataclass
from itertools import compress
from operator import ne

from .coast import Point, min_border
from .variant import Variant


MIN_ROUNDNESS = 0.3          # 4 pi area / perimeter^2 of every region
MIN_AREA = 0.045             # of the land's area per region, times the region count
COAST = -1                   # beyond an edge on the coast, in place of a region's index


@dataclass
class Layout:
    """Every region's ring with what lies beyond each edge, and each piece's coast runs."""

    rings: list[list[Point]]
    beyond: list[list[object]]                      # per ring edge: region index or area id
    coasts: list[list[tuple[int, list[Point]]]]     # per piece: (region, polyline) runs


def ring_edges(ring: list[Point]) -> list[tuple[Point, Point]]:
    """Return the edges of a ring, each as (from, to), the last closing the ring."""
    return list(zip(ring, ring[1:] + ring[:1]))


def ring_area(ring: list[Point]) -> float:
    """Return the signed area of a ring (positive when clockwise on the page)."""
    return sum([px * qy - qx * py
                for (px, py), (qx, qy) in zip(ring[-1:] + ring[:-1], ring)]) / 2


def _splits(beyond: list[object]) -> tuple[int, list[int]]:
    """Return where a ring's runs of edges with the same neighbour lie: the first edge after
    a junction (``start``), and where each run ends, counting edges from ``start``."""
    n = len(beyond)
    start = next(compress(range(n), map(ne, beyond, beyond[-1:] + beyond[:-1])), 0)
    turned = beyond[start:] + beyond[:start]
    return start, list(compress(range(1, n), map(ne, turned[1:], turned))) + [n]


def border_runs(ring: list[Point], beyond: list[object]) -> list[tuple[object, list[Point]]]:
    """Split a ring into runs of edges with the same neighbour, starting at a junction."""
    start, ends = _splits(beyond)
    points = ring[start:] + ring[:start + 1]        # closed: the first point again at the end
    return [(beyond[(start + i) % len(ring)], points[i:j + 1])
            for i, j in zip([0] + ends, ends)]


def clean(rings: list[list[Point]], beyonds: list[list[int]], land_area: float,
           v: Variant) -> bool:
    """Say whether every border is long enough to print and every region roomy enough."""
    shortest = min_border(v)
    for ring, beyond in zip(rings, beyonds):
        start, ends = _splits(beyond)
        if len(ends) < 2:
            return False
        steps = list(map(math.dist, ring, ring[1:] + ring[:1]))
        turned = steps[start:] + steps[:start]      # a border's length: its steps, in order
        if any(sum(turned[i:j]) < shortest for i, j in zip([0] + ends, ends)):
            return False
        area = ring_area(ring)
        perimeter = sum(steps)
        if area < MIN_AREA * land_area * 8 / v.regions or \
                4 * math.pi * area / perimeter ** 2 < MIN_ROUNDNESS:
            return False
    return True
