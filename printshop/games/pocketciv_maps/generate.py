"""The map generator: a seeded PocketCiv world, legal by construction.

A seed names its algorithm (ALGORITHMS, at the end): m1, the first, or m2, the default. They
differ only in how the sites and regions are drawn; every other stage is shared.

Stages, each drawing from its own stream of the seed (see seed.py):
  land      a smooth blob per piece of land (r = 1 + a few cosine harmonics), stretched
  sites     one point per region, spread by six rounds of Lloyd relaxation (m2: see below)
  regions   Voronoi cells clipped to the land: three borders meet at every junction
  coast     the Frontier (coast.py): a window of 4 or 5 coast runs of distinct regions, ends
            inside the first and last run (never on a junction); the rest is Sea
  numbers   1-8 shuffled (twice for two players)
  terrain   Mountains and Forests placed independently; Deserts by the rule
  tribes    in distinct regions, those with both Mountain and Forest first
Only cheap geometric checks reject a try (a region in two pieces, a border too short to see,
a region too cramped for its icons); the rules themselves cannot fail. Most tries that fail
have two sites whose Voronoi cells share a short edge. When that edge lies well inside the
land, the Delaunay triangles of the sites show it before any cell is built, and the try is
dropped there; otherwise the two cells are clipped and measured first, so a doomed try is
dropped before the other cells are clipped.

m2 (about twice as quick, the same checks) starts each site as the best of a few candidates
and relaxes three rounds, pulls apart the sites of borders that come out short instead of
dropping the try, builds the cells itself from the Delaunay triangles (voronoi.py) rather than
with GEOS, and on a failed try draws new sites on the same land.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from dataclasses import dataclass
from functools import lru_cache
from itertools import chain, compress, repeat
from operator import ne
from typing import Callable

import numpy as np
import shapely
from shapely import Polygon

from .coast import AREA_KIND, Coast, Point, give_coast, length, min_border
from .model import Area, Region, WorldMap
from .seed import Seed, SeedError, below, between, shuffled
from .variant import Variant, variant
from .voronoi import clipped_cells, untangled

FRAME = 1000.0               # the land spans this many map units across
MIN_ROUNDNESS = 0.3          # 4 pi area / perimeter^2 of every region
MIN_AREA = 0.045             # of the land's area per region, times the region count
ATTEMPTS = 60
SAMPLES = 32                 # grid points across the frame when relaxing sites
LLOYD_ROUNDS = 6
COAST = -1

Bounds = tuple[float, float, float, float]      # x0, y0, x1, y1



class GenerationError(RuntimeError):
    """No legal map came out of the allowed number of tries (never seen in practice)."""


# Stage: land ---------------------------------------------------------------------------------

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


def _land(seed: Seed, v: Variant, attempt: int) -> tuple[list[int], list[Polygon]] | None:
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


# Stage: sites and regions --------------------------------------------------------------------

def _sites(stream, shape: Polygon, n: int, bounds: Bounds) -> list[Point]:
    """Scatter n points inside a piece of land (the first n of a stream of tries)."""
    x0, y0, x1, y1 = bounds
    shapely.prepare(shape)
    out: list[Point] = []
    while len(out) < n:
        tries = [(between(stream, x0, x1), between(stream, y0, y1)) for _ in range(2 * n)]
        inside = shapely.contains_xy(shape, *np.array(tries).T)
        out.extend(p for p, ok in zip(tries, inside) if ok)
    return out[:n]


def _diagram(bounds: Bounds, sites: shapely.MultiPoint) -> np.ndarray:
    """Return the Voronoi cells of the sites, not yet clipped to the land (whose bounds are
    given), in site order."""
    x0, y0, x1, y1 = bounds
    frame = shapely.box(x0 - FRAME, y0 - FRAME, x1 + FRAME, y1 + FRAME)
    return shapely.get_parts(shapely.voronoi_polygons(sites, extend_to=frame, ordered=True))


def _circumcentre(a: Point, b: Point, c: Point) -> Point | None:
    """Return the centre of the circle through three points (a corner of the Voronoi
    diagram, where the cells of the three sites meet); None when they lie in a line."""
    bx, by, cx, cy = b[0] - a[0], b[1] - a[1], c[0] - a[0], c[1] - a[1]
    d = 2 * (bx * cy - by * cx)
    if d == 0:
        return None
    b2, c2 = bx * bx + by * by, cx * cx + cy * cy
    return a[0] + (cy * b2 - by * c2) / d, a[1] + (bx * c2 - cx * b2) / d


def _short_inland_edge(sites: shapely.MultiPoint, shape: Polygon, shortest: float) -> bool:
    """Say, before the Voronoi cells are built, whether two of them surely share a border
    too short to print, so the try would fail _soon_too_short anyway.

    Such a border is an edge of the diagram between 1 and ``shortest`` - 1 long, lying well
    inside the land (clipping cannot shorten it), whose neighbouring edges are longer than 1
    (rounding to a tenth cannot join it to another). The diagram's corners are the centres
    of the Delaunay triangles' circles (the triangulation the diagram is built from, far
    quicker to get), and an edge joins the corners of the two triangles on either side of
    a pair of sites. False proves nothing."""
    corners = list(zip(*shapely.get_coordinates(shapely.delaunay_triangles(sites)).T.tolist()))
    near = 1.0
    centres: list[Point] = []
    ends: dict[tuple[Point, Point], list[int]] = {}     # a pair of sites -> its corners
    for k in range(0, len(corners), 4):               # each triangle: a closed ring of 4
        a, b, c = sorted(corners[k:k + 3])
        centre = _circumcentre(a, b, c)
        if centre is None:
            return False
        n = len(centres)
        centres.append(centre)
        for pair in ((a, b), (b, c), (a, c)):
            if pair in ends:
                ends[pair].append(n)
            else:
                ends[pair] = [n]
    span = {pair: math.dist(centres[m[0]], centres[m[1]]) if len(m) == 2 else math.inf
            for pair, m in ends.items()}
    short = [pair for pair, d in span.items() if near < d < shortest - near]
    if not short:
        return False
    meeting: list[list[float]] = [[] for _ in centres]      # corner -> its edges' lengths
    for pair, m in ends.items():
        for n in m:
            meeting[n].append(span[pair])
    boundary = shapely.get_exterior_ring(shape)
    for pair in short:
        m = ends[pair]
        if min(meeting[m[0]] + meeting[m[1]]) <= near:
            continue                                   # a neighbouring edge is too short
        edge = [centres[n] for n in m]
        xs, ys = zip(*edge)
        # Each point of the edge is nearer one end than that end is to the coast, so the
        # whole edge lies inside the land when both ends do.
        if shapely.contains_xy(shape, xs, ys).all() and \
                shapely.distance(shapely.points(edge), boundary).sum() > span[pair] + near:
            return True
    return False


def _samples(shape: Polygon, bounds: Bounds,
             across: int = SAMPLES) -> tuple[np.ndarray, np.ndarray]:
    """Return a fine grid of points inside the land, ``across`` to the frame's width, for
    relaxing the sites: (xs, ys)."""
    x0, y0, x1, y1 = bounds
    step = FRAME / across
    across, down = np.arange(x0 + step / 2, x1, step), np.arange(y0 + step / 2, y1, step)
    xs, ys = np.tile(across, len(down)), np.repeat(down, len(across))    # row by row
    inside = shapely.contains_xy(shape, xs, ys)
    return xs[inside], ys[inside]


def _relax(sites: list[Point], samples: tuple[np.ndarray, np.ndarray],
           rounds: int) -> np.ndarray:
    """Move each site to the centre of the land nearest to it, ``rounds`` times (Lloyd);
    a site no sample is nearest to stays where it is. Return the sites as an (n, 2) array."""
    xs, ys = samples
    cx, cy = np.array(sites).T
    n = len(sites)
    for _ in range(rounds):
        d2 = xs - cx[:, None]                        # a row per site: dx * dx + dy * dy,
        d2 *= d2                                     # worked in place (the same numbers)
        dy = ys - cy[:, None]
        dy *= dy
        d2 += dy
        nearest = d2.argmin(axis=0)
        counts = np.bincount(nearest, minlength=n)
        sum_x = np.bincount(nearest, weights=xs, minlength=n)
        sum_y = np.bincount(nearest, weights=ys, minlength=n)
        if counts.all():                             # as a rule every site has samples
            cx, cy = sum_x / counts, sum_y / counts
        else:
            moved = counts > 0
            cx = np.divide(sum_x, counts, out=cx, where=moved)
            cy = np.divide(sum_y, counts, out=cy, where=moved)
    return np.stack([cx, cy], axis=1)


def _close_pairs(diagram: np.ndarray, shortest: float) -> list[tuple[int, int]]:
    """Return the pairs (i, j) of Voronoi cells sharing an edge shorter than ``shortest``
    (and a little more): clipping to the land only shortens a border, and rounding to a
    tenth lengthens it by less than 0.15, so these are where a border may come out short."""
    coords, which = shapely.get_coordinates(diagram, return_index=True)
    steps = np.hypot(*(coords[1:] - coords[:-1]).T)
    short = np.flatnonzero((steps < shortest + 0.5) & (which[1:] == which[:-1])).tolist()
    if not short:
        return []
    points = list(zip(*coords.T.tolist()))
    cells_at: dict[Point, set[int]] = defaultdict(set)
    for p, n in zip(points, which.tolist()):
        cells_at[p].add(n)
    pairs = []
    for k in short:
        i = int(which[k])
        pairs.extend((i, j) for j in sorted(cells_at[points[k]] & cells_at[points[k + 1]])
                     if j != i)
    return pairs


def _short_border(ring: list[Point], other: list[Point], shortest: float) -> bool:
    """Say whether ``ring`` borders ``other`` along a run of edges shorter than
    ``shortest``, measured as _clean measures the runs of ``ring``."""
    theirs = set(_edges(other))
    shared = [(b, a) in theirs for a, b in _edges(ring)]
    return any(along and length(line) < shortest for along, line in _runs(ring, shared))


def _soon_too_short(diagram: np.ndarray, shape: Polygon, shortest: float) -> bool:
    """Say early whether the clipped cells will fail: clip only the two cells of each short
    Voronoi edge, round them as _rings does, and measure their border as _clean will. A
    border too short (or a cell that is no single ring) dooms the try whatever the other
    cells are, so they need not be clipped; finding none proves nothing."""
    for i, j in _close_pairs(diagram, shortest):
        rings = _rings(shapely.intersection(diagram[[i, j]], shape))
        if rings is None or _short_border(rings[0], rings[1], shortest):
            return True
    return False


def _piece_rings(stream, shape: Polygon, n: int, shortest: float) -> list[list[Point]] | None:
    """Return the rings of the n regions of a piece of land: n sites moved by a few rounds
    of Lloyd relaxation, their Voronoi cells clipped to the land; None when a cell is not
    one polygon or two cells share a border shorter than ``shortest``."""
    bounds = shape.bounds
    sites = _sites(stream, shape, n, bounds)
    if n == 1:
        return _rings(shapely.get_parts(shapely.GeometryCollection([shape])))
    points = shapely.multipoints(_relax(sites, _samples(shape, bounds), LLOYD_ROUNDS))
    if _short_inland_edge(points, shape, shortest):
        return None
    diagram = _diagram(bounds, points)
    if _soon_too_short(diagram, shape, shortest):
        return None
    return _rings(shapely.intersection(diagram, shape))


def _clockwise(ring: list[Point]) -> list[Point]:
    """Return the ring running clockwise on the page (y grows downwards)."""
    return ring if _area(ring) > 0 else ring[::-1]


def _area(ring: list[Point]) -> float:
    """Return the signed area of a ring (positive when clockwise on the page)."""
    return sum([px * qy - qx * py
                for (px, py), (qx, qy) in zip(ring[-1:] + ring[:-1], ring)]) / 2


def _rings(cells) -> list[list[Point]] | None:
    """Return each cell's outline as a clockwise ring of points rounded to a tenth; None when
    a cell is not a polygon (it has no outline then) or has fewer than 3 corners."""
    coords, which = shapely.get_coordinates(shapely.get_exterior_ring(cells), return_index=True)
    coords = np.round(coords, 1) + 0.0
    # Keep the first point of each cell and every point that differs from the one before.
    keep = np.ones(len(coords), dtype=bool)
    keep[1:] = (coords[1:] != coords[:-1]).any(axis=1) | (which[1:] != which[:-1])
    points = list(zip(*coords[keep].T.tolist()))
    ends = np.cumsum(np.bincount(which[keep], minlength=len(cells))).tolist()
    rings: list[list[Point]] = []
    for start, end in zip([0] + ends, ends):
        ring = points[start:end]
        if len(ring) > 1 and ring[0] == ring[-1]:
            ring.pop()
        if len(ring) < 3:
            return None
        rings.append(_clockwise(ring))
    return rings


# Stage: borders and coast --------------------------------------------------------------------

def _edges(ring: list[Point]) -> list[tuple[Point, Point]]:
    """Return the edges of a ring, each as (from, to), the last closing the ring."""
    return list(zip(ring, ring[1:] + ring[:1]))


@dataclass
class Layout:
    """Every region's ring with what lies beyond each edge, and each piece's coast runs."""

    rings: list[list[Point]]
    beyond: list[list[object]]                      # per ring edge: region index or area id
    coasts: list[list[tuple[int, list[Point]]]]     # per piece: (region, polyline) runs


def _marks(rings: list[list[Point]]) -> tuple[list[list[int]], list[Point]]:
    """Number the points of the rings (the same point, the same number): return the rings as
    numbers, and the points by number. Numbers are quicker to look up than points."""
    index: dict[Point, int] = {}
    marks = [[index.setdefault(p, len(index)) for p in ring] for ring in rings]
    return marks, list(index)


def _neighbours(rings: list[list[int]]) -> list[list[int]] | None:
    """Return, for each edge of each ring, the ring on its other side (or COAST); None when
    two edges run the same way between the same points."""
    owner: dict[tuple[int, int], int] = {}
    for n, ring in enumerate(rings):
        owner.update(zip(_edges(ring), repeat(n)))
    if len(owner) < sum(map(len, rings)):
        return None
    return [list(map(owner.get, zip(ring[1:] + ring[:1], ring), repeat(COAST)))   # (to, from)
            for ring in rings]


def _coast_steps(rings: list[list[int]],
                 beyond: list[list[int]]) -> dict[int, tuple[int, int]] | None:
    """Return, for each point on the coast, the next point clockwise and the region between;
    None when the coast touches itself or more than three borders meet at a point."""
    coast_next: dict[int, tuple[int, int]] = {}
    steps = 0
    for n, (ring, ring_beyond) in enumerate(zip(rings, beyond)):
        ahead = zip(ring, zip(ring[1:] + ring[:1], repeat(n)))
        found = list(compress(ahead, map(COAST.__eq__, ring_beyond)))
        coast_next.update(found)
        steps += len(found)
    if len(coast_next) < steps:
        return None
    faces_at = Counter(chain.from_iterable(rings))     # at most 3 faces at a point, the
    if max(faces_at.values()) > 3 or \
            max(map(faces_at.__getitem__, coast_next), default=0) > 2:   # coast being one
        return None
    return coast_next


def _coast_runs(coast_next: dict[int, tuple[int, int]], first: int, last: int,
                points: list[Point]) -> list[tuple[int, list[Point]]] | None:
    """Walk the coast of the piece of land holding regions first to last - 1, clockwise from
    its least point; return it as runs, one per region along it."""
    starts = [p for p, (_, n) in coast_next.items() if first <= n < last]
    if not starts:
        return None
    start = min(starts, key=points.__getitem__)
    walk, p = [], start
    while True:
        q, n = coast_next[p]
        walk.append((p, q, n))
        p = q
        if p == start or len(walk) > 10_000:
            break
    if len(walk) != len(starts):
        return None
    runs: list[tuple[int, list[Point]]] = []
    for p, q, n in walk:
        if runs and runs[-1][0] == n:
            runs[-1][1].append(points[q])
        else:
            runs.append((n, [points[p], points[q]]))
    if len(runs) > 1 and runs[0][0] == runs[-1][0]:
        n, line = runs.pop()
        runs[0] = (n, line + runs[0][1][1:])
    return runs


def _layout(rings: list[list[Point]], pieces: list[tuple[int, int]], land_area: float,
            v: Variant) -> Layout | None:
    """Find each edge's neighbour, check the borders and regions (_clean), then walk the
    coast; None if the map is not clean."""
    marks, points = _marks(rings)
    beyond = _neighbours(marks)
    if beyond is None or not _clean(rings, beyond, land_area, v):
        return None
    coast_next = _coast_steps(marks, beyond)
    if coast_next is None:
        return None
    coasts = []
    for first, last in pieces:
        runs = _coast_runs(coast_next, first, last, points)
        if runs is None:
            return None
        coasts.append(runs)
    return Layout(rings, beyond, coasts)


def _splits(beyond: list[object]) -> tuple[int, list[int]]:
    """Return where a ring's runs of edges with the same neighbour lie: the first edge after
    a junction (``start``), and where each run ends, counting edges from ``start``."""
    n = len(beyond)
    start = next(compress(range(n), map(ne, beyond, beyond[-1:] + beyond[:-1])), 0)
    turned = beyond[start:] + beyond[:start]
    return start, list(compress(range(1, n), map(ne, turned[1:], turned))) + [n]


def _runs(ring: list[Point], beyond: list[object]) -> list[tuple[object, list[Point]]]:
    """Split a ring into runs of edges with the same neighbour, starting at a junction."""
    start, ends = _splits(beyond)
    points = ring[start:] + ring[:start + 1]        # closed: the first point again at the end
    return [(beyond[(start + i) % len(ring)], points[i:j + 1])
            for i, j in zip([0] + ends, ends)]


def _clean(rings: list[list[Point]], beyonds: list[list[int]], land_area: float,
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
        area = _area(ring)
        perimeter = sum(steps)
        if area < MIN_AREA * land_area * 8 / v.regions or \
                4 * math.pi * area / perimeter ** 2 < MIN_ROUNDNESS:
            return False
    return True


# Stages: numbers, terrain, tribes ------------------------------------------------------------

def _numbers(seed: Seed, v: Variant) -> list[int]:
    """Return each region's number: 1-8 shuffled (each ``copies`` times)."""
    return shuffled(seed.stream("numbers"), [n for n in range(1, 9) for _ in range(v.copies)])


