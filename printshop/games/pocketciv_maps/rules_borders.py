"""The map rules on the regions and what borders what: their count, numbers and ids, the
borders listed from both sides, the junctions of three, the pieces of land, the Frontiers and
Seas along the coast, and a flat sheet."""

from __future__ import annotations

from collections import Counter
from itertools import chain
from operator import eq
from typing import Iterable

from ...files.errors import format_path
from .junction import Face, closes, euler
from .model import Region
from .survey import MapRule, Survey, flaw, registry

RULES: dict[str, MapRule] = {}
map_rule = registry(RULES)


def _range(low: int, high: int) -> str:
    """Return '4 or 5', '8 to 10' or '1' for a range."""
    return f"{low}" if low == high else f"{low} or {high}" if high == low + 1 else \
        f"{low} to {high}"


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

