"""The map validator: a registry of rules, each with a stable id, run on any map.

Structural rules always apply. Setup rules (``pocketciv.map.setup-*``) apply to a fresh random
world (``setup: random``); a scenario's preset map skips them. A rule that needs another
rule's facts (the junctions need every border to name a real face) is skipped when that
rule failed, so one mistake is reported once, under its own id.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, replace
from functools import cached_property, lru_cache
from itertools import chain, repeat
from operator import eq, itemgetter, le
from typing import Callable, Iterable

import numpy as np
import shapely
from shapely import STRtree

from ...files.errors import format_path
from .junction import Face, closes, euler, faces_of, junctions, pieces
from .model import Region, WorldMap
from .variant import Variant, variant


@dataclass(frozen=True)
class Flaw:
    """A broken map rule: its id, what is wrong, where in the file, which region numbers."""

    rule: str
    message: str
    at: tuple = ()
    regions: tuple[int, ...] = ()


class Survey:
    """What the rules look at: the map, its variant, its faces and (once) its junctions."""

    def __init__(self, world: WorldMap):
        self.world = world
        self.variant: Variant = variant(world.variant)

    @cached_property
    def faces(self) -> dict[str, Face]:
        """Return every face by id."""
        return faces_of(self.world)

    @cached_property
    def junctions(self):
        """Return the junctions of three and the corners that fit none."""
        return junctions(self.faces)

    @cached_property
    def entries(self) -> tuple[list[str], list[str]]:
        """Return every entry of every face's borders as two columns: the face whose list
        holds it, and the neighbour it names."""
        listing: list[str] = []
        named: list[str] = []
        for face in self.faces.values():
            for cycle in face.cycles:
                listing += [face.id] * len(cycle)
                named += cycle
        return listing, named

    @cached_property
    def land(self) -> list[list[str]]:
        """Return the pieces of land: the groups of regions that border one another."""
        return pieces(self.faces, lambda f: f.region)

    @cached_property
    def rings(self) -> dict[int, list]:
        """Return the outline of each region that has one as a closed ring, by position."""
        return {n: r.ring() for n, r in enumerate(self.world.regions) if r.outline is not None}

    @cached_property
    def shapes(self):
        """Return the outlines of the regions that have one, as polygons (built once)."""
        return _shapes(list(self.rings.values()))

    @cached_property
    def _numbers(self) -> dict[str, int]:
        """Return each region id's number."""
        return {r.id: r.number for r in self.world.regions}

    @cached_property
    def _plain(self) -> set[str]:
        """Return the ids of regions a number names without doubt."""
        counts = Counter(r.number for r in self.world.regions)
        return {r.id for r in self.world.regions if r.id == str(r.number) and
                counts[r.number] == 1}

    def name(self, face_id: str) -> str:
        """Return how a player names a face: 'region 3', 'region 3 (3b)', 'the Sea'."""
        face = self.faces.get(face_id)
        if face is None:
            return f"'{face_id}'"
        if face.region and face_id not in self._plain:
            return f"region {self._numbers[face_id]} ({face_id})"
        return face.label

    def numbers(self, face_ids: Iterable[str]) -> tuple[int, ...]:
        """Return the region numbers among these faces, in order, once each."""
        return tuple(dict.fromkeys(self._numbers[f] for f in face_ids if f in self._numbers))

    def names(self, face_ids: Iterable[str]) -> str:
        """Return a readable list of faces."""
        return ", ".join(self.name(f) for f in dict.fromkeys(face_ids))


Check = Callable[[Survey], Iterable[Flaw]]


@dataclass(frozen=True)
class MapRule:
    """One rule: id, what it asks, its check, the rules it builds on, setup-only or not."""

    id: str
    text: str
    check: Check
    needs: tuple[str, ...] = ()
    setup: bool = False


MAP_RULES: dict[str, MapRule] = {}


def map_rule(rule_id: str, text: str, needs: tuple[str, ...] = (), setup: bool = False):
    """Register a map rule under a stable id."""
    def register(fn: Check) -> Check:
        """Add the check to the registry."""
        MAP_RULES[rule_id] = MapRule(rule_id, text, fn, needs, setup)
        return fn
    return register


