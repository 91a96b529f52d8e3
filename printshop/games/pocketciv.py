"""PocketCiv: the rules its cards and counters must obey, and the rulebook's worked examples.

The rulebook fixes the Events and the visiting Empires, which Events take a strength from the
next card's symbols, and a handful of worked examples (the Q and A's strength sums, the
Advance examples and hints). Each is checked against the shipped data, so a change that would
contradict the rulebook fails validation with a rule id.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from ..load.models import Card, Game
from ..check.rules import Finding, rule, sheet_text_rule

EVENTS = ("Anarchy", "Bandits", "Civil War", "Corruption", "Earthquake", "Epidemic", "Famine",
          "Flood", "Sandstorm", "Superstition", "Tribal War", "Uprising", "Volcano",
          "Visitation")
# Steps other Events lead into; each has its own explanation card.
EVENT_STEPS = ("Attack", "Trade", "Tsunami")
VISITORS = ("Atlantea", "Floren", "Gilda", "Nordic")
ERAS = range(1, 9)
REGIONS = range(1, 9)
CARDS_PER_REGION_NUMBER = 2

# Events whose strength is the sum of the box's symbols on the next card, and those the
# rulebook resolves without any. Civil War's collateral damage is the next card's blue hexagon,
# which its box shows; Superstition reads a single symbol.
SYMBOL_EVENTS = ("Bandits", "Corruption", "Earthquake", "Epidemic", "Flood", "Superstition",
                 "Visitation")
PLAIN_EVENTS = ("Anarchy", "Famine", "Sandstorm", "Tribal War", "Uprising", "Volcano")
FIXED_SYMBOLS = {"Civil War": "H"}
SINGLE_SYMBOL_EVENTS = ("Superstition",)
MAX_SHAPES = 3

SHAPES = {"C": "circle", "S": "square", "H": "hexagon"}
_TERM = re.compile(r"^([1-9]?)([CSH])$")

CITIES = 8
CITY_AV_LIMIT = 4
CAPITOL_AV_LIMIT = 10
PLAYERS = (1, 2)


def parse_symbols(expression: str) -> dict[str, int] | None:
    """Return how many of each shape a symbol expression such as '2H+S' counts, or None."""
    counts: dict[str, int] = {}
    for term in str(expression).split("+"):
        m = _TERM.match(term.strip())
        if not m or m.group(2) in counts:
            return None
        counts[m.group(2)] = int(m.group(1) or 1)
    return counts


def strength(expression: str, next_card: Card) -> int:
    """Return the value a box's symbols take from the next card drawn."""
    counts = parse_symbols(expression) or {}
    return sum(n * next_card.fields[SHAPES[shape]] for shape, n in counts.items())


def _boxes(game: Game):
    """Yield (card, index, box) for every era box of the Event deck."""
    for card in game.part("events").cards:
        for i, box in enumerate(card.fields.get("eras") or []):
            yield card, i, box


@rule("pocketciv.era-boxes", "era boxes only for Eras 1-8, at most one per Era on a card")
def era_boxes(game: Game):
    seen: dict[tuple, int] = {}
    for card, i, box in _boxes(game):
        era = box.get("era")
        if era not in ERAS:
            yield Finding(f"era box {i + 1} is for Era {era}; the game has Eras 1 to 8",
                          "events", card.id, ("eras", i, "era"))
        elif (card.id, era) in seen:
            yield Finding(f"two boxes for Era {era} (boxes {seen[card.id, era] + 1} and "
                          f"{i + 1}); a card holds one Event per Era", "events", card.id,
                          ("eras", i, "era"))
        else:
            seen[card.id, era] = i
    for card in game.part("events").cards:
        if not card.fields.get("eras"):
            yield Finding("the card has no era boxes", "events", card.id, ("eras",))


@rule("pocketciv.event-names", "era boxes name the rulebook's Events; Visitations name a "
      "visiting Empire")
