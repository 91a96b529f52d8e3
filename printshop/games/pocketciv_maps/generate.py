"""The map generator: a seeded PocketCiv world, legal by construction.

Stages, each drawing from its own stream of the seed (see seed.py):
  land      a smooth blob per piece of land (r = 1 + a few cosine harmonics), stretched
  sites     one point per region, spread by six rounds of Lloyd relaxation
  regions   Voronoi cells clipped to the land: three borders meet at every junction
  coast     the Frontier (coast.py): a window of 4 or 5 coast runs of distinct regions, ends
            inside the first and last run (never on a junction); the rest is Sea
  numbers   1-8 shuffled (twice for two players)
  terrain   Mountains and Forests placed independently; Deserts by the rule
  tribes    in distinct regions, those with both Mountain and Forest first
Only cheap geometric checks reject a try (a region in two pieces, a border too short to see,
a region too cramped for its icons); the rules themselves cannot fail.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np
import shapely
from shapely import MultiPoint, Polygon

from .coast import AREA_KIND, Coast, Point, give_coast, length, min_border, with_cuts
from .model import Area, Region, WorldMap
from .seed import Seed, below, between, shuffled
from .variant import Variant, variant

FRAME = 1000.0               # the land spans this many map units across
MIN_ROUNDNESS = 0.3          # 4 pi area / perimeter^2 of every region
MIN_AREA = 0.045             # of the land's area per region, times the region count
ATTEMPTS = 60
SAMPLES = 32                 # grid points across the frame when relaxing sites
LLOYD_ROUNDS = 6
COAST = -1



class GenerationError(RuntimeError):
    """No legal map came out of the allowed number of tries (never seen in practice)."""


# Stage: land ---------------------------------------------------------------------------------

def _blob(stream, v: Variant, cx: float, cy: float, rx: float, ry: float,
          points: int) -> list[Point]:
    """Return a smooth closed outline around (cx, cy): r = 1 + a few cosine waves."""
    waves = [(k, between(stream, 0.0, v.shape.wobble / math.sqrt(k)),
              between(stream, 0.0, 2 * math.pi)) for k in (2, 3, 4, 5)]
    out = []
    for i in range(points):
        t = 2 * math.pi * i / points
        r = 1.0
        for k, a, p in waves:
            r += a * math.cos(k * t + p)
        out.append((cx + rx * r * math.cos(t), cy + ry * r * math.sin(t)))
    return out


def _fit(outlines: list[list[Point]], aspect: float) -> list[list[Point]]:
    """Scale and move outlines together into the frame, rounding every point."""
    every = np.array([p for o in outlines for p in o])
    low, high = every.min(axis=0), every.max(axis=0)
    scale = min(FRAME / (high[0] - low[0]), FRAME / aspect / (high[1] - low[1]))
    out, start = [], 0
    for o in outlines:
        part = np.round((every[start:start + len(o)] - low) * scale, 1) + 0.0
        out.append([(x, y) for x, y in part.tolist()])
        start += len(o)
    return out


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
    shapes = [Polygon(o) for o in _fit(outlines, aspect)]
    for i in range(len(shapes)):
        for j in range(i + 1, len(shapes)):
            if shapes[i].distance(shapes[j]) < 0.06 * FRAME:
                return None
    return sizes, shapes


# Stage: sites and regions --------------------------------------------------------------------

def _sites(stream, shape: Polygon, n: int) -> list[Point]:
    """Scatter n points inside a piece of land (the first n of a stream of tries)."""
    x0, y0, x1, y1 = shape.bounds
    shapely.prepare(shape)
    out: list[Point] = []
    while len(out) < n:
        tries = [(between(stream, x0, x1), between(stream, y0, y1)) for _ in range(2 * n)]
        inside = shapely.contains_xy(shape, *np.array(tries).T)
        out.extend(p for p, ok in zip(tries, inside) if ok)
    return out[:n]


def _cells(shape: Polygon, sites: list[Point]):
    """Return the Voronoi cells of the sites, clipped to the land, in site order."""
    if len(sites) == 1:
        return shapely.get_parts(shapely.GeometryCollection([shape]))
    x0, y0, x1, y1 = shape.bounds
    frame = shapely.box(x0 - FRAME, y0 - FRAME, x1 + FRAME, y1 + FRAME)
    diagram = shapely.voronoi_polygons(MultiPoint(sites), extend_to=frame, ordered=True)
    return shapely.intersection(shapely.get_parts(diagram), shape)


def _samples(shape: Polygon) -> np.ndarray:
    """Return a fine grid of points inside the land, for relaxing the sites."""
    x0, y0, x1, y1 = shape.bounds
    step = FRAME / SAMPLES
    xs, ys = np.meshgrid(np.arange(x0 + step / 2, x1, step), np.arange(y0 + step / 2, y1, step))
    xs, ys = xs.ravel(), ys.ravel()
    inside = shapely.contains_xy(shape, xs, ys)
    return np.stack([xs[inside], ys[inside]], axis=1)


def _relax(sites: list[Point], samples: np.ndarray) -> list[Point]:
    """Move each site to the centre of the land nearest to it (one round of Lloyd)."""
    centres = np.array(sites)
    d2 = (samples[:, None, 0] - centres[None, :, 0]) ** 2 + \
        (samples[:, None, 1] - centres[None, :, 1]) ** 2
    nearest = np.argmin(d2, axis=1)
    counts = np.bincount(nearest, minlength=len(sites))
    sx = np.bincount(nearest, weights=samples[:, 0], minlength=len(sites))
    sy = np.bincount(nearest, weights=samples[:, 1], minlength=len(sites))
    return [(float(x / c), float(y / c)) if c else p
            for x, y, c, p in zip(sx.tolist(), sy.tolist(), counts.tolist(), sites)]


def _relaxed_cells(stream, shape: Polygon, n: int) -> list | None:
    """Return the cells of n sites after two rounds of Lloyd relaxation."""
    sites = _sites(stream, shape, n)
    samples = _samples(shape)
    for _ in range(LLOYD_ROUNDS):
        sites = _relax(sites, samples)
    cells = _cells(shape, sites)
    if any(shapely.get_type_id(cells) != 3):
        return None
    return list(cells)


def _clockwise(ring: list[Point]) -> list[Point]:
    """Return the ring running clockwise on the page (y grows downwards)."""
    return ring if _area(ring) > 0 else ring[::-1]


def _area(ring: list[Point]) -> float:
    """Return the signed area of a ring (positive when clockwise on the page)."""
    return sum(ring[i - 1][0] * ring[i][1] - ring[i][0] * ring[i - 1][1]
               for i in range(len(ring))) / 2


def _rings(cells: list) -> list[list[Point]] | None:
    """Return each cell's outline as a clockwise ring of points rounded to a tenth."""
    coords, which = shapely.get_coordinates(shapely.get_exterior_ring(cells), return_index=True)
    coords = np.round(coords, 1).tolist()
    rings: list[list[Point]] = [[] for _ in cells]
    for (x, y), n in zip(coords, which.tolist()):
        p = (x + 0.0, y + 0.0)
        if not rings[n] or rings[n][-1] != p:
            rings[n].append(p)
    for n, ring in enumerate(rings):
        if len(ring) > 1 and ring[0] == ring[-1]:
            ring.pop()
        if len(ring) < 3:
            return None
        rings[n] = _clockwise(ring)
    return rings


