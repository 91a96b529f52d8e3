"""PocketCiv's rules on the Advance deck: requirements, Wonders' fields, the rulebook's Advance
examples and hints, and the numbers and conditions of each effect the rulebook spells out."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..check.rules import Finding, rule
from ..load.models import Card, Game
from .pocketciv import VISITORS, missing_terms


def advances_by_id(game: Game) -> dict[str, Card]:
    """Return the Advance deck's cards (Advances and Wonders) by id."""
    return {c.id: c for c in game.part("advances").cards}


def _cycle(start: str, cards: dict[str, Card]) -> list[str] | None:
    """Return a requirement loop through ``start``, or None."""
    path, stack = [start], [(start, iter(cards[start].fields.get("requires") or []))]
    while stack:
        node, children = stack[-1]
        nxt = next(children, None)
        if nxt is None:
            stack.pop()
            path.pop()
        elif nxt == start:
            return path + [start]
        elif nxt in cards and nxt not in path:
            path.append(nxt)
            stack.append((nxt, iter(cards[nxt].fields.get("requires") or [])))
    return None


@rule("pocketciv.advance-requirements", "every requirement names an existing Advance; no "
      "Advance needs itself; an OR lists two or more")
def advance_requirements(game: Game):
    cards = advances_by_id(game)
    for card in cards.values():
        requires = card.fields.get("requires") or []
        for j, name in enumerate(requires):
            target = cards.get(name)
            if target is None or target.fields.get("type") != "advance":
                yield Finding(f"requires '{name}', which is not an Advance", "advances",
                              card.id, ("requires", j))
        if card.fields.get("requires_any") and len(requires) < 2:
            yield Finding("requires_any needs two or more Advances to choose from",
                          "advances", card.id, ("requires_any",))
        loop = _cycle(card.id, cards)
        if loop and loop[0] == min(loop[:-1]):
            yield Finding(f"requirements go round in a circle: {' -> '.join(loop)}",
                          "advances", card.id, ("requires",))


@rule("pocketciv.wonder-fields", "Wonders say where they are built; only Wonders name a "
      "site or a Trading Partner, and partners are visiting Empires")
def wonder_fields(game: Game):
    for card in game.part("advances").cards:
        f = card.fields
        if f.get("type") == "wonder":
            if f.get("site") is None:
                yield Finding("a Wonder names its site (anywhere, city, coastal-city, "
                              "mountain or frontier)", "advances", card.id, ("site",))
            if f.get("partner") is not None and f["partner"] not in VISITORS:
                yield Finding(f"partner '{f['partner']}' is not a visiting Empire "
                              f"({', '.join(VISITORS)})", "advances", card.id, ("partner",))
            if f.get("resources"):
                yield Finding("Wonders need no resources", "advances", card.id,
                              ("resources",))
        else:
            for key in ("site", "partner"):
                if f.get(key) is not None:
                    yield Finding(f"only Wonders have a {key}", "advances", card.id, (key,))


@rule("pocketciv.advance-effects", "every Advance card says what it does")
def advance_effects(game: Game):
    for card in game.part("advances").cards:
        if card.fields.get("type") == "advance" and not (card.fields.get("effect") or
                                                          "").strip():
            yield Finding("the Advance has no effect text", "advances", card.id, ("effect",))


@dataclass(frozen=True)
class AdvanceFact:
    """A worked example or hint of the rulebook, stated as one field of one Advance."""

    advance: str
    field: str
    test: str  # equals | includes | within
    value: Any
    source: str


