"""Sheets: player aids, score pads, tracking sheets, drawn to fit the chosen paper."""

from __future__ import annotations

from .. import limits
from ..errors import PrintshopError, Problem
from ..flow import pages_needed
from ..geometry import LABEL_BAND, PrintOptions, paper_size
from ..impose import Page
from ..models import Game, Part
from .base import Rendered, base_context, draw


def render_sheet(game: Game, part: Part, opts: PrintOptions):
    """Draw each page of a sheet inside the paper's printable area."""
    spec = part.spec
    pw, ph = paper_size(opts.paper)
    w, h = (pw, ph) if spec.orientation == "portrait" else (ph, pw)
    area = {"x": opts.margin, "y": opts.margin, "w": w - 2 * opts.margin,
            "h": h - 2 * opts.margin - LABEL_BAND}
    ctx = base_context(game, opts)

    def page(index: int, count: int | None) -> str:
        page_ctx = {**ctx, "data": part.data, "params": spec.params, "area": area,
                    "page": {"index": index, "number": index + 1, "count": count,
                             "width": w, "height": h}}
        return draw(game, spec.template, page_ctx, f"page {index + 1} of {spec.id}")

    count = spec.pages
    if count == "auto":
        # The first page, drawn with no count, says how many pages its flowing text needs;
        # then every page is drawn knowing the count ("page 1 of 3").
        count = pages_needed(page(0, None)) or 1
        if count > limits.current().max_output_pages:
            raise PrintshopError(Problem(
                f"templates/{game.id}/{spec.template}", limits.exceeded(
                    "max_output_pages", f"its flowing text needs {count} pages",
                    limits.current().max_output_pages), ()))
    pages = [Page(w, h, [page(index, count)], side="sheet",
                  label=f"{game.manifest.name} · {spec.name}") for index in range(count)]
    note = f"{count} page{'s' if count > 1 else ''}"
    if spec.duplex:
        note += ", print duplex"
    return Rendered(spec.id, spec.name, pages, spec.duplex, note)
