"""The map validator's findings on broken maps, kept: a quicker validator must say the same.

Legal maps (the examples and recorded generated maps) are broken at random but reproducibly:
points moved (alone or with every region that shares them), borders swapped, renamed or
dropped, regions removed or doubled, icons and numbers changed, outlines cut, reversed,
copied, scaled or collapsed, coordinates made NaN or huge. validate_map's findings for each
(rule, message, key path, region numbers, in order) are compared with a golden file recorded
by the validator before it was made quicker; set PRINTSHOP_UPDATE_GOLDEN=1 to record it
again when a rule's findings are meant to change. The quick whole-map looks that let the
rules skip their searches are also switched off, one at a time and all together, and the
findings must stay the same.
"""

from __future__ import annotations

import hashlib
import math
import os
import random
from dataclasses import replace
from pathlib import Path

import pytest

from printshop.games.pocketciv_maps import junction, rules_borders, rules_outlines, validate
from printshop.games.pocketciv_maps.model import load_map
from printshop.games.pocketciv_maps.validate import validate_map

REPO = Path(__file__).resolve().parent.parent
GOLDEN = REPO / "tests" / "maps" / "golden" / "findings.txt"
UPDATE = os.environ.get("PRINTSHOP_UPDATE_GOLDEN") == "1"
COUNT = 600
VARIANTS = ("standard", "two-player", "islands", "peninsula")


BASES = ["examples/maps/brickfields-drawn.yaml", "examples/maps/brickfields.yaml",
         "tests/maps/golden/m1-islands-5.yaml", "tests/maps/golden/m1-peninsula-7.yaml",
         "tests/maps/golden/m1-standard-42.yaml", "tests/maps/golden/m1-two-player-3.yaml",
         "tests/maps/desert-forbidden.yaml", "tests/maps/four-corners.yaml",
         "tests/maps/frontier-six.yaml", "tests/maps/frontier-three.yaml",
         "tests/maps/frontier-two-pieces.yaml", "tests/maps/number-duplicated.yaml",
         "tests/maps/number-missing.yaml", "tests/maps/torus.yaml",
         "tests/maps/two-forests.yaml", "tests/maps/volcano-and-mountain.yaml"]


def _legal_maps() -> list:
    """Return the maps the broken ones start from: hand-written and recorded generated maps
    (and the hand-written illegal ones)."""
    return [load_map((REPO / name).read_text(encoding="utf-8"), name)[0] for name in BASES]


def _region(world, rng, drawn=False):
    """Return the position of a random region (one with an outline when drawn is set)."""
    ns = [n for n, r in enumerate(world.regions) if not drawn or r.outline]
    return rng.choice(ns) if ns else None


def _with(world, n, **changes):
    """Return the map with region n changed."""
    regions = list(world.regions)
    regions[n] = replace(regions[n], **changes)
    return replace(world, regions=tuple(regions))


def _every_point(world, move):
    """Return the map with move(point) for every outline point (shared points move as one)."""
    return replace(world, regions=tuple(
        replace(r, outline=tuple(tuple(map(move, line)) for line in r.outline))
        if r.outline else r for r in world.regions))


def _one_outline(world, rng, change):
    """Return the map with one region's outline changed (or the map, if none is drawn)."""
    n = _region(world, rng, drawn=True)
    return world if n is None else _with(world, n, outline=change(world.regions[n].outline))


def move_point(world, rng):
    n = _region(world, rng, drawn=True)
    if n is None:
        return world
    line = rng.choice(world.regions[n].outline)
    p = rng.choice(line)
    d = rng.choice([0.01, 1, 10, 60, 300])
    q = (p[0] + rng.uniform(-d, d), p[1] + rng.uniform(-d, d))
    if rng.random() < 0.5:                                       # in every region that has it
        return _every_point(world, lambda t: q if t == p else t)
    return _with(world, n, outline=tuple(tuple(q if t == p else t for t in line)
                                         for line in world.regions[n].outline))


def odd_number(world, rng):
    n = _region(world, rng, drawn=True)
    if n is None:
        return world
    p = rng.choice(rng.choice(world.regions[n].outline))
    v = rng.choice([math.nan, math.inf, -math.inf, 1e7, -2e6, 1e6, 1e300])
    q = (v, p[1]) if rng.random() < 0.5 else (p[0], v)
    return _every_point(world, lambda t: q if t == p else t)


def swap_borders(world, rng):
    n = _region(world, rng)
    r = world.regions[n]
    if len(r.borders) < 2:
        return world
    a, b = rng.sample(range(len(r.borders)), 2)
    borders = list(r.borders)
    borders[a], borders[b] = borders[b], borders[a]
    outline = r.outline
    if outline and len(outline) == len(borders) and rng.random() < 0.5:
        outline = list(outline)
        outline[a], outline[b] = outline[b], outline[a]
        outline = tuple(outline)
    return _with(world, n, borders=tuple(borders), outline=outline)


