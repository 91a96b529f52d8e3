"""The regions of a piece of land for map algorithm m2: the Voronoi cells of the sites, clipped
to the land, built here from the sites' Delaunay triangles instead of by GEOS's Voronoi
diagram and polygon clipping (as m1 does).

A region is the part of the land nearer its site than any other. Its outline is made of three
kinds of point, each worked out once and shared by every region that uses it, so two neighbours
always give the same points for their border:

  coast points   the corners of the land's outline (already rounded to a tenth)
  crossings      where the coast passes from one region to the next: along a coast edge the
                 squared distance to each site is t^2 |d|^2 plus a line in t, so which site is
                 nearest changes only where two of those lines cross (the lower envelope)
  corners        where three regions meet inland: the centre of a Delaunay triangle's circle

Each region's outline runs clockwise: along the coast it owns, then, from where the coast
leaves it, along the edge of its (convex) Voronoi cell to where the coast comes back. Points
on the cell's edge are taken in order of their angle round the site, measured by a
"diamond angle" (only + - * / and abs), so no transcendental function is called and the
same seed gives the same outline on any machine.

Only elementwise numpy arithmetic is used (no sums whose order numpy may choose), with argmin
and ``all``, which only compare; the rest is worked out in Python, one operation at a time.
"""

from __future__ import annotations

import math
from functools import lru_cache
from itertools import combinations
from operator import eq
from typing import Callable

import numpy as np

from .layout import COAST

Point = tuple[float, float]
OnLand = Callable[[np.ndarray, np.ndarray], np.ndarray]     # xs, ys -> which lie on the land
UNTANGLE_BELOW = 2.0          # inland borders shorter than this times the shortest allowed
UNTANGLE_MARGIN = 2.5         # are lengthened to about this times the shortest allowed


