"""Playing Gods: the rules its manifest's counts cannot express, and the world map's geometry.

The numbers below are the rulebook's; data/playing-gods/ must agree with them.
"""

from __future__ import annotations

import math
from collections import Counter

from ..check.rules import Finding, rule, sheet_text_rule
from ..draw.helpers import template_global

ELEMENTS = ("earth", "water", "fire", "air")
OPPOSITE = {"fire": "water", "water": "fire", "air": "earth", "earth": "air"}
DISASTERS = {
    "earth": {"Mudslide", "Avalanche", "Earthquake", "Quicksand"},
    "water": {"Hailstorm", "Flood", "Drought", "Tsunami"},
    "fire": {"Volcano", "Solar Flare", "Wildfire", "Heat Wave"},
    "air": {"Lightning", "Tornado", "Smog", "Blizzard"},
}
SPECIALS = ("Plague", "Famine", "Darkness", "Locusts")
ASPECTS = ("communion", "scripture", "afterlife", "prosperity", "miracles")
KILLS_BY_ELEMENT_COUNT = {1: 1, 2: 3, 4: 6}
SPECIAL_KILLS = 2
CONTINENTS = 5
REGIONS_PER_CONTINENT = 4
PORTALS_PER_CONTINENT = 2
CHIPS_PER_COLOUR = 20

SPACE_KINDS = ("wrath", "conversion", "portal", "warp", "godkiller", "gain-sect")
WORLD_KEYS = {"continents", "track"}
CONTINENT_KEYS = {"id", "name", "colour", "bearing", "distance", "radius", "turn", "outline",
                  "regions"}
REGION_KEYS = {"id", "name", "holy_city"}
TRACK_KEYS = {"start_angle", "spaces"}
SPACE_KEYS = {"id", "kind", "continent", "next"}


def _dicts(value) -> list[dict]:
    """Return the mappings of a list, ignoring anything else (reported by world-file)."""
    return [v for v in value if isinstance(v, dict)] if isinstance(value, list) else []


def _world(game) -> dict:
    data = game.part("board").data
    return data if isinstance(data, dict) else {}


def continents(game) -> list[dict]:
    """Return the world's continents."""
    return _dicts(_world(game).get("continents"))


def track_spaces(game) -> list[dict]:
    """Return the track's spaces as listed."""
    track = _world(game).get("track")
    return _dicts(track.get("spaces")) if isinstance(track, dict) else []


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


REQUIRED_BY_TYPE = {
    ("wrath", "attack"): ("element", "kills", "combines"),
    ("wrath", "protection"): ("element",),
    ("wrath", "immunity"): ("element",),
    ("wrath", "special"): ("kills",),
    ("conversion", "conversion"): ("aspect",),
    ("conversion", "lose-sect"): ("loser",),
}
FORBIDDEN_BY_TYPE = {
    ("wrath", "protection"): ("kills", "combines"),
    ("wrath", "immunity"): ("kills", "combines"),
    ("wrath", "special"): ("element", "combines"),
}


@rule("playing-gods.card-fields-by-type", "each kind of card carries exactly the fields it uses")
def card_fields_by_type(game):
    for deck in ("wrath", "conversion"):
        for card in game.part(deck).cards:
            key = (deck, card.fields.get("type"))
            for name in REQUIRED_BY_TYPE.get(key, ()):
                if card.fields.get(name) is None:
                    yield Finding(f"a {key[1]} card needs '{name}'", deck, card.id, (name,))
            for name in FORBIDDEN_BY_TYPE.get(key, ()):
                if card.fields.get(name) is not None:
                    yield Finding(f"a {key[1]} card has no '{name}'", deck, card.id, (name,))


@rule("playing-gods.disasters-match-elements",
      "each element's attacks are the four disasters the rulebook names for it")
def disasters_match_elements(game):
    cards = [c for c in game.part("wrath").cards if c.fields.get("type") == "attack"]
    for element, disasters in DISASTERS.items():
        mine = [c for c in cards if c.fields.get("element") == element]
        for card in mine:
            if card.name not in disasters:
                yield Finding(f"{card.name} is not one of {element}'s disasters "
                              f"({', '.join(sorted(disasters))})", "wrath", card.id, ("name",))
        missing = sorted(disasters - {c.name for c in mine})
        if missing:
            yield Finding(f"{element} has no attack card for {', '.join(missing)}", "wrath")


@rule("playing-gods.no-opposite-elements",
      "no card joins Fire with Water or Air with Earth")
