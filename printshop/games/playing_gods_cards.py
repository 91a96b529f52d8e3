"""Playing Gods' rules on the Wrath and Conversion decks and the sect chips: the fields of
each kind of card, the disasters, elements and their partners, the specials, Protection and
Immunity, the conversion types and the cards' names."""

from __future__ import annotations

from collections import Counter

from ..check.rules import Finding, rule

from .playing_gods import CONTINENTS, ELEMENTS, OPPOSITE, aid_data

DISASTERS = {
    "earth": {"Mudslide", "Avalanche", "Earthquake", "Quicksand"},
    "water": {"Hailstorm", "Flood", "Drought", "Tsunami"},
    "fire": {"Volcano", "Solar Flare", "Wildfire", "Heat Wave"},
    "air": {"Lightning", "Tornado", "Smog", "Blizzard"},
}
SPECIALS = ("Plague", "Famine", "Darkness", "Locusts")
ASPECTS = ("communion", "scripture", "afterlife", "prosperity", "miracles")
CHIPS_PER_COLOUR = 20
GODKILLER = "The Godkiller"
GAIN_SECT = "Gain One Sect"


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
    specials = aid_data(game).get("specials")
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
