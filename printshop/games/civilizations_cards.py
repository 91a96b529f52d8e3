"""Civilizations, the card game for two standard decks: the rulebook's numbers as rules.

The tables below are the rulebook's (v0.20); each rule compares the shipped data with them, so
a card or a reference sheet can never drift from the game it prints.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict

from ..check.rules import Finding, rule, sheet_text_rule

DECK = "double-deck"
DECKS = ("sun", "moon")
SUITS = ("hearts", "diamonds", "clubs", "spades")
NUMBER_RANKS = ("2", "3", "4", "5", "6", "7", "8", "9", "10")
FACE_RANKS = ("J", "Q", "K")
SUITED_RANKS = NUMBER_RANKS + FACE_RANKS + ("A",)
CITY_RANKS = FACE_RANKS + ("A", "joker")
MAX_CITIES = 3  # two, and a third with Wheeled Settlers

# City card -> (development cost, development-coin slots).
DEVELOPMENT = {"J": (11, 1), "Q": (12, 2), "K": (13, 3), "A": (20, 4), "joker": (15, 3)}

GREAT_PERSONS = {
    ("hearts", "J"): (("Laozi", "500 BCE"), ("Siddhartha Gautama", "500 BCE")),
    ("hearts", "Q"): (("Saint Mary Magdalene", "100 CE"), ("Saint Helena", "200 CE")),
    ("hearts", "K"): (("Filippo Brunelleschi", "1400"), ("Andrea Palladio", "1500")),
    ("diamonds", "J"): (("Colaeus", "600 BCE"), ("Pytheas of Massalia", "300 BCE")),
    ("diamonds", "Q"): (("Theodora", "500 CE"), ("Irene of Athens", "800 CE")),
    ("diamonds", "K"): (("Marco Polo", "1300"), ("Christopher Columbus", "1400")),
    ("clubs", "J"): (("Pythagoras", "600 BCE"), ("Archimedes", "200 BCE")),
    ("clubs", "Q"): (("Hypatia", "400 CE"), ("Hildegard of Bingen", "1100")),
    ("clubs", "K"): (("Leonardo da Vinci", "1500"), ("Isaac Newton", "1600")),
    ("spades", "J"): (("Sun Tzu", "500 BCE"), ("Alexander the Great", "300 BCE")),
    ("spades", "Q"): (("Cleopatra", "50 BCE"), ("Jeanne d'Arc", "1400")),
    ("spades", "K"): (("Genghis Khan", "1100"), ("Barbossa", "1500")),
}
MILITARY_SUIT = "spades"
MILITARY_LEADERS = 6  # "The game starts with 6 of them."

WONDERS = {"clubs": "Natural Wonder", "spades": "City Castle",
           "diamonds": "Archaeological Site", "hearts": "Holy Place"}

TECH_SHEET = "technology"
TECHNOLOGIES = {
    "hearts": ("Architecture", (("City Walls", "8000 BCE"), ("Paved Roads", "4000 BCE"),
                                ("Wheeled Settlers", "3000 BCE"),
                                ("Public Architecture", "500 BCE"))),
    "diamonds": ("Navigation", (("Sailing", "4000 BCE"), ("Cartography", "1000 BCE"),
                                ("Advanced Navigation", "500 CE"),
                                ("Celestial Navigation", "1500 CE"))),
    "spades": ("Layout Tactics", (("Scaling Ladders", "2500 BCE"), ("Chariots", "2000 BCE"),
                                  ("Infiltration", "500 BCE"), ("Gun Powder", "1000 CE"))),
    "clubs": ("Scientific Inventions", (("Counting Systems", "5000 BCE"), ("Wheel", "3500 BCE"),
                                        ("Metallurgy", "3000 BCE"), ("Algebra", "1500 BCE"),
                                        ("Power Mills", "0 BCE"),
                                        ("Scientific Revolution", "1500 CE"))),
}

ERA_SHEET = "era-track"
# Track -> (time-coin stacks at the start, eras played).
ERA_TRACKS = {"standard": ((2, 2, 2), 7), "shared-lands": ((2, 2, 2, 1), 8)}

REFERENCE = "reference"
# Action -> (fewest cards, most cards, what the cards share).
ACTIONS = {
    "gain-resources": (0, 0, "none"),
    "explore": (2, 3, "number"),
    "build-walls": (3, 4, "number"),
    "build-roads": (3, 4, "number"),
    "build-buildings": (3, 4, "number"),
    "develop": (2, 3, "suit"),
    "prepare-caravan": (2, 2, "suit"),
    "cancel": (0, 0, "none"),
    "move-stock": (0, 0, "none"),
    "move-caravan": (0, 0, "none"),
    "operate-caravan": (0, 0, "none"),
}
OPERATIONS = {"diamonds": "Trade", "hearts": "Missionary work", "clubs": "Subversion",
              "spades": "Military attack"}
OUTCOMES = ("target", "defence", "win", "draw", "lose")

SCIENCE_SUIT = "clubs"
# Quick victory -> (suit, threshold).
VICTORIES = {
    "Military victory": ("spades", MILITARY_LEADERS),
    "Scientific victory": ("clubs", len(TECHNOLOGIES[SCIENCE_SUIT][1])),
    "Religious victory": ("hearts", 10),
    "Commercial victory": ("diamonds", 20),
    "Cultural victory": ("any", 10),
}
# Score row -> (points per unit, cap). A cap sits one unit below the quick victory it would
# otherwise reach; tech progress is capped by the city cards three cities can hold.
FAITH_PER_POINT, GOLD_POINT, CULTURE_STEP = 1, 0.5, 0.5
SCORING = {
    "faith": (FAITH_PER_POINT, (VICTORIES["Religious victory"][1] - 1) * FAITH_PER_POINT),
    "gold": (GOLD_POINT, (VICTORIES["Commercial victory"][1] - 1) * GOLD_POINT),
    "culture": (CULTURE_STEP, VICTORIES["Cultural victory"][1] - CULTURE_STEP),
    "tech": (1, len(CITY_RANKS) * MAX_CITIES),
    "traitor-stones": (-5, 0),
}

WRITING_SHEET = "writing"
STONES_PER_BREACH, STONES_REMOVED_PER_ERA, POINTS_PER_STONE = 2, 1, -5


def _cards(game):
    return game.part(DECK).cards


def _is_city(rank) -> bool:
    return rank in CITY_RANKS


def _items(data, key):
    """Return data[key] as a list of (index, mapping) pairs, skipping anything malformed."""
    value = data.get(key) if isinstance(data, dict) else None
    if not isinstance(value, list):
        return []
    return [(i, v) for i, v in enumerate(value) if isinstance(v, dict)]


def _need(data, key, part):
    """Yield a Finding if the sheet data lacks the list ``key``."""
    value = data.get(key) if isinstance(data, dict) else None
    if not isinstance(value, list) or not value:
        yield Finding(f"expected a list '{key}'", part, path=(key,))


@rule("civilizations-cards.deck-composition",
      "each deck holds every rank of every suit once, and 3 suitless jokers")
def deck_composition(game):
    seen = defaultdict(list)
    for card in _cards(game):
        rank, suit = card.fields["rank"], card.fields["suit"]
        if rank == "joker":
            if suit is not None:
                yield Finding("a joker has no suit", DECK, card.id, ("suit",))
            continue
        if suit is None:
            yield Finding(f"a {rank} needs a suit", DECK, card.id, ("suit",))
            continue
        seen[(card.fields["deck"], rank, suit)].append(card)
    for deck in DECKS:
        for suit in SUITS:
            for rank in SUITED_RANKS:
                cards = seen.get((deck, rank, suit), [])
                if not cards:
                    yield Finding(f"the {deck} deck has no {rank} of {suit}", DECK)
                for extra in cards[1:]:
                    yield Finding(f"the {deck} deck has the {rank} of {suit} "
                                  f"{sum(c.copies for c in cards)} times", DECK, extra.id)
                if cards and cards[0].copies != 1:
                    yield Finding(f"the {deck} deck has the {rank} of {suit} "
                                  f"{cards[0].copies} times", DECK, cards[0].id, ("copies",))


@rule("civilizations-cards.pile-by-rank",
      "J, Q, K, A and jokers form the exploration deck; 2-10 the action deck")
def pile_by_rank(game):
    for card in _cards(game):
        rank = card.fields["rank"]
        want = "exploration" if _is_city(rank) else "action"
        if card.fields["pile"] != want:
            yield Finding(f"a {rank} belongs to the {want} deck, not the "
                          f"{card.fields['pile']} deck", DECK, card.id, ("pile",))


def _development(game, index: int, key: str, noun: str):
    for card in _cards(game):
        rank, value = card.fields["rank"], card.fields[key]
        if _is_city(rank):
            want = DEVELOPMENT[rank][index]
            if value != want:
                yield Finding(f"a {rank} has {want} {noun}, not {value}", DECK, card.id, (key,))
        elif value is not None:
            yield Finding(f"a {rank} is an action card: it has no {noun}", DECK, card.id,
                          (key,))


@rule("civilizations-cards.development-cost",
      "city cards cost J 11, Q 12, K 13, A 20, joker 15 to develop")
def development_cost(game):
    yield from _development(game, 0, "cost", "development cost")


@rule("civilizations-cards.development-slots",
      "city cards hold J 1, Q 2, K 3, A 4, joker 3 development coins")
def development_slots(game):
    yield from _development(game, 1, "slots", "development-coin slots")


@rule("civilizations-cards.great-persons",
      "each face card and suit carries one of its two Great Persons in each deck, as named")
def great_persons(game):
    copies = defaultdict(list)
    for card in _cards(game):
        rank, suit, person = card.fields["rank"], card.fields["suit"], card.fields["person"]
        if rank not in FACE_RANKS:
            if person is not None:
                yield Finding(f"only face cards carry Great Persons, not a {rank}", DECK,
                              card.id, ("person",))
            continue
        if person is None:
            yield Finding(f"the {rank} of {suit} needs its Great Person", DECK, card.id)
            continue
        copies[(suit, rank)].append(card)
    for (suit, rank), pair in GREAT_PERSONS.items():
        eras = dict(pair)
        names = [c.fields["person"]["name"] for c in copies.get((suit, rank), [])]
        for card in copies.get((suit, rank), []):
            person = card.fields["person"]
            if person["name"] not in eras:
                yield Finding(f"the {rank} of {suit} is {' or '.join(eras)} in the rules, "
                              f"not {person['name']!r}", DECK, card.id, ("person", "name"))
            elif person["era"] != eras[person["name"]]:
                yield Finding(f"{person['name']} lived in {eras[person['name']]}, not "
                              f"{person['era']!r}", DECK, card.id, ("person", "era"))
            elif names.count(person["name"]) > 1:
                yield Finding(f"{person['name']} is on both copies of the {rank} of {suit}; "
                              "each deck has one of its two Great Persons", DECK, card.id,
                              ("person", "name"))


@rule("civilizations-cards.military-leaders",
      "the military leaders are exactly the spade J, Q and K of both decks")
def military_leaders(game):
    for card in _cards(game):
        should = card.fields["suit"] == MILITARY_SUIT and card.fields["rank"] in FACE_RANKS
        if card.fields["leader"] and not should:
            yield Finding("only the spade J, Q and K are military leaders", DECK, card.id,
                          ("leader",))
        elif should and not card.fields["leader"]:
            yield Finding(f"the {card.fields['rank']} of spades is a military leader", DECK,
                          card.id, ("leader",))


@rule("civilizations-cards.wonders", "each ace is its suit's wonder; no other card is one")
def wonders(game):
    for card in _cards(game):
        rank, wonder = card.fields["rank"], card.fields["wonder"]
        if rank != "A":
            if wonder is not None:
                yield Finding(f"only aces are wonders, not a {rank}", DECK, card.id, ("wonder",))
            continue
        want = WONDERS[card.fields["suit"]]
        if wonder is None:
            yield Finding(f"the ace of {card.fields['suit']} is the {want}", DECK, card.id)
        elif wonder["name"] != want:
            yield Finding(f"the ace of {card.fields['suit']} is the {want}, not "
                          f"{wonder['name']!r}", DECK, card.id, ("wonder", "name"))


@rule("civilizations-cards.own-art",
      "every Great Person and wonder names its picture (art), and no two names share one")
def own_art(game):
    owner: dict[str, str] = {}          # picture -> the name that shows it
    picture: dict[str, str] = {}        # name -> its picture (a wonder's two copies agree)
    for card in _cards(game):
        named = card.fields["person"] or card.fields["wonder"]
        if not named:
            continue
        name, art = named["name"], card.fields.get("art")
        if not art:
            yield Finding(f"{name} needs a picture of its own (art)", DECK, card.id)
            continue
        if picture.setdefault(name, art) != art:
            yield Finding(f"{name} shows {picture[name]!r} on one copy and {art!r} on another",
                          DECK, card.id, ("art",))
        elif owner.setdefault(art, name) != name:
            yield Finding(f"{art!r} is already {owner[art]}'s picture; {name} needs its own",
                          DECK, card.id, ("art",))


@rule("civilizations-cards.technology-tracks",
      "every technology sits in its suit's track, at its level, with its date")
def technology_tracks(game):
    data = game.part(TECH_SHEET).data
    yield from _need(data, "tracks", TECH_SHEET)
    home = {name: (suit, level, date) for suit, (_, techs) in TECHNOLOGIES.items()
            for level, (name, date) in enumerate(techs, start=1)}
    found = set()
    tracks = _items(data, "tracks")
    for i, track in tracks:
        suit = track.get("suit")
        if suit not in TECHNOLOGIES:
            yield Finding(f"a track's suit is one of {', '.join(SUITS)}, not {suit!r}",
                          TECH_SHEET, path=("tracks", i, "suit"))
            continue
        title = TECHNOLOGIES[suit][0]
        if track.get("name") != title:
            yield Finding(f"the {suit} track is {title}, not {track.get('name')!r}", TECH_SHEET,
                          path=("tracks", i, "name"))
        for j, tech in _items(track, "techs"):
            path = ("tracks", i, "techs", j)
            name = tech.get("name")
            if name not in home:
                yield Finding(f"{name!r} is not a technology of the rules", TECH_SHEET,
                              path=path + ("name",))
                continue
            found.add(name)
            want_suit, level, date = home[name]
            if want_suit != suit:
                yield Finding(f"{name} belongs to {TECHNOLOGIES[want_suit][0]} "
                              f"({want_suit}), not {title}", TECH_SHEET, path=path + ("name",))
            elif j + 1 != level:
                yield Finding(f"{name} is level {level} of {title}, not level {j + 1}",
                              TECH_SHEET, path=path + ("name",))
            if tech.get("date") != date:
                yield Finding(f"{name} dates from {date}, not {tech.get('date')!r}", TECH_SHEET,
                              path=path + ("date",))
    for name in home:
        if name not in found and tracks:
            yield Finding(f"{name} ({home[name][2]}) is missing from the "
                          f"{TECHNOLOGIES[home[name][0]][0]} track", TECH_SHEET, path=("tracks",))


def time_coins(stacks) -> list[tuple[list[int], int]]:
    """Return each era's standing time-coin stacks and land cards, from the starting stacks."""
    standing, eras = [c for c in stacks if c > 0], []
    while True:
        eras.append((standing, len(standing)))
        if not standing:
            return eras
        # One coin leaves the rightmost stack; a stack left empty no longer stands.
        standing = standing[:-1] + ([standing[-1] - 1] if standing[-1] > 1 else [])


