"""CVlizations (Civilizations by Granna): the rules its data must keep, and a round resolver.

The resolver carries out one action phase from the order cards' data, so the rulebook's sample
round and worked examples are replayed against the shipped orders and ideas: a change to the
data that would contradict a printed example is reported with the rule it breaks.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field

from ..load.models import Card, Game, Part
from ..check.rules import Finding, rule, sheet_text_rule
from ..draw.helpers import template_global

RESOURCES = ("food", "wood", "stone")
EFFECT_KEYS = ("food", "wood", "stone", "any", "steal", "give", "take", "happiness", "repeat")
CROWD_NAMES = ("one player", "two players", "three or more players")

# The rulebook's orders in the sequence they are carried out; Doubling has no number.
ORDERS = (("thieving", "Thieving", 1), ("logging", "Logging", 2), ("hunting", "Hunting", 3),
          ("quarrying", "Quarrying", 4), ("cunning", "Cunning", 5),
          ("slacking", "Slacking", 6), ("trading", "Trading", 7),
          ("doubling", "Doubling", None))
DOUBLING = "doubling"
TRADING = "trading"
THIEVING = "thieving"
ORDER_SET_PREFIX = "orders-"
COLOURS = 5
# Feline domestication scores a point for Thieving, Cunning, Slacking and Doubling when they
# fail: those are the orders that do nothing once three or more players chose them.
FAIL_IN_A_CROWD = frozenset({"thieving", "cunning", "slacking", "doubling"})

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
NBSP = "\u00a0"  # keeps a short table cell such as "1 (any) -> 3" on one line

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


@dataclass(frozen=True)
class Effect:
    """What an order does for one player who carries it out once."""

    food: int = 0
    wood: int = 0
    stone: int = 0
    any: int = 0
    steal: int = 0
    give: int = 0
    take: int = 0
    happiness: int = 0
    repeat: int = 0

    @classmethod
    def of(cls, raw) -> "Effect":
        """Return the effect described by a data mapping (missing keys are 0)."""
        raw = raw if isinstance(raw, dict) else {}
        return cls(**{k: int(raw.get(k) or 0) for k in EFFECT_KEYS})

    @property
    def fails(self) -> bool:
        return not any(getattr(self, k) for k in EFFECT_KEYS)

    def worth(self) -> int:
        """Return a rough value in resources, to compare an order's three effects."""
        traded = self.take - self.give if self.take else 0
        return (self.food + self.wood + self.stone + self.any + self.steal + self.happiness +
                traded + max(self.repeat - 1, 0))


@dataclass(frozen=True)
class Order:
    """One order card: its name, its number (None for Doubling) and its three effects."""

    id: str
    name: str
    number: int | None
    effects: tuple[Effect, ...]

    def effect(self, chosen_by: int) -> Effect:
        """Return the effect when ``chosen_by`` players chose this order."""
        return self.effects[min(chosen_by, 3) - 1]


def order_from(card: Card) -> Order:
    """Return the order a card of an order set describes."""
    effects = tuple(Effect.of(e) for e in card.fields.get("effects") or [])
    return Order(card.id, card.name, card.fields.get("number"), effects)


def order_sets(game: Game) -> list[Part]:
    """Return the order set components, one per player colour."""
    return [p for p in game.parts if p.id.startswith(ORDER_SET_PREFIX) and p.kind == "deck"]


def reference_set(game: Game) -> str:
    """Return the id of the first order set, whose data the order rules read."""
    sets = order_sets(game)
    if not sets:
        raise KeyError("orders-<colour>")
    return sets[0].id


def orders_of(game: Game) -> dict[str, Order]:
    """Return the orders of the first colour (the order-sets rule keeps the others alike)."""
    return {c.id: order_from(c) for c in game.part(reference_set(game)).cards
            if len(c.fields.get("effects") or []) == 3}