def flaw(message: str, at: tuple = (), regions: Iterable[int] = ()) -> Flaw:
    """Return a Flaw for the rule being run (the runner fills in the id)."""
    return Flaw("", message, tuple(at), tuple(regions))


def validate_map(world: WorldMap) -> list[Flaw]:
    """Run every rule that applies to the map; return what is broken, rule by rule."""
    survey = Survey(world)
    failed: set[str] = set()
    out: list[Flaw] = []
    for rule in MAP_RULES.values():
        if rule.setup and world.setup != "random":
            continue
        if not failed.isdisjoint(rule.needs):
            failed.add(rule.id)
            continue
        found = [replace(f, rule=rule.id) for f in rule.check(survey)]
        if found:
            failed.add(rule.id)
            out.extend(found)
    return out


def _range(low: int, high: int) -> str:
    """Return '4 or 5', '8 to 10' or '1' for a range."""
    return f"{low}" if low == high else f"{low} or {high}" if high == low + 1 else \
        f"{low} to {high}"


def _icon_name(icon: str, n: int = 1) -> str:
    """Return an icon's name as the rulebook writes it, with a count."""
    name = {"fault-line": "Fault Line"}.get(icon, icon.capitalize())
    return name if n == 1 else f"{n} {name}s"


# Regions and their numbers -------------------------------------------------------------------

@map_rule("pocketciv.map.region-count", "the Empire has 8 regions (16 for two players)")
def _region_count(s: Survey):
    """Check the number of regions."""
    want, have = s.variant.regions, len(s.world.regions)
    if have != want:
        yield flaw(f"a {s.variant.title.lower()} map has {want} regions; this one has {have}",
                   ("regions",))


@map_rule("pocketciv.map.numbers", "the regions are numbered 1 to 8 (twice for two players)",
          needs=("pocketciv.map.region-count",))
def _numbers(s: Survey):
    """Check that numbers 1-8 each appear the variant's number of times."""
    copies = s.variant.copies
    times = "once" if copies == 1 else "twice" if copies == 2 else f"{copies} times"
    seen: dict[int, list[Region]] = {}
    for r in s.world.regions:
        if not 1 <= r.number <= 8:
            yield flaw(f"region number {r.number} is not 1 to 8", r.at + ("number",),
                       (r.number,))
        else:
            seen.setdefault(r.number, []).append(r)
    for number, regions in sorted(seen.items()):
        if len(regions) > copies:
            where = " and ".join(f"regions[{r.at[-1]}]" for r in regions)
            yield flaw(f"number {number} is used by {len(regions)} regions ({where}); each of "
                       f"1-8 is used {times}", regions[copies].at + ("number",), (number,))
    for number in range(1, 9):
        n = len(seen.get(number, []))
        if n < copies:
            yield flaw(f"no region has number {number}" if n == 0 else
                       f"number {number} is used by {n} region; each of 1-8 is used {times}",
                       ("regions",), (number,))


@map_rule("pocketciv.map.ids", "every region, Frontier and Sea has its own id")
def _ids(s: Survey):
    """Check that no two faces share an id."""
    seen: dict[str, tuple] = {}
    for face in list(s.world.regions) + list(s.world.areas):
        if face.id in seen:
            first = seen[face.id]
            hint = " (give each region an 'id' when numbers repeat)" if \
                isinstance(face, Region) else ""
            yield flaw(f"'{face.id}' names both {format_path(first)} and "
                       f"{format_path(face.at)}{hint}",
                       face.at + (("id",) if not isinstance(face, Region) else ()),
                       (face.number,) if isinstance(face, Region) else ())
        else:
            seen[face.id] = face.at


# Borders and junctions -----------------------------------------------------------------------

def _all_named(s: Survey) -> bool:
    """Say whether every border names a face, and none its own: a quick look at all the
    entries at once before the face-by-face search."""
    listing, named = s.entries
    return s.faces.keys() >= set(named) and not any(map(eq, listing, named))


def _same_counts(these: Iterable, those: Iterable) -> bool:
    """Say whether two collections hold the same things as often (the counts compared as
    plain dicts: Counter's own == loops in Python)."""
    return dict.__eq__(Counter(these), Counter(those))