@rule("civilizations-cards.era-track",
      "time coins: one leaves the rightmost stack each era, lands refill to the stacks left")
def era_track(game):
    data = game.part(ERA_SHEET).data
    yield from _need(data, "tracks", ERA_SHEET)
    seen = set()
    for i, track in _items(data, "tracks"):
        tid = track.get("id")
        if tid not in ERA_TRACKS:
            yield Finding(f"an era track is one of {', '.join(ERA_TRACKS)}, not {tid!r}",
                          ERA_SHEET, path=("tracks", i, "id"))
            continue
        seen.add(tid)
        stacks, eras = ERA_TRACKS[tid]
        if tuple(track.get("stacks") or ()) != stacks:
            yield Finding(f"the {tid} game starts with {sum(stacks)} time coins in "
                          f"{len(stacks)} stacks {list(stacks)}, not {track.get('stacks')}",
                          ERA_SHEET, path=("tracks", i, "stacks"))
        want = time_coins(stacks)
        rows = _items(track, "eras")
        if len(rows) != eras:
            yield Finding(f"the {tid} game lasts {eras} eras, not {len(rows)}", ERA_SHEET,
                          path=("tracks", i, "eras"))
        for j, row in rows:
            path = ("tracks", i, "eras", j)
            if row.get("era") != j + 1:
                yield Finding(f"era {j + 1} is numbered {row.get('era')!r}", ERA_SHEET,
                              path=path + ("era",))
            if j >= len(want):
                continue
            coins, cards = want[j]
            if list(row.get("coins") or []) != coins:
                yield Finding(f"era {j + 1} of the {tid} game starts with time coins {coins}, "
                              f"not {row.get('coins')}", ERA_SHEET, path=path + ("coins",))
            if row.get("land_cards") != cards:
                yield Finding(f"in era {j + 1} of the {tid} game each land gets {cards} "
                              f"cards, not {row.get('land_cards')!r}", ERA_SHEET,
                              path=path + ("land_cards",))
    for tid in ERA_TRACKS:
        if tid not in seen:
            yield Finding(f"the {tid} era track is missing", ERA_SHEET, path=("tracks",))