def no_opposite_elements(game):
    for card in game.part("wrath").cards:
        element = card.fields.get("element")
        for other in card.fields.get("combines") or []:
            if other == OPPOSITE.get(element):
                yield Finding(f"{card.name} ({element}) may not combine with its opposite, "
                              f"{other}", "wrath", card.id, ("combines",))
            elif other == element:
                yield Finding(f"{card.name} lists its own element, {element}, as a partner",
                              "wrath", card.id, ("combines",))


@rule("playing-gods.immunity-one-per-element",
      "exactly four Immunity cards, one for each element")
def immunity_one_per_element(game):
    cards = [c for c in game.part("wrath").cards if c.fields.get("type") == "immunity"]
    total = sum(c.copies for c in cards)
    if total != len(ELEMENTS):
        yield Finding(f"expected {len(ELEMENTS)} Immunity cards, found {total}", "wrath")
    for element in ELEMENTS:
        n = sum(c.copies for c in cards if c.fields.get("element") == element)
        if n != 1:
            yield Finding(f"expected one Immunity card for {element}, found {n}", "wrath")


@rule("playing-gods.special-wrath-cards",
      "the specials are Plague, Famine, Darkness and Locusts, one of each, and the aid says so")
def special_wrath_cards(game):
    cards = [c for c in game.part("wrath").cards if c.fields.get("type") == "special"]
    names = Counter()
    for card in cards:
        names[card.name] += card.copies
        if card.name not in SPECIALS:
            yield Finding(f"{card.name} is not one of the four specials "
                          f"({', '.join(SPECIALS)})", "wrath", card.id, ("name",))
    for name in SPECIALS:
        if names[name] != 1:
            yield Finding(f"expected one {name} card, found {names[name]}", "wrath")
    specials = _aid(game).get("specials")
    listed = specials.get("cards") if isinstance(specials, dict) else None
    if listed != list(SPECIALS):
        yield Finding(f"the aid must list the specials as {', '.join(SPECIALS)}, not {listed}",
                      "aid", path=("specials", "cards"))


@rule("playing-gods.conversion-aspects",
      "all five conversion types are in the deck, each at least twice so pairs can be made")
def conversion_aspects(game):
    copies = Counter()
    for card in game.part("conversion").cards:
        if card.fields.get("type") == "conversion":
            copies[card.fields.get("aspect")] += card.copies
    for aspect in ASPECTS:
        if copies[aspect] < 2:
            yield Finding(f"{aspect} has {copies[aspect]} cards; at least 2 are needed to make "
                          "a permanent pair", "conversion")


@rule("playing-gods.twenty-chips-per-colour", "20 sect chips in each of the five colours")
def twenty_chips_per_colour(game):
    colours = game.manifest.enums.get("sect_colours", [])
    if len(colours) != CONTINENTS:
        yield Finding(f"expected {CONTINENTS} sect colours, found {len(colours)}", "chips")
    for colour in colours:
        n = sum(c.copies for c in game.part("chips").cards if c.fields.get("colour") == colour)
        if n != CHIPS_PER_COLOUR:
            yield Finding(f"expected {CHIPS_PER_COLOUR} {colour} chips, found {n}", "chips")


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
        regions = _dicts(c.get("regions"))
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
        holy = [r.get("name") for r in _dicts(c.get("regions")) if r.get("holy_city") is True]
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


def _aid(game) -> dict:
    data = game.part("aid").data
    return data if isinstance(data, dict) else {}


@rule("playing-gods.element-combinations",
      "the aid's combination table: one element kills 1, a compatible pair 3, all four 6, "
      "a special 2")
def element_combinations(game):
    rows = _aid(game).get("combinations")
    if not isinstance(rows, list):
        yield Finding("the aid needs a 'combinations' list", "aid", path=("combinations",))
        return
    listed = set()
    for i, row in enumerate(rows):
        elements = row.get("elements") if isinstance(row, dict) else None
        if not isinstance(elements, list) or not set(elements) <= set(ELEMENTS) or \
                len(set(elements)) != len(elements):
            yield Finding(f"'elements' must list distinct elements, got {elements!r}", "aid",
                          path=("combinations", i, "elements"))
            continue
        key = frozenset(elements)
        listed.add(key)
        if len(key) == 2 and any(OPPOSITE[e] in key for e in key):
            yield Finding(f"{' + '.join(elements)} joins opposite elements", "aid",
                          path=("combinations", i))
            continue
        want = KILLS_BY_ELEMENT_COUNT.get(len(key))
        if want is None:
            yield Finding(f"{len(key)} elements cannot be combined", "aid",
                          path=("combinations", i))
        elif row.get("kills") != want:
            yield Finding(f"{' + '.join(elements)} kills {want}, not {row.get('kills')}", "aid",
                          path=("combinations", i, "kills"))
    expected = [frozenset([e]) for e in ELEMENTS] + [
        frozenset(p) for p in (("earth", "water"), ("earth", "fire"), ("air", "water"),
                               ("air", "fire"))] + [frozenset(ELEMENTS)]
    for key in expected:
        if key not in listed:
            yield Finding(f"the table lacks {' + '.join(sorted(key))}", "aid",
                          path=("combinations",))
    specials = _aid(game).get("specials")
    kills = specials.get("kills") if isinstance(specials, dict) else None
    if kills != SPECIAL_KILLS:
        yield Finding(f"a special card kills {SPECIAL_KILLS}, not {kills}", "aid",
                      path=("specials", "kills"))


