"""The maps in PocketCiv's print-and-play file: a world drawn full size from the seed that a
sheet component states in game.yaml (``params: {seed, variant}``), and the numbers the blank
map sheet prints for the rulebook's draw-your-own method.

The rule ``pocketciv.map-sheet`` generates and validates each such world before anything is
drawn, so a seed that gives an illegal map stops the build with the place of the seed.
"""

from __future__ import annotations

from markupsafe import Markup

from ...check.rules import Finding, rule
from ...draw.helpers import template_global
from ...load.models import Game
from .model import WorldMap
from .scenario import icon_adapter
from .seed import SeedError, parse_seed
from .variant import variant, variant_names

PARAMS = ("seed", "variant")


class MapSheetError(ValueError):
    """A map sheet's settings that name no map: its message says why, its key where."""

    def __init__(self, message: str, key: str):
        super().__init__(message)
        self.key = key


def sheet_world(params: dict) -> WorldMap:
    """Generate the world a map sheet's ``params`` name (its seed, and variant if given)."""
    from .generate import check_algorithm, generate
    from .land import GenerationError

    unknown = sorted(set(params) - set(PARAMS), key=str)
    if unknown:
        raise MapSheetError(f"unknown key '{unknown[0]}'; accepted keys: {', '.join(PARAMS)}",
                            str(unknown[0]))
    if "seed" not in params:
        raise MapSheetError("missing required key 'seed'", "seed")
    named = params.get("variant")
    if named is not None and named not in variant_names():
        raise MapSheetError(f"unknown variant '{named}'; the variants are "
                            f"{', '.join(variant_names())}", "variant")
    try:
        seed = parse_seed(params["seed"], named)
        check_algorithm(seed)
    except SeedError as exc:
        raise MapSheetError(str(exc), "seed") from None
    if seed.variant not in variant_names():
        raise MapSheetError(f"seed '{seed}' names a variant this printshop cannot draw (the "
                            f"variants are {', '.join(variant_names())})", "seed")
    try:
        return generate(seed)
    except GenerationError as exc:
        raise MapSheetError(f"seed '{seed}' draws no map: {exc}", "seed") from None


def map_sheets(game: Game):
    """Yield (index in the manifest, part) for every sheet that draws a seeded map."""
    for i, part in enumerate(game.parts):
        if part.kind == "sheet" and "seed" in part.spec.params:
            yield i, part


@rule("pocketciv.map-sheet", "a map sheet's seed draws a legal map")
def map_sheet_seeds(game: Game):
    """Check that each map sheet's seed draws a map passing every map rule."""
    from .validate import validate_map

    for i, part in map_sheets(game):
        at = ("components", i, "params")
        try:
            world = sheet_world(dict(part.spec.params))
        except MapSheetError as exc:
            yield Finding(f"{part.id}: {exc}", path=at + (exc.key,))
            continue
        for flaw in validate_map(world):
            yield Finding(f"{part.id}: the map of seed {world.seed} breaks [{flaw.rule}] "
                          f"{flaw.message}", path=at + ("seed",))


@template_global("pocketciv_world_map")
def pocketciv_world_map(params, x, y, w, h, style, icon, low_ink=False,
                        game_name="PocketCiv") -> Markup:
    """Draw a sheet's seeded map full size in the box: title, seed, command, map and key."""
    from .draw import Palette
    from .page import map_sheet
    from .validate import validate_map

    try:
        world = sheet_world(dict(params))
    except MapSheetError as exc:
        raise ValueError(f"params.{exc.key}: {exc}") from None
    flaws = validate_map(world)
    if flaws:
        raise ValueError(f"params.seed: the map of seed {world.seed} breaks [{flaws[0].rule}] "
                         f"{flaws[0].message}")
    palette = Palette.from_style(dict(style))
    if low_ink:
        palette = palette.low_ink()
    return Markup(map_sheet(world, float(x), float(y), float(w), float(h), palette,
                            icon_adapter(icon), str(game_name)))


@template_global("pocketciv_variant")
def pocketciv_variant(name="standard") -> dict:
    """Return what a world of the variant holds, for sheets that explain how to draw one."""
    v = variant(str(name))
    return {"name": v.name, "title": v.title, "regions": v.regions, "copies": v.copies,
            "numbers": v.regions // v.copies, "frontiers": v.frontiers,
            "frontier_regions": list(v.frontier_regions), "mountains": v.setup.mountains,
            "forests": v.setup.forests, "deserts_at_least": v.setup.deserts_at_least,
            "tribes": v.setup.tribes}
