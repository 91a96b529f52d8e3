"""PocketCiv's rules on the Event explanation cards: one for each Event and step, the
Advances they name, and the rulebook's numbers and conditions in their summaries and
modifiers."""

from __future__ import annotations

from ..check.rules import Finding, rule
from ..load.models import Game
from .pocketciv import EVENT_STEPS, EVENTS, missing_terms
from .pocketciv_advances import advances_by_id


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
    cards = advances_by_id(game)
    for card in game.part("event-guide").cards:
        for i, mod in enumerate(card.fields.get("modifiers") or []):
            for j, name in enumerate(mod.get("advances") or []):
                if cards.get(name) is None or cards[name].fields.get("type") != "advance":
                    yield Finding(f"names '{name}', which is not an Advance", "event-guide",
                                  card.id, ("modifiers", i, "advances", j))


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
        for term in missing_terms(" ".join(str(card.fields.get("summary") or "").split()),
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
            for term in missing_terms(mods[i].get("text"), terms):
                yield Finding(f"{card.name}, {' / '.join(advances)}: must say '{term}' "
                              "(rulebook)", "event-guide", card.id, ("modifiers", i, "text"))