def conversion_result(attacker: int, defender: int) -> int:
    """Return how many sects a conversion wins: the card difference, a tie to the defender."""
    return max(0, attacker - defender)


@rule("playing-gods.conversion-arithmetic",
      "the aid's conversion examples subtract the defender's cards from the attacker's")
def conversion_arithmetic(game):
    conversion = _aid(game).get("conversion")
    rows = conversion.get("examples") if isinstance(conversion, dict) else None
    if not isinstance(rows, list) or not rows:
        yield Finding("the aid needs conversion examples", "aid", path=("conversion",))
        return
    for i, row in enumerate(rows):
        a, d, won = (row.get(k) if isinstance(row, dict) else None
                     for k in ("attacker", "defender", "converts"))
        if not all(isinstance(v, int) and not isinstance(v, bool) and v >= 0
                   for v in (a, d, won)):
            yield Finding("an example needs whole numbers attacker, defender and converts",
                          "aid", path=("conversion", "examples", i))
        elif won != conversion_result(a, d):
            yield Finding(f"{a} cards against {d} convert {conversion_result(a, d)}, not {won}",
                          "aid", path=("conversion", "examples", i, "converts"))


@rule("playing-gods.majority-to-win",
      "the aid's region victory is the board's region count and more than half of it")
def majority_to_win(game):
    win = _aid(game).get("win")
    win = win if isinstance(win, dict) else {}
    total = sum(len(_dicts(c.get("regions"))) for c in continents(game))
    if win.get("of") != total:
        yield Finding(f"the board has {total} regions, the aid says {win.get('of')}", "aid",
                      path=("win", "of"))
    if win.get("regions") != total // 2 + 1:
        yield Finding(f"winning takes more than half of {total} regions: {total // 2 + 1}, "
                      f"not {win.get('regions')}", "aid", path=("win", "regions"))


# The rulebook's names for two combinations ("a Water and an Earth card ... create a
# landslide"; "Water and Air attack cards to create a typhoon").
COMBINATION_NAMES = {frozenset(("earth", "water")): "Landslide",
                     frozenset(("air", "water")): "Typhoon"}
# The rulebook's conversion table: (attacker's cards, defender's cards, sects converted).
CONVERSION_EXAMPLES = ((1, 1, 0), (2, 1, 1), (3, 1, 2))
GODKILLER = "The Godkiller"
GAIN_SECT = "Gain One Sect"


def _partners(element: str) -> set[str]:
    return set(ELEMENTS) - {element, OPPOSITE[element]}


@rule("playing-gods.element-partners",
      "each attack card pairs with exactly the two elements that are not its own or its "
      "opposite (Earth and Air with Fire or Water)")
def element_partners(game):
    for card in game.part("wrath").cards:
        element = card.fields.get("element")
        if card.fields.get("type") != "attack" or element not in OPPOSITE:
            continue
        have = set(card.fields.get("combines") or [])
        want = _partners(element)
        if have != want:
            yield Finding(f"{card.name} ({element}) combines with {' and '.join(sorted(want))}, "
                          f"not {', '.join(sorted(have)) or 'nothing'}", "wrath", card.id,
                          ("combines",))


def _table(game) -> dict:
    rows = _aid(game).get("combinations")
    out = {}
    for row in rows if isinstance(rows, list) else []:
        if isinstance(row, dict) and isinstance(row.get("elements"), list):
            out[frozenset(row["elements"])] = row
    return out


@rule("playing-gods.combination-names",
      "the aid names Water + Earth a Landslide and Water + Air a Typhoon, as the rulebook does")
