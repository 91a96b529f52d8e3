"""The coast: which stretches a Frontier takes and which the Sea, cut where they meet.

The coast of each piece of land comes as runs, one per region along it, in order going
clockwise. A Frontier takes a window of runs of distinct regions; its two ends are cut inside
the window's first and last run, never on a junction, where four lines would meet. Every other
stretch of coast is Sea. Each Frontier and Sea is then listed as the validator reads it: the
regions along its stretch, then the areas it meets beyond.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from .seed import below, between, shuffled
from .variant import Variant

MIN_BORDER = 24.0            # shortest border between two junctions, in map units
TIP_CLEARANCE = 0.1          # a peninsula's Frontier reaches this far past its tip

Point = tuple[float, float]


def rounded(v: float) -> float:
    """Round a coordinate to a tenth of a unit, so last-bit differences cannot spread."""
    return round(v + 0.0, 1) + 0.0


def length(line: list[Point]) -> float:
    """Return the length of a polyline."""
    return sum(map(math.dist, line, line[1:]))


def min_border(v: Variant) -> float:
    """Return the shortest border allowed: smaller regions may have shorter borders."""
    return MIN_BORDER * math.sqrt(8 / v.regions)


@dataclass(frozen=True)
class Stretch:
    """A Frontier's share of the coast: ``size`` runs from run ``start``, holding ``hold``."""

    area: str
    start: int
    size: int
    hold: Point | None = None


def _windows(runs, size: int, splittable: list[bool]) -> list[int]:
    """Return the starts of every window of ``size`` coast runs of distinct regions."""
    m = len(runs)
    return [s for s in range(m)
            if len({runs[(s + i) % m][0] for i in range(size)}) == size
            and splittable[s] and splittable[(s + size - 1) % m]]


def _splittable(runs, v: Variant) -> list[bool]:
    """Say for each coast run whether a Frontier may end inside it."""
    return [length(line) >= 2.4 * min_border(v) for _, line in runs]


def _one_frontier(stream, v: Variant, runs) -> list[Stretch] | None:
    """Place one Frontier over 4 or 5 runs of distinct regions, leaving Sea on the rest."""
    low, high = v.frontier_regions
    for size in shuffled(stream, range(low, high + 1)):
        starts = _windows(runs, size, _splittable(runs, v)) if len(runs) > size else []
        if starts:
            return [Stretch("frontier", starts[below(stream, len(starts))], size)]
    return None


def _two_frontiers(stream, v: Variant, runs) -> list[Stretch] | None:
    """Place a Frontier at each end of a long land, with a Sea along either flank."""
    m = len(runs)
    ok = _splittable(runs, v)
    tips = [max((p for _, line in runs for p in line), key=lambda p: (p[0], p[1])),
            min((p for _, line in runs for p in line), key=lambda p: (p[0], p[1]))]
    east, west = (next(i for i, (_, line) in enumerate(runs) if tip in line[1:-1] or
                       tip in line) for tip in tips)
    low, high = v.frontier_regions
    choices = []
    for total in range(low, high + 1):
        for k1 in range(2, total - 1):
            k2 = total - k1
            for s1 in _windows(runs, k1, ok):
                if east not in {(s1 + i) % m for i in range(k1)}:
                    continue
                for s2 in _windows(runs, k2, ok):
                    taken = [runs[(s1 + i) % m][0] for i in range(k1)] + \
                        [runs[(s2 + i) % m][0] for i in range(k2)]
                    gap1, gap2 = (s2 - s1 - k1) % m, (s1 - s2 - k2) % m
                    if west in {(s2 + i) % m for i in range(k2)} and gap1 >= 1 and \
                            gap2 >= 1 and gap1 + gap2 + total == m and len(set(taken)) == total:
                        choices.append((s1, k1, s2, k2))
    if not choices:
        return None
    s1, k1, s2, k2 = choices[below(stream, len(choices))]
    return [Stretch("east-frontier", s1, k1, tips[0]),
            Stretch("west-frontier", s2, k2, tips[1])]


def _no_frontier(stream, v: Variant, runs) -> list[Stretch]:
    """Leave the whole coast to the Sea."""
    return []


# How many Frontiers -> where they go; each Frontier -> the Sea that follows it clockwise.
FRONTIER_PLANS = {0: _no_frontier, 1: _one_frontier, 2: _two_frontiers}
SEA_AFTER = {"frontier": "sea", "east-frontier": "south-sea", "west-frontier": "north-sea"}
AREA_KIND = {**{f: "frontier" for f in SEA_AFTER}, **{s: "sea" for s in SEA_AFTER.values()}}
UNNAMED = "?"                # a piece of coast whose Sea is named once the coast is walked