def _terrain(seed: Seed, v: Variant, count: int) -> list[list[str]]:
    """Return each region's icons: Mountains, Forests, then Deserts by the rule."""
    stream = seed.stream("terrain")
    mountains = set(shuffled(stream, range(count))[:v.setup.mountains])
    forests = set(shuffled(stream, range(count))[:v.setup.forests])
    bare = [i for i in range(count) if i not in mountains and i not in forests]
    deserts = set(bare)
    short = v.setup.deserts_at_least - len(bare)
    if short > 0:
        deserts.update(shuffled(stream, [i for i in range(count)
                                         if i not in forests and i not in deserts])[:short])
    return [[icon for icon, where in (("mountain", mountains), ("forest", forests),
                                      ("desert", deserts)) if i in where]
            for i in range(count)]


def _tribes(seed: Seed, v: Variant, icons: list[list[str]]) -> list[int]:
    """Return each region's tribes: one each in the best-supplied regions."""
    stream = seed.stream("tribes")
    both = [i for i, ic in enumerate(icons) if "mountain" in ic and "forest" in ic]
    either = [i for i, ic in enumerate(icons) if i not in both and
              ("mountain" in ic or "forest" in ic)]
    rest = [i for i in range(len(icons)) if i not in both and i not in either]
    ranked = shuffled(stream, both) + shuffled(stream, either) + shuffled(stream, rest)
    chosen = set(ranked[:v.setup.tribes])
    return [1 if i in chosen else 0 for i in range(len(icons))]


