"""PocketCiv maps in the studio: draw one from a seed, check it, offer its files."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..files.errors import PrintshopError, Problem
from ..load.models import Game

PAPERS = ("a4", "letter")


@dataclass
class MapResult:
    """A drawn map page, or why there is none."""

    seed: str
    variant: str | None
    variants: tuple[str, ...]
    paper: str
    svg: str = ""
    rules: int = 0
    problems: list[Problem] = field(default_factory=list)


def _look(game: Game):
    from ..games.pocketciv_maps.atlas import Look
    from ..games.pocketciv_maps.draw import Palette

    return Look(game.manifest.name, Palette.from_style(game.manifest.style.colors), game.icons)


def _seed(text: str, variant: str | None):
    from ..games.pocketciv_maps.atlas import _seeds
    from ..games.pocketciv_maps.variant import variant_names

    if variant is not None and variant not in variant_names():
        raise PrintshopError(Problem("variant", f"no variant '{variant}'; variants: "
                                     f"{', '.join(variant_names())}"))
    seed = _seeds(text, variant, 1)[0]
    if seed.variant not in variant_names():
        raise PrintshopError(Problem("seed", f"no variant '{seed.variant}'; variants: "
                                     f"{', '.join(variant_names())}"))
    return seed


def draw_map_page(game: Game, seed: str, variant: str | None, paper: str) -> MapResult:
    """Generate the map of a seed, validate it and draw its printable page as SVG."""
    from ..games.pocketciv_maps.generate import generate
    from ..games.pocketciv_maps.page import map_page
    from ..games.pocketciv_maps.validate import MAP_RULES, validate_map
    from ..games.pocketciv_maps.variant import variant_names
    from ..layout.impose import page_svg

    paper = paper if paper in PAPERS else "a4"
    result = MapResult(seed[:40], variant, variant_names(), paper)
    try:
        parsed = _seed(seed, variant)
    except PrintshopError as exc:
        result.problems = exc.problems
        return result
    world = generate(parsed)
    result.seed, result.variant = str(parsed), parsed.variant
    result.rules = sum(1 for r in MAP_RULES.values() if not r.setup or world.setup == "random")
    result.problems = [Problem(str(parsed), f.message, f.at, None, f.rule)
                       for f in validate_map(world)]
    look = _look(game)
    result.svg = page_svg(map_page(world, paper, look.palette, look.icon(), look.name), 1, 1)
    return result


def map_download(game: Game, seed: str, ext: str) -> tuple[str, str, bytes]:
    """Return the map file (yaml) or its printable page (pdf) of a printed seed."""
    from ..games.pocketciv_maps.atlas import map_files

    if ext not in ("yaml", "pdf"):
        raise KeyError(ext)
    parsed = _seed(seed, None)
    files = map_files(parsed, _look(game), "a4")
    media = "application/x-yaml" if ext == "yaml" else "application/pdf"
    return f"{parsed}.{ext}", media, files[f"{parsed}.{ext}"]