def _rows(data, key: str, ident_field: str, table: dict, noun: str, expected, at=()):
    """Check a list of rows against a table from the rules: each entry of the table exactly
    once, each row's fields as the rules give them (``expected(ident)`` -> {field: value})."""
    yield from _need(data, key, REFERENCE)
    seen = Counter()
    for i, row in _items(data, key):
        ident = row.get(ident_field)
        seen[ident] += 1
        if ident not in table:
            yield Finding(f"{ident!r} is not {noun} of the rules", REFERENCE,
                          path=at + (key, i, ident_field))
            continue
        for field, want in expected(ident).items():
            got = row.get(field)
            if want is None:  # the rules ask only that it be there
                if not str(got or "").strip():
                    yield Finding(f"{ident} needs its {field}", REFERENCE,
                                  path=at + (key, i, field))
            elif got != want:
                yield Finding(f"{ident}: {field} should be {want!r}, not {got!r}", REFERENCE,
                              path=at + (key, i, field))
    for ident in table:
        if seen[ident] != 1 and data:
            yield Finding(f"{ident} is listed {seen[ident]} times, not once", REFERENCE,
                          path=at + (key,))


@rule("civilizations-cards.action-costs",
      "every action is listed with the number of cards it takes and what they share")
def action_costs(game):
    yield from _rows(game.part(REFERENCE).data, "actions", "id", ACTIONS, "an action",
                     lambda a: {"cards": [ACTIONS[a][0], ACTIONS[a][1]], "match": ACTIONS[a][2]})