def _entries(face: Face):
    """Yield (cycle, index, neighbour) for every entry of a face's borders."""
    for k, cycle in enumerate(face.cycles):
        for i, other in enumerate(cycle):
            yield k, i, other


@map_rule("pocketciv.map.border-names", "every border names a region, Frontier or Sea",
          needs=("pocketciv.map.ids",))
def _border_names(s: Survey):
    """Check that every border names a real face other than itself."""
    if _all_named(s):
        return
    for face in s.faces.values():
        named = set(chain.from_iterable(face.cycles))
        if face.id not in named and s.faces.keys() >= named:
            continue
        for k, i, other in _entries(face):
            if other == face.id:
                yield flaw(f"{s.name(face.id)} lists itself as a neighbour",
                           face.entry_path(k, i), s.numbers([face.id]))
            elif other not in s.faces:
                known = ", ".join(s.faces)
                yield flaw(f"{s.name(face.id)} borders '{other}', which is no region, Frontier "
                           f"or Sea (known: {known})", face.entry_path(k, i),
                           s.numbers([face.id]))


@map_rule("pocketciv.map.border-mutual", "a border is listed by both faces it separates",
          needs=("pocketciv.map.border-names",))
def _border_mutual(s: Survey):
    """Check that every border is listed from both sides, as often; report each neighbour
    once, at its first entry."""
    listing, named = s.entries
    if _same_counts(zip(listing, named), zip(named, listing)):
        return
    counts = {fid: Counter(chain.from_iterable(f.cycles)) for fid, f in s.faces.items()}
    for fid, face in s.faces.items():
        for other, mine in counts[fid].items():      # in the order of first entries
            theirs = counts[other][fid]
            if mine != theirs:
                k, i = next((k, i) for k, i, o in _entries(face) if o == other)
                what = "does not list it" if theirs == 0 else \
                    f"lists it {theirs} time{'s' if theirs != 1 else ''}"
                yield flaw(f"{s.name(fid)} borders {s.name(other)} {mine} time"
                           f"{'s' if mine != 1 else ''}, but {s.name(other)} {what}",
                           face.entry_path(k, i), s.numbers([fid, other]))


@map_rule("pocketciv.map.enclosed", "no region or area lies inside a single other one",
          needs=("pocketciv.map.border-mutual",))
def _enclosed(s: Survey):
    """Check that no face touches only one other."""
    for fid, face in s.faces.items():
        for k, cycle in enumerate(face.cycles):
            if len(set(cycle)) == 1:
                yield flaw(f"{s.name(fid)} touches nothing but {s.name(cycle[0])}: a region "
                           "must meet at least two others (an island needs two regions)",
                           face.entry_path(k, 0), s.numbers([fid, cycle[0]]))


@map_rule("pocketciv.map.junctions", "every junction joins exactly 3 borders",
          needs=("pocketciv.map.enclosed",))
def _junctions(s: Survey):
    """Report every point where other than three borders meet."""
    for corners in s.junctions.broken:
        first = corners[0]
        face = s.faces[first.face]
        at = face.entry_path(first.cycle, first.index)
        if first.before == first.after:
            yield flaw(f"{s.name(first.face)} lists {s.name(first.before)} twice in a row: "
                       "the two borders meet where only two areas touch", at,
                       s.numbers([first.face, first.before]))
        elif closes(corners):
            around = [c.face for c in corners]
            yield flaw(f"{len(corners)} borders meet at one point, between "
                       f"{s.names(around)}; a junction must join exactly 3 (no 'four "
                       "corners')", at, s.numbers(around))
        else:
            yield flaw(f"{s.name(first.face)} has a corner between {s.name(first.before)} and "
                       f"{s.name(first.after)}, but they do not both list {s.name(first.face)} "
                       f"there; these borders do not meet in a junction of 3", at,
                       s.numbers([first.face, first.before, first.after]))


@map_rule("pocketciv.map.land-pieces", "the Empire is one piece of land (islands: 2 or 3)",
          needs=("pocketciv.map.border-mutual",))
