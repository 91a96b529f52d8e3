"""Playing Gods: the rulebook's elements, reading the board and aid data, and the rules on the
board (the world file, its continents, regions and Holy Cities, the track's ring of spaces).

The numbers here and in the other playing_gods_ modules are the rulebook's; data/playing-gods/
must agree with them. The decks' rules are in playing_gods_cards.py, the aid's in
playing_gods_aid.py, the board's drawn geometry in playing_gods_world.py.
"""

from __future__ import annotations

from collections import Counter

from ..check.rules import Finding, rule, sheet_text_rule

ELEMENTS = ("earth", "water", "fire", "air")
OPPOSITE = {"fire": "water", "water": "fire", "air": "earth", "earth": "air"}
CONTINENTS = 5
REGIONS_PER_CONTINENT = 4
PORTALS_PER_CONTINENT = 2

SPACE_KINDS = ("wrath", "conversion", "portal", "warp", "godkiller", "gain-sect")
WORLD_KEYS = {"continents", "track"}
CONTINENT_KEYS = {"id", "name", "colour", "bearing", "distance", "radius", "turn", "outline",
                  "regions"}
REGION_KEYS = {"id", "name", "holy_city"}
TRACK_KEYS = {"start_angle", "spaces"}
SPACE_KEYS = {"id", "kind", "continent", "next"}


def mappings(value) -> list[dict]:
    """Return the mappings of a list, ignoring anything else (reported by world-file)."""
    return [v for v in value if isinstance(v, dict)] if isinstance(value, list) else []


def _world(game) -> dict:
    data = game.part("board").data
    return data if isinstance(data, dict) else {}


def continents(game) -> list[dict]:
    """Return the world's continents."""
    return mappings(_world(game).get("continents"))


def track_spaces(game) -> list[dict]:
    """Return the track's spaces as listed."""
    track = _world(game).get("track")
    return mappings(track.get("spaces")) if isinstance(track, dict) else []


def ring_order(spaces: list[dict]) -> tuple[list[dict], list[tuple[int | None, str]]]:
    """Follow each space's ``next`` from the first; return the ring and what breaks it.

    Each break is (index of the space at fault or None, message).
    """
    if not spaces:
        return [], [(None, "the track has no spaces")]
    by_id = {s.get("id"): s for s in spaces}
    broken: list[tuple[int | None, str]] = []
    seen: set = set()
    for i, s in enumerate(spaces):
        if s.get("id") in seen:
            broken.append((i, f"space id {s.get('id')!r} is used twice"))
        seen.add(s.get("id"))
    for i, s in enumerate(spaces):
        if s.get("next") not in by_id:
            broken.append((i, f"space {s.get('id')} leads to {s.get('next')!r}, which is no "
                              "space"))
    entered = Counter(s.get("next") for s in spaces)
    for i, s in enumerate(spaces):
        if entered[s.get("id")] != 1:
            broken.append((i, f"space {s.get('id')} is entered from {entered[s.get('id')]} "
                              "spaces, not exactly one"))
    ring, current = [], spaces[0]
    for _ in range(len(spaces)):
        ring.append(current)
        current = by_id.get(current.get("next"))
        if current is None or current is spaces[0]:
            break
    if current is not spaces[0] or len(ring) != len(spaces):
        broken.append((None, f"following the track from {spaces[0].get('id')} visits "
                             f"{len(ring)} of {len(spaces)} spaces before it "
                             + ("closes" if current is spaces[0] else "stops")))
    return ring, broken


def aid_data(game) -> dict:
    """Return the player aid's data (empty when it is not a mapping)."""
    data = game.part("aid").data
    return data if isinstance(data, dict) else {}


def _unknown(mapping: dict, allowed: set, path: tuple):
    for key in mapping:
        if key not in allowed:
            yield Finding(f"unknown key '{key}'; accepted keys: {', '.join(sorted(allowed))}",
                          "board", path=path + (key,))


def _number(mapping: dict, key: str, path: tuple):
    value = mapping.get(key)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        yield Finding(f"'{key}' must be a number, got {value!r}", "board", path=path + (key,))


@rule("playing-gods.world-file", "the world file has the keys and value types the board needs")
def world_file(game):
    world = game.part("board").data
    if not isinstance(world, dict):
        yield Finding("expected a mapping with continents and track", "board")
        return
    yield from _unknown(world, WORLD_KEYS, ())
    if not isinstance(world.get("continents"), list):
        yield Finding("'continents' must be a list", "board", path=("continents",))
    for i, c in enumerate(world.get("continents") or []):
        path = ("continents", i)
        if not isinstance(c, dict):
            yield Finding("a continent is a mapping", "board", path=path)
            continue
        yield from _unknown(c, CONTINENT_KEYS, path)
        for key in ("id", "name", "colour"):
            if not isinstance(c.get(key), str):
                yield Finding(f"'{key}' must be text", "board", path=path + (key,))
        for key in ("bearing", "distance", "radius", "turn"):
            yield from _number(c, key, path)
        waves = c.get("outline")
        if not isinstance(waves, list) or not all(
                isinstance(w, list) and len(w) == 3 and all(isinstance(v, (int, float)) and
                                                            not isinstance(v, bool) for v in w)
                for w in waves):
            yield Finding("'outline' must be a list of [bumps, depth, turn] numbers", "board",
                          path=path + ("outline",))
        if not isinstance(c.get("regions"), list):
            yield Finding("'regions' must be a list", "board", path=path + ("regions",))
        for j, r in enumerate(c.get("regions") or []):
            rpath = path + ("regions", j)
            if not isinstance(r, dict):
                yield Finding("a region is a mapping", "board", path=rpath)
                continue
            yield from _unknown(r, REGION_KEYS, rpath)
            for key in ("id", "name"):
                if not isinstance(r.get(key), str):
                    yield Finding(f"'{key}' must be text", "board", path=rpath + (key,))
            if not isinstance(r.get("holy_city", False), bool):
                yield Finding("'holy_city' must be true or false", "board",
                              path=rpath + ("holy_city",))
    track = world.get("track")
    if not isinstance(track, dict):
        yield Finding("'track' must be a mapping with start_angle and spaces", "board",
                      path=("track",))
        return
    yield from _unknown(track, TRACK_KEYS, ("track",))
    yield from _number(track, "start_angle", ("track",))
    if not isinstance(track.get("spaces"), list):
        yield Finding("'spaces' must be a list", "board", path=("track", "spaces"))
    for i, s in enumerate(track.get("spaces") or []):
        path = ("track", "spaces", i)
        if not isinstance(s, dict):
            yield Finding("a space is a mapping", "board", path=path)
            continue
        yield from _unknown(s, SPACE_KEYS, path)
        if s.get("kind") not in SPACE_KINDS:
            yield Finding(f"kind must be one of {', '.join(SPACE_KINDS)}, got "
                          f"{s.get('kind')!r}", "board", path=path + ("kind",))
        if (s.get("kind") == "portal") != ("continent" in s):
            yield Finding("a Portal names its continent; no other space does", "board",
                          path=path + ("continent",))


