"""Scenarios: a titled world (a seeded or hand-drawn map with preset terrain, Tribes and
Cities), a starting Era and Advances, special rules, and a goal to reach by a deadline Era.

The scenario book is a booklet component (id ``scenarios``) whose data lists the scenarios
under ``pages:``. Its rules (``pocketciv.scenario-*``) join the game's validator; the
``pocketciv_map`` template helper draws each scenario's map on its page.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Iterable, Literal

from markupsafe import Markup

from ...check.rules import Finding, rule
from ...draw.helpers import template_global
from ...files.errors import PrintshopError
from ...load.models import Game
from ...load.source import Document
from ...load.strict import Field, Record, ValidationError
from .model import ICONS, WorldMap, map_from_data
from .seed import SeedError, parse_seed

BOOK = "scenarios"
ADVANCES = "advances"
LEAST = 8
ERA = Field(ge=1, le=8)
BASE_CITY_AV = 2
CAPITOL_AV = 10
CAPITOL_ADVANCE = "centralized-government"


class _Strict(Record):
    """Base of the scenario models: unknown keys are errors."""


class Start(_Strict):
    """Where a scenario begins: the Era, the Advances already owned, Gold in hand."""

    era: int = ERA
    advances: list[str] = Field(default_factory=list, max_length=49)
    gold: int = Field(0, ge=0, le=99)


class Scenario(_Strict):
    """One scenario as written in scenarios.yaml."""

    id: str = Field(pattern=r"^[a-z0-9][a-z0-9-]*$", max_length=64,
                    means="an id of lowercase letters, digits and '-'")
    title: str = Field(min_length=1, max_length=60)
    flavour: str = Field("", max_length=600)   # no rule: printed.flavour checks it
    map: dict
    terrain: dict[int, list[Literal[ICONS]]] = Field(default_factory=dict)
    tribes: dict[int, int] | None = None
    cities: dict[int, int] = Field(default_factory=dict)
    capitol: int | None = None
    start: Start = Field(default_factory=Start)
    rules: list[str] = Field(default_factory=list, max_length=8)
    goal: str = Field(min_length=1, max_length=300)
    deadline: int = ERA


class ScenarioError(ValueError):
    """A scenario whose map cannot be built: its message says why, its path where."""

    def __init__(self, message: str, path: tuple = ()):
        super().__init__(message)
        self.path = path


def scenario_map(entry: dict, at: tuple = ()) -> WorldMap:
    """Build a scenario's world: its map (by seed or by hand) with the presets applied."""
    from .generate import check_algorithm, generate

    raw = entry.get("map")
    if not isinstance(raw, dict):
        raise ScenarioError("expected a map: {seed: ...} or a hand-drawn map", at + ("map",))
    if "seed" in raw and "regions" not in raw:
        if set(raw) != {"seed"}:
            raise ScenarioError("a map by seed gives only 'seed'", at + ("map",))
        try:
            seed = parse_seed(raw["seed"])
            check_algorithm(seed)
        except SeedError as exc:
            raise ScenarioError(str(exc), at + ("map", "seed")) from None
        world = generate(seed)
    else:
        try:
            world = map_from_data(raw, Document("", entry, {}), ("map",))
        except PrintshopError as exc:
            first = exc.problems[0]
            raise ScenarioError(first.message, at + first.path) from None
    return preset(world, entry, at)


def preset(world: WorldMap, entry: dict, at: tuple = ()) -> WorldMap:
    """Apply a scenario's terrain, Tribes and Cities to its map (by region number)."""
    numbers = {r.number for r in world.regions}
    for key in ("terrain", "tribes", "cities"):
        for number in entry.get(key) or {}:
            if number not in numbers:
                raise ScenarioError(f"there is no region {number} on this map",
                                    at + (key, number))
    terrain = entry.get("terrain") or {}
    tribes = entry.get("tribes")
    cities = entry.get("cities") or {}
    regions = [replace(r, icons=tuple(terrain.get(r.number, r.icons)),
                       tribes=r.tribes if tribes is None else tribes.get(r.number, 0),
                       city=cities.get(r.number, r.city))
               for r in world.regions]
    return replace(world, regions=tuple(regions), setup="preset")


def _book(game: Game):
    """Return the scenario book component and its list of scenarios."""
    part = game.part(BOOK)
    pages = (part.data or {}).get("pages") if isinstance(part.data, dict) else None
    return part, pages if isinstance(pages, list) else []