def event_names(game: Game):
    for card, i, box in _boxes(game):
        event, visitor = box.get("event"), box.get("visitor")
        if event not in EVENTS:
            yield Finding(f"'{event}' is not an Event of the rulebook ({', '.join(EVENTS)})",
                          "events", card.id, ("eras", i, "event"))
        elif event == "Visitation" and visitor not in VISITORS:
            yield Finding(f"a Visitation names its visitor, one of {', '.join(VISITORS)}; "
                          f"got {visitor!r}", "events", card.id, ("eras", i, "visitor"))
        elif event != "Visitation" and visitor is not None:
            yield Finding(f"only a Visitation has a visitor; {event} names '{visitor}'",
                          "events", card.id, ("eras", i, "visitor"))


@rule("pocketciv.symbol-expressions", "era box symbols are sums of C, S and H terms such as "
      "'2H+S', at most 3 shapes")
def symbol_expressions(game: Game):
    for card, i, box in _boxes(game):
        expression = box.get("symbols")
        if expression is None:
            continue
        counts = parse_symbols(expression)
        if counts is None:
            yield Finding(f"symbols '{expression}' must be terms like C, 2S or 3H joined by "
                          "'+', each shape once", "events", card.id, ("eras", i, "symbols"))
        elif sum(counts.values()) > MAX_SHAPES:
            yield Finding(f"symbols '{expression}' show {sum(counts.values())} shapes; a box "
                          f"holds at most {MAX_SHAPES}", "events", card.id,
                          ("eras", i, "symbols"))


@rule("pocketciv.event-symbols", "Events that take a strength from the next card show "
      "symbols, the others none")
def event_symbols(game: Game):
    for card, i, box in _boxes(game):
        event, expression = box.get("event"), box.get("symbols")
        counts = parse_symbols(expression) if expression is not None else None
        where = ("eras", i, "symbols")
        if event in PLAIN_EVENTS and expression is not None:
            yield Finding(f"{event} is resolved without the next card's symbols; its box "
                          f"shows '{expression}'", "events", card.id, where)
        elif event in SYMBOL_EVENTS and expression is None:
            yield Finding(f"{event} takes its strength from the box's symbols; the box shows "
                          "none", "events", card.id, where)
        elif event in FIXED_SYMBOLS and expression != FIXED_SYMBOLS[event]:
            yield Finding(f"{event} reads the next card's {SHAPES[FIXED_SYMBOLS[event]]}; its "
                          f"box must show '{FIXED_SYMBOLS[event]}', not '{expression}'",
                          "events", card.id, where)
        elif event in SINGLE_SYMBOL_EVENTS and counts is not None and \
                sum(counts.values()) != 1:
            yield Finding(f"{event} reads a single symbol; its box shows '{expression}'",
                          "events", card.id, where)


@rule("pocketciv.red-circle-balance", "each Region number 1-8 is in the red circle of two "
      "cards, so the deck picks Regions evenly")
def red_circle_balance(game: Game):
    cards = game.part("events").cards
    for region in REGIONS:
        holders = [c.fields.get("number") for c in cards if c.fields.get("circle") == region]
        if len(holders) != CARDS_PER_REGION_NUMBER:
            yield Finding(f"Region {region} is in the red circle of {len(holders)} cards "
                          f"({', '.join(map(str, holders)) or 'none'}); expected "
                          f"{CARDS_PER_REGION_NUMBER}", "events")


@dataclass(frozen=True)
class StrengthExample:
    """A worked example: a box of one card, its symbols, and its value from a later card."""

    source: str
    card: int
    era: int
    event: str
    symbols: dict
    next_card: int
    value: int


STRENGTH_EXAMPLES = (
    StrengthExample("Q and A: Bandits in Era 2 show a blue hexagon and a green square; with "
                    "card 16 drawn the Attacking Force is 12", 3, 2, "Bandits",
                    {"S": 1, "H": 1}, 16, 12),
    StrengthExample("Q and A: the Era 3 Epidemic shows one of each symbol; card 16 gives a "
                    "Population Loss of 20", 3, 3, "Epidemic", {"C": 1, "S": 1, "H": 1}, 16, 20),
    StrengthExample("Q and A: the Era 5 Visitation shows 3 green squares; card 16 gives an "
                    "Attacking Force of 18", 3, 5, "Visitation", {"S": 3}, 16, 18),
)


@rule("pocketciv.strength-examples", "the Q and A's worked strength sums (cards 3 and 16) "
      "hold for the Event deck")