@rule("playing-gods.five-continents", "the world has five continents with distinct ids")
def five_continents(game):
    found = continents(game)
    if len(found) != CONTINENTS:
        yield Finding(f"expected {CONTINENTS} continents, found {len(found)}", "board",
                      path=("continents",))
    for cid, n in Counter(c.get("id") for c in found).items():
        if n > 1:
            yield Finding(f"continent id {cid!r} is used {n} times", "board",
                          path=("continents",))


@rule("playing-gods.four-regions-per-continent",
      "every continent has four regions, and no region id is used twice")
def four_regions_per_continent(game):
    seen = Counter()
    for i, c in enumerate(continents(game)):
        regions = mappings(c.get("regions"))
        if len(regions) != REGIONS_PER_CONTINENT:
            yield Finding(f"{c.get('name')} has {len(regions)} regions, expected "
                          f"{REGIONS_PER_CONTINENT}", "board", path=("continents", i, "regions"))
        seen.update(r.get("id") for r in regions)
    for rid, n in seen.items():
        if n > 1:
            yield Finding(f"region id {rid!r} is used {n} times", "board", path=("continents",))


@rule("playing-gods.one-holy-city-per-continent", "each continent holds exactly one Holy City")
def one_holy_city_per_continent(game):
    for i, c in enumerate(continents(game)):
        holy = [r.get("name") for r in mappings(c.get("regions")) if r.get("holy_city") is True]
        if len(holy) != 1:
            yield Finding(f"{c.get('name')} has {len(holy)} Holy Cities"
                          + (f" ({', '.join(map(str, holy))})" if holy else "")
                          + ", expected exactly one", "board", path=("continents", i, "regions"))


@rule("playing-gods.two-portals-per-continent",
      "the ring holds ten Portals, two for each continent")
def two_portals_per_continent(game):
    ids = [c.get("id") for c in continents(game)]
    portals = Counter(s.get("continent") for s in track_spaces(game) if s.get("kind") == "portal")
    total = sum(portals.values())
    want = PORTALS_PER_CONTINENT * CONTINENTS
    if total != want:
        yield Finding(f"expected {want} Portals, found {total}", "board",
                      path=("track", "spaces"))
    for cid in ids:
        if portals[cid] != PORTALS_PER_CONTINENT:
            yield Finding(f"{cid} has {portals[cid]} Portals, expected {PORTALS_PER_CONTINENT}",
                          "board", path=("track", "spaces"))
    for cid in portals:
        if cid not in ids:
            yield Finding(f"a Portal leads to {cid!r}, which is no continent", "board",
                          path=("track", "spaces"))


@rule("playing-gods.track-closed-ring",
      "the track is one closed ring: every space leads to the next and the last to the first")
def track_closed_ring(game):
    _, broken = ring_order(track_spaces(game))
    for index, message in broken:
        yield Finding(message, "board",
                      path=("track", "spaces") + ((index,) if index is not None else ()))


def _spaces_of(game, kind: str) -> list[str]:
    return [str(s.get("id")) for s in track_spaces(game) if s.get("kind") == kind]


def _exactly_one(game, kind: str, label: str):
    found = _spaces_of(game, kind)
    if len(found) != 1:
        yield Finding(f"expected one {label} space, found {len(found)}"
                      + (f" ({', '.join(found)})" if found else ""), "board",
                      path=("track", "spaces"))


@rule("playing-gods.warp-portal-present", "the ring has at least one Warp Portal")
def warp_portal_present(game):
    if not _spaces_of(game, "warp"):
        yield Finding("the ring has no Warp Portal", "board", path=("track", "spaces"))


@rule("playing-gods.one-godkiller-space", "the ring has exactly one Godkiller space")
def one_godkiller_space(game):
    yield from _exactly_one(game, "godkiller", "Godkiller")


@rule("playing-gods.one-gain-sect-space", "the ring has exactly one Gain One Sect space")
def one_gain_sect_space(game):
    yield from _exactly_one(game, "gain-sect", "Gain One Sect")


sheet_text = sheet_text_rule(
    "playing-gods",
    "the aid, board and cards restate the rulebook as the fact table lists them"
)
