"""Booklets: a cover and one or more pages per data entry, imposed for saddle stitching."""

from __future__ import annotations

from ..draw.flow import pages_needed
from ..files import limits
from ..layout.impose import Face, impose_booklet
from ..load.geometry import PrintOptions, card_size, paper_size
from ..load.models import Game, Part
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
    data = part.data if isinstance(part.data, dict) else {}
    entries = data.get("pages", [])
    # A booklet of flowing text: `sections:` and no `pages:`; its template calls flow().
    flowing = "sections" in data and "pages" not in data
    ctx = {**base_context(game, opts), "data": part.data, "size": {"w": w, "h": h}}
    faces = []
    if spec.cover:
        faces.append(Face(draw(game, spec.cover, {**ctx, "number": 1}, f"cover of {spec.id}"),
                          w, h, 0.0))
    first = len(faces) + 1

    def page(i: int, entry, count: int) -> str:
        number = first + i
        page_ctx = {**ctx, "entry": entry, "index": i, "number": number,
                    "page": {"index": i, "number": number, "count": count, "auto": flowing}}
        return draw(game, spec.template, page_ctx, f"page {number} of {spec.id}")

    if flowing:
        drawn = [page(0, None, 1)]
        count = pages_needed(drawn[0]) or 1
        limits.check_pages(count, f"the flowing text of {spec.id}")
        if count > 1:
            drawn = [page(i, None, count) for i in range(count)]
    else:
        drawn = [page(i, entry, len(entries)) for i, entry in enumerate(entries)]
    faces.extend(Face(svg, w, h, 0.0) for svg in drawn)
    title = f"{game.manifest.name} · {spec.name}"
    pages = impose_booklet(faces, opts, title)
    sheets = len(pages) // 2
    note = (f"{len(faces)} pages on {sheets} sheet{'s' if sheets != 1 else ''}, print duplex "
            "(flip on short edge), fold and staple")
    return Rendered(spec.id, spec.name, pages, True, note, {"pages": faces})