@dataclass(frozen=True)
class Play:
    """A player's two orders for a round, in seat order, and the choices the orders ask for."""

    player: str
    orders: tuple[str, str]
    give: str = "food"      # what a trade pays with
    take: str = "wood"      # what a trade receives
    pick: str = "food"      # a resource of the player's choice
    boosts: tuple[str, ...] = ()  # one entry per owned idea that adds to an order


@dataclass
class Outcome:
    """What an action phase gave: per order and player, the order carried out, and totals."""

    taken: dict[tuple[str, str], Counter] = field(default_factory=dict)
    sequence: list[str] = field(default_factory=list)

    def total(self, player: str) -> Counter:
        """Return everything a player gained (negative: paid) in the phase."""
        out: Counter = Counter()
        for (_, who), got in self.taken.items():
            if who == player:
                out.update(got)
        return out


def _carry_out(effect: Effect, play: Play, got: Counter) -> None:
    for r in RESOURCES:
        got[r] += getattr(effect, r)
    got[play.pick] += effect.any
    got["stolen"] += effect.steal
    got["happiness"] += effect.happiness
    if effect.take:
        got[play.give] -= effect.give
        got[play.take] += effect.take


def _boost(effect: Effect, play: Play, got: Counter) -> None:
    """Add one more of what the effect gave (an idea such as the Pickaxe)."""
    for r in RESOURCES:
        if getattr(effect, r):
            got[r] += 1
    if effect.any:
        got[play.pick] += 1
    if effect.take:
        got[play.take] += 1
    if effect.happiness:
        got["happiness"] += 1


def resolve_actions(orders: dict[str, Order], plays: list[Play]) -> Outcome:
    """Carry out every numbered order from the lowest, players in seat order from the leader."""
    chosen = Counter(o for play in plays for o in play.orders)
    doubling = orders.get(DOUBLING)
    outcome = Outcome()
    numbered = sorted((o for o in orders.values() if o.number is not None and chosen[o.id]),
                      key=lambda o: o.number)
    for order in numbered:
        outcome.sequence.append(order.id)
        effect = order.effect(chosen[order.id])
        for play in plays:
            if order.id not in play.orders:
                continue
            times = 1
            if DOUBLING in play.orders and doubling is not None:
                times = max(doubling.effect(chosen[DOUBLING]).repeat, 1)
            got: Counter = Counter()
            for _ in range(times):
                _carry_out(effect, play, got)
                for boosted in play.boosts:
                    if boosted == order.id:
                        _boost(effect, play, got)
            outcome.taken[order.id, play.player] = Counter({k: v for k, v in got.items()
                                                            if v})
    return outcome


# The rulebook's sample round: four players, Ania holds the helm.
SAMPLE_ROUND = (Play("Ania", ("logging", "hunting")),
                Play("Bartek", ("logging", "doubling")),
                Play("Czarek", ("trading", "hunting"), give="food", take="wood"),
                Play("Daria", ("quarrying", "hunting")))
SAMPLE_SEQUENCE = ("logging", "hunting", "quarrying", "trading")
SAMPLE_RESULT = {("logging", "Ania"): {"wood": 3},
                 ("logging", "Bartek"): {"wood": 6},
                 ("hunting", "Ania"): {"food": 1},
                 ("hunting", "Czarek"): {"food": 1},
                 ("hunting", "Daria"): {"food": 1},
                 ("quarrying", "Daria"): {"stone": 2},
                 ("trading", "Czarek"): {"food": -1, "wood": 3}}

# The rulebook's Thieving example: Bartek alone on Thieving, Doubling shared with Daria. The
# example leaves the other orders open; these avoid Thieving and Doubling, as it says.
THIEVING_EXAMPLE = (Play("Ania", ("logging", "hunting")),
                    Play("Bartek", ("thieving", "doubling")),
                    Play("Czarek", ("hunting", "quarrying")),
                    Play("Daria", ("logging", "doubling")))
THIEVING_EXAMPLE_STOLEN = 2

