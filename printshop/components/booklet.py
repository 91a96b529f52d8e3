"""Booklets: a cover and one or more pages per data entry, imposed for saddle stitching."""

from __future__ import annotations

from ..geometry import PrintOptions, card_size, paper_size
from ..impose import Face, impose_booklet
from ..models import Game, Part
from .base import Rendered, base_context, draw


def booklet_page_size(spec) -> tuple[float, float]:
    """Return the booklet page size in mm."""
    if isinstance(spec.page_size, str):
        try:
            return paper_size(spec.page_size)
        except KeyError:
            return card_size(spec.page_size)
    return tuple(spec.page_size)


def render_booklet(game: Game, part: Part, opts: PrintOptions):
    """Draw the cover and every entry's page, then impose them two-up."""
    spec = part.spec
    w, h = booklet_page_size(spec)
    entries = (part.data or {}).get("pages", []) if isinstance(part.data, dict) else []
    ctx = {**base_context(game, opts), "data": part.data, "size": {"w": w, "h": h}}
    faces = []
    if spec.cover:
        faces.append(Face(draw(game, spec.cover, {**ctx, "number": 1}, f"cover of {spec.id}"),
                          w, h, 0.0))
    for i, entry in enumerate(entries):
        number = len(faces) + 1
        svg = draw(game, spec.template, {**ctx, "entry": entry, "index": i, "number": number},
                   f"page {number} of {spec.id}")
        faces.append(Face(svg, w, h, 0.0))
    title = f"{game.manifest.name} · {spec.name}"
    pages = impose_booklet(faces, opts, title)
    sheets = len(pages) // 2
    note = (f"{len(faces)} pages on {sheets} sheet{'s' if sheets != 1 else ''}, print duplex "
            "(flip on short edge), fold and staple")
    return Rendered(spec.id, spec.name, pages, True, note, {"pages": faces})
