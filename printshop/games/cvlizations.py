"""CVlizations (Civilizations by Granna): its orders, a round resolver and the order effect's
template helper.

The resolver carries out one action phase from the order cards' data, so the rulebook's sample
round and worked examples are replayed against the shipped orders and ideas: a change to the
data that would contradict a printed example is reported with the rule it breaks. The rules
live in cvlizations_orders.py (the order cards, the aid and the worked rounds) and
cvlizations_ideas.py (the idea deck); loading the game loads them all.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from ..check.rules import sheet_text_rule
from ..draw.helpers import template_global
from ..load.models import Card, Game, Part

RESOURCES = ("food", "wood", "stone")
EFFECT_KEYS = ("food", "wood", "stone", "any", "steal", "give", "take", "happiness", "repeat")

# The rulebook's orders in the sequence they are carried out; Doubling has no number.
ORDERS = (("thieving", "Thieving", 1), ("logging", "Logging", 2), ("hunting", "Hunting", 3),
          ("quarrying", "Quarrying", 4), ("cunning", "Cunning", 5),
          ("slacking", "Slacking", 6), ("trading", "Trading", 7),
          ("doubling", "Doubling", None))
DOUBLING = "doubling"
ORDER_SET_PREFIX = "orders-"
NBSP = "\u00a0"  # keeps a short table cell such as "1 (any) -> 3" on one line


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


sheet_text = sheet_text_rule(
    "cvlizations",
    "the aids and the board restate the rulebook's rules as the fact table lists them"
)