# The rulebook's Pickaxe example: Quarrying and Doubling give the Pickaxe's owner 2 more stone.
PICKAXE_EXAMPLE = (Play("Owner", ("quarrying", "doubling")),)
PICKAXE_EXTRA_STONE = 2


def _signed(counter: dict) -> dict:
    return {k: v for k, v in counter.items() if v}


def _describe(got: dict) -> str:
    return ", ".join(f"{v:+d} {k}" for k, v in sorted(got.items())) or "nothing"


def sample_round_findings(orders: dict[str, Order], ref: str):
    """Yield where the order data makes the sample round differ from the rulebook."""
    outcome = resolve_actions(orders, list(SAMPLE_ROUND))
    if tuple(outcome.sequence) != SAMPLE_SEQUENCE:
        yield Finding(f"the sample round resolves {' -> '.join(outcome.sequence)}; the "
                      f"rulebook resolves {' -> '.join(SAMPLE_SEQUENCE)}", ref)
    for key in sorted(set(SAMPLE_RESULT) | set(outcome.taken)):
        want = _signed(SAMPLE_RESULT.get(key, {}))
        have = _signed(outcome.taken.get(key, {}))
        if want != have:
            order, player = key
            yield Finding(f"sample round: {player}'s {order.capitalize()} gives "
                          f"{_describe(have)}; the rulebook says {_describe(want)}",
                          ref, order)


# -- Rules --------------------------------------------------------------------------------

@rule("cvlizations.order-sets", "five colours, each with Thieving 1 ... Trading 7 and an "
      "unnumbered Doubling, all drawing the same orders")
def check_order_sets(game: Game):
    sets = order_sets(game)
    colours = [p.id[len(ORDER_SET_PREFIX):] for p in sets]
    if len(sets) != COLOURS:
        yield Finding(f"expected {COLOURS} order sets (components orders-<colour>), found "
                      f"{len(sets)}: {', '.join(colours) or 'none'}")
    palette = game.manifest.style.colors
    reference = None
    for part, colour in zip(sets, colours):
        if colour not in palette:
            yield Finding(f"colour '{colour}' of {part.id} has no entry in style.colors")
        cards = {c.id: c for c in part.cards}
        for order_id, name, number in ORDERS:
            card = cards.get(order_id)
            if card is None:
                yield Finding(f"{part.id} lacks the {name} order", part.id)
                continue
            if card.name != name:
                yield Finding(f"order '{order_id}' must be named {name}, not {card.name}",
                              part.id, card.id, ("name",))
            if card.fields.get("number") != number:
                want = f"number {number}" if number else "no number"
                yield Finding(f"{name} must carry {want}, not {card.fields.get('number')}",
                              part.id, card.id, ("number",))
            if card.copies != 1:
                yield Finding(f"{name} appears {card.copies} times in one colour; once is "
                              "right", part.id, card.id, ("copies",))
        known = {o for o, _, _ in ORDERS}
        for card in part.cards:
            if card.id not in known:
                yield Finding(f"'{card.id}' is not one of the 8 orders", part.id, card.id)
        effects = {c.id: c.fields.get("effects") for c in part.cards}
        if reference is None:
            reference = (part.id, effects)
        elif effects != reference[1]:
            yield Finding(f"{part.id} gives different effects from {reference[0]}; every "
                          "colour plays the same orders", part.id)
    if len(set(colours)) != len(colours):
        yield Finding("two order sets share a colour")


@rule("cvlizations.orders-best-in-pairs", "orders work best for two players, less alone "
      "(Trading: best alone) and least for three or more")
