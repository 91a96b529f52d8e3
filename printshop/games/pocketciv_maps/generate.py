"""The map generator: a seeded PocketCiv world, legal by construction.

A seed names its algorithm (ALGORITHMS, at the end): m1, the first, or m2, the default. They
differ only in how the sites and regions are drawn; every other stage is shared.

Stages, each drawing from its own stream of the seed (see seed.py), and where they live:
  land      a smooth blob per piece of land (r = 1 + a few cosine harmonics), stretched
            (land.py)
  sites     one point per region, spread by six rounds of Lloyd relaxation (m2: see below)
            (sites.py)
  regions   Voronoi cells clipped to the land: three borders meet at every junction
            (algorithm_m1.py, algorithm_m2.py; what a try must pass: layout.py)
  coast     the Frontier (coast.py): a window of 4 or 5 coast runs of distinct regions, ends
            inside the first and last run (never on a junction); the rest is Sea
  numbers   1-8 shuffled (twice for two players), here as are terrain and tribes
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

from typing import Callable

from . import algorithm_m1, algorithm_m2
from .coast import AREA_KIND, Coast, Point
from .layout import COAST, Layout, border_runs
from .model import Area, Region, WorldMap
from .seed import Seed, SeedError, shuffled
from .variant import Variant, variant


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
        runs = border_runs(*_named_ring(layout.rings[r], layout.beyond[r], coast, ids))
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


# The map generators, by the algorithm a seed names: each draws the geometry (the regions'
# outlines and the coast's Frontiers and Seas); numbers, terrain and Tribes are shared.
ALGORITHMS: dict[str, Callable[[Seed, Variant], tuple[Layout, Coast]]] = {
    "m1": algorithm_m1.geometry,
    "m2": algorithm_m2.geometry,
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