# The whole map -------------------------------------------------------------------------------

def _geometry_m1(seed: Seed, v: Variant):
    """Return (layout, coast) for algorithm m1, from the first try that passes the
    geometric checks."""
    for attempt in range(ATTEMPTS):
        drawn = _land(seed, v, attempt)
        if drawn is None:
            continue
        sizes, shapes = drawn
        stream = seed.stream(f"sites:{attempt}")
        rings, pieces, first = [], [], 0
        for n, shape in zip(sizes, shapes):
            piece_rings = _piece_rings(stream, shape, n, min_border(v))
            if piece_rings is None:
                break
            rings.extend(piece_rings)
            pieces.append((first, first + n))
            first += n
        else:
            layout = _layout(rings, pieces, sum(shape.area for shape in shapes), v)
            if layout is None:
                continue
            coast = give_coast(seed.stream(f"coast:{attempt}"), v, layout.coasts)
            if coast is not None:
                return layout, coast
    raise GenerationError(f"no legal map for seed {seed} in {ATTEMPTS} tries")


def _ids(numbers: list[int]) -> list[str]:
    """Return each region's id: its number, with a letter when the number repeats (3a, 3b)."""
    seen: dict[int, int] = {}
    ids = []
    for n in numbers:
        seen[n] = seen.get(n, 0) + 1
        ids.append(str(n) if numbers.count(n) == 1 else f"{n}{'abcdefgh'[seen[n] - 1]}")
    return ids


