"""CVlizations' rules on the idea deck: the ages, types, costs and dates, the ideas the
rulebook names with their numbers, effects and terms, and the Pickaxe example."""

from __future__ import annotations

import re
from collections import Counter

from ..check.rules import Finding, rule
from ..load.models import Card, Game
from .cvlizations import ORDERS, RESOURCES, Play, orders_of, resolve_actions

IDEAS = "ideas"
AGE_DECKS = {"i-ii": 32, "iii": 16}
TYPES = ("building", "tool", "invention", "ideology")
TYPE_PLURALS = {"building": "buildings", "tool": "tools", "invention": "inventions",
                "ideology": "ideologies"}
# Total cost (food + wood + stone) of an idea in each age deck: the age III ideas are dearer.
COST_BY_AGE = {"i-ii": (1, 5), "iii": (4, 8)}
EARLIEST, LATEST = -3500, 1996  # the ideas' dates run from 3500 BC to 1996
_DATE = re.compile(r"^(\d{1,4})( BC)?$")
END_SCORING = "At the end:"

# Ideas the rulebook names, at the numbers it gives them; Sword and Solitude are named without
# a number (Law and Humanism refer to them).
NAMED_IDEAS = {1: "Optimism", 5: "Humanism", 8: "Consumerism", 9: "Fishing Rod", 11: "Dagger",
               13: "Fortune telling", 14: "Gunpowder", 15: "Pickaxe", 16: "Axe", 19: "Tower",
               21: "Castle", 22: "Bazaar", 23: "Larder", 25: "Holidays", 26: "Law",
               28: "Feline domestication", 29: "Wheel", 30: "Common language",
               35: "Rationalism", 40: "Cinematography", 42: "Stock exchange", 43: "Highway",
               44: "Research Institute", 47: "Tourism"}
UNNUMBERED_IDEAS = ("Sword", "Solitude")
# Fishing Rod, Gunpowder, Pickaxe, Axe and Wheel add to an order that gives their resource;
# the Pickaxe is checked by replaying its example (cvlizations.pickaxe-example).
BOOSTED_BY = {"Fishing Rod": {"hunting"}, "Axe": {"logging"}, "Wheel": {"trading"},
              "Gunpowder": {"logging", "hunting", "quarrying"}}
# Tower, Castle and Larder turn up to 3 of a resource into happiness; the Larder takes food.
CONVERTERS = {"Tower": None, "Castle": None, "Larder": "food"}
MAJORITY_IDEAS = ("Highway", "Research Institute", "Tourism")
MAJORITY_BONUS = 2
VARIABLE_IDEAS = ("Humanism", "Consumerism", "Tower", "Castle", "Larder", "Rationalism",
                  "Cinematography", "Stock exchange", "Highway", "Research Institute",
                  "Tourism")

# The rulebook's Pickaxe example: Quarrying and Doubling give the Pickaxe's owner 2 more stone.
PICKAXE_EXAMPLE = (Play("Owner", ("quarrying", "doubling")),)
PICKAXE_EXTRA_STONE = 2


def _ideas(game: Game) -> list[Card]:
    return game.part(IDEAS).cards


def _by_name(cards: list[Card]) -> dict[str, Card]:
    return {c.name.casefold(): c for c in cards}


@rule("cvlizations.pickaxe-example", "the rulebook's example: Quarrying and Doubling give the "
      "Pickaxe's owner 2 more stone")
def check_pickaxe_example(game: Game):
    pickaxe = _by_name(_ideas(game)).get("pickaxe")
    if pickaxe is None:
        return  # cvlizations.named-ideas reports the missing card
    orders = orders_of(game)
    boosts = tuple(pickaxe.fields.get("boost") or ())
    plain = resolve_actions(orders, list(PICKAXE_EXAMPLE)).total("Owner")["stone"]
    owner = Play("Owner", ("quarrying", "doubling"), boosts=boosts)
    extra = resolve_actions(orders, [owner]).total("Owner")["stone"] - plain
    if extra != PICKAXE_EXTRA_STONE:
        yield Finding(f"with Quarrying and Doubling the Pickaxe must add "
                      f"{PICKAXE_EXTRA_STONE} stone (1 per Quarrying carried out); it adds "
                      f"{extra}", IDEAS, pickaxe.id, ("boost",))


