"""PocketCiv's rules on the tracking sheet: a box for each visiting Empire, the round's phases
and Upkeep duties in order; and the rulebook's worked examples of costs and scoring, replayed
from the numbers the sheet and the Advance cards print."""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..check.rules import Finding, rule
from ..load.models import Game
from .pocketciv import VISITORS
from .pocketciv_advances import advances_by_id


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
    track, cards = _tracking_text(game), advances_by_id(game)

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