def _named_ring(ring: list[Point], beyond: list[int], coast: Coast,
                ids: list[str]) -> tuple[list[Point], list[str]]:
    """Return a region's ring with the Frontier/Sea cut points put into its coast edges,
    and the name of what lies beyond each edge: a region's id, a Frontier or a Sea."""
    points: list[Point] = []
    names: list[str] = []
    cuts, areas = coast.cuts, coast.edges
    for a, b, other in zip(ring, ring[1:] + ring[:1], beyond):
        points.append(a)
        if other != COAST:
            names.append(ids[other])
        elif (a, b) in cuts:
            p = cuts[a, b]
            points.append(p)
            names += (areas[a, p], areas[p, b])
        else:
            names.append(areas[a, b])
    return points, names


def _regions(layout: Layout, coast: Coast, ids: list[str], numbers: list[int],
             icons: list[list[str]], tribes: list[int]) -> list[Region]:
    """Return the regions, in number order, each with its borders and their lines."""
    regions = []
    for n, r in enumerate(sorted(range(len(layout.rings)), key=lambda r: (numbers[r], ids[r]))):
        runs = _runs(*_named_ring(layout.rings[r], layout.beyond[r], coast, ids))
        regions.append(Region(ids[r], numbers[r], tuple(x for x, _ in runs), tuple(icons[r]),
                              tribes[r], None, tuple(tuple(line) for _, line in runs),
                              ("regions", n)))
    return regions