def _land_pieces(s: Survey):
    """Check the number of pieces of land and the size of islands."""
    groups = s.land
    low, high = s.variant.land
    if not low <= len(groups) <= high:
        parts = "; ".join(f"regions {', '.join(map(str, s.numbers(g)))}" for g in groups)
        yield flaw(f"the regions form {len(groups)} piece{'s' if len(groups) != 1 else ''} of "
                   f"land ({parts}); a {s.variant.title.lower()} map has {_range(low, high)}",
                   ("regions",), s.numbers(f for g in groups for f in g))
    if s.variant.land[1] > 1:
        for g in groups:
            if len(g) < 2:
                yield flaw(f"{s.name(g[0])} is an island on its own; an island needs at least "
                           "two regions", s.faces[g[0]].at, s.numbers(g))


# Frontier and Sea ----------------------------------------------------------------------------

@map_rule("pocketciv.map.areas", "the variant's number of Frontiers and Seas")
def _areas(s: Survey):
    """Check the number of Frontiers and Seas."""
    v = s.variant
    for kind, want, have in (("Frontier", v.frontiers, len(s.world.frontiers)),
                             ("Sea", v.seas, len(s.world.seas))):
        if want != have:
            key = "frontiers" if kind == "Frontier" else "seas"
            yield flaw(f"a {v.title.lower()} map has {want} {kind}{'s' if want != 1 else ''}; "
                       f"this one has {have}", (key,))


def _stretches(s: Survey, cycle: tuple[str, ...]) -> list[list[str]]:
    """Split a cyclic list into its unbroken runs of regions."""
    flags = [s.faces[x].region for x in cycle]
    if all(flags):
        return [list(cycle)]
    start = flags.index(False)
    runs, cur = [], []
    for i in range(len(cycle)):
        x = cycle[(start + i) % len(cycle)]
        if flags[(start + i) % len(cycle)]:
            cur.append(x)
        elif cur:
            runs.append(cur)
            cur = []
    if cur:
        runs.append(cur)
    return runs


@map_rule("pocketciv.map.frontier-stretch", "each Frontier meets the Empire in one stretch",
          needs=("pocketciv.map.border-mutual",))
def _frontier_stretch(s: Survey):
    """Check that each Frontier touches the Empire in one stretch."""
    for area in s.world.frontiers:
        face = s.faces[area.id]
        runs = [run for c in face.cycles for run in _stretches(s, c)]
        ends = sum(1 for c in face.cycles for x in c if not s.faces[x].region)
        if len(runs) > 1:
            parts = " and ".join(f"regions {', '.join(map(str, s.numbers(r)))}" for r in runs)
            yield flaw(f"{s.name(area.id)} touches the Empire in {len(runs)} separate stretches "
                       f"({parts}); it must be one unbroken stretch", area.at + ("borders",),
                       s.numbers(x for r in runs for x in r))
        elif ends == 0:
            yield flaw(f"{s.name(area.id)} runs all round the Empire; it must end where the "
                       "Sea begins", area.at + ("borders",), s.numbers(runs[0] if runs else ()))


@map_rule("pocketciv.map.sea-stretch", "each Sea meets the land in one stretch, or all round "
          "an island", needs=("pocketciv.map.border-mutual", "pocketciv.map.frontier-stretch"))
def _sea_stretch(s: Survey):
    """Check that each Sea meets the land in one stretch (islands: all round)."""
    islands = s.variant.frontiers == 0
    piece_of = {f: n for n, g in enumerate(s.land) for f in g}
    for area in s.world.seas:
        face = s.faces[area.id]
        runs = [run for c in face.cycles for run in _stretches(s, c)]
        ends = sum(1 for c in face.cycles for x in c if not s.faces[x].region)
        if islands:
            shores = Counter(piece_of[r[0]] for r in runs)
            for n in (n for n, k in shores.items() if k > 1):
                group = [x for r in runs if piece_of[r[0]] == n for x in r]
                yield flaw(f"{s.name(area.id)} meets one island in {shores[n]} separate "
                           "stretches (a lake, or an island drawn twice); it must run once all "
                           "round each island", area.at + ("borders",), s.numbers(group))
            if ends:
                yield flaw(f"{s.name(area.id)} meets another Sea or a Frontier, but an islands "
                           "map has one Sea all round every island", area.at + ("borders",))
        elif len(runs) > 1:
            parts = " and ".join(f"regions {', '.join(map(str, s.numbers(r)))}" for r in runs)
            yield flaw(f"{s.name(area.id)} touches the land in {len(runs)} separate stretches "
                       f"({parts}); it must be one stretch, from Frontier to Frontier",
                       area.at + ("borders",), s.numbers(x for r in runs for x in r))
        elif ends == 0:
            yield flaw(f"{s.name(area.id)} never meets a Frontier: a Sea closed in by land is a "
                       "lake, and the coast must change from Frontier to Sea",
                       area.at + ("borders",), s.numbers(runs[0] if runs else ()))