def _scenarios(game: Game) -> Iterable[tuple[int, dict, Scenario]]:
    """Yield (index, raw entry, checked scenario) for every well-formed scenario."""
    _, pages = _book(game)
    for i, entry in enumerate(pages):
        try:
            yield i, entry, Scenario.model_validate(entry)
        except ValidationError:
            continue


@rule("pocketciv.scenario-book", "the scenario book holds at least 8 scenarios")
def scenario_book(game: Game):
    """Check that the book is a booklet of at least 8 scenarios."""
    part, pages = _book(game)
    if part.kind != "booklet":
        yield Finding(f"component '{BOOK}' must be a booklet", BOOK)
    elif len(pages) < LEAST:
        yield Finding(f"the scenario book has {len(pages)} scenarios; it needs at least "
                      f"{LEAST}", BOOK, path=("pages",))


@rule("pocketciv.scenario-fields", "every scenario has a title, a map, a goal and a deadline")
def scenario_fields(game: Game):
    """Check every scenario against the scenario format."""
    _, pages = _book(game)
    for i, entry in enumerate(pages):
        try:
            Scenario.model_validate(entry)
        except ValidationError as exc:
            for where, what in exc.found:
                yield Finding(what, BOOK, path=("pages", i) + where)


@rule("pocketciv.scenario-ids", "scenario ids and titles are unique")
def scenario_ids(game: Game):
    """Check that ids and titles are not repeated."""
    seen: dict = {}
    for i, _, s in _scenarios(game):
        for key, value in (("id", s.id), ("title", s.title.lower())):
            if (key, value) in seen:
                yield Finding(f"{key} '{value}' is also used by pages[{seen[key, value]}]",
                              BOOK, path=("pages", i, key))
            seen.setdefault((key, value), i)


@rule("pocketciv.scenario-map", "each scenario's map passes every map rule and can be drawn")
def scenario_maps(game: Game):
    """Check each scenario's map (presets applied) against every map rule."""
    from .validate import validate_map

    for i, entry, s in _scenarios(game):
        at = ("pages", i)
        try:
            world = scenario_map(entry)
        except ScenarioError as exc:
            yield Finding(f"{s.title}: {exc}", BOOK, path=at + exc.path)
            continue
        if world.variant == "two-player":
            yield Finding(f"{s.title}: a scenario is for one player; its map cannot be the "
                          "two-player variant", BOOK, path=at + ("map",))
        if any(r.outline is None for r in world.regions):
            yield Finding(f"{s.title}: the map has no outlines, so it cannot be drawn in the "
                          "book; give every region an outline or use a seed", BOOK,
                          path=at + ("map",))
        for flaw in validate_map(world):
            place = at + _where(entry, world, flaw.at)
            yield Finding(f"{s.title}: [{flaw.rule}] {flaw.message}", BOOK, path=place)
        if s.capitol is not None and s.capitol not in s.cities:
            yield Finding(f"{s.title}: the Capitol is region {s.capitol}, which has no City",
                          BOOK, path=at + ("capitol",))


# A broken map rule on a region's key points at the scenario key that set it.
PRESET_KEYS = {"icons": "terrain", "tribes": "tribes", "city": "cities"}


def _where(entry: dict, world: WorldMap, at: tuple) -> tuple:
    """Return where in a scenario a map problem comes from: its preset, or its map."""
    if "regions" in entry["map"]:
        return ("map",) + at
    if len(at) >= 3 and at[0] == "regions" and at[2] in PRESET_KEYS:
        key, number = PRESET_KEYS[at[2]], world.regions[at[1]].number
        if number in (entry.get(key) or {}):
            return (key, number)
    return ("map",)


@rule("pocketciv.scenario-eras", "a scenario starts in Era 1-8 and its deadline is no earlier")
def scenario_eras(game: Game):
    """Check that no deadline comes before its start."""
    for i, _, s in _scenarios(game):
        if s.deadline < s.start.era:
            yield Finding(f"{s.title}: the deadline (end of Era {s.deadline}) comes before "
                          f"the start (Era {s.start.era})", BOOK, path=("pages", i, "deadline"))


def _advances(game: Game) -> dict[str, object]:
    """Return the game's Advance cards by lower-case name and by id."""
    cards = [c for c in game.part(ADVANCES).cards if c.fields.get("type") == "advance"]
    return {**{c.name.lower(): c for c in cards}, **{c.id: c for c in cards}}


@rule("pocketciv.scenario-advances", "starting Advances are real Advances, named once, "
      "each with what it requires")