def _areas(coast: Coast, ids: list[str], kind: str) -> tuple[Area, ...]:
    """Return the Frontiers or the Seas, by id, with the regions along their coast."""
    names = sorted(a for a in coast.lists if AREA_KIND[a] == kind)
    return tuple(Area(a, kind, tuple(tuple(ids[x] if isinstance(x, int) else x for x in c)
                                     for c in coast.lists[a]), (kind + "s", n))
                 for n, a in enumerate(names))


# Algorithm m2: the same land, sites and checks, the cells built in voronoi.py ---------------

M2_ROUNDS = 3                 # Lloyd rounds for m2's sites
M2_SAMPLES = 24               # grid points across the frame when relaxing them
M2_SITE_TRIES = 8             # fresh sites on the same land before the land is drawn again
M2_OUTLINES = 1000            # outlines of land drawn at most (islands drop most of them)
M2_CANDIDATES = 4             # points drawn for each site, the one farthest from the others kept


def _spread_sites(stream, samples: tuple[np.ndarray, np.ndarray], n: int) -> list[Point]:
    """Pick n of the land's sample points for sites, each the farthest from those before it
    of M2_CANDIDATES drawn for it (Mitchell's best candidate): already fairly even, so a few
    rounds of Lloyd finish the job."""
    xs, ys = samples
    draw, count = stream.random, len(xs)
    drawn = [min(int(draw() * count), count - 1) for _ in range(n * M2_CANDIDATES)]  # below()
    pool = list(zip(xs[drawn].tolist(), ys[drawn].tolist()))
    chosen = [pool[0]]
    for k in range(M2_CANDIDATES, n * M2_CANDIDATES, M2_CANDIDATES):
        best, far = pool[k], -1.0
        for x, y in pool[k:k + M2_CANDIDATES]:
            near = min([(x - cx) * (x - cx) + (y - cy) * (y - cy) for cx, cy in chosen])
            if near > far:
                best, far = (x, y), near
        chosen.append(best)
    return chosen