def strength_examples(game: Game):
    by_number = {c.fields.get("number"): c for c in game.part("events").cards}
    for ex in STRENGTH_EXAMPLES:
        card, drawn = by_number.get(ex.card), by_number.get(ex.next_card)
        if card is None or drawn is None:
            yield Finding(f"{ex.source}: the deck lacks card {ex.card} or {ex.next_card}",
                          "events")
            continue
        boxes = [(i, b) for i, b in enumerate(card.fields.get("eras") or [])
                 if b.get("era") == ex.era]
        if not boxes or boxes[0][1].get("event") != ex.event:
            found = boxes[0][1].get("event") if boxes else "no box"
            yield Finding(f"{ex.source}: card {ex.card} must have {ex.event} in Era {ex.era}, "
                          f"has {found}", "events", card.id, ("eras",))
            continue
        i, box = boxes[0]
        expression = box.get("symbols") or ""
        if parse_symbols(expression) != ex.symbols:
            yield Finding(f"{ex.source}: the box shows '{expression}'", "events", card.id,
                          ("eras", i, "symbols"))
            continue
        got = strength(expression, drawn)
        if got != ex.value:
            yield Finding(f"{ex.source}: card {ex.next_card}'s numbers give {got}", "events",
                          drawn.id)


def _advances(game: Game) -> dict[str, Card]:
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
    cards = _advances(game)
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
    cards = _advances(game)
    for fact in ADVANCE_FACTS:
        card = cards.get(fact.advance)
        if card is None:
            yield Finding(f"{fact.source}: the deck has no '{fact.advance}'", "advances")
            continue
        value = card.fields.get(fact.field)
        if not fact_holds(fact, value):
            yield Finding(f"{fact.source}; {fact.field} is {value!r}", "advances", card.id,
                          (fact.field,))


@rule("pocketciv.guide-covers-events", "one explanation card for each Event of the rulebook "
      "and for Attack, Trade and Tsunami")
def guide_covers_events(game: Game):
    names = [c.name for c in game.part("event-guide").cards]
    wanted = set(EVENTS) | set(EVENT_STEPS)
    for name in sorted(wanted - set(names)):
        yield Finding(f"no explanation card for {name}", "event-guide")
    for card in game.part("event-guide").cards:
        if card.name not in wanted:
            yield Finding(f"'{card.name}' is not an Event of the rulebook", "event-guide",
                          card.id, ("name",))


@rule("pocketciv.guide-advances", "every Advance an explanation card names exists")
def guide_advances(game: Game):
    cards = _advances(game)
    for card in game.part("event-guide").cards:
        for i, mod in enumerate(card.fields.get("modifiers") or []):
            for j, name in enumerate(mod.get("advances") or []):
                if cards.get(name) is None or cards[name].fields.get("type") != "advance":
                    yield Finding(f"names '{name}', which is not an Advance", "event-guide",
                                  card.id, ("modifiers", i, "advances", j))


@rule("pocketciv.wonder-markers", "every Wonder has markers among the counters, and every "
      "marker is of a Wonder")
def wonder_markers(game: Game):
    wonders = {c.id for c in game.part("advances").cards if c.fields.get("type") == "wonder"}
    marked = set()
    for card in game.part("counters").cards:
        if card.fields.get("kind") != "wonder":
            continue
        target = card.fields.get("wonder")
        if target not in wonders:
            yield Finding(f"marker for '{target}', which is not a Wonder", "counters", card.id,
                          ("wonder",))
        marked.add(target)
    for name in sorted(wonders - marked):
        yield Finding(f"no marker for the Wonder '{name}'", "counters")


@rule("pocketciv.city-counter-stacks", "City counters in two colours, each enough to stack "
      "8 Cities to AV 4 and one Capitol to AV 10")