@rule("civilizations-cards.caravan-operations",
      "one caravan operation per suit, each with its target, defence and three outcomes")
def caravan_operations(game):
    data = game.part(REFERENCE).data
    caravans = data.get("caravans") if isinstance(data, dict) else None
    yield from _rows(caravans, "operations", "suit", OPERATIONS, "a suit",
                     lambda suit: {"name": OPERATIONS[suit], **dict.fromkeys(OUTCOMES)},
                     at=("caravans",))


@rule("civilizations-cards.victory-thresholds",
      "the five quick victories with their suits and thresholds")
def victory_thresholds(game):
    yield from _rows(game.part(REFERENCE).data, "victories", "name", VICTORIES,
                     "a quick victory",
                     lambda v: {"suit": VICTORIES[v][0], "threshold": VICTORIES[v][1]})


@rule("civilizations-cards.score-caps",
      "perfect-civilization points: faith 1 (max 9), gold ½ (max 9.5), culture (max 9.5), "
      "tech 1 per city card (max 15)")
def score_caps(game):
    yield from _rows(game.part(REFERENCE).data, "scoring", "id", SCORING, "a scored item",
                     lambda r: {"points": SCORING[r][0], "cap": SCORING[r][1]})


def traitor_slots(stones: int) -> int:
    """Return the hand-card slots a nation holding ``stones`` traitor stones loses."""
    return -math.ceil(stones / STONES_PER_BREACH)