def _coast_outline(shape: Polygon) -> np.ndarray:
    """Return the land's outline as an (n, 2) array running clockwise on the page (which,
    y growing downwards, is anticlockwise in GEOS's eyes)."""
    ring = shapely.get_exterior_ring(shape)
    outline = shapely.get_coordinates(ring)[:-1]
    return outline if shapely.is_ccw(ring) else outline[::-1].copy()


def _m2_piece(stream, shape: Polygon, n: int, land_area: float, v: Variant) -> Layout | None:
    """Return the layout of one piece of land's n regions: sites relaxed by M2_ROUNDS rounds
    of Lloyd, their Voronoi cells clipped to the land (voronoi.py) and checked as m1's are;
    fresh sites, up to M2_SITE_TRIES times, while the checks fail."""
    bounds = shape.bounds
    shapely.prepare(shape)
    coast = _coast_outline(shape)
    samples = _samples(shape, bounds, M2_SAMPLES)

    def on_land(xs: np.ndarray, ys: np.ndarray) -> np.ndarray:
        return shapely.contains_xy(shape, xs, ys)

    for _ in range(M2_SITE_TRIES):
        sites = _relax(_spread_sites(stream, samples, n), samples, M2_ROUNDS)
        cells = clipped_cells(untangled(sites, on_land, min_border(v)), coast)
        if cells is not None:
            rings, beyond, runs = cells
            if _clean(rings, beyond, land_area, v):
                return Layout(rings, beyond, [runs])
    return None