def combination_names(game):
    table = _table(game)
    for key, name in COMBINATION_NAMES.items():
        row = table.get(key, {})
        if row.get("name") != name:
            yield Finding(f"{' + '.join(sorted(key))} is the rulebook's {name}, not "
                          f"{row.get('name')!r}", "aid", path=("combinations",))


def attack_kills(table: dict, elements: list[str], blocked: set[str]) -> int:
    """Return the sects an attack kills: blocked elements drop out and take the bonus with
    them; what is left kills as its own row of the table, or 1 per card if no row fits."""
    left = [e for e in elements if e not in blocked]
    if not left:
        return 0
    if len(left) == len(elements):
        row = table.get(frozenset(left))
        return int(row.get("kills", 0)) if row else 0
    return sum(int(table.get(frozenset([e]), {}).get("kills", 0)) for e in left)


@rule("playing-gods.rulebook-examples",
      "the rulebook's examples hold for the shipped aid and decks: Water + Earth is a landslide "
      "killing 3; a typhoon with Air protected kills 1 by Water; the conversion table "
      "(1 v 1 fails, 2 v 1 converts 1, 3 v 1 converts 2)")
def rulebook_examples(game):
    table = _table(game)
    landslide = table.get(frozenset(("earth", "water")), {})
    if landslide.get("name") != "Landslide" or attack_kills(table, ["water", "earth"],
                                                            set()) != 3:
        yield Finding("the rulebook's example: a Water and an Earth card together make a "
                      "landslide killing 3 sects; the aid's table disagrees", "aid",
                      path=("combinations",))
    protections = {c.fields.get("element") for c in game.part("wrath").cards
                   if c.fields.get("type") == "protection"}
    got = attack_kills(table, ["water", "air"], {"air"})
    if "air" not in protections or got != 1:
        yield Finding("the rulebook's example: a typhoon (Water + Air) met by Protection from "
                      f"Air leaves the Water attack killing 1 sect; the aid and deck give {got}"
                      + ("" if "air" in protections else ", and the deck has no Protection "
                         "from Air"), "aid", path=("combinations",))
    conversion = _aid(game).get("conversion")
    rows = conversion.get("examples") if isinstance(conversion, dict) else None
    shown = {(r.get("attacker"), r.get("defender")): r.get("converts")
             for r in rows if isinstance(r, dict)} if isinstance(rows, list) else {}
    for a, d, won in CONVERSION_EXAMPLES:
        if shown.get((a, d)) != won:
            yield Finding(f"the rulebook's conversion table: {a} card(s) against {d} convert "
                          f"{won}; the aid shows {shown.get((a, d))!r}", "aid",
                          path=("conversion", "examples"))


@rule("playing-gods.card-names",
      "cards carry the rulebook's names: the five conversion types, Protection and Immunity "
      "by element, Gain One Sect and the Godkiller")
def card_names(game):
    for card in game.part("conversion").cards:
        kind = card.fields.get("type")
        want = {"conversion": str(card.fields.get("aspect")).title(), "gain-sect": GAIN_SECT,
                "godkiller": GODKILLER}.get(kind)
        if want is not None and card.name != want:
            yield Finding(f"a {kind} card is called {want}, not {card.name}", "conversion",
                          card.id, ("name",))
    for card in game.part("wrath").cards:
        kind, element = card.fields.get("type"), str(card.fields.get("element")).title()
        want = {"protection": f"Protection from {element}",
                "immunity": f"Immunity to {element}"}.get(kind)
        if want is not None and card.name != want:
            yield Finding(f"this {kind} card guards against {element}: call it {want}, not "
                          f"{card.name}", "wrath", card.id, ("name",))


@rule("playing-gods.protection-per-element",
      "every element has Protection cards, a one-time defence against that element")
def protection_per_element(game):
    guarded = Counter(c.fields.get("element") for c in game.part("wrath").cards
                      for _ in range(c.copies) if c.fields.get("type") == "protection")
    for element in ELEMENTS:
        if not guarded[element]:
            yield Finding(f"no Protection card guards against {element}", "wrath")


sheet_text = sheet_text_rule(
    "playing-gods",
    "the aid, board and cards restate the rulebook as the fact table lists them"
)


def _pt(cx: float, cy: float, r: float, degrees: float) -> tuple[float, float]:
    a = math.radians(degrees)
    return cx + r * math.cos(a), cy + r * math.sin(a)


def _n(v: float) -> str:
    text = f"{v:.2f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def _path(points, close: bool = True) -> str:
    d = "M" + " L".join(f"{_n(x)} {_n(y)}" for x, y in points)
    return d + (" Z" if close else "")