def city_counter_stacks(game: Game):
    cards = game.part("cities").cards
    for card in cards:
        if card.fields.get("player") not in PLAYERS:
            yield Finding(f"player is {card.fields.get('player')}; counters come in two "
                          "colours, players 1 and 2", "cities", card.id, ("player",))
        if card.fields.get("av") not in range(1, CAPITOL_AV_LIMIT + 1):
            yield Finding(f"AV {card.fields.get('av')} is outside 1 to {CAPITOL_AV_LIMIT}",
                          "cities", card.id, ("av",))
    for player in PLAYERS:
        for av in range(1, CAPITOL_AV_LIMIT + 1):
            need = CITIES if av <= CITY_AV_LIMIT else 1
            have = sum(c.copies for c in cards if c.fields.get("player") == player and
                       c.fields.get("av") == av)
            if have < need:
                yield Finding(f"player {player} has {have} counters for AV {av}; needs "
                              f"{need}", "cities")


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


def _missing_terms(text: str, terms) -> list[str]:
    return [t for t in terms if t not in (text or "")]


@rule("pocketciv.advance-terms", "each Advance effect the rulebook spells out carries its "
      "numbers, names and conditions on the card")
def advance_terms(game: Game):
    cards = _advances(game)
    for advance, terms in ADVANCE_TERMS.items():
        card = cards.get(advance)
        if card is None:
            yield Finding(f"the deck has no '{advance}'", "advances")
            continue
        for term in _missing_terms(card.fields.get("effect"), terms):
            yield Finding(f"{card.name}'s effect must say '{term}' (rulebook)", "advances",
                          card.id, ("effect",))