def _joined(layouts: list[Layout]) -> Layout:
    """Return the layouts of the pieces of land as one, the regions numbered on from piece
    to piece."""
    rings: list[list[Point]] = []
    beyond: list[list[object]] = []
    coasts: list[list[tuple[int, list[Point]]]] = []
    for layout in layouts:
        first = len(rings)
        rings.extend(layout.rings)
        beyond.extend([[b if b == COAST else b + first for b in row] for row in layout.beyond])
        coasts.extend([[(r + first, line) for r, line in runs] for runs in layout.coasts])
    return Layout(rings, beyond, coasts)


def _lands(seed: Seed, v: Variant):
    """Yield (attempt, sizes, shapes) for each land drawn, skipping outlines whose islands
    lie too close together (most islands outlines are dropped so; up to M2_OUTLINES are
    drawn), until ATTEMPTS lands have been given."""
    given = 0
    for attempt in range(M2_OUTLINES):
        drawn = _land(seed, v, attempt)
        if drawn is not None:
            yield attempt, *drawn
            given += 1
            if given == ATTEMPTS:
                return


def _geometry_m2(seed: Seed, v: Variant):
    """Return (layout, coast) for algorithm m2: each piece of land keeps its outline while
    fresh sites are tried, and the cells are built by voronoi.py rather than GEOS."""
    for attempt, sizes, shapes in _lands(seed, v):
        land_area = sum(shape.area for shape in shapes)
        stream = seed.stream(f"sites:{attempt}")
        layouts = []
        for n, shape in zip(sizes, shapes):
            layout = _m2_piece(stream, shape, n, land_area, v)
            if layout is None:
                break
            layouts.append(layout)
        else:
            layout = _joined(layouts)
            coast = give_coast(seed.stream(f"coast:{attempt}"), v, layout.coasts)
            if coast is not None:
                return layout, coast
    raise GenerationError(f"no legal map for seed {seed} in {ATTEMPTS} tries")


# The map generators, by the algorithm a seed names: each draws the geometry (the regions'
# outlines and the coast's Frontiers and Seas); numbers, terrain and Tribes are shared.
ALGORITHMS: dict[str, Callable[[Seed, Variant], tuple[Layout, Coast]]] = {
    "m1": _geometry_m1,
    "m2": _geometry_m2,
}


def check_algorithm(seed: Seed) -> None:
    """Raise SeedError unless this printshop knows the algorithm the seed names."""
    if seed.algorithm not in ALGORITHMS:
        raise SeedError(f"seed '{seed}' needs map algorithm {seed.algorithm}; this printshop "
                        f"draws {' and '.join(ALGORITHMS)} maps")


def generate(seed: Seed) -> WorldMap:
    """Draw the map of a seed: the same seed always gives the same map."""
    check_algorithm(seed)
    v = variant(seed.variant)
    layout, coast = ALGORITHMS[seed.algorithm](seed, v)
    numbers = _numbers(seed, v)
    ids = _ids(numbers)
    icons = _terrain(seed, v, len(numbers))
    regions = _regions(layout, coast, ids, numbers, icons, _tribes(seed, v, icons))
    return WorldMap(v.name, tuple(regions), _areas(coast, ids, "frontier"),
                    _areas(coast, ids, "sea"), "random", str(seed))