ADVANCE_FACTS = (
    AdvanceFact("irrigation", "requires", "equals", ["agriculture"],
                "ACQUIRE ADVANCES example: Irrigation requires Agriculture, owned first"),
    AdvanceFact("irrigation", "requires_any", "equals", False,
                "ACQUIRE ADVANCES example: Irrigation requires Agriculture, not a choice"),
    AdvanceFact("cartage", "tribes", "equals", 2,
                "HINTS: Cartage is bought with an additional 2 Tribes"),
    AdvanceFact("cartage", "gold", "equals", 0, "HINTS: Cartage costs Tribes only"),
    AdvanceFact("cartage", "resources", "equals", ["stone"],
                "HINTS: Cartage is bought in a Region with a Mountain"),
    AdvanceFact("cartage", "requires", "equals", [], "HINTS: Cartage can be the first Advance"),
    AdvanceFact("fishing", "tribes", "equals", 6, "HINTS: 6 Tribes for the Fishing Advance"),
    AdvanceFact("fishing", "gold", "equals", 0, "HINTS: Fishing costs Tribes only"),
    AdvanceFact("fishing", "resources", "equals", ["wood"],
                "HINTS: the Region buying Fishing needs a Forest"),
    AdvanceFact("fishing", "requires", "equals", [], "HINTS: Fishing can be the first Advance"),
    AdvanceFact("agriculture", "requires", "equals", [],
                "HINTS: Agriculture is a suggested early Advance"),
    AdvanceFact("masonry", "requires", "equals", [],
                "HINTS: Masonry is a suggested early Advance"),
    AdvanceFact("engineering", "requires", "within", ["agriculture", "masonry", "cartage"],
                "HINTS: Engineering follows the early Advances closely"),
    AdvanceFact("engineering", "city_av_max", "equals", 3,
                "UPKEEP: with Engineering the maximum City AV is 3"),
    AdvanceFact("metal-working", "city_av_max", "equals", 3,
                "UPKEEP: with Metal Working the maximum City AV is 3"),
    AdvanceFact("architecture", "city_av_max", "equals", 4,
                "Q and A: Architecture keeps the maximum City AV at 4 after Metal Working"),
)


def fact_holds(fact: AdvanceFact, value) -> bool:
    """Return whether an Advance's field value agrees with a rulebook fact."""
    if fact.test == "includes":
        return fact.value in (value or [])
    if fact.test == "within":
        return set(value or []) <= set(fact.value)
    return value == fact.value


@rule("pocketciv.advance-examples", "the rulebook's Advance examples and hints hold (Irrigation "
      "needs Agriculture, Cartage and Fishing costs, early Advances, City AV limits)")
def advance_examples(game: Game):
    cards = advances_by_id(game)
    for fact in ADVANCE_FACTS:
        card = cards.get(fact.advance)
        if card is None:
            yield Finding(f"{fact.source}: the deck has no '{fact.advance}'", "advances")
            continue
        value = card.fields.get(fact.field)
        if not fact_holds(fact, value):
            yield Finding(f"{fact.source}; {fact.field} is {value!r}", "advances", card.id,
                          (fact.field,))


