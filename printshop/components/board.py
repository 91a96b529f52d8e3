"""Boards and maps: one drawing at full size, tiled over pages when larger than the paper."""

from __future__ import annotations

from ..files import limits
from ..files.errors import PrintshopError, Problem
from ..layout.impose import Face
from ..layout.tiles import TilingError, impose_tiles, tile_plan
from ..load.geometry import PrintOptions
from ..load.models import Game, Part
from ..load.source import manifest_document
from .base import Rendered, base_context, draw


def draw_board(game: Game, part: Part, opts: PrintOptions) -> str:
    """Draw the whole board once, in millimetres from its top-left corner."""
    spec = part.spec
    w, h = spec.size
    ctx = {**base_context(game, opts), "data": part.data, "size": {"w": w, "h": h}}
    return draw(game, spec.template, ctx, f"board {spec.id}")


def render_board(game: Game, part: Part, opts: PrintOptions):
    """Draw the board once and tile it."""
    spec = part.spec
    w, h = spec.size
    asked = tuple(spec.tiles) if spec.tiles else None
    try:
        plan = tile_plan(w, h, opts, spec.overlap, asked)
    except TilingError as exc:
        file, doc = manifest_document(game)
        index = next(i for i, c in enumerate(game.manifest.components) if c.id == spec.id)
        key = "tiles" if spec.tiles else "size"
        line = doc.line(("components", index, key)) if doc is not None else None
        raise PrintshopError(Problem(file, str(exc), ("components", spec.id, key),
                                     line)) from None
    limits.check_pages(len(plan.tiles) + 1)  # and assembly
    title = f"{game.manifest.name} · {spec.name}"
    drawing = draw_board(game, part, opts)
    pages, tiles = impose_tiles(drawing, w, h, opts, title, spec.overlap, asked)
    note = f"{w:g} x {h:g} mm"
    if len(tiles) > 1:
        note += f", {len(tiles)} tiles to cut and glue"
    # The whole board as one face: the studio shows it assembled, not tiled.
    return Rendered(spec.id, spec.name, pages, False, note,
                    {"board": [Face(drawing, w, h, 0.0)]})
