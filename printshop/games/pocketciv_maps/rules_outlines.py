"""The map rules on the regions' outlines, when a map gives them: ordinary coordinates,
one line per border joined into a simple ring, shared borders drawn alike, no overlaps."""

from __future__ import annotations

from functools import lru_cache
from itertools import chain, repeat
from operator import itemgetter, le
from typing import Iterable

import numpy as np
import shapely
from shapely import STRtree

from .model import Region
from .survey import MapRule, Survey, flaw, registry

RULES: dict[str, MapRule] = {}
map_rule = registry(RULES)


MAX_COORDINATE = 1e6  # far beyond any printed map, far below where float geometry breaks down


def _within(values: Iterable[float]) -> bool:
    """Say whether every value lies from -MAX_COORDINATE to MAX_COORDINATE (NaN does not):
    a quick look before the point-by-point search."""
    return all(map(le, map(abs, values), repeat(MAX_COORDINATE)))     # abs(v) <= MAX


@map_rule("pocketciv.map.coordinates", f"every outline point lies within "
          f"±{MAX_COORDINATE:g} of the origin")
def _coordinates(s: Survey):
    """Check that outline points are ordinary numbers (huge ones overflow the geometry)."""
    lines = chain.from_iterable(r.outline or () for r in s.world.regions)
    if _within(chain.from_iterable(chain.from_iterable(lines))):
        return
    for r in s.world.regions:
        for k, line in enumerate(r.outline or ()):
            bad = next((j for j, p in enumerate(line)
                        if not all(abs(v) <= MAX_COORDINATE for v in p)), None)
            if bad is not None:
                yield flaw(f"point {bad + 1} of line {k + 1} of {s.name(r.id)}'s outline is "
                           f"{list(line[bad])}; expected coordinates from -{MAX_COORDINATE:g} "
                           f"to {MAX_COORDINATE:g}", r.at + ("outline", k, bad), (r.number,))
                break


def _joined(lines: tuple) -> bool:
    """Say whether each line ends where the next begins (the last where the first begins)."""
    return list(map(itemgetter(-1), lines)) == list(map(itemgetter(0), lines[1:] + lines[:1]))


@map_rule("pocketciv.map.outline", "each outline is one line per border, joined into a "
          "simple ring", needs=("pocketciv.map.border-names", "pocketciv.map.coordinates"))
def _outline(s: Survey):
    """Check each outline's shape: one line per border, joined, simple."""
    drawn = [r for r in s.world.regions if r.outline is not None]
    if drawn and len(drawn) != len(s.world.regions):
        missing = [r for r in s.world.regions if r.outline is None]
        yield flaw(f"some regions have an outline and {s.names(r.id for r in missing)} "
                   "do not: give every region an outline, or none", missing[0].at,
                   [r.number for r in missing])
        return
    if not drawn:
        return
    if not _simple(drawn, list(s.rings.values())):
        found = list(_outline_search(s))
        if found:
            yield from found
            return
    for r, valid, area in zip(drawn, shapely.is_valid(s.shapes).tolist(),
                              shapely.area(s.shapes).tolist()):
        if not valid or area <= 0:
            yield flaw(f"{s.name(r.id)}'s outline crosses itself or encloses no area",
                       r.at + ("outline",), (r.number,))


def _simple(drawn: list[Region], rings: list[list]) -> bool:
    """Say whether every outline has one line per border, each of 2 points or more and
    ending where the next begins (the last where the first begins), round a ring of 3 points
    or more that never passes through one point twice: a quick look at the whole map before
    the outline-by-outline search."""
    outlines = [r.outline for r in drawn]
    lines = list(chain.from_iterable(outlines))
    sizes = list(map(len, rings))
    return (list(map(len, outlines)) == [len(r.borders) for r in drawn] and
            min(map(len, lines), default=2) >= 2 and
            list(map(itemgetter(-1), lines)) ==
            list(map(itemgetter(0), chain.from_iterable(o[1:] + o[:1] for o in outlines))) and
            min(sizes, default=3) >= 3 and list(map(len, map(set, rings))) == sizes)


