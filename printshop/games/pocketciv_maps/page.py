"""The printable map page: a title, the map, a legend, its seed and the command that redraws
it. ``printshop map`` and the print-and-play file's map sheet both draw it with map_sheet."""

from __future__ import annotations

from typing import Callable

from ...draw.text import text_box
from ...layout.impose import Page
from ...load.geometry import LABEL_BAND, paper_size
from .draw import Icon, Palette, draw_map
from .model import WorldMap
from .seed import parse_seed
from .variant import variant

MARGIN = 12.0
LEGEND = (("mountain", "Mountain"), ("volcano", "Volcano"), ("forest", "Forest"),
          ("farm", "Farm"), ("desert", "Desert"), ("fault-line", "Fault Line"),
          ("tribe", "Tribe"), ("city", "City"))


def legend(x: float, y: float, w: float, palette: Palette, icon: Icon, size: float = 4.5,
           pt: float = 8.0, columns: int = 10) -> str:
    """Draw the map's key, ``columns`` to a row: icons, then the Frontier and Sea swatches."""
    swatch = size * 1.4
    # Swatches are drawn in page coordinates, not under a transform: the low-ink rewrite
    # treats shapes under a transform as icon details and would darken their pale fills.
    def band(fill: str, stroke: str) -> Callable[[float, float], str]:
        return lambda x0, y0: (f'<rect x="{x0:.2f}" y="{y0 + size * 0.15:.2f}" '
                               f'width="{swatch:.2f}" height="{size * 0.7:.2f}" '
                               f'fill="{fill}"{stroke}/>')

    items = [((lambda x0, y0, n=name: f'<g transform="translate({x0:.2f} {y0:.2f})">'
               f'{icon(n, 0, 0, size)}</g>'), label) for name, label in LEGEND]
    items.append((band(palette.frontier, f' stroke="{palette.frontier_ink}" stroke-width='
                                         '"0.25" stroke-dasharray="1.2 0.8"'), "Frontier"))
    items.append((band(palette.sea, f' stroke="{palette.sea_ink}" stroke-width="0.2"'),
                  "Sea"))
    step = w / columns
    out = []
    for n, (mark, label) in enumerate(items):
        cx, cy = x + (n % columns) * step, y + (n // columns) * size * 1.5
        out.append(mark(cx, cy))
        out.append(str(text_box(label, cx + swatch + 0.8, cy, step - swatch - 1.0, size,
                                size=pt, min_size=7, color=palette.ink, valign="middle",
                                wrap=False)))
    return "".join(out)


def _facts(world: WorldMap) -> str:
    """Return one line on what this map holds."""
    v = variant(world.variant)
    touched = {x for a in world.frontiers for c in a.coasts for x in c
               if x not in {b.id for b in world.areas}}
    parts = [f"{v.title} map", f"{len(world.regions)} regions"]
    if v.copies > 1:
        parts.append("each number twice")
    if world.frontiers:
        parts.append(f"the Frontier{'s' if len(world.frontiers) > 1 else ''} "
                     f"touch{'es' if len(world.frontiers) == 1 else ''} {len(touched)}")
    else:
        parts.append("Sea all round every island")
    tribes = sum(r.tribes for r in world.regions)
    parts.append(f"{tribes} Tribes to start")
    return " · ".join(parts)


def map_sheet(world: WorldMap, x: float, y: float, w: float, h: float, palette: Palette,
              icon: Icon, game_name: str = "PocketCiv", command: str | None = None) -> str:
    """Draw a full-size map in the box: title, facts, seed and command, the map, its key.

    ``command`` prints this page again; by default the seed's own command."""
    out = [text_box(f"{game_name} · {world.name or 'a world to play'}", x, y, w * 0.55, 11,
                    size=20, min_size=12, font="title", color=palette.ink, wrap=False),
           text_box(_facts(world), x, y + 11, w * 0.55, 5, size=9, min_size=7,
                    color=palette.ink, wrap=False)]
    kind = f"{variant(world.variant).title} variant"
    origin = f"Seed **{world.seed}** · {kind}" if world.seed else f"Drawn by hand · {kind}"
    out.append(text_box(origin, x + w * 0.55, y + 1, w * 0.45, 6, size=11, min_size=7,
                        color=palette.ink, align="right", wrap=False))
    command = command or (parse_seed(world.seed).command() if world.seed else None)
    if command:
        out.append(text_box(f"Print it again: **{command}**", x + w * 0.4, y + 8, w * 0.6, 4,
                            size=7.5, min_size=6, color=palette.border, align="right",
                            wrap=False))
    top = y + 19
    bottom = y + h - 9
    out.append(draw_map(world, x, top, w, bottom - top, palette, icon))
    out.append(legend(x, bottom + 3, w, palette, icon))
    return "".join(str(p) for p in out)


def map_page(world: WorldMap, paper: str, palette: Palette, icon: Icon,
             game_name: str = "PocketCiv", command: str | None = None) -> Page:
    """Lay out one landscape page with the map, its legend and its seed."""
    pw, ph = paper_size(paper)
    w, h = ph, pw
    body = map_sheet(world, MARGIN, MARGIN, w - 2 * MARGIN, h - 2 * MARGIN - LABEL_BAND,
                     palette, icon, game_name, command)
    label = f"{game_name} · map {world.name or world.seed or ''}".rstrip()
    return Page(w, h, [body], side="sheet", label=label)