def check_best_in_pairs(game: Game):
    ref = reference_set(game)
    orders = orders_of(game)
    strictly_best_in_pairs = 0
    for order in orders.values():
        alone, pair, crowd = (e.worth() for e in order.effects)
        if order.id == TRADING:
            if not alone > pair >= crowd:
                yield Finding(f"Trading must work best alone, then for two, then for more "
                              f"(worth {alone}/{pair}/{crowd})", ref, order.id,
                              ("effects",))
            continue
        if not pair >= alone >= crowd:
            yield Finding(f"{order.name} must work best for two players, then alone, then "
                          f"for three or more (worth {alone}/{pair}/{crowd})", ref,
                          order.id, ("effects",))
        strictly_best_in_pairs += pair > alone
    if strictly_best_in_pairs * 2 <= len(orders):
        yield Finding(f"most orders must work best for exactly two players; only "
                      f"{strictly_best_in_pairs} of {len(orders)} do", ref)


@rule("cvlizations.crowded-orders-fail", "Thieving, Cunning, Slacking and Doubling do nothing "
      "for three or more players; every other order still does something")
def check_crowded_orders(game: Game):
    ref = reference_set(game)
    for order in orders_of(game).values():
        crowd = order.effect(3)
        if order.id in FAIL_IN_A_CROWD and not crowd.fails:
            yield Finding(f"{order.name} must fail when three or more players chose it",
                          ref, order.id, ("effects", 2))
        if order.id not in FAIL_IN_A_CROWD and crowd.fails:
            yield Finding(f"{order.name} must still work when three or more players chose it",
                          ref, order.id, ("effects", 2))
        for i, effect in enumerate(order.effects[:2]):
            if effect.fails:
                yield Finding(f"{order.name} does nothing for {CROWD_NAMES[i]}; only a crowd "
                              "makes an order fail", ref, order.id, ("effects", i))


@rule("cvlizations.doubling-repeats", "Doubling only makes the other order happen twice, and "
      "no other order repeats anything")
def check_doubling(game: Game):
    ref = reference_set(game)
    for order in orders_of(game).values():
        for i, effect in enumerate(order.effects):
            if order.id == DOUBLING:
                if not effect.fails and (effect.repeat != 2 or
                                         Effect(repeat=effect.repeat) != effect):
                    yield Finding(f"Doubling for {CROWD_NAMES[i]} must carry out the other "
                                  "order twice and do nothing else", ref, order.id,
                                  ("effects", i))
            elif effect.repeat:
                yield Finding(f"{order.name} repeats an order; only Doubling does",
                              ref, order.id, ("effects", i))


@rule("cvlizations.thieving-example", "the rulebook's example: lone Thieving steals 1 resource "
      "from one player, and with a shared Doubling, 2")
def check_thieving_example(game: Game):
    ref = reference_set(game)
    orders = orders_of(game)
    thieving = orders.get(THIEVING)
    if thieving is None:
        return
    if thieving.effect(1) != Effect(steal=1):
        yield Finding("Thieving alone must steal 1 resource from one player and do nothing "
                      "else", ref, THIEVING, ("effects", 0))
    stolen = resolve_actions(orders, list(THIEVING_EXAMPLE)).total("Bartek")["stolen"]
    if stolen != THIEVING_EXAMPLE_STOLEN:
        yield Finding(f"in the rulebook's example Bartek steals {THIEVING_EXAMPLE_STOLEN} "
                      f"resources with Thieving and Doubling; the order data gives {stolen}",
                      ref, THIEVING)


@rule("cvlizations.thieving-pair-victims", "when two players chose Thieving, each steals from "
      "two different players (one resource from each)")
def check_thieving_pair(game: Game):
    ref = reference_set(game)
    thieving = orders_of(game).get(THIEVING)
    if thieving is not None and thieving.effect(2) != Effect(steal=2):
        yield Finding("Thieving for two players must steal 1 resource from each of 2 "
                      "different players and do nothing else", ref, THIEVING,
                      ("effects", 1))


@rule("cvlizations.sample-round", "the rulebook's sample round comes out as printed when "
      "replayed from the order cards")
def check_sample_round(game: Game):
    yield from sample_round_findings(orders_of(game), reference_set(game))


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