# Each Event explanation card: the numbers and conditions its summary must carry, and the
# Advances that change the Event in the rulebook's order, each with the terms of its change.
GUIDE_SUMMARY_TERMS = {
    "anarchy": ("outnumber its City AV", "City AV −1 and Tribes −3", "down to AV 1"),
    "attack": ("each Tribe lost removes 1 strength", "every 5 strength cuts 1 City AV",
               "costs 2 Gold", "neighbour with the fewest Tribes", "the largest City",
               "never into a Region holding neither"),
    "bandits": (":red-circle: is the Active Region", "Desert", "add up the box's symbols",
                "Bandits never trade"),
    "civil-war": ("neighbouring Regions", "lose 2 AV", ":blue-hex: is the collateral damage"),
    "corruption": ("add up the box's symbols", "lose all your Gold"),
    "earthquake": ("City AV −1, Tribes −1", "City AV −3, Tribes −4", "Wonders fall",
                   "up to 2 neighbours", "no Tribe support"),
    "epidemic": ("without Tribes there, nothing happens", "an empty Region stops it",
                 "2 Tribes are left"),
    "famine": ("Tribes and its Farm are wiped out", "loses 2 AV"),
    "flood": ("Tsunami", "Tribes −2", "City AV −1", "a Forest grows"),
    "sandstorm": ("pick 2 neighbours", "turn to Desert", "loses its Farm and Forest"),
    "superstition": ("reshuffle, discard 3",),
    "trade": ("gain Gold equal to :red-circle:",),
    "tribal-war": ("without Tribes there, nothing happens", "Twice its Tribes",
                   "Pick 2 neighbouring Regions", "loses 3 Tribes"),
    "tsunami": ("coastal Region next to the Active Region", "1 damage each", "City AV (2 each)",
                "(3 each)"),
    "uprising": ("City AV −2", "Tribes and its Farm are wiped out"),
    "visitation": ("Trading Partner? Go to Trade", ":handshake:",
                   ":red-circle: is the Active Region", "not on the Sea or Frontier",
                   "add up the box's symbols"),
    "volcano": ("Tribes fall to 1", "City AV −2, Tribes to 1", "Farm and Wonders lost",
                "a Desert appears", "each neighbour loses 2 Tribes", "still gives Stone"),
}
GUIDE_MODIFIERS = {
    "anarchy": ((("literacy",), ("−5", "instead of −3")),
                (("law",), ("City AV stays", "equal to its City AV")),
                (("organized-religion",), ("up to 4 Regions", "without a City are spared")),
                (("slave-labor",), (":red-circle: more Tribes",)),
                (("machining",), ("2 more City AV", "not with Law"))),
    "attack": ((("ministry",), ("strength −:green-square:", "+1 Gold per point")),
               (("military", "metal-working"), ("stops 2 strength", "Both: 3")),
               (("architecture",), ("8 strength per City AV instead of 5",)),
               (("equestrian",), ("−2 strength", "Region with Tribes"))),
    "bandits": ((("law",), ("−1 :blue-hex:",)), (("democracy",), ("−1 :blue-hex:",)),
                (("equestrian",), ("+1 :blue-hex:",)), (("slave-labor",), ("+1 :blue-hex:",))),
    "civil-war": ((("military",), ("Neighbouring Cities lose 3 AV",)),
                  (("mythology",), ("Active Region's City loses 3 AV",)),
                  (("civil-service",), ("below AV 1",)),
                  (("architecture",), ("1 smaller",)),
                  (("law",), (":green-square: instead of :blue-hex:",)),
                  (("arts",), ("Damage −2",)), (("theater",), ("Damage −2",)),
                  (("meditation",), ("halved (round down)",)),
                  (("medicine",), ("+1 Tribe in each affected Region",))),
    "corruption": ((("government",), ("+3",)), (("literacy",), ("halved (round down)",)),
                   (("law",), ("Keep your Gold",))),
    "earthquake": ((("engineering",), ("AV 1 at worst",)),
                   (("medicine",), ("+2 Tribes", "that lost Tribes"))),
    "epidemic": ((("roadbuilding", "equestrian"), ("leaps over empty Regions",)),
                 (("medicine",), ("halved (round down)",)),
                 (("roadbuilding",), ("emptied loses 2 AV",))),
    "famine": ((("irrigation",), ("Keep the Farm", "loses 1 AV only")),),
    "flood": ((("irrigation",), ("Keep the Farm and the City AV", "Forest still grows")),),
    "sandstorm": ((("irrigation",), ("Farms survive",)),),
    "superstition": ((("astronomy",), ("Add 2 to the number in the :green-square:",
                                     "only when the box reads :green-square:")),
                     (("meditation",), ("1 card is left",))),
    "trade": ((("shipping",), (":handshake:", "its :green-square:")),
              (("culture-of-thievery",), ("halves the stash", ":green-square: + :blue-hex:"))),
    "tribal-war": ((("government",), ("Ignore Tribal War",)),
                   (("sense-of-community",), ("not doubled",)),
                   (("music",), ("Only 1 neighbour", "loses 1 Tribe"))),
    "tsunami": ((("engineering",), ("Wonder takes 10 damage",)),
                (("civil-service",), ("Tribe takes 3 damage", "City AV 5")),
                (("medicine",), ("+2 Tribes in each affected Region",))),
    "uprising": ((("law",), ("City AV −1",)),
                 (("machining",), ("City AV −3", "Law as well: −2")),
                 (("organized-religion",), ("Tribes −2 instead of all",)),
                 (("slave-labor",), ("Regions without a City",)),
                 (("military",), ("neighbouring City", "AV −1", "−2 with Organized Religion"))),
    "visitation": ((("diplomacy",), ("1 point each", "at least :red-circle:", "permanent")),
                   (("philosophy",), ("second card", ":handshake:"))),
    "volcano": ((("engineering",), ("AV 1 at worst",)),
                (("medicine",), ("+1 Tribe in each affected Region",))),
}


@rule("pocketciv.guide-terms", "each Event explanation card's summary carries the rulebook's "
      "numbers and conditions")
def guide_terms(game: Game):
    cards = {c.id: c for c in game.part("event-guide").cards}
    for cid, terms in GUIDE_SUMMARY_TERMS.items():
        card = cards.get(cid)
        if card is None:
            yield Finding(f"no explanation card '{cid}'", "event-guide")
            continue
        for term in _missing_terms(" ".join(str(card.fields.get("summary") or "").split()),
                                   terms):
            yield Finding(f"{card.name}'s summary must say '{term}' (rulebook)", "event-guide",
                          card.id, ("summary",))


@rule("pocketciv.guide-modifiers", "each explanation card lists the Advances that change its "
      "Event in the rulebook's order, each with the rulebook's numbers")