# Stage: borders and coast --------------------------------------------------------------------

@dataclass
class Layout:
    """Every region's ring with what lies beyond each edge, and each piece's coast runs."""

    rings: list[list[Point]]
    beyond: list[list[object]]                      # per ring edge: region index or area id
    coasts: list[list[tuple[int, list[Point]]]]     # per piece: (region, polyline) runs


def _layout(rings: list[list[Point]], pieces: list[tuple[int, int]]) -> Layout | None:
    """Find each edge's neighbour and walk the coast; None if the map is not clean."""
    owner: dict[tuple[Point, Point], int] = {}
    for n, ring in enumerate(rings):
        for i in range(len(ring)):
            edge = (ring[i], ring[(i + 1) % len(ring)])
            if edge in owner:
                return None
            owner[edge] = n
    beyond = [[owner.get((ring[(i + 1) % len(ring)], ring[i]), COAST)
               for i in range(len(ring))] for ring in rings]
    faces_at: dict[Point, int] = {}
    coast_next: dict[Point, tuple[Point, int]] = {}
    for n, ring in enumerate(rings):
        for i, p in enumerate(ring):
            faces_at[p] = faces_at.get(p, 0) + 1
            if beyond[n][i] == COAST:
                if p in coast_next:
                    return None
                coast_next[p] = (ring[(i + 1) % len(ring)], n)
    for p, count in faces_at.items():
        if count + (p in coast_next) > 3:
            return None
    coasts = []
    for first, last in pieces:
        starts = [p for p, (_, n) in coast_next.items() if first <= n < last]
        if not starts:
            return None
        start = min(starts)
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
                runs[-1][1].append(q)
            else:
                runs.append((n, [p, q]))
        if len(runs) > 1 and runs[0][0] == runs[-1][0]:
            n, line = runs.pop()
            runs[0] = (n, line + runs[0][1][1:])
        coasts.append(runs)
    return Layout(rings, beyond, coasts)