# The numbers, names and conditions of each Advance effect the rulebook spells out (its italic
# notes), as the card's own wording must carry them. Horticulture, Story Telling and Written
# Record are silent in the rulebook (DESIGN.md), so they are not listed.
ADVANCE_TERMS = {
    "agriculture": ("Once each round", "Farm", "without clearing a Forest"),
    "architecture": ("limit rises to 4", "8 strength", "1 City AV", "1 AV less"),
    "arts": ("Civil War", "collateral damage −2"),
    "astronomy": ("Superstition", "add 2 to the number in the :green-square:"),
    "banking": ("more than 3 Gold", "gain 1 Gold"),
    "basic-tools": ("1 Tribe less", "not for a Capitol"),
    "black-market": ("Gain 5 Gold on acquiring", "handshake costs 1 Gold", "Anarchy",
                     "lose 1 Gold, even with Coinage"),
    "cartage": ("Any Farm", "any one City"),
    "cavalry": ("Frontier Expeditions", "counts as 2"),
    "centralized-government": ("Capitol", "past AV 4 up to 10", "1 Forest, Mountain or Farm",
                               "equal to the new AV", "once per Upkeep"),
    "civil-service": ("raise one more City AV", "AV 1 or more", "Tribe soaks 3", "City AV 5",
                      "Black Market and Culture of Thievery"),
    "coinage": ("keep your Gold",),
    "common-tongue": ("2 Tribes instead of 4",),
    "culture-of-thievery": ("lose 1 there", "nuggets of the next card", "halves the stash",
                            ":green-square: + :blue-hex:"),
    "democracy": ("Bandits", "−1 :blue-hex:"),
    "diplomacy": ("1 point each", "at least :red-circle:", "permanent Trading Partners"),
    "engineering": ("limit rises to 3", "Earthquake and Volcano", "AV 1 at worst",
                    "Wonder soaks 10"),
    "equestrian": ("any Region", "never through Frontier or Sea", "Epidemics leap empty Regions",
                   "lose 2 strength", "Bandits: strength +1 :blue-hex:"),
    "fishing": ("same Sea", "losing 1", "beside the Sea need no Farm"),
    "government": ("Ignore Tribal War", "Corruption +3"),
    "irrigation": ("Famine: keep Farms, City AV −1", "Flood: keep Farms and City AV",
                   "Sandstorm: keep Farms"),
    "law": ("no City AV loss", "by the City AV", "Corruption: keep Gold", "Uprising: City AV −1",
            "Civil War damage uses the :green-square:", "Bandits −1 :blue-hex:",
            "Black Market and Culture of Thievery"),
    "literacy": ("Tribes −5 instead of −3", "Corruption is halved (round down)"),
    "machining": ("Wood and Stone", "1 Tribe less", "2 more City AV", "City AV −3",
                  "Law cancels"),
    "magnetics": ("costs no Tribe", "halve", "(round up)"),
    "masonry": ("raise one City's AV by 1", "Tribes equal to the new AV"),
    "medicine": ("Epidemic loss halved (round down)", "Civil War 1", "Volcano 1",
                 "Earthquake 2", "Tsunami 2"),
    "meditation": ("Civil War damage halved (round down)", "when 1 card is left"),
    "metal-working": ("limit rises to 3", "stops 2 strength", "3 with Military"),
    "military": ("stops 2 strength", "3 with Metal Working", "neighbouring Cities −3 AV",
                 "AV −1"),
    "mining": ("3 Tribes", "Mountain or Volcano", "empties the cart"),
    "ministry": ("by the :green-square:", "1 Gold per point"),
    "music": ("one neighbour only", "1 Tribe instead of 3"),
    "mythology": ("Active Region", "3 AV instead of 2"),
    "navigation": ("same Sea", "losing 1", "Sea Expeditions", ":green-square:"),
    "organized-religion": ("at most 4 Regions", "Tribes −2 instead of all"),
    "patronage": ("1 Gold", "each City beyond four"),
    "philosophy": ("second card", "handshake"),
    "roadbuilding": ("cross 2 borders", "Farm need not be in its own Region",
                     "Epidemics leap empty Regions", "2 AV"),
    "sails-and-rigging": ("Sea Expeditions", "counts as 2", "Meteorology"),
    "sense-of-community": ("Tribal War", "not doubled"),
    "shipping": ("handshake", ":green-square:"),
    "simple-tools": ("1 Tribe less", "not for a Capitol"),
    "slave-labor": ("raise one more City AV", ":red-circle: more Tribes", "Bandits +1 :blue-hex:",
                    "Regions without a City"),
    "surveying": ("Mining", "discard pile"),
    "theater": ("Civil War", "collateral damage −2"),
}


@rule("pocketciv.advance-terms", "each Advance effect the rulebook spells out carries its "
      "numbers, names and conditions on the card")
def advance_terms(game: Game):
    cards = advances_by_id(game)
    for advance, terms in ADVANCE_TERMS.items():
        card = cards.get(advance)
        if card is None:
            yield Finding(f"the deck has no '{advance}'", "advances")
            continue
        for term in missing_terms(card.fields.get("effect"), terms):
            yield Finding(f"{card.name}'s effect must say '{term}' (rulebook)", "advances",
                          card.id, ("effect",))