def scenario_advances(game: Game):
    """Check the starting Advances and their requirements."""
    known = _advances(game)
    for i, _, s in _scenarios(game):
        owned: dict[str, int] = {}
        for k, name in enumerate(s.start.advances):
            card = known.get(name.lower())
            path = ("pages", i, "start", "advances", k)
            if card is None:
                yield Finding(f"{s.title}: '{name}' is not one of the 49 Advances", BOOK,
                              path=path)
            elif card.id in owned:
                yield Finding(f"{s.title}: {card.name} is listed twice", BOOK, path=path)
            else:
                owned[card.id] = k
        for card_id, k in owned.items():
            card = known[card_id]
            needs = list(card.fields.get("requires") or [])
            have = [n for n in needs if n in owned]
            short = not have if card.fields.get("requires_any") else len(have) < len(needs)
            if needs and short:
                names = [known[n].name if n in known else n for n in needs]
                joined = (" or " if card.fields.get("requires_any") else " and ").join(names)
                yield Finding(f"{s.title}: {card.name} requires {joined}, so the scenario "
                              "must start with that too", BOOK,
                              path=("pages", i, "start", "advances", k))


@rule("pocketciv.scenario-city-av", "starting City AVs respect the limit the Advances allow")
def scenario_city_av(game: Game):
    """Check starting City AVs against the limits the Advances set."""
    known = _advances(game)
    for i, _, s in _scenarios(game):
        owned = [known[a.lower()] for a in s.start.advances if a.lower() in known]
        limit = max([BASE_CITY_AV] + [int(c.fields.get("city_av_max") or 0) for c in owned])
        capitol = any(c.id == CAPITOL_ADVANCE for c in owned)
        for number, av in sorted(s.cities.items()):
            top = CAPITOL_AV if capitol and number == s.capitol else limit
            if not 1 <= av <= top:
                why = "a Capitol reaches 10" if top == CAPITOL_AV else \
                    f"the starting Advances allow AV {top}"
                yield Finding(f"{s.title}: the City in region {number} has AV {av}; {why}",
                              BOOK, path=("pages", i, "cities", number))
        if s.capitol is not None and not capitol:
            yield Finding(f"{s.title}: a Capitol needs Centralized Government among the "
                          "starting Advances", BOOK, path=("pages", i, "capitol"))


@template_global("pocketciv_map")
def pocketciv_map(entry, x, y, w, h, style, icon, low_ink=False) -> Markup:
    """Draw a scenario's map (its presets applied) in the box, with the game's look."""
    from .draw import Palette, draw_map

    try:
        world = scenario_map(dict(entry))
    except ScenarioError as exc:
        raise ValueError(f"scenario map: {exc}") from None
    palette = Palette.from_style(dict(style))
    if low_ink:
        palette = palette.low_ink()
    return Markup(draw_map(world, float(x), float(y), float(w), float(h), palette,
                           icon_adapter(icon)))


@template_global("pocketciv_map_origin")
def pocketciv_map_origin(entry) -> dict:
    """Return where a scenario's map comes from: its seed, variant and the command that
    prints it full size (or, drawn by hand, its name), and the command that prints it with
    the scenario's pieces set out."""
    from .variant import variant, variant_names

    entry = dict(entry)
    raw = entry.get("map") or {}
    as_set_out = f"printshop map pocketciv --scenario {entry.get('id')}"
    if "seed" in raw and "regions" not in raw:
        seed = parse_seed(raw["seed"])
        return {"seed": str(seed), "variant": variant(seed.variant).title,
                "command": seed.command(), "scenario_command": as_set_out, "name": ""}
    named = raw.get("variant", "standard")
    title = variant(named).title if named in variant_names() else str(named)
    return {"seed": "", "variant": title, "command": "", "scenario_command": as_set_out,
            "name": str(raw.get("name", ""))}


@template_global("pocketciv_map_legend")
def pocketciv_map_legend(x, y, w, style, icon, size=4.0, pt=7.5, columns=5) -> Markup:
    """Draw the map key (icons, Frontier, Sea), ``columns`` items to a row."""
    from .draw import Palette
    from .page import legend

    return Markup(legend(float(x), float(y), float(w), Palette.from_style(dict(style)),
                         icon_adapter(icon), float(size), float(pt), int(columns)))


def icon_adapter(icon):
    """Adapt the template's icon helper to the drawing code."""
    return lambda name, x, y, size: str(icon(name, x, y, size))