def guide_modifiers(game: Game):
    cards = {c.id: c for c in game.part("event-guide").cards}
    for cid, wanted in GUIDE_MODIFIERS.items():
        card = cards.get(cid)
        if card is None:
            continue
        mods = card.fields.get("modifiers") or []
        have = [tuple(m.get("advances") or ()) for m in mods]
        want = [advances for advances, _ in wanted]
        if have != want:
            yield Finding(f"{card.name}: the Advances that change it should read, in the "
                          f"rulebook's order, {want}; the card has {have}", "event-guide",
                          card.id, ("modifiers",))
            continue
        for i, (advances, terms) in enumerate(wanted):
            for term in _missing_terms(mods[i].get("text"), terms):
                yield Finding(f"{card.name}, {' / '.join(advances)}: must say '{term}' "
                              "(rulebook)", "event-guide", card.id, ("modifiers", i, "text"))


sheet_text = sheet_text_rule(
    "pocketciv",
    "the tracking sheet, the Advance list and the cards restate the rulebook as the "
    "fact table lists them"
)


# --- the rulebook's worked examples about costs and scoring, replayed from printed text -----

_WORDS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6}


def _number(pattern: str, text: str) -> int | None:
    """Return the number (digits or a word) the pattern's group catches in text, or None."""
    m = re.search(pattern, text or "")
    if not m:
        return None
    word = m.group(1)
    return int(word) if word.isdigit() else _WORDS.get(word.lower())


def _tracking_text(game: Game) -> str:
    data = game.part("tracking").data or {}
    lines = [line for phase in data.get("phases") or [] for line in phase.get("lines") or []]
    return " ".join(" ".join([*lines, str(data.get("end_of_era") or "")]).split())


@dataclass(frozen=True)
class Costs:
    """The numbers the shipped cards and tracking sheet print for the rulebook's examples."""

    farm: int | None
    city: int | None
    fishing: int | None
    cartage: int | None
    tools: tuple
    av_raises: int
    new_av_cost: bool
    capitol_resources: int | None
    patronage_over: int | None
    black_market: int | None
    glory_by_tribes: bool
    acquire_strict: bool
    era_cities: bool
    common_tongue: tuple


def printed_costs(game: Game) -> Costs:
    """Read the numbers the examples need from the tracking sheet and the Advance cards."""
    track, cards = _tracking_text(game), _advances(game)

    def effect(cid: str) -> str:
        card = cards.get(cid)
        return str(card.fields.get("effect") or "") if card else ""

    def tribes(cid: str) -> int | None:
        card = cards.get(cid)
        return card.fields.get("tribes") if card else None

    raises = sum(1 for cid in ("masonry", "civil-service")
                 if re.search(r"raise one (more )?City('s)? AV", effect(cid)))
    return Costs(
        farm=_number(r"Farm: a Forest \+ (\d+) Tribes", track),
        city=_number(r"City: (\d+) Tribes", track),
        fishing=tribes("fishing"), cartage=tribes("cartage"),
        tools=tuple(_number(r"costs (\d+) Tribe less", effect(cid))
                    for cid in ("basic-tools", "simple-tools")),
        av_raises=raises,
        new_av_cost="Tribes equal to the new AV" in effect("masonry"),
        capitol_resources=_number(r"costs (\d+) Forest, Mountain or Farm plus Tribes in its "
                                  r"Region equal to the new AV", effect("centralized-government")),
        patronage_over=_number(r"each City beyond (\w+)", effect("patronage")),
        black_market=_number(r"Gain (\d+) Gold on acquiring", effect("black-market")),
        glory_by_tribes="best Advances as you have Tribes" in track,
        acquire_strict="total City AV > Advances owned" in track,
        era_cities="Cities ≥ the Era you leave" in track,
        common_tongue=(_number(r"(\d+) Tribes instead of \d+", effect("common-tongue")),
                       _number(r"\d+ Tribes instead of (\d+)", effect("common-tongue"))))