@rule("civilizations-cards.traitor-penalty",
      "a broken treaty brings 2 traitor stones, 1 leaves each era, -1 slot per 2 stones, "
      "-5 points each")
def traitor_penalty(game):
    data = game.part(WRITING_SHEET).data
    if not isinstance(data, dict):
        data = {}
    for key, want in (("stones_per_breach", STONES_PER_BREACH),
                      ("removed_per_era", STONES_REMOVED_PER_ERA),
                      ("points_per_stone", POINTS_PER_STONE)):
        if data.get(key) != want:
            yield Finding(f"{key} is {want} in the rules, not {data.get(key)!r}", WRITING_SHEET,
                          path=(key,))
    yield from _need(data, "penalty", WRITING_SHEET)
    expected = 1
    for i, row in _items(data, "penalty"):
        stones = row.get("stones")
        if not isinstance(stones, list) or not stones or \
                list(stones) != list(range(expected, expected + len(stones))):
            yield Finding(f"penalty rows run on from {expected} stones, not {stones}",
                          WRITING_SHEET, path=("penalty", i, "stones"))
            continue
        expected = stones[-1] + 1
        slots = {traitor_slots(s) for s in stones}
        if slots != {row.get("slots")}:
            yield Finding(f"{stones[0]}-{stones[-1]} stones cost "
                          f"{', '.join(map(str, sorted(slots)))} hand slots, not "
                          f"{row.get('slots')!r}", WRITING_SHEET, path=("penalty", i, "slots"))