@rule("cvlizations.named-ideas", "every idea the rulebook names keeps its number; Sword and "
      "Solitude exist")
def check_named_ideas(game: Game):
    cards = _ideas(game)
    by_number: dict[int, Card] = {}
    for card in cards:
        by_number.setdefault(card.fields.get("number"), card)
    for number, name in sorted(NAMED_IDEAS.items()):
        card = by_number.get(number)
        if card is None or card.name.casefold() != name.casefold():
            found = f"'{card.name}'" if card else "nothing"
            yield Finding(f"idea {number} must be {name} (the rulebook's number), found "
                          f"{found}", IDEAS, card.id if card else None,
                          ("name",) if card else ())
    names = _by_name(cards)
    for name in UNNUMBERED_IDEAS:
        if name.casefold() not in names:
            yield Finding(f"the rulebook refers to the {name} idea, which the deck lacks", IDEAS)


@rule("cvlizations.named-idea-effects", "the named ideas do what the rulebook describes: "
      "resource tools, converters, majorities, Rationalism's type, variable points")
def check_named_effects(game: Game):
    names = _by_name(_ideas(game))
    for name, allowed in BOOSTED_BY.items():
        card = names.get(name.casefold())
        if card is None:
            continue
        boost = set(card.fields.get("boost") or ())
        if len(boost) != 1 or not boost <= allowed:
            yield Finding(f"{name} must add to one order among {', '.join(sorted(allowed))}",
                          IDEAS, card.id, ("boost",))
    for name, resource in CONVERTERS.items():
        card = names.get(name.casefold())
        if card is None:
            continue
        have = card.fields.get("convert")
        if have is None or (resource and have != resource):
            want = resource or "a resource"
            yield Finding(f"{name} must turn up to 3 {want} into happiness at the end", IDEAS,
                          card.id, ("convert",))
    majorities = {}
    for name in MAJORITY_IDEAS:
        card = names.get(name.casefold())
        if card is None:
            continue
        kind = card.fields.get("majority")
        if kind is None:
            yield Finding(f"{name} must reward the most ideas of one type", IDEAS, card.id,
                          ("majority",))
        elif kind in majorities:
            yield Finding(f"{name} and {majorities[kind]} both reward the most {kind}s", IDEAS,
                          card.id, ("majority",))
        else:
            majorities[kind] = name
        if f"+{MAJORITY_BONUS} :happiness:" not in card.fields.get("text", ""):
            yield Finding(f"{name} gives +{MAJORITY_BONUS} happiness for the majority", IDEAS,
                          card.id, ("text",))
    rationalism = names.get("rationalism")
    if rationalism is not None and rationalism.fields.get("type") != "ideology":
        yield Finding("Rationalism is an ideology (it counts itself as one)", IDEAS,
                      rationalism.id, ("type",))
    for name in VARIABLE_IDEAS:
        card = names.get(name.casefold())
        if card is not None and not card.fields.get("variable"):
            yield Finding(f"{name} scores a variable amount at the end: it needs '+?'", IDEAS,
                          card.id, ("variable",))


@rule("cvlizations.idea-types-balanced", "each age deck holds the four idea types equally")
def check_types(game: Game):
    for age, size in AGE_DECKS.items():
        counts = Counter(c.fields.get("type") for c in _ideas(game)
                         if c.fields.get("age") == age for _ in range(c.copies))
        want = size // len(TYPES)
        for kind in TYPES:
            if counts[kind] != want:
                yield Finding(f"the age {age.upper()} deck holds {counts[kind]} {kind} ideas; "
                              f"each type should have {want}", IDEAS)


@rule("cvlizations.idea-cost-by-age", "an idea costs 1-5 resources in ages I-II and 4-8 in "
      "age III")
def check_costs(game: Game):
    for card in _ideas(game):
        age = card.fields.get("age")
        lo, hi = COST_BY_AGE.get(age, (0, 0))
        total = sum(card.fields.get(r) or 0 for r in RESOURCES)
        if not lo <= total <= hi:
            yield Finding(f"{card.name} costs {total} resources; an age {age.upper()} idea "
                          f"costs {lo} to {hi}", IDEAS, card.id)


