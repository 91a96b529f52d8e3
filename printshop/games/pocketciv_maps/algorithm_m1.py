"""Map algorithm m1, the first: sites scattered and relaxed, their Voronoi cells built and
clipped to the land by GEOS, a try dropped early when the Delaunay triangles or two clipped
cells show a border too short to print."""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from itertools import chain, compress, repeat

import numpy as np
import shapely
from shapely import Polygon

from .coast import Point, give_coast, length, min_border
from .land import ATTEMPTS, FRAME, Bounds, GenerationError, draw_land
from .layout import COAST, Layout, border_runs, clean, ring_area, ring_edges
from .seed import Seed
from .sites import grid_samples, relax, scatter_sites
from .variant import Variant


LLOYD_ROUNDS = 6


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
    ``shortest``, measured as clean measures the runs of ``ring``."""
    theirs = set(ring_edges(other))
    shared = [(b, a) in theirs for a, b in ring_edges(ring)]
    return any(along and length(line) < shortest for along, line in border_runs(ring, shared))


def _soon_too_short(diagram: np.ndarray, shape: Polygon, shortest: float) -> bool:
    """Say early whether the clipped cells will fail: clip only the two cells of each short
    Voronoi edge, round them as _rings does, and measure their border as clean will. A
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
    sites = scatter_sites(stream, shape, n, bounds)
    if n == 1:
        return _rings(shapely.get_parts(shapely.GeometryCollection([shape])))
    points = shapely.multipoints(relax(sites, grid_samples(shape, bounds), LLOYD_ROUNDS))
    if _short_inland_edge(points, shape, shortest):
        return None
    diagram = _diagram(bounds, points)
    if _soon_too_short(diagram, shape, shortest):
        return None
    return _rings(shapely.intersection(diagram, shape))


def _clockwise(ring: list[Point]) -> list[Point]:
    """Return the ring running clockwise on the page (y grows downwards)."""
    return ring if ring_area(ring) > 0 else ring[::-1]


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
        owner.update(zip(ring_edges(ring), repeat(n)))
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
    """Find each edge's neighbour, check the borders and regions (clean), then walk the
    coast; None if the map is not clean."""
    marks, points = _marks(rings)
    beyond = _neighbours(marks)
    if beyond is None or not clean(rings, beyond, land_area, v):
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


def geometry(seed: Seed, v: Variant):
    """Return (layout, coast) for algorithm m1, from the first try that passes the
    geometric checks."""
    for attempt in range(ATTEMPTS):
        drawn = draw_land(seed, v, attempt)
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
