"""Deity: the rules its data must obey, and the worked examples of its rulebook replayed.

The small engine here (chains, sets, trades, militarism, war targets, scoring) follows the
rulebook's definitions; the validator runs the rulebook's examples through it with the
shipped cards, so a data change that would contradict the rulebook is caught.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..check.rules import Finding, rule, sheet_text_rule
from ..files.errors import PrintshopError
from ..load.models import Card, Game
from ..load.source import load_document

POSITIONS = {"left": ("food", "militarism"), "centre": ("population", "resources"),
             "right": ("technology", "disease")}
STACK = ["age:1", "war", "age:2", "war", "leap", "age:3", "war", "leap", "age:4", "war",
         "age:5", "age:atomic"]
DEVOTION_CAP = 5
CARRY_OVER = 1
UNBREAKABLE = ("technology", "disease")


def attributes(card: Card | None) -> set[str]:
    """Return the attribute suits a civilization card shows."""
    if card is None:
        return set()
    return {card.fields.get(p) for p in POSITIONS} - {None}


@dataclass(frozen=True)
class Nation:
    """A nation in play: its card, its tech level (1-5) and its column, bottom card first."""

    card: Card
    level: int
    column: tuple[frozenset, ...]

    def card_attributes(self) -> list[tuple[int, str]]:
        """Return (level, suit) for every coin exposed on the nation card."""
        return [(i + 1, suit) for i, row in enumerate(self.card.fields["levels"][:self.level])
                for suit in row["attributes"]]

    def count(self, suit: str) -> int:
        """Return how many icons of a suit the nation has, card and column."""
        on_card = sum(1 for _, s in self.card_attributes() if s == suit)
        return on_card + sum(1 for attrs in self.column if suit in attrs)

    def militarism(self) -> int:
        """Return the militarism total; nation-card coins count 2 at tech levels IV and V."""
        weight = 2 if self.level >= 4 else 1
        on_card = sum(weight for _, s in self.card_attributes() if s == "militarism")
        return on_card + sum(1 for attrs in self.column if "militarism" in attrs)


def chains(column: tuple[frozenset, ...]) -> list[list[int]]:
    """Return the chains of a column (1-based positions from the bottom), linked chains merged."""
    out: list[list[int]] = []
    for i in range(1, len(column)):
        if column[i - 1] & column[i]:
            if out and out[-1][-1] == i:
                out[-1].append(i + 1)
            else:
                out.append([i, i + 1])
    return out


def sets(nation: Nation) -> set[str]:
    """Return the suits in which a nation has a set: 3 in a row, or 4 anywhere."""
    found = set()
    for suit in {s for attrs in nation.column for s in attrs} | \
            {s for _, s in nation.card_attributes()}:
        run = best = 0
        for attrs in nation.column:
            run = run + 1 if suit in attrs else 0
            best = max(best, run)
        if best >= 3 or nation.count(suit) >= 4:
            found.add(suit)
    return found


def legal_trades(column: tuple[frozenset, ...]) -> list[int]:
    """Return how many bottom cards may be traded: one card or a chain, never cutting a
    technology or disease chain."""
    legal = []
    for k in range(1, len(column) + 1):
        moved = column[:k]
        if k > 1 and any(not (moved[i] & moved[i + 1]) for i in range(k - 1)):
            continue
        if k < len(column) and column[k - 1] & column[k] & set(UNBREAKABLE):
            continue
        legal.append(k)
    return legal


def war_targets(nations: list[Nation], attackers: list[int]) -> dict[int, list[int]]:
    """Return, for each attacker, the neighbour(s) it may attack (ties leave a choice)."""
    out = {}
    for a in attackers:
        neighbours = [n for n in (a - 1, a + 1) if 0 <= n < len(nations)]
        weakest = min(nations[n].militarism() for n in neighbours)
        out[a] = [n for n in neighbours if nations[n].militarism() == weakest]
    return out


def score(monuments: list[int], levels: list[int], unused_interventions: int,
          ages_per_nation: list[int]) -> dict:
    """Return the scoring pad's columns A-E and the final score."""
    col_a = sorted(monuments, reverse=True)
    col_b = sorted(levels)
    col_c = sum(a * b for a, b in zip(col_a, col_b))
    col_d = 2 * unused_interventions
    col_e = sum(n * n for n in ages_per_nation)
    return {"A": col_a, "B": col_b, "C": col_c, "D": col_d, "E": col_e,
            "score": col_c + col_d - col_e}