def parse_year(date) -> int | None:
    """Return a date such as '3500 BC' or '1895' as a year (negative before Christ)."""
    m = _DATE.match(str(date).strip())
    if not m:
        return None
    year = int(m.group(1))
    return -year if m.group(2) else year


@rule("cvlizations.idea-dates", "every idea has a historical date from 3500 BC to 1996")
def check_dates(game: Game):
    for card in _ideas(game):
        year = parse_year(card.fields.get("date"))
        if year is None:
            yield Finding(f"date '{card.fields.get('date')}' of {card.name} must read like "
                          "'3500 BC' or '1895'", IDEAS, card.id, ("date",))
        elif not EARLIEST <= year <= LATEST or year == 0:
            yield Finding(f"{card.name} is dated {card.fields.get('date')}; dates run from "
                          "3500 BC to 1996", IDEAS, card.id, ("date",))


@rule("cvlizations.idea-effect-text", "an idea's text says what its data does: the orders it "
      "adds to, the resource it converts, the type it counts; '+?' exactly on end scoring")
def check_effect_text(game: Game):
    names = {o: n for o, n, _ in ORDERS}
    for card in _ideas(game):
        text = card.fields.get("text") or ""
        for order in card.fields.get("boost") or ():
            if names[order] not in text:
                yield Finding(f"{card.name} adds to {names[order]} but its text does not say "
                              "so", IDEAS, card.id, ("text",))
        resource = card.fields.get("convert")
        if resource and f":{resource}:" not in text:
            yield Finding(f"{card.name} converts {resource} but its text does not show it",
                          IDEAS, card.id, ("text",))
        kind = card.fields.get("majority")
        if kind and TYPE_PLURALS[kind] not in text:
            yield Finding(f"{card.name} rewards the most {TYPE_PLURALS[kind]} but its text "
                          "does not say so", IDEAS, card.id, ("text",))
        if bool(card.fields.get("variable")) != text.startswith(END_SCORING):
            yield Finding(f"{card.name}: '+?' goes with, and only with, a text starting "
                          f"'{END_SCORING}'", IDEAS, card.id, ("variable",))


# The numbers and conditions in the rulebook's notes on named ideas, as the card text must
# carry them (the wording is this edition's own).
IDEA_TERMS = {
    "Optimism": ("3 or more players", "take 1 :any:"),
    "Humanism": ("during rounds",),
    "Consumerism": ("+2 :happiness:", "no resources"),
    "Dagger": ("Gain 1 :happiness:", "unless 3 or more players"),
    "Fortune Telling": ("top idea of the deck", "put it back"),
    "Fishing Rod": ("1 more :food:",), "Gunpowder": ("1 more :stone:",),
    "Pickaxe": ("1 more :stone:",), "Axe": ("1 more :wood:",),
    "Wheel": ("1 more of the resource you receive",),
    "Tower": ("up to 3 :wood:",), "Castle": ("up to 3 :stone:",), "Larder": ("up to 3 :food:",),
    "Holidays": ("Gain 1 :happiness:", "only 1, even with Doubling"),
    "Law": ("first loss to a thief", "The Sword cannot touch you"),
    "Feline Domestication": ("3 or more players",),
    "Common Language": ("2 ideas", "full cost"),
    "Rationalism": ("+1 :happiness: for each type", "this one included", "(1 to 4)"),
    "Cinematography": ("+1 :happiness: for every 2 ideas", "this one included"),
    "Stock Exchange": (":food: :wood: :stone:", "scores 2 :happiness:", "6 at most"),
    "Highway": ("+2 :happiness:", "more tools than any other player"),
    "Research Institute": ("+2 :happiness:", "more inventions than any other player"),
    "Tourism": ("+2 :happiness:", "more buildings than any other player"),
}


@rule("cvlizations.idea-terms", "the named ideas' texts carry the numbers and conditions of the "
      "rulebook's notes")
def check_idea_terms(game: Game):
    names = _by_name(_ideas(game))
    for name, terms in IDEA_TERMS.items():
        card = names.get(name.casefold())
        if card is None:
            continue
        for term in terms:
            if term not in (card.fields.get("text") or ""):
                yield Finding(f"{name}'s text must say '{term}'", IDEAS, card.id, ("text",))
