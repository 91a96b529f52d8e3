"""What every component renderer receives and returns."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from typing import Protocol

from ..draw.ink import low_ink
from ..draw.templates import make_environment, render
from ..layout.impose import Face, Item, Page
from ..load import fonts
from ..load.geometry import PrintOptions
from ..load.models import Game, Part
from ..load.plugins import load_plugins

SAFE_MARGIN = 3.0  # keep text this far inside the trim line


@dataclass
class Rendered:
    """A component drawn and imposed: its pages and what the contents page says of it."""

    component: str
    name: str
    pages: list[Page]
    duplex: bool = False
    note: str = ""
    faces: dict[str, list[Face]] = field(default_factory=dict)
    items: list[Item] | None = None   # the physical cards, copies included (decks, tokens)
    first_page: int = 1               # a part of a longer deck: where its pages start
    total_pages: int | None = None    # and how many pages the whole deck has


class Renderer(Protocol):
    def __call__(self, game: Game, part: Part, opts: PrintOptions) -> Rendered: ...


@lru_cache(maxsize=16)
def _env_for(game_id: str, dirs: tuple, icon_items: tuple, hyphenate: str,
             game_fonts: tuple):
    return make_environment(list(dirs), dict(icon_items), hyphenate or None, dict(game_fonts))


def environment(game: Game):
    """Return the (cached) template environment of a game, its template helpers loaded."""
    load_plugins([game.id])
    style = game.manifest.style
    game_fonts = tuple((name, fonts.game_font(game.data_dir, rel, f"style.fonts.{name}"))
                       for name, rel in sorted(style.fonts.items()))
    return _env_for(game.id, tuple(str(d) for d in game.template_dirs),
                    tuple(sorted(game.icons.items())), style.hyphenate, game_fonts)


def base_context(game: Game, opts: PrintOptions) -> dict:
    """Return what every template of the game sees."""
    m = game.manifest
    return {
        "game": {"id": game.id, "name": m.name, "subtitle": m.subtitle, "designer": m.designer,
                 "players": m.players},
        "style": {"title_font": m.style.title_font, "body_font": m.style.body_font,
                  "type": m.style.type.model_dump(), **m.style.colors},
        "low_ink": opts.low_ink,
    }


def draw(game: Game, template: str, context: dict, what: str) -> str:
    """Render one of the game's templates, redrawn for low ink when the options ask."""
    svg = render(environment(game), template, context, what)
    return low_ink(svg) if context.get("low_ink") else svg