@map_rule("pocketciv.map.frontier-regions", "the Frontier touches 4 or 5 regions",
          needs=("pocketciv.map.region-count", "pocketciv.map.border-mutual",
                 "pocketciv.map.areas"))
def _frontier_regions(s: Survey):
    """Check how many regions the Frontier touches."""
    low, high = s.variant.frontier_regions
    touched = [x for a in s.world.frontiers for c in a.coasts for x in c if s.faces[x].region]
    numbers = s.numbers(touched)
    n = len(set(touched))
    if s.world.frontiers and not low <= n <= high:
        which = "the Frontier" if len(s.world.frontiers) == 1 else "the Frontiers"
        yield flaw(f"{which} touch{'es' if len(s.world.frontiers) == 1 else ''} {n} region"
                   f"{'s' if n != 1 else ''} ({', '.join(map(str, numbers))}); "
                   f"{'it' if len(s.world.frontiers) == 1 else 'they'} must touch "
                   f"{_range(low, high)}", s.world.frontiers[0].at + ("borders",), numbers)


@map_rule("pocketciv.map.flat", "the borders can be drawn on a flat sheet",
          needs=("pocketciv.map.junctions", "pocketciv.map.sea-stretch"))
def _flat(s: Survey):
    """Check Euler's formula: the lists describe a map on a flat sheet."""
    have, want = euler(s.faces, s.junctions.met)
    if have != want:
        handles = (want - have) // 2
        yield flaw(f"the borders as listed cannot be drawn on a flat sheet: every junction "
                   f"joins 3 borders, but together they wrap round a surface with {handles} "
                   f"handle{'s' if handles != 1 else ''}; check the order of each region's "
                   "borders", ("regions",))


# Icons ---------------------------------------------------------------------------------------

@map_rule("pocketciv.map.icons-once", "a region holds at most one of each icon")
def _icons_once(s: Survey):
    """Check that no region holds two of one icon."""
    for r in s.world.regions:
        if len(set(r.icons)) == len(r.icons):
            continue
        for icon, n in Counter(r.icons).items():
            if n > 1:
                yield flaw(f"{s.name(r.id)} has {_icon_name(icon, n)}; a region holds at most "
                           f"one {_icon_name(icon)}", r.at + ("icons",), (r.number,))


@map_rule("pocketciv.map.volcano-mountain", "never a Volcano and a Mountain in one region")
def _volcano_mountain(s: Survey):
    """Check that no region holds both a Volcano and a Mountain."""
    for r in s.world.regions:
        if "volcano" in r.icons and "mountain" in r.icons:
            yield flaw(f"{s.name(r.id)} has both a Volcano and a Mountain; a Volcano is a "
                       "Mountain that has woken, so a region holds one or the other",
                       r.at + ("icons",), (r.number,))


# Outlines (when the map gives them) -----------------------------------------------------------

def _shapes(rings: list[list]):
    """Return closed rings of points as polygons, built in one call."""
    if not rings:
        return []
    sizes = [len(ring) + 1 for ring in rings]
    values = chain.from_iterable(chain.from_iterable(ring + ring[:1] for ring in rings))
    coords = np.fromiter(values, dtype=float, count=2 * sum(sizes)).reshape(-1, 2)
    ring_ends = np.cumsum([0] + sizes)
    return shapely.from_ragged_array(shapely.GeometryType.POLYGON, coords,
                                     (ring_ends, np.arange(len(rings) + 1)))


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