def _cut(stream, line: list[Point], cuts: dict, shortest: float, after: float = 0.0,
         before: float = 1.0) -> tuple[list[Point], list[Point]] | None:
    """Cut a coast run where a Frontier meets a Sea, clear of both ends (and between the
    fractions ``after`` and ``before`` of its length); record the cut."""
    total = length(line)
    low = max(0.3, shortest / total, after)
    high = min(0.7, 1 - shortest / total, before)
    if low >= high:
        return None
    goal, done = total * between(stream, low, high), 0.0
    for i in range(len(line) - 1):
        a, b = line[i], line[i + 1]
        step = math.dist(a, b)
        if done + step >= goal:
            t = (goal - done) / step
            p = (rounded(a[0] + t * (b[0] - a[0])), rounded(a[1] + t * (b[1] - a[1])))
            if p in (a, b):
                return (line[:i + 1], line[i:]) if p == a else (line[:i + 2], line[i + 1:])
            cuts[(a, b)] = p
            return line[:i + 1] + [p], [p] + line[i + 1:]
        done += step
    return None


def _fraction(line: list[Point], point: Point | None) -> float | None:
    """Return how far along a polyline (0 to 1) one of its points lies, or None."""
    if point is None or point not in line:
        return None
    i = line.index(point)
    return length(line[:i + 1]) / length(line)


@dataclass
class Coast:
    """The coast given out: each edge's area, the cut points, and each area's list."""

    edges: dict[tuple[Point, Point], str] = field(default_factory=dict)
    cuts: dict[tuple[Point, Point], Point] = field(default_factory=dict)
    lists: dict[str, list[list[object]]] = field(default_factory=dict)


def _area_list(order: list[str], i: int) -> list[str]:
    """Return the areas one area meets beyond its stretch of coast, going on round.

    Far from the land the Frontiers meet one another, so each Sea is closed off by them."""
    if len(order) == 1:
        return []
    nxt, prev = order[(i + 1) % len(order)], order[i - 1]
    far = [a for a in order if AREA_KIND[a] == "frontier" and a not in (order[i], nxt, prev)] \
        if AREA_KIND[order[i]] == "frontier" else []
    return [nxt] + far + ([prev] if prev != nxt else [])


def give_coast(stream, v: Variant, coasts: list) -> Coast | None:
    """Give every stretch of coast to a Frontier or a Sea."""
    coast = Coast()
    for runs in coasts:
        stretches = FRONTIER_PLANS[v.frontiers](stream, v, runs)
        if stretches is None:
            return None
        m = len(runs)
        role = {}
        for st in stretches:
            for k in range(st.size):
                role[(st.start + k) % m] = (st.area, k == 0, k == st.size - 1, st.hold)
        pieces: list[tuple[str, int, list[Point]]] = []
        for i, (region, line) in enumerate(runs):
            if i not in role:
                pieces.append((UNNAMED, region, line))
                continue
            area, first, last, hold = role[i]
            if first:
                tip = _fraction(line, hold)
                parts = _cut(stream, line, coast.cuts, min_border(v),
                             before=tip - TIP_CLEARANCE if tip is not None else 1.0)
                if parts is None:
                    return None
                pieces.append((UNNAMED, region, parts[0]))
                line = parts[1]
            if last:
                tip = _fraction(line, hold)
                parts = _cut(stream, line, coast.cuts, min_border(v),
                             after=tip + TIP_CLEARANCE if tip is not None else 0.0)
                if parts is None:
                    return None
                pieces.append((area, region, parts[0]))
                pieces.append((UNNAMED, region, parts[1]))
            else:
                pieces.append((area, region, line))
        if stretches:
            k = next(n for n, p in enumerate(pieces)
                     if p[0] != UNNAMED and pieces[n - 1][0] == UNNAMED)
            pieces = pieces[k:] + pieces[:k]
        sea = "sea"
        order: list[str] = []
        for n, (area, region, line) in enumerate(pieces):
            if area != UNNAMED:
                sea = SEA_AFTER[area]
            name = area if area != UNNAMED else sea
            pieces[n] = (name, region, line)
            if not order or order[-1] != name:
                order.append(name)
        if len(order) > 1 and order[0] == order[-1]:
            order.pop()
        for name, region, line in pieces:
            for a, b in zip(line, line[1:]):
                coast.edges[(a, b)] = name
        stretch: dict[str, list[object]] = {}
        for name, region, _ in pieces:
            regions = stretch.setdefault(name, [])
            if not regions or regions[-1] != region:
                regions.append(region)
        for i, name in enumerate(order):
            coast.lists.setdefault(name, []).append(stretch[name] + _area_list(order, i))
    return coast

