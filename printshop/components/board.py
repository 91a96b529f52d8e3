"""Boards and maps: one drawing at full size, tiled over pages when larger than the paper."""

from __future__ import annotations

from ..geometry import PrintOptions
from ..impose import Face, impose_tiles
from ..models import Game, Part
from .base import Rendered, base_context, draw


def render_board(game: Game, part: Part, opts: PrintOptions):
    """Draw the board once and tile it."""
    spec = part.spec
    w, h = spec.size
    ctx = {**base_context(game, opts), "data": part.data, "size": {"w": w, "h": h}}
    drawing = draw(game, spec.template, ctx, f"board {spec.id}")
    title = f"{game.manifest.name} · {spec.name}"
    pages, tiles = impose_tiles(drawing, w, h, opts, title, spec.overlap)
    note = f"{w:g} x {h:g} mm"
    if len(tiles) > 1:
        note += f", {len(tiles)} tiles to trim and join"
    return Rendered(spec.id, spec.name, pages, False, note,
                    {"board": [Face(drawing, w, h, 0.0)]})