# Setup: a fresh random world -----------------------------------------------------------------

def _holding(s: Survey, icon: str) -> list[Region]:
    """Return the regions holding an icon."""
    return [r for r in s.world.regions if icon in r.icons]


def _count_rule(icon: str, want: Callable[[Variant], int]):
    """Return a check that a fresh world has the variant's count of an icon."""
    def check(s: Survey):
        """Check the count of one icon."""
        have, need = _holding(s, icon), want(s.variant)
        if len(have) != need:
            yield flaw(f"a fresh world has {_icon_name(icon, need)} (one each in {need} "
                       f"regions); this map has {len(have)} ("
                       f"{', '.join(str(r.number) for r in have) or 'none'})", ("regions",),
                       [r.number for r in have])
    return check


map_rule("pocketciv.map.setup-mountains", "a fresh world has 5 Mountains",
         setup=True)(_count_rule("mountain", lambda v: v.setup.mountains))
map_rule("pocketciv.map.setup-forests", "a fresh world has 5 Forests",
         setup=True)(_count_rule("forest", lambda v: v.setup.forests))


@map_rule("pocketciv.map.setup-deserts", "a Desert in every region with neither Mountain nor "
          "Forest; if there is none, one Desert in a region without a Forest", setup=True)
def _setup_deserts(s: Survey):
    """Check the Deserts against the rule for a fresh world."""
    least = s.variant.setup.deserts_at_least
    bare = [r for r in s.world.regions if "mountain" not in r.icons and "forest" not in r.icons]
    deserts = _holding(s, "desert")
    for r in bare:
        if "desert" not in r.icons:
            yield flaw(f"{s.name(r.id)} has neither Mountain nor Forest, so it needs a Desert",
                       r.at + ("icons",), (r.number,))
    extra = [r for r in deserts if r not in bare]
    allowed = max(0, least - len(bare))
    fits = [r for r in extra if "forest" not in r.icons]
    for r in extra:
        if "forest" in r.icons:
            why = "it has a Forest" if allowed else \
                "only regions with neither Mountain nor Forest get one"
            yield flaw(f"{s.name(r.id)} has a Desert, but {why}", r.at + ("icons",),
                       (r.number,))
    for r in fits[allowed:]:
        yield flaw(f"{s.name(r.id)} has a Desert, but it has a Mountain and the Deserts the "
                   "rule asks for are already there", r.at + ("icons",), (r.number,))
    short = allowed - len(fits)
    if short > 0:
        yield flaw(f"a world has at least {least} Desert{'s' if least != 1 else ''}: "
                   f"{len(bare)} region{'s' if len(bare) != 1 else ''} "
                   f"{'have' if len(bare) != 1 else 'has'} neither Mountain nor Forest, so "
                   f"{short} more must go where there is no Forest", ("regions",))


@map_rule("pocketciv.map.setup-tribes", "a fresh world starts with 3 Tribes", setup=True)
def _setup_tribes(s: Survey):
    """Check the Tribes of a fresh world."""
    have = sum(r.tribes for r in s.world.regions)
    want = s.variant.setup.tribes
    if have != want:
        yield flaw(f"a fresh world starts with {want} Tribes; this map has {have}",
                   ("regions",), [r.number for r in s.world.regions if r.tribes])


@map_rule("pocketciv.map.setup-bare", "a fresh world has no Volcano, Farm, Fault Line or City",
          setup=True)
def _setup_bare(s: Survey):
    """Check that a fresh world has nothing that only play brings."""
    for r in s.world.regions:
        late = [i for i in ("volcano", "farm", "fault-line") if i in r.icons]
        if late:
            yield flaw(f"{s.name(r.id)} has {' and '.join('a ' + _icon_name(i) for i in late)};"
                       " a fresh world has none (they come from play or a scenario)",
                       r.at + ("icons",), (r.number,))
        if r.city is not None:
            yield flaw(f"{s.name(r.id)} has a City; a fresh world has none (use "
                       "'setup: preset' for a scenario's map)", r.at + ("city",), (r.number,))