def _centroid(points) -> tuple[float, float]:
    area = cx = cy = 0.0
    for (x0, y0), (x1, y1) in zip(points, points[1:] + points[:1]):
        cross = x0 * y1 - x1 * y0
        area += cross
        cx += (x0 + x1) * cross
        cy += (y0 + y1) * cross
    return cx / (3 * area), cy / (3 * area)


def _sector(cx, cy, r0, r1, a0, a1) -> str:
    """Return the path of a ring sector between radii r0 < r1 and angles a0 < a1."""
    (x0, y0), (x1, y1) = _pt(cx, cy, r1, a0), _pt(cx, cy, r1, a1)
    (x2, y2), (x3, y3) = _pt(cx, cy, r0, a1), _pt(cx, cy, r0, a0)
    return (f"M{_n(x0)} {_n(y0)} A{_n(r1)} {_n(r1)} 0 0 1 {_n(x1)} {_n(y1)} "
            f"L{_n(x2)} {_n(y2)} A{_n(r0)} {_n(r0)} 0 0 0 {_n(x3)} {_n(y3)} Z")


COAST_STEP = 4  # degrees between the points of a coastline
BORDER_BEND = 0.07  # how far a border bows sideways, as a share of the radius


def _coast(c: dict, ox: float, oy: float, degrees: float, scale: float = 1.0):
    r = c["radius"] * scale * (1 + sum(depth * math.cos(math.radians(bumps * degrees + turn))
                                       for bumps, depth, turn in c["outline"]))
    return _pt(ox, oy, r, degrees)


def _border(c: dict, ox: float, oy: float, degrees: float, steps: int = 8):
    """Return a bowed border from the continent's centre out to its coast."""
    ex, ey = _coast(c, ox, oy, degrees)
    nx, ny = -(ey - oy), ex - ox
    length = math.hypot(nx, ny) or 1.0
    bend = BORDER_BEND * c["radius"]
    return [(ox + (ex - ox) * t + nx / length * bend * math.sin(math.pi * t),
             oy + (ey - oy) * t + ny / length * bend * math.sin(math.pi * t))
            for t in (i / steps for i in range(steps + 1))]


def _continent_layout(c: dict, cx: float, cy: float) -> dict:
    """Return one continent's coast, shallows, region shapes and label points."""
    ox, oy = _pt(cx, cy, c["distance"], c["bearing"])
    regions = []
    for i, region in enumerate(c["regions"]):
        a0 = c["turn"] + i * 360 / len(c["regions"])
        a1 = a0 + 360 / len(c["regions"])
        coast = [_coast(c, ox, oy, a0 + (a1 - a0) * k / 24) for k in range(25)]
        points = _border(c, ox, oy, a0)[:-1] + coast + list(reversed(_border(c, ox, oy, a1)))[1:]
        lx, ly = _centroid(points)
        regions.append({**region, "index": i, "path": _path(points), "x": lx, "y": ly})
    outline = [_coast(c, ox, oy, d) for d in range(0, 360, COAST_STEP)]
    shallows = [_coast(c, ox, oy, d, 1.09) for d in range(0, 360, COAST_STEP)]
    # The name goes in the open sea between the continent and the middle of the globe.
    nx, ny = _pt(cx, cy, c["distance"] - c["radius"] * 1.3, c["bearing"])
    return {**c, "x": ox, "y": oy, "regions": regions, "coast": _path(outline),
            "shallows": _path(shallows), "label_x": nx, "label_y": ny}


@template_global("playing_gods_world")
def world_layout(world: dict, cx: float, cy: float, ring_inner: float, ring_outer: float) -> dict:
    """Return the board's geometry: track spaces in ring order, continents and regions."""
    ring, _ = ring_order(_dicts(world["track"]["spaces"]))
    step = 360 / len(ring)
    start = world["track"]["start_angle"]
    spaces = []
    for i, space in enumerate(ring):
        a0 = start + i * step
        mid = a0 + step / 2
        x, y = _pt(cx, cy, (ring_inner + ring_outer) / 2, mid)
        ix, iy = _pt(cx, cy, ring_inner, mid)
        spaces.append({**space, "number": i + 1, "angle": mid, "x": x, "y": y,
                       "inner_x": ix, "inner_y": iy,
                       "path": _sector(cx, cy, ring_inner, ring_outer, a0, a0 + step)})
    lands = [_continent_layout(c, cx, cy) for c in _dicts(world["continents"])]
    return {"spaces": spaces, "continents": lands, "by_id": {c["id"]: c for c in lands},
            "arc": 2 * math.pi * (ring_inner + ring_outer) / 2 / len(ring)}