def _runs(ring: list[Point], beyond: list[object]) -> list[tuple[object, list[Point]]]:
    """Split a ring into runs of edges with the same neighbour, starting at a junction."""
    n = len(ring)
    start = next((i for i in range(n) if beyond[i] != beyond[i - 1]), 0)
    runs: list[tuple[object, list[Point]]] = []
    for k in range(n):
        i = (start + k) % n
        a, b = ring[i], ring[(i + 1) % n]
        if runs and runs[-1][0] == beyond[i]:
            runs[-1][1].append(b)
        else:
            runs.append((beyond[i], [a, b]))
    return runs


def _clean(layout: Layout, land_area: float, v: Variant) -> bool:
    """Say whether every border is long enough to print and every region roomy enough."""
    shortest = min_border(v)
    for ring, beyond in zip(layout.rings, layout.beyond):
        runs = _runs(ring, beyond)
        if len(runs) < 2 or any(length(line) < shortest for _, line in runs):
            return False
        area = _area(ring)
        perimeter = length(ring + ring[:1])
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

def _geometry(seed: Seed, v: Variant):
    """Return (layout, coast) from the first try that passes the geometric checks."""
    for attempt in range(ATTEMPTS):
        drawn = _land(seed, v, attempt)
        if drawn is None:
            continue
        sizes, shapes = drawn
        stream = seed.stream(f"sites:{attempt}")
        rings, pieces, first = [], [], 0
        for n, shape in zip(sizes, shapes):
            cells = _relaxed_cells(stream, shape, n)
            piece_rings = _rings(cells) if cells is not None else None
            if piece_rings is None:
                break
            rings.extend(piece_rings)
            pieces.append((first, first + n))
            first += n
        else:
            layout = _layout(rings, pieces)
            land_area = sum(shape.area for shape in shapes)
            if layout is None or not _clean(layout, land_area, v):
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


def _regions(layout: Layout, coast: Coast, ids: list[str], numbers: list[int],
             icons: list[list[str]], tribes: list[int]) -> list[Region]:
    """Return the regions, in number order, each with its borders and their lines."""
    rings = [with_cuts(ring, coast.cuts) for ring in layout.rings]
    owner = {(ring[i], ring[(i + 1) % len(ring)]): r
             for r, ring in enumerate(rings) for i in range(len(ring))}
    regions = []
    for r, ring in enumerate(rings):
        edges = [(ring[i], ring[(i + 1) % len(ring)]) for i in range(len(ring))]
        beyond = [ids[owner[(b, a)]] if (b, a) in owner else coast.edges[(a, b)]
                  for a, b in edges]
        runs = _runs(ring, beyond)
        regions.append(Region(ids[r], numbers[r], tuple(x for x, _ in runs), tuple(icons[r]),
                              tribes[r], None, tuple(tuple(line) for _, line in runs)))
    regions.sort(key=lambda r: (r.number, r.id))
    return [replace(r, at=("regions", n)) for n, r in enumerate(regions)]


def _areas(coast: Coast, ids: list[str], kind: str) -> tuple[Area, ...]:
    """Return the Frontiers or the Seas, by id, with the regions along their coast."""
    names = sorted(a for a in coast.lists if AREA_KIND[a] == kind)
    return tuple(Area(a, kind, tuple(tuple(ids[x] if isinstance(x, int) else x for x in c)
                                     for c in coast.lists[a]), (kind + "s", n))
                 for n, a in enumerate(names))


def generate(seed: Seed) -> WorldMap:
    """Draw the map of a seed: the same seed always gives the same map."""
    v = variant(seed.variant)
    layout, coast = _geometry(seed, v)
    numbers = _numbers(seed, v)
    ids = _ids(numbers)
    icons = _terrain(seed, v, len(numbers))
    regions = _regions(layout, coast, ids, numbers, icons, _tribes(seed, v, icons))
    return WorldMap(v.name, tuple(regions), _areas(coast, ids, "frontier"),
                    _areas(coast, ids, "sea"), "random", str(seed))
