"""Sheets: player aids, score pads, tracking sheets, drawn to fit the chosen paper."""

from __future__ import annotations

from ..draw.flow import pages_needed
from ..files import limits
from ..layout.impose import Page
from ..load.geometry import LABEL_BAND, PrintOptions, paper_size
from ..load.models import Game, Part
from .base import Rendered, base_context, draw


def render_sheet(game: Game, part: Part, opts: PrintOptions):
    """Draw each page of a sheet inside the paper's printable area."""
    spec = part.spec
    pw, ph = paper_size(opts.paper)
    w, h = (pw, ph) if spec.orientation == "portrait" else (ph, pw)
    area = {"x": opts.margin, "y": opts.margin, "w": w - 2 * opts.margin,
            "h": h - 2 * opts.margin - LABEL_BAND}
    ctx = base_context(game, opts)

    auto = spec.pages == "auto"

    def page(index: int, count: int) -> str:
        page_ctx = {**ctx, "data": part.data, "params": spec.params, "area": area,
                    "page": {"index": index, "number": index + 1, "count": count,
                             "auto": auto, "width": w, "height": h}}
        return draw(game, spec.template, page_ctx, f"page {index + 1} of {spec.id}")

    if auto:
        # The first page says how many pages its flowing text needs (flow() writes it on
        # its drawing); drawn again only if that is more than one ("page 1 of 3").
        first = page(0, 1)
        count = pages_needed(first) or 1
        limits.check_pages(count, f"the flowing text of {spec.id}")
        drawn = [first] if count == 1 else [page(i, count) for i in range(count)]
    else:
        count = spec.pages
        drawn = [page(i, count) for i in range(count)]
    pages = [Page(w, h, [body], side="sheet", label=f"{game.manifest.name} · {spec.name}")
             for body in drawn]
    note = f"{count} page{'s' if count > 1 else ''}"
    if spec.duplex:
        note += ", print duplex"
    return Rendered(spec.id, spec.name, pages, spec.duplex, note)