def rule_examples(c: Costs) -> list[tuple[str, bool]]:
    """Replay each worked example with the printed numbers: (example, whether it holds)."""
    def can_acquire(total_av, owned):
        return total_av > owned if c.acquire_strict else None

    def av_cost(target):
        return target - sum(t or 0 for t in c.tools) if c.new_av_cost else None

    return [
        ("Acquire Advances: with no City (total AV 0) no Advance can be bought",
         can_acquire(0, 0) is False),
        ("Acquire Advances: a first City of AV 1 can buy an Advance at once",
         can_acquire(1, 0) is True),
        ("Acquire Advances: Cities of AV 2, 2, 1 and 1 (total 6) buy with 5 or fewer Advances",
         can_acquire(2 + 2 + 1 + 1, 5) is True and can_acquire(6, 6) is False),
        ("Upkeep: advancing a City to AV 3 Decimates 3 Tribes (Tribes equal to the new AV)",
         c.new_av_cost),
        ("Upkeep: with Basic Tools and Simple Tools, AV 3 costs 1 Tribe", av_cost(3) == 1),
        ("Upkeep: Masonry and Civil Service raise one City by 2 or two Cities by 1",
         c.av_raises >= 2),
        ("Upkeep: a Capitol to AV 6 costs one Resource plus 6 Tribes in its Region",
         c.capitol_resources == 1),
        ("Upkeep: Patronage with 6 Cities gives 2 Gold",
         c.patronage_over is not None and 6 - c.patronage_over == 2),
        ("End of Era: 8 Tribes score the 8 highest-VP Advances", c.glory_by_tribes),
        ("End of Era: 2 Cities at the end of Era 2 gain Glory", c.era_cities),
        ("Hints: the first City: 2 Tribes turn a Forest into a Farm, then 4 build the City",
         (c.farm, c.city) == (2, 4)),
        ("Hints: 6 Tribes in a Mountain Region: 4 for the City, 2 more for Cartage",
         c.city is not None and c.cartage is not None and c.city + c.cartage == 6),
        ("Hints: Fishing needs 10 Tribes in the Region: 4 for the City, 6 for Fishing",
         c.city is not None and c.fishing is not None and c.city + c.fishing == 10),
        ("Create a City: Common Tongue makes it 2 Tribes instead of the usual 4",
         c.common_tongue == (2, c.city)),
        ("Acquire Advances: Black Market brings 5 Gold at once", c.black_market == 5),
    ]


@rule("pocketciv.rule-examples", "the rulebook's worked examples of costs and scoring (Acquire "
      "Advances, Upkeep, End of Era, Hints) hold with the numbers the cards and sheet print")
def rule_examples_hold(game: Game):
    for example, holds in rule_examples(printed_costs(game)):
        if not holds:
            yield Finding(f"{example}: the printed numbers no longer give this")


# The round's four phases in the rulebook's order, and the Upkeep duties in theirs (Upkeep
# 1, 2, 4 and 5: support, Gold, Advance duties, Farms), as the tracking sheet's lines name them.
PHASES = ("Population", "Event", "Advance", "Upkeep")
UPKEEP_ORDER = ("support", "Gold", "raise City AVs", "without a Farm")


@rule("pocketciv.tracking-sheet", "the tracking sheet has a box for each visiting Empire and "
      "the round's four phases, and the Upkeep duties, in the rulebook's order")
def tracking_sheet(game: Game):
    data = game.part("tracking").data or {}
    visitors = data.get("visitors") or []
    if sorted(map(str, visitors)) != sorted(VISITORS):
        yield Finding(f"the Trading Partner boxes should be {', '.join(VISITORS)}, not "
                      f"{', '.join(map(str, visitors)) or 'none'}", "tracking",
                      path=("visitors",))
    phases = data.get("phases") or []
    titles = [str(p.get("title") or "") for p in phases]
    if len(titles) != len(PHASES) or any(f"{i} · {name}" != t for i, (name, t) in
                                         enumerate(zip(PHASES, titles), 1)):
        yield Finding(f"the round's phases are 1 · Population, 2 · Event, 3 · Advance, "
                      f"4 · Upkeep; the sheet has {titles}", "tracking", path=("phases",))
        return
    upkeep = phases[3].get("lines") or []
    at = [next((i for i, line in enumerate(upkeep) if duty in line), None)
          for duty in UPKEEP_ORDER]
    if None in at or at != sorted(at):
        yield Finding("Upkeep runs: Tribes above support, then Gold, then the Advance duties, "
                      "then Cities without a Farm; the sheet's lines do not", "tracking",
                      path=("phases", 3, "lines"))
