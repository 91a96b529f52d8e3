"""Playing Gods' rules on the player aid: the element combination table and its names, the
conversion examples, the region majority that wins, and the rulebook's worked examples."""

from __future__ import annotations

from ..check.rules import Finding, rule

from .playing_gods import ELEMENTS, OPPOSITE, aid_data, continents, mappings

KILLS_BY_ELEMENT_COUNT = {1: 1, 2: 3, 4: 6}
SPECIAL_KILLS = 2
# The rulebook's names for two combinations ("a Water and an Earth card ... create a
# landslide"; "Water and Air attack cards to create a typhoon").
COMBINATION_NAMES = {frozenset(("earth", "water")): "Landslide",
                     frozenset(("air", "water")): "Typhoon"}
# The rulebook's conversion table: (attacker's cards, defender's cards, sects converted).
CONVERSION_EXAMPLES = ((1, 1, 0), (2, 1, 1), (3, 1, 2))


@rule("playing-gods.element-combinations",
      "the aid's combination table: one element kills 1, a compatible pair 3, all four 6, "
      "a special 2")
def element_combinations(game):
    rows = aid_data(game).get("combinations")
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
    specials = aid_data(game).get("specials")
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
    conversion = aid_data(game).get("conversion")
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
    win = aid_data(game).get("win")
    win = win if isinstance(win, dict) else {}
    total = sum(len(mappings(c.get("regions"))) for c in continents(game))
    if win.get("of") != total:
        yield Finding(f"the board has {total} regions, the aid says {win.get('of')}", "aid",
                      path=("win", "of"))
    if win.get("regions") != total // 2 + 1:
        yield Finding(f"winning takes more than half of {total} regions: {total // 2 + 1}, "
                      f"not {win.get('regions')}", "aid", path=("win", "regions"))


def _table(game) -> dict:
    rows = aid_data(game).get("combinations")
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
    conversion = aid_data(game).get("conversion")
    rows = conversion.get("examples") if isinstance(conversion, dict) else None
    shown = {(r.get("attacker"), r.get("defender")): r.get("converts")
             for r in rows if isinstance(r, dict)} if isinstance(rows, list) else {}
    for a, d, won in CONVERSION_EXAMPLES:
        if shown.get((a, d)) != won:
            yield Finding(f"the rulebook's conversion table: {a} card(s) against {d} convert "
                          f"{won}; the aid shows {shown.get((a, d))!r}", "aid",
                          path=("conversion", "examples"))
