"""The contents page that opens every print-and-play PDF, drawn from the bill of materials."""

from __future__ import annotations

from .bom import Bom, bill_of_materials
from .geometry import LABEL_BAND, PrintOptions, paper_size
from .impose import Page
from .project import SHARED_TEMPLATES
from .templates import make_environment, render


def contents_rows(bom: Bom) -> list[dict]:
    """Return one row per printed file: name, pages in the combined PDF, how to print it."""
    rows, start = [], 2
    for p in bom.printed:
        end = start + p.pages - 1
        rows.append({"name": p.name, "file": p.file, "kind": p.kind, "pages": p.pages,
                     "first": start, "last": end, "duplex": p.duplex, "note": p.note,
                     "stock": p.stock, "cut": p.cut})
        start = end + 1
    return rows


def needs(bom: Bom) -> list[str]:
    """Return the 'you will also need' lines: the paper and card, then everything else."""
    stock = ", ".join(f"{n} sheet{'s' if n != 1 else ''} of {s}" for s, n in bom.stock())
    return [f"Paper and card: {stock}"] + bom.get


def contents_pdf(build, opts: PrintOptions) -> bytes:
    """Render the contents page of a game's print-and-play PDF."""
    from .pdf import pages_to_pdf

    m = build.game.manifest
    bom = bill_of_materials(build.game, build.components, opts)
    w, h = paper_size(opts.paper)
    area = {"x": opts.margin + 5, "y": opts.margin + 5, "w": w - 2 * opts.margin - 10,
            "h": h - 2 * opts.margin - LABEL_BAND - 10}
    env = make_environment([SHARED_TEMPLATES], {})
    ctx = {"game": {"id": build.game.id, "name": m.name, "subtitle": m.subtitle,
                    "designer": m.designer, "players": m.players,
                    "description": m.description},
           "rows": contents_rows(bom), "provide": needs(bom), "area": area,
           "options": {"paper": opts.paper.upper() if opts.paper == "a4" else "Letter",
                       "backs": opts.backs, "layout": opts.layout, "flip": opts.flip,
                       "bleed": opts.bleed},
           "style": {"title_font": m.style.title_font, "body_font": m.style.body_font,
                     **m.style.colors}}
    body = render(env, "contents.svg.j2", ctx, f"the contents page of {build.game.id}")
    page = Page(w, h, [body], side="sheet", label=f"{m.name} · contents")
    return pages_to_pdf([page], f"{m.name} — contents")