# --- rules -----------------------------------------------------------------------------

def _stack_key(card: Card) -> str:
    kind = card.fields["type"]
    if kind != "age":
        return kind
    era = card.fields.get("era")
    return f"age:{era}" if era else "age:atomic"


@rule("deity.progression-count", "12 progression cards: 6 ages, 4 wars, 2 technological leaps")
def progression_count(game: Game):
    cards = game.part("progression").cards
    counts = {k: sum(c.copies for c in cards if c.fields["type"] == k)
              for k in ("age", "war", "leap")}
    want = {"age": 6, "war": 4, "leap": 2}
    for kind, n in want.items():
        if counts[kind] != n:
            yield Finding(f"expected {n} {kind} cards, found {counts[kind]}", "progression")
    total = sum(c.copies for c in cards)
    if total != 12:
        yield Finding(f"expected 12 progression cards, found {total}", "progression")


@rule("deity.progression-order",
      "the stack runs stone I on top, each war and leap where it is revealed, atomic at the bottom")
def progression_order(game: Game):
    cards = [c for c in game.part("progression").cards for _ in range(c.copies)]
    have = [_stack_key(c) for c in cards]
    if have != STACK:
        for i, (want, got) in enumerate(zip(STACK, have)):
            if want != got:
                yield Finding(f"position {i + 1} of the stack should be {want}, found {got}",
                              "progression", cards[i].id)
                return
        yield Finding(f"the stack should have {len(STACK)} cards in order "
                      f"{', '.join(STACK)}; found {', '.join(have)}", "progression")


@rule("deity.devotion-cap", "an age gives at most 4 devotions, so a turn never starts above 5")
def devotion_cap(game: Game):
    for card in game.part("progression").cards:
        kind, devotions = card.fields["type"], card.fields.get("devotions")
        if kind == "age" and card.fields.get("era"):
            if devotions is None or devotions < 1:
                yield Finding("an age card needs a devotion value (its sun coin)", "progression",
                              card.id, ("devotions",))
            elif devotions + CARRY_OVER > DEVOTION_CAP:
                yield Finding(f"{devotions} devotions plus 1 carried over exceeds the cap of "
                              f"{DEVOTION_CAP}", "progression", card.id, ("devotions",))
        elif devotions is not None:
            yield Finding("only the five numbered ages carry devotions", "progression", card.id,
                          ("devotions",))


@rule("deity.age-icons",
      "shipping from powder IV on, plagues eradicated on steel V only, atomic age unmarked")
def age_icons(game: Game):
    for card in game.part("progression").cards:
        era = card.fields.get("era")
        is_age = card.fields["type"] == "age"
        want_ship = is_age and era is not None and era >= 4
        want_plague = is_age and era == 5
        if card.fields["shipping"] != want_ship:
            yield Finding(f"shipping icon should be {'shown' if want_ship else 'absent'}",
                          "progression", card.id, ("shipping",))
        if card.fields["plagues_eradicated"] != want_plague:
            yield Finding(f"plague-eradicated icon should be "
                          f"{'shown' if want_plague else 'absent'}", "progression", card.id,
                          ("plagues_eradicated",))


@rule("deity.interventions", "three intervention cards: Leader, Revival and Smite")
def interventions(game: Game):
    cards = game.part("interventions").cards
    names = sorted(c.name for c in cards for _ in range(c.copies))
    if names != ["Leader", "Revival", "Smite"]:
        yield Finding(f"expected Leader, Revival and Smite once each, found "
                      f"{', '.join(names) or 'none'}", "interventions")


@rule("deity.attribute-positions",
      "food and militarism sit left, population and resources centre, technology and disease "
      "right")