# The numbers and conditions of each Great Person's power in the rulebook, as the card's own
# wording must carry them; both persons of a face card share the power.
PERSON_POWERS = {
    ("hearts", "J"): ("Missionaries", "ignore the defence bonus"),
    ("hearts", "Q"): ("missionaries", "fail", "gains no faith"),
    ("hearts", "K"): ("temple", "2 faith", "each era", "instead of 1"),
    ("diamonds", "J"): ("Traders and explorers", "+1 reach", "sea"),
    ("diamonds", "Q"): ("traders", "fail", "gains no gold"),
    ("diamonds", "K"): ("1 gold", "caravan from this city", "sea"),
    ("clubs", "J"): ("defender rolls twice", "lower roll"),
    ("clubs", "Q"): ("never caught", "fails", "keeps its coins"),
    ("clubs", "K"): ("unlaunched caravans", "back to your hand", "excess"),
    ("spades", "J"): ("through walls", "full strength"),
    ("spades", "Q"): ("fails", "keeps its coins"),
    ("spades", "K"): ("won attack", "no coins or a caravan", "Military leaders too"),
}


@rule("civilizations-cards.great-person-powers",
      "each Great Person's power carries the rulebook's numbers and conditions, the same on "
      "both copies of its card")
def great_person_powers(game):
    seen = {}
    for card in _cards(game):
        person = card.fields.get("person")
        key = (card.fields["suit"], card.fields["rank"])
        if not person or key not in PERSON_POWERS:
            continue
        power = person.get("power") or ""
        for term in PERSON_POWERS[key]:
            if term not in power:
                yield Finding(f"{person['name']}'s power must say '{term}'", DECK, card.id,
                              ("person", "power"))
        if key in seen and seen[key] != power:
            yield Finding(f"the two {key[1]}s of {key[0]} must share one power", DECK, card.id,
                          ("person", "power"))
        seen.setdefault(key, power)


sheet_text = sheet_text_rule(
    "civilizations-cards",
    "the mats, sheets and cards restate the rulebook as the fact table lists them"
)
