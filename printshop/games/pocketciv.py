"""PocketCiv: the rules its Event deck and counters must obey, and the rulebook's worked
strength sums.

The rulebook fixes the Events and the visiting Empires, which Events take a strength from the
next card's symbols, and a handful of worked examples (the Q and A's strength sums, the
Advance examples and hints). Each is checked against the shipped data, so a change that would
contradict the rulebook fails validation with a rule id. The Advance deck's rules are in
pocketciv_advances.py, the Event explanation cards' in pocketciv_guide.py, the tracking
sheet's and the worked cost examples' in pocketciv_tracking.py.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..check.rules import Finding, rule, sheet_text_rule
from ..load.models import Card, Game


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


def missing_terms(text: str, terms) -> list[str]:
    """Return the terms the text does not carry, in order."""
    return [t for t in terms if t not in (text or "")]


sheet_text = sheet_text_rule(
    "pocketciv",
    "the tracking sheet, the Advance list and the cards restate the rulebook as the "
    "fact table lists them"
)
