"""Sheets: player aids, score pads, tracking sheets, drawn to fit the chosen paper."""

from __future__ import annotations

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
    pages = []
    for index in range(spec.pages):
        page_ctx = {**ctx, "data": part.data, "params": spec.params, "area": area,
                    "page": {"index": index, "number": index + 1, "count": spec.pages,
                             "width": w, "height": h}}
        body = draw(game, spec.template, page_ctx, f"page {index + 1} of {spec.id}")
        pages.append(Page(w, h, [body], side="sheet",
                          label=f"{game.manifest.name} · {spec.name}"))
    note = f"{spec.pages} page{'s' if spec.pages > 1 else ''}"
    if spec.duplex:
        note += ", print duplex"
    return Rendered(spec.id, spec.name, pages, spec.duplex, note)