def rename_border(world, rng):
    n = _region(world, rng)
    r = world.regions[n]
    borders = list(r.borders)
    ids = [x.id for x in world.regions] + [a.id for a in world.areas]
    borders[rng.randrange(len(borders))] = rng.choice(["nowhere", r.id, rng.choice(ids), "9"])
    return _with(world, n, borders=tuple(borders))


def drop_border(world, rng):
    """Take a border between two regions out of both their lists (and often their outlines)."""
    n = _region(world, rng)
    a = world.regions[n]
    inner = [b for b in a.borders if b in {r.id for r in world.regions} and b != a.id]
    if not inner:
        return world
    b = rng.choice(inner)
    keep_outline = rng.random() < 0.3
    return replace(world, regions=tuple(
        replace(r, borders=tuple(x for x in r.borders if x != (b if r.id == a.id else a.id)),
                outline=r.outline if keep_outline else None)
        if r.id in (a.id, b) else r for r in world.regions))


def remove_region(world, rng):
    if len(world.regions) < 2:
        return world
    regions = list(world.regions)
    del regions[_region(world, rng)]
    return replace(world, regions=tuple(regions))


def double_region(world, rng):
    r = world.regions[_region(world, rng)]
    regions = list(world.regions)
    regions.insert(rng.randrange(len(regions) + 1),
                   r if rng.random() < 0.5 else replace(r, id=r.id + "x"))
    return replace(world, regions=tuple(regions))


def change_icons(world, rng):
    n = _region(world, rng)
    icons = list(world.regions[n].icons)
    kind = rng.randrange(4)
    if kind == 0 and icons:
        icons.append(rng.choice(icons))
    elif kind == 1:
        icons.append(rng.choice(["volcano", "farm", "fault-line", "desert", "mountain"]))
    elif kind == 2 and icons:
        icons.remove(rng.choice(icons))
    else:
        icons = []
    return _with(world, n, icons=tuple(icons))


def change_pieces(world, rng):
    n = _region(world, rng)
    if rng.random() < 0.5:
        return _with(world, n, tribes=rng.randrange(0, 5))
    return _with(world, n, city=rng.choice([None, 1, 3]))


def change_number(world, rng):
    n = _region(world, rng)
    kind = rng.randrange(3)
    if kind == 0:
        return _with(world, n, number=rng.choice([0, 1, 5, 8, 9]))
    if kind == 1:
        return _with(world, n, id=rng.choice([r.id for r in world.regions] + ["sea"]))
    return _with(world, n, number=world.regions[_region(world, rng)].number)


def turn_region(world, rng):
    """List a region's borders the other way round, or from another start (outline along)."""
    n = _region(world, rng)
    r = world.regions[n]
    k = rng.randrange(len(r.borders))
    fits = r.outline is not None and len(r.outline) == len(r.borders) and rng.random() < 0.7
    if rng.random() < 0.5:
        outline = tuple(tuple(reversed(ln)) for ln in reversed(r.outline)) if fits else r.outline
        return _with(world, n, borders=tuple(reversed(r.borders)), outline=outline)
    outline = r.outline[k:] + r.outline[:k] if fits else r.outline
    return _with(world, n, borders=r.borders[k:] + r.borders[:k], outline=outline)


def cut_outline(world, rng):
    def cut(outline):
        lines = list(outline)
        k = rng.randrange(len(lines))
        kind = rng.randrange(4)
        if kind == 0:
            del lines[k]
        elif kind == 1:
            lines[k] = lines[k][:1]
        elif kind == 2:
            lines[k] = tuple(reversed(lines[k]))
        else:
            lines.insert(k, lines[k])
        return tuple(lines)
    return _one_outline(world, rng, cut)


def no_outline(world, rng):
    if rng.random() < 0.5:
        return replace(world, regions=tuple(replace(r, outline=None) for r in world.regions))
    return _with(world, _region(world, rng), outline=None)