@rule("cvlizations.order-aid-matches-orders", "the order aid lists every order, in sequence, "
      "with the effects on the order cards")
def check_order_aid(game: Game):
    orders = orders_of(game)
    for card in game.part("aids").cards:
        if card.fields.get("layout") != "orders":
            continue
        rows = card.fields.get("rows") or []
        listed = [r.get("order") for r in rows]
        want = [o for o, _, _ in ORDERS]
        if listed != want:
            yield Finding(f"the order aid lists {', '.join(map(str, listed))}; it must list "
                          f"{', '.join(want)}", "aids", card.id, ("rows",))
        for i, row in enumerate(rows):
            order = orders.get(row.get("order"))
            effects = tuple(Effect.of(e) for e in row.get("effects") or [])
            if order is not None and effects != order.effects:
                yield Finding(f"the order aid's {order.name} row differs from the "
                              f"{order.name} card", "aids", card.id, ("rows", i, "effects"))


# -- Template helpers --------------------------------------------------------------------

@template_global("cvlizations_effect")
def effect_markup(raw, compact: bool = False) -> str:
    """Return an order effect as text markup with resource icons (short form for tables)."""
    e = Effect.of(raw)
    parts = []
    for r in RESOURCES:
        if getattr(e, r):
            parts.append(f"**+{getattr(e, r)}** :{r}:")
    if e.any:
        parts.append(f"**+{e.any}** :any:" if compact else f"**+{e.any}** :any: of your choice")
    if e.happiness:
        parts.append(f"**+{e.happiness}** :happiness:")
    if e.steal:
        if compact:
            parts.append(NBSP.join(["steal"] + [":any:"] * e.steal))
        elif e.steal == 1:
            parts.append("**Steal** 1 :any: from a player")
        else:
            parts.append(f"**Steal** 1 :any: from each of {e.steal} players")
    if e.take:
        if compact:
            parts.append(NBSP.join([str(e.give), ":any:", "→", str(e.take)]))
        else:
            parts.append(f"**Trade** {e.give} :any: for **{e.take}** of another kind")
    if e.repeat:
        parts.append(f"×{e.repeat}" if compact else
                     ("Do your other order **twice**" if e.repeat == 2 else
                      f"Do your other order **{e.repeat} times**"))
    if not parts:
        return "—" if compact else "Nothing happens"
    return " ".join(parts)


# Order values the rulebook and the public facts state outright, by how many players chose the
# order (1, 2, 3 = three or more). The sample round and the Thieving example fix all but
# Quarrying for two, which the published order cards give (shared/reference/games-facts.md).
STATED_VALUES = {("logging", 2): {"wood": 3}, ("hunting", 3): {"food": 1},
                 ("quarrying", 1): {"stone": 2}, ("quarrying", 2): {"stone": 3},
                 ("trading", 1): {"give": 1, "take": 3}, ("thieving", 1): {"steal": 1},
                 ("thieving", 2): {"steal": 2}, ("doubling", 1): {"repeat": 2},
                 ("doubling", 2): {"repeat": 2}}

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


@rule("cvlizations.order-values", "every order value the rulebook or the published cards state "
      "holds: Logging 3 wood for two, Quarrying 2 stone alone and 3 for two, Hunting 1 food for "
      "three or more, Trading 1 for 3 alone, Thieving and Doubling as in the examples")
def check_order_values(game: Game):
    ref = reference_set(game)
    orders = orders_of(game)
    for (order_id, crowd), want in sorted(STATED_VALUES.items()):
        order = orders.get(order_id)
        if order is None:
            continue
        if order.effect(crowd) != Effect.of(want):
            yield Finding(f"{order.name} for {CROWD_NAMES[crowd - 1]} must give "
                          f"{_describe(want)}", ref, order_id, ("effects", crowd - 1))


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


sheet_text = sheet_text_rule(
    "cvlizations",
    "the aids and the board restate the rulebook's rules as the fact table lists them"
)