def attribute_positions(game: Game):
    for card in game.part("civilization").cards:
        for position, allowed in POSITIONS.items():
            suit = card.fields.get(position)
            if suit is not None and suit not in allowed:
                yield Finding(f"{suit} cannot sit in the {position} position (only "
                              f"{' or '.join(allowed)})", "civilization", card.id, (position,))


@rule("deity.civilization-attributes", "every civilization card carries at least one attribute")
def civilization_attributes(game: Game):
    for card in game.part("civilization").cards:
        if not attributes(card):
            yield Finding("the card carries no attribute", "civilization", card.id)


@rule("deity.nation-militarism",
      "nation cards show militarism only on rows IV and V, where it counts double")
def nation_militarism(game: Game):
    for card in game.part("nations").cards:
        for i, row in enumerate(card.fields["levels"]):
            if "militarism" in row["attributes"] and i < 3:
                yield Finding(f"militarism on level {i + 1}; it may appear only on levels IV "
                              "and V", "nations", card.id, ("levels", i, "attributes"))


# The nation cards' deal counts are the project's design (DESIGN.md, Nation cards): the
# rulebook shows them only in pictures, and says only that levels may deal differently.
DEALS = (1, 1, 2, 2, 3)


@rule("deity.deal-counts",
      "every nation card deals 1, 1, 2, 2, 3 cards at levels I-V, as DESIGN.md records")
def deal_counts(game: Game):
    for card in game.part("nations").cards:
        for i, row in enumerate(card.fields["levels"]):
            if i < len(DEALS) and row.get("deal") != DEALS[i]:
                yield Finding(f"level {i + 1} deals {row.get('deal')}; the design deals "
                              f"{DEALS[i]} (DESIGN.md)", "nations", card.id,
                              ("levels", i, "deal"))


def _examples(game: Game) -> dict:
    path = Path(game.data_dir) / "examples.yaml"
    doc = load_document(path, f"data/{game.id}/examples.yaml")
    return doc.data or {}


def _nation(game: Game, entry: dict) -> Nation:
    civ = {c.id: c for c in game.part("civilization").cards}
    nations = {c.id: c for c in game.part("nations").cards}
    missing = [cid for cid in entry.get("cards_bottom_up", []) if cid not in civ]
    if missing:
        raise KeyError(f"unknown civilization card(s) {', '.join(missing)}")
    card = nations.get(entry.get("nation")) if entry.get("nation") else None
    if entry.get("nation") and card is None:
        raise KeyError(f"unknown nation '{entry['nation']}'")
    column = tuple(frozenset(attributes(civ[cid])) for cid in entry.get("cards_bottom_up", []))
    blank = Card("none", "none", 1, {"levels": [{"deal": 1, "attributes": []}] * 5})
    return Nation(card or blank, int(entry.get("level", 1)), column)


def _example_rule(name):
    """Wrap an example replay so bad example data is reported, not raised."""
    def wrap(fn):
        def run(game: Game):
            try:
                example = _examples(game).get(name)
                if not example:
                    yield Finding(f"examples.yaml has no '{name}' example")
                    return
                yield from fn(game, example)
            except PrintshopError as exc:
                yield from (Finding(str(p)) for p in exc.problems)
            except (KeyError, TypeError, ValueError) as exc:
                yield Finding(f"examples.yaml, {name}: {exc}")
        run.__name__ = fn.__name__
        return run
    return wrap


@rule("deity.example-chains-and-sets",
      "the rulebook's chains-and-sets example (nations A-D) holds for the shipped cards")
@_example_rule("chains_and_sets")
def example_chains(game: Game, entries):
    for entry in entries:
        nation = _nation(game, entry)
        pos = entry["position"]
        got_chains = chains(nation.column)
        if got_chains != entry["chains"]:
            yield Finding(f"nation {pos}: chains should be {entry['chains']}, the cards give "
                          f"{got_chains}", "civilization")
        got_sets = sorted(sets(nation))
        if got_sets != sorted(entry["sets"]):
            yield Finding(f"nation {pos}: sets should be {sorted(entry['sets']) or 'none'}, "
                          f"the cards give {got_sets or 'none'}", "nations", nation.card.id)
        extra = entry.get("sets_if_added")
        if extra:
            more = _nation(game, {**entry, "cards_bottom_up":
                                  [extra["card"]] + list(entry["cards_bottom_up"])})
            if sorted(sets(more)) != sorted(extra["sets"]):
                yield Finding(f"nation {pos}: adding {extra['card']} should complete "
                              f"{extra['sets']}", "civilization")