@lru_cache(maxsize=None)
def _triples(n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Return every triple of n sites (three index arrays, i < j < k) and a mask marking, per
    triple, its own three sites."""
    i, j, k = (np.array(column, dtype=np.intp) for column in zip(*combinations(range(n), 3)))
    own = np.zeros((len(i), n), dtype=bool)
    rows = np.arange(len(i))
    own[rows, i] = own[rows, j] = own[rows, k] = True
    for array in (i, j, k, own):
        array.flags.writeable = False
    return i, j, k, own


def delaunay(sites: np.ndarray) -> tuple[list[tuple[int, int, int]], list[Point]]:
    """Return the Delaunay triangles of the sites (index triples, i < j < k, in order) and
    the centre of each one's circle: the triples whose circle holds no other site (strictly:
    where four sites lie on one circle, none of their triangles is found and the try fails).
    A few sites, so every triple is tried at once."""
    if len(sites) < 3:
        return [], []
    i, j, k, own = _triples(len(sites))
    ax, ay = sites[i, 0], sites[i, 1]
    bx, by = sites[j, 0] - ax, sites[j, 1] - ay
    cx, cy = sites[k, 0] - ax, sites[k, 1] - ay
    with np.errstate(divide="ignore", invalid="ignore"):
        d = 2 * (bx * cy - by * cx)
        b2, c2 = bx * bx + by * by, cx * cx + cy * cy
        ux, uy = (cy * b2 - by * c2) / d, (bx * c2 - cx * b2) / d
        r2 = ux * ux + uy * uy
        ox, oy = ax + ux, ay + uy
        dx = ox[:, None] - sites[:, 0]
        dy = oy[:, None] - sites[:, 1]
        empty = ((dx * dx + dy * dy > r2[:, None]) | own).all(axis=1) & (d != 0)
    chosen = np.flatnonzero(empty)
    triangles = list(zip(i[chosen].tolist(), j[chosen].tolist(), k[chosen].tolist()))
    return triangles, list(zip(ox[chosen].tolist(), oy[chosen].tolist()))


def _diamond(dx: float, dy: float) -> float:
    """Return a number from 0 to 4 that grows with the angle of (dx, dy) as atan2 does (so
    clockwise on the page, where y grows downwards)."""
    p = dx / (abs(dx) + abs(dy))
    return 1.0 - p if dy >= 0 else 3.0 + p


def nearest(coast: np.ndarray, sites: np.ndarray) -> np.ndarray:
    """Return, for each coast point, the site nearest to it (the first, on a tie)."""
    dx = coast[:, 0, None] - sites[:, 0]
    dy = coast[:, 1, None] - sites[:, 1]
    return (dx * dx + dy * dy).argmin(axis=1)


def _changes(p: Point, q: Point, sites: list[Point], first: int,
             last: int) -> list[tuple[float, int, int]] | None:
    """Return where the nearest site changes going from p to q, as (t, before, after) with t
    the fraction of the way: the lower envelope of the sites' squared distances, which differ
    by lines in t. None if the walk does not end at ``last`` (numbers too close to call)."""
    dx, dy = q[0] - p[0], q[1] - p[1]
    here = [(p[0] - x) * (p[0] - x) + (p[1] - y) * (p[1] - y) for x, y in sites]
    changes: list[tuple[float, int, int]] = []
    at, t = first, 0.0
    for _ in range(len(sites)):
        if at == last:
            return changes
        ax, ay = sites[at]
        best, after = 2.0, -1
        for s, (x, y) in enumerate(sites):
            slope = 2 * (dx * (x - ax) + dy * (y - ay))     # how fast s gains on ``at``
            if s != at and slope > 0:
                when = (here[s] - here[at]) / slope
                if when < best:
                    best, after = when, s
        if after < 0:
            return None
        t = max(t, best)
        changes.append((t, at, after))
        at = after
    return changes if at == last else None


# A point on the edge of a Voronoi cell, rounded to a tenth, with the sites it lies between:
# two for a crossing of the coast (the one before, then the one after, going clockwise along
# the coast), three for a corner inland.
Mark = tuple[Point, tuple[int, ...]]

# One region's stretch of coast: (region, where the coast enters it, the coast's own points
# in between, where it leaves).
Stretch = tuple[int, Mark, list[Point], Mark]


def _rounded(x: float, y: float) -> Point:
    """Round a point to a tenth of a unit (as the land's outline is)."""
    return round(x, 1) + 0.0, round(y, 1) + 0.0


def _crossing(p: Point, q: Point, sites: list[Point], a: int, b: int) -> Point | None:
    """Return where the coast edge p-q passes from a's region straight into b's (a nearest
    at p, b at q): the point of the edge as far from both; None if a third site is nearer
    there (the edge passes through its region too)."""
    (px, py), (ax, ay), (bx, by) = p, sites[a], sites[b]
    dx, dy = q[0] - px, q[1] - py
    slope = 2 * (dx * (bx - ax) + dy * (by - ay))       # how fast b gains on a along the edge
    if slope <= 0:
        return None
    t = (((px - bx) * (px - bx) + (py - by) * (py - by)) -
         ((px - ax) * (px - ax) + (py - ay) * (py - ay))) / slope
    x, y = px + t * dx, py + t * dy
    here = (x - ax) * (x - ax) + (y - ay) * (y - ay)
    for s, (sx, sy) in enumerate(sites):
        if (x - sx) * (x - sx) + (y - sy) * (y - sy) < here and s != a and s != b:
            return None
    return x, y


def _crossings(coast: np.ndarray, coast_points: list[Point], sites: np.ndarray,
               site_points: list[Point]) -> list[tuple[int, Mark]] | None:
    """Return every place the coast passes from one region to the next, in order clockwise,
    as (coast edge, crossing); None when one cannot be placed. Most coast edges that change
    region pass straight from one site's region to the next (_crossing); the few that pass
    through a third region are walked by _changes."""
    owner = nearest(coast, sites).tolist()
    m = len(owner)
    out: list[tuple[int, Mark]] = []
    for i, (a, b) in enumerate(zip(owner, owner[1:] + owner[:1])):
        if a == b:
            continue
        p, q = coast_points[i], coast_points[(i + 1) % m]
        point = _crossing(p, q, site_points, a, b)
        if point is not None:
            out.append((i, (_rounded(*point), (a, b))))
            continue
        changes = _changes(p, q, site_points, a, b)
        if changes is None:
            return None
        for t, before, after in changes:
            point = (p[0] + t * (q[0] - p[0]), p[1] + t * (q[1] - p[1]))
            out.append((i, (_rounded(*point), (before, after))))
    return out


def _stretches(coast: list[Point], crossings: list[tuple[int, Mark]]) -> list[Stretch] | None:
    """Cut the coast at the crossings: one stretch per run of coast in one region, in order
    clockwise from the first crossing."""
    stretches: list[Stretch] = []
    for k, (i, entry) in enumerate(crossings):
        j, leave = crossings[(k + 1) % len(crossings)]
        points = coast[i + 1:j + 1] if k + 1 < len(crossings) else coast[i + 1:] + coast[:j + 1]
        region = entry[1][1]
        if leave[1][0] != region:
            return None
        stretches.append((region, entry, points, leave))
    return stretches


def _across(region: int, sites: tuple[int, ...], following: tuple[int, ...]) -> int:
    """Return the region across the cell edge between two marks (given by the sites each
    lies between): the site, besides ``region``, that both lie between; -2 if none."""
    for s in sites:
        if s != region and s in following:
            return s
    return -2


def _outline(region: int, site: Point, stretches: list[Stretch],
             corners: list[Mark]) -> tuple[list[Point], list[int]] | None:
    """Return one region's outline, clockwise, and what lies beyond each of its edges (a
    region, or COAST): each stretch of its coast, then the corners of its cell from where the
    coast leaves to where it comes back. None when the region is in pieces or its corners do
    not fit between the crossings."""
    sx, sy = site
    marks: list[tuple[float, int, int]] = []       # (angle, kind, which): 0 a corner, 1 where
    for n, ((x, y), _) in enumerate(corners):       # the coast leaves, 2 where it comes back
        marks.append((_diamond(x - sx, y - sy), 0, n))
    for n, (_, ((x, y), _), _, ((u, w), _)) in enumerate(stretches):
        marks.append((_diamond(u - sx, w - sy), 1, n))
        marks.append((_diamond(x - sx, y - sy), 2, n))
    marks.sort()
    count = len(marks)
    leaving = {which: k for k, (_, kind, which) in enumerate(marks) if kind == 1}
    ring: list[Point] = []
    beyond: list[int] = []
    seen = walked = n = 0
    while True:
        _, entry, points, leave = stretches[n]
        ring.append(entry[0])
        ring.extend(points)
        ring.append(leave[0])
        beyond.extend([COAST] * (len(points) + 1))
        walked += 1
        last, k = leave[1], leaving[n]
        while True:
            k = (k + 1) % count
            _, kind, which = marks[k]
            if kind == 1:
                return None                     # two exits with no entry between them
            point, between = corners[which] if kind == 0 else stretches[which][1]
            beyond.append(_across(region, last, between))
            if kind == 2:
                break
            ring.append(point)
            seen += 1
            last = between
        n = which
        if n == 0 or walked > len(stretches):
            break
    if walked != len(stretches) or seen != len(corners) or -2 in beyond:
        return None
    return ring, beyond


def _inland_outline(region: int, site: Point,
                    corners: list[Mark]) -> tuple[list[Point], list[int]] | None:
    """Return the outline of a region that touches no coast (its cell's corners, clockwise)
    and the region beyond each edge."""
    if len(corners) < 3:
        return None
    sx, sy = site
    ring = sorted(corners, key=lambda c: _diamond(c[0][0] - sx, c[0][1] - sy))
    beyond = [_across(region, a[1], b[1]) for a, b in zip(ring, ring[1:] + ring[:1])]
    if -2 in beyond:
        return None
    return [point for point, _ in ring], beyond


def _distinct(ring: list[Point]) -> bool:
    """Say whether no two consecutive points of the ring are the same (after rounding)."""
    return not any(map(eq, ring, ring[1:] + ring[:1]))


class Diagram:
    """The sites of a piece of land with their Delaunay triangles, each triangle's circle
    centre (a corner of the Voronoi diagram) and whether that corner lies on the land."""

    __slots__ = ("sites", "points", "triangles", "centres", "inland")

    def __init__(self, sites: np.ndarray, on_land: OnLand) -> None:
        self.sites = sites
        self.points = list(zip(*sites.T.tolist()))
        self.triangles, self.centres = delaunay(sites)
        self.inland = on_land(*np.array(self.centres).T).tolist() if self.centres else []

    def short_edges(self, shortest: float) -> list[tuple[int, int, float]]:
        """Return the inland Voronoi edges shorter than ``shortest`` as (site, site, length):
        the edge between two sites joins the corners of the two triangles that share them."""
        sides: dict[tuple[int, int], list[int]] = {}
        for t, (i, j, k) in enumerate(self.triangles):
            for pair in ((i, j), (j, k), (i, k)):
                sides.setdefault(pair, []).append(t)
        short = []
        for pair, two in sides.items():
            if len(two) == 2 and (self.inland[two[0]] or self.inland[two[1]]):
                (x0, y0), (x1, y1) = self.centres[two[0]], self.centres[two[1]]
                span = math.sqrt((x1 - x0) * (x1 - x0) + (y1 - y0) * (y1 - y0))
                if span < shortest:
                    short.append((pair[0], pair[1], span))
        return short


def untangled(sites: np.ndarray, on_land: OnLand, shortest: float, rounds: int = 2) -> Diagram:
    """Return the diagram of the sites after pulling apart near-four-way junctions.

    Where four sites lie nearly on one circle, the two cells between them share a very short
    border (four regions almost meet at a point). Moving the two sites of that border towards
    each other lengthens it by about twice the move, so each is moved by half of what it
    lacks (of UNTANGLE_MARGIN times ``shortest``): typically 20 units, against cells some
    250 across, so the map looks the same, but far fewer tries are lost."""
    diagram = Diagram(sites, on_land)
    for _ in range(rounds):
        short = diagram.short_edges(UNTANGLE_BELOW * shortest)
        if not short:
            break
        moved = sites.copy()
        for a, b, span in short:
            (ax, ay), (bx, by) = moved[a].tolist(), moved[b].tolist()
            dx, dy = bx - ax, by - ay
            share = (UNTANGLE_MARGIN * shortest - span) / 2 / math.sqrt(dx * dx + dy * dy)
            moved[a] = (ax + share * dx, ay + share * dy)
            moved[b] = (bx - share * dx, by - share * dy)
        sites = moved
        diagram = Diagram(sites, on_land)
    return diagram


def clipped_cells(diagram: Diagram, coast: np.ndarray) -> tuple[
        list[list[Point]], list[list[int]], list[tuple[int, list[Point]]]] | None:
    """Return each site's region, the land nearer that site than any other: its outline as
    a clockwise ring of points rounded to a tenth and the region (or COAST) beyond each edge;
    and the coast as runs of one region each, clockwise. ``coast`` is the land's outline,
    clockwise on the page. None when a region is in pieces or empty, or two of its points
    fall together after rounding (a border too short anyway)."""
    sites = diagram.sites
    n = len(sites)
    corners: list[list[Mark]] = [[] for _ in range(n)]
    for triangle, (x, y), inland in zip(diagram.triangles, diagram.centres, diagram.inland):
        if inland:
            corner = (_rounded(x, y), triangle)
            for s in triangle:
                corners[s].append(corner)
    coast_points = list(zip(*coast.T.tolist()))
    crossings = _crossings(coast, coast_points, sites, diagram.points)
    stretches = _stretches(coast_points, crossings) if crossings else None
    if not stretches:
        return None
    own: list[list[Stretch]] = [[] for _ in range(n)]
    for stretch in stretches:
        own[stretch[0]].append(stretch)
    rings, beyonds = [], []
    for s in range(n):
        if own[s]:
            drawn = _outline(s, diagram.points[s], own[s], corners[s])
        else:
            drawn = _inland_outline(s, diagram.points[s], corners[s])
        if drawn is None or not _distinct(drawn[0]):
            return None
        rings.append(drawn[0])
        beyonds.append(drawn[1])
    runs = [(region, [entry[0]] + points + [leave[0]])
            for region, entry, points, leave in stretches]
    return rings, beyonds, runs