def _outline_search(s: Survey):
    """Report, outline by outline, the first thing wrong with its lines: their number, their
    points, their joins, a point passed twice."""
    for n, r in enumerate(s.world.regions):
        if r.outline is None:
            continue
        if len(r.outline) != len(r.borders):
            yield flaw(f"{s.name(r.id)} lists {len(r.borders)} borders but its outline has "
                       f"{len(r.outline)} lines; give one line per border, in the same order",
                       r.at + ("outline",), (r.number,))
            continue
        bad = None if min(map(len, r.outline), default=2) >= 2 else \
            next(k for k, line in enumerate(r.outline) if len(line) < 2)
        if bad is not None:
            yield flaw(f"line {bad + 1} of {s.name(r.id)}'s outline has fewer than 2 points",
                       r.at + ("outline", bad), (r.number,))
            continue
        gap = None if _joined(r.outline) else \
            next(k for k, line in enumerate(r.outline)
                 if line[-1] != r.outline[(k + 1) % len(r.outline)][0])
        if gap is not None:
            nxt = (gap + 1) % len(r.outline)
            yield flaw(f"{s.name(r.id)}'s outline breaks between its border with "
                       f"{s.name(r.borders[gap])} and the next: line {gap + 1} ends at "
                       f"{list(r.outline[gap][-1])} but line {nxt + 1} starts at "
                       f"{list(r.outline[nxt][0])}", r.at + ("outline", nxt), (r.number,))
            continue
        ring = s.rings[n]
        if len(ring) < 3 or len(set(ring)) != len(ring):
            yield flaw(f"{s.name(r.id)}'s outline passes through the same point twice or "
                       "encloses no area", r.at + ("outline",), (r.number,))


def _lines(region: Region) -> dict[str, list[tuple]]:
    """Return a region's outline lines along its borders, by the neighbour beyond them."""
    lines: dict[str, list[tuple]] = {}
    for b, line in zip(region.borders, region.outline):
        lines.setdefault(b, []).append(line)
    return lines


@map_rule("pocketciv.map.outline-shared", "neighbours draw their shared border along the "
          "same line", needs=("pocketciv.map.outline", "pocketciv.map.border-mutual"))
def _outline_shared(s: Survey):
    """Check that neighbours give the same points for a shared border."""
    regions = {r.id: r for r in s.world.regions}
    if not regions or next(iter(regions.values())).outline is None:
        return
    lines = {rid: _lines(r) for rid, r in regions.items()}
    for r in s.world.regions:
        for k, (other, line) in enumerate(zip(r.borders, r.outline)):
            if other not in regions or (other, r.id) < (r.id, other):
                continue
            theirs = lines[other].get(r.id, [])
            if line not in theirs and tuple(reversed(line)) not in theirs:
                yield flaw(f"{s.name(r.id)} and {s.name(other)} draw their border along "
                           "different lines; both outlines must give the same points",
                           r.at + ("outline", k), (r.number, regions[other].number))


@lru_cache(maxsize=None)
def _pairs(n: int) -> tuple[np.ndarray, np.ndarray]:
    """Return the positions (i, j), i < j, of every pair of n things (computed once per n)."""
    first, second = np.triu_indices(n, 1)
    first.flags.writeable = second.flags.writeable = False
    return first, second


def _apart(shapes) -> bool:
    """Say whether every two polygons that meet only touch, that is whether no two share a
    point inside both: a quick look at every pair before the search that reports overlaps in
    order."""
    first, second = _pairs(len(shapes))
    return not shapely.relate_pattern(shapes[first], shapes[second], "T********").any()


@map_rule("pocketciv.map.overlap", "no two regions overlap",
          needs=("pocketciv.map.outline",))
def _overlap(s: Survey):
    """Check that no two outlines overlap."""
    drawn = [r for r in s.world.regions if r.outline is not None]
    if not drawn:
        return
    shapes = s.shapes
    if _apart(shapes):
        return
    left, right = STRtree(shapes).query(shapes, predicate="intersects")
    pairs = [(i, j) for i, j in zip(left.tolist(), right.tolist()) if i < j]
    if not pairs:
        return
    touching = shapely.touches(shapes[[i for i, _ in pairs]], shapes[[j for _, j in pairs]])
    for (i, j), touch in zip(pairs, touching.tolist()):
        if not touch:
            a, b = drawn[i], drawn[j]
            yield flaw(f"{s.name(a.id)} and {s.name(b.id)} overlap", b.at + ("outline",),
                       (a.number, b.number))