def change_areas(world, rng):
    frontiers, seas = list(world.frontiers), list(world.seas)
    pool = frontiers + seas
    if not pool:
        return world
    area = rng.choice(pool)
    coast = list(area.coasts[0])
    kind = rng.randrange(4)
    if kind == 0:
        new = None
    elif kind == 1 and len(coast) > 1:
        a, b = rng.sample(range(len(coast)), 2)
        coast[a], coast[b] = coast[b], coast[a]
        new = replace(area, coasts=(tuple(coast),) + area.coasts[1:])
    elif kind == 2:
        half = max(1, len(coast) // 2)
        new = replace(area, coasts=(tuple(coast[:half]), tuple(coast[half:]))
                      if coast[half:] else area.coasts)
    else:
        new = replace(area, kind="sea" if area.kind == "frontier" else "frontier")
    group = frontiers if area in frontiers else seas
    if new is None:
        group.remove(area)
    else:
        group[group.index(area)] = new
    return replace(world, frontiers=tuple(frontiers), seas=tuple(seas))


def change_variant(world, rng):
    if rng.random() < 0.5:
        return replace(world, variant=rng.choice(VARIANTS))
    return replace(world, setup="preset" if world.setup == "random" else "random")


def reshape_outline(world, rng):
    """Scale, shift, collapse or flatten one outline, or give it another region's."""
    n = _region(world, rng, drawn=True)
    if n is None:
        return world
    outline = world.regions[n].outline
    points = [p for line in outline for p in line]
    cx = sum(p[0] for p in points) / len(points)
    cy = sum(p[1] for p in points) / len(points)
    f, dx = rng.choice([0.5, 1.1, 1.5, 3.0]), rng.uniform(-50, 50)
    kind = rng.randrange(5)
    moves = [lambda x, y: (cx + (x - cx) * f, cy + (y - cy) * f),
             lambda x, y: (x + dx, y - dx),
             lambda x, y: points[0],
             lambda x, y: (x, points[0][1]),
             None]
    if moves[kind] is None:
        return _with(world, n, outline=world.regions[_region(world, rng, drawn=True)].outline)
    return _with(world, n, outline=tuple(tuple(moves[kind](x, y) for x, y in line)
                                         for line in outline))


def touch_itself(world, rng):
    """Make an outline pass through one of its points twice, cross itself, or touch a side."""
    n = _region(world, rng, drawn=True)
    if n is None:
        return world
    ring = world.regions[n].ring()
    if len(ring) < 5:
        return world
    a = rng.randrange(len(ring))
    b = (a + rng.randrange(2, len(ring) - 1)) % len(ring)
    p, q, after = ring[a], ring[b], ring[(b + 1) % len(ring)]
    middle = ((q[0] + after[0]) / 2, (q[1] + after[1]) / 2)
    move = rng.choice([lambda t: q if t == p else t,
                       lambda t: q if t == p else p if t == q else t,
                       lambda t: middle if t == p else t])
    if rng.random() < 0.5:
        return _every_point(world, move)
    return _with(world, n, outline=tuple(tuple(map(move, line))
                                         for line in world.regions[n].outline))


def round_points(world, rng):
    places = rng.choice([-2, -1, 0])
    return _every_point(world, lambda t: (round(t[0], places), round(t[1], places)))


MUTATIONS = [move_point, odd_number, swap_borders, rename_border, drop_border, remove_region,
             double_region, change_icons, change_pieces, change_number, turn_region,
             cut_outline, no_outline, change_areas, change_variant, reshape_outline,
             touch_itself, round_points]


def broken_maps() -> list:
    """Return the legal maps and COUNT maps, each one of them (most often one with outlines)
    broken 1 to 3 times."""
    legal = _legal_maps()
    drawn = [w for w in legal if w.regions[0].outline]
    worlds = []
    for n in range(COUNT):
        rng = random.Random(n)
        world = rng.choice(drawn if rng.random() < 0.75 else legal)
        for _ in range(rng.choice([1, 1, 1, 2, 3])):
            world = rng.choice(MUTATIONS)(world, rng)
        worlds.append(world)
    return legal + worlds


def _line(n: int, world) -> str:
    """Return one golden line: the map's number, the rules it breaks and a digest of the
    findings in full."""
    found = validate_map(world)
    digest = hashlib.sha256(repr(found).encode()).hexdigest()[:16]
    rules = ",".join(dict.fromkeys(f.rule.removeprefix("pocketciv.map.") for f in found))
    return f"{n} {digest} {rules or '-'}"


@pytest.fixture(scope="module")
def worlds() -> list:
    return broken_maps()


def test_the_findings_on_broken_maps_are_the_recorded_ones(worlds):
    lines = [_line(n, w) for n, w in enumerate(worlds)]
    if UPDATE:
        GOLDEN.write_text("\n".join(lines) + "\n", encoding="utf-8")
    recorded = GOLDEN.read_text(encoding="utf-8").splitlines()
    assert len(recorded) == len(lines)
    changed = [(old, new) for old, new in zip(recorded, lines) if old != new]
    assert not changed, changed[:5]


def test_the_broken_maps_break_every_rule(worlds):
    broken = {f.rule for w in worlds for f in validate_map(w)}
    assert broken == set(validate.MAP_RULES)


QUICK_LOOKS = {                     # each quick look, and its answer that sends to the search
    (rules_borders, "_all_named"): False,
    (rules_borders, "_same_counts"): False,
    (rules_outlines, "_within"): False,
    (rules_outlines, "_simple"): False,
    (rules_outlines, "_apart"): False,
    (junction, "_all_meet"): None,
}


@pytest.mark.parametrize("looks", [[k] for k in QUICK_LOOKS] + [list(QUICK_LOOKS)],
                         ids=[name for _, name in QUICK_LOOKS] + ["all"])
def test_the_quick_looks_only_skip_searches_that_find_nothing(worlds, monkeypatch, looks):
    sample = worlds[::3]
    quick = [validate_map(w) for w in sample]
    for module, name in looks:
        monkeypatch.setattr(module, name, lambda *args, answer=QUICK_LOOKS[(module, name)]:
                            answer)
    assert [validate_map(w) for w in sample] == quick