@rule("deity.example-trades", "the rulebook's trading example (nations A-C) holds")
@_example_rule("trades")
def example_trades(game: Game, entries):
    for entry in entries:
        nation = _nation(game, entry)
        got = legal_trades(nation.column)
        if got != entry["legal"]:
            yield Finding(f"nation {entry['position']}: the rulebook allows trading the bottom "
                          f"{entry['legal']} card(s); the cards allow {got}", "civilization")


@rule("deity.example-war", "the rulebook's war example: A attacks B, D attacks C (3 < 4)")
@_example_rule("war")
def example_war(game: Game, example):
    entries = example["nations"]
    nations = [_nation(game, e) for e in entries]
    letters = [e["position"] for e in entries]
    for letter, want in example["militarism"].items():
        got = nations[letters.index(letter)].militarism()
        if got != want:
            yield Finding(f"nation {letter}'s militarism should total {want}, the cards give "
                          f"{got}", "nations", nations[letters.index(letter)].card.id)
    targets = war_targets(nations, [letters.index(a) for a in example["war_cards"]])
    for attacker, defender in example["attacks"].items():
        options = [letters[i] for i in targets[letters.index(attacker)]]
        if options != [defender]:
            yield Finding(f"nation {attacker} should attack {defender}; the totals point to "
                          f"{' or '.join(options)}", "nations")


@rule("deity.example-scoring", "the scoring example's columns A-E add up as the rules say")
@_example_rule("scoring")
def example_scoring(game: Game, example):
    ages = {c.id for c in game.part("progression").cards if c.fields["type"] == "age"}
    held = [list(n["ages"]) for n in example["nations"]]
    for n in held:
        for a in n:
            if a not in ages:
                yield Finding(f"'{a}' is not an age card", "progression")
                return
    for n in held:
        if example["removed_age"] in n:
            n.remove(example["removed_age"])
            break
    result = score([n["monuments"] for n in example["nations"]],
                   [n["level"] for n in example["nations"]],
                   len(example["unused_interventions"]), [len(n) for n in held])
    for column, want in example["columns"].items():
        if result[column] != want:
            yield Finding(f"column {column} should be {want}, scoring gives {result[column]}")
    if result["score"] != example["score"]:
        yield Finding(f"the final score should be {example['score']}, scoring gives "
                      f"{result['score']}")


AGE_NAMES = [(1, "Stone Age"), (2, "Bronze Age"), (3, "Iron Age"), (4, "Powder Age"),
             (5, "Steel Age"), (None, "Atomic Age")]
INTERVENTION_TERMS = {"Leader": ("one nation", "any order"),
                      "Revival": ("1 extra", ":devotion:"),
                      "Smite": ("any one card", "Technology and disease chains may be broken")}


@rule("deity.age-names",
      "the ages run stone I, bronze II, iron III, powder IV, steel V, then the unmarked atomic")
def age_names(game: Game):
    ages = [c for c in game.part("progression").cards if c.fields["type"] == "age"]
    have = [(c.fields.get("era"), c.name) for c in ages]
    for i, (want, got) in enumerate(zip(AGE_NAMES, have)):
        if want != got:
            yield Finding(f"age {i + 1} of the stack should be {want[1]} (era {want[0]}), found "
                          f"{got[1]} (era {got[0]})", "progression", ages[i].id)


@rule("deity.intervention-effects",
      "Leader reorders one column, Revival gives 1 extra devotion, Smite discards any one card "
      "and may break technology and disease chains")
def intervention_effects(game: Game):
    for card in game.part("interventions").cards:
        for term in INTERVENTION_TERMS.get(card.name, ()):
            if term not in card.fields["effect"]:
                yield Finding(f"{card.name}'s effect must say '{term}'", "interventions",
                              card.id, ("effect",))


sheet_text = sheet_text_rule(
    "deity",
    "the turn reference restates the rulebook's numbers as the fact table lists them"
)
