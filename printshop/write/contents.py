"""The contents page that opens every print-and-play PDF, and the marked blank page that
keeps duplex fronts on odd pages; both drawn from the bill of materials and the print run."""

from __future__ import annotations

from ..draw.templates import make_environment, render
from ..draw.text import layout
from ..files.project import SHARED_TEMPLATES
from ..layout.bom import Bom, bill_of_materials, run_lines
from ..layout.impose import Page
from ..layout.printrun import sentence
from ..load.geometry import LABEL_BAND, PrintOptions, paper_size
from ..load.icons import credits

LINE = 3.7          # mm per line of 8.5 pt text


def _laid_lines(lines: list[str], width: float, size: float = 8.5) -> int:
    """Return how many lines the template's text box wraps these into at ``size`` pt,
    measured with the shipped fonts as the drawing lays them out."""
    _, laid, _, _ = layout("\n".join(lines), width, 1e6, size, size, "body", {})
    return len(laid)


def contents_rows(bom: Bom, width: float = 180.0) -> list[dict]:
    """Return one row per run of pages: where, what to print it on, and what it holds (the
    lines `printshop bom` prints, with each component's cutting and stock notes)."""
    printed = {p.component: p for p in bom.printed}
    cut = dict(bom.cut)
    rows = [{"span": f"1–{bom.run.contents_pages}", "pages": bom.run.contents_pages,
             "head": bom.run.cover_line(), "lines": [], "height": 6 + LINE, "duplex": True}]
    for r, (_, head, pieces) in zip(bom.run.runs, run_lines(bom.run)):
        span = f"{r.first}–{r.last}" if r.last > r.first else f"{r.first}"
        lines = list(r.advice)
        for piece, said in zip(r.pieces, pieces):
            p = printed.get(piece.component)
            notes = [cut.get(p.name, "") if p else "", p.advice if p else ""]
            if piece.assembly:
                notes = ["how the tiles join; one copy is enough"]
            # Sentences: the cut, then the stock's advice, each capitalised.
            notes = [sentence(n.rstrip(".")) for n in notes if n]
            name, _, rest = said.partition(" (")
            lines.append(f"**{name}** ({rest}" + "".join(f". {n}" for n in notes) + ".")
        height = 6 + _laid_lines(lines, width * 0.82) * LINE
        rows.append({"span": span, "pages": r.pages, "head": head, "lines": lines,
                     "height": height, "duplex": r.duplex})
    return rows


def needs(bom: Bom) -> list[str]:
    """Return the 'you will also need' lines: the paper and card, then everything else."""
    stock = ", ".join(f"{n} sheet{'s' if n != 1 else ''} of {s}" for s, n in bom.stock())
    saved = bom.sheets_alone - bom.sheets
    stock += f" ({bom.sheets} in all" + (
        f"; printed one component at a time they would take {bom.sheets_alone})"
        if saved > 0 else ")")
    return [f"Paper and card: {stock}"] + bom.get


def _area(opts: PrintOptions) -> tuple[float, float, dict]:
    w, h = paper_size(opts.paper)
    return w, h, {"x": opts.margin + 5, "y": opts.margin + 5, "w": w - 2 * opts.margin - 10,
                  "h": h - 2 * opts.margin - LABEL_BAND - 10}


def _style(game) -> dict:
    m = game.manifest
    return {"title_font": m.style.title_font, "body_font": m.style.body_font,
            **m.style.colors}


def contents_pdf(build, opts: PrintOptions) -> bytes:
    """Render the contents page of a game's print-and-play PDF."""
    from .pdf import pages_to_pdf

    m = build.game.manifest
    bom = bill_of_materials(build.game, build.components, opts, build.run)
    w, h, area = _area(opts)
    rows = contents_rows(bom, area["w"])
    provide = needs(bom)
    room = area["h"] - 95 - (7 if credits(build.game) else 0) - 3.8 * _laid_lines([str(t).replace("\n", " ") for t in provide], area["w"] - 3, 9)
    scale = min(1.0, room / max(1.0, sum(r["height"] for r in rows)))
    top = 0.0
    for r in rows:
        r["y"], r["h"] = top, r["height"] * scale
        top += r["h"]
    env = make_environment([SHARED_TEMPLATES], {})
    ctx = {"game": {"id": build.game.id, "name": m.name, "subtitle": m.subtitle,
                    "designer": m.designer, "players": m.players,
                    "description": m.description},
           "rows": rows, "table_h": top, "provide": provide, "area": area,
           "blank": any(s.blank for r in bom.run.runs for s in r.sources)
           or bom.run.blank_after_contents,
           "setting": bom.run.setting,
           "options": {"paper": opts.paper.upper() if opts.paper == "a4" else "Letter",
                       "backs": opts.backs, "layout": opts.layout, "flip": opts.flip,
                       "bleed": opts.bleed},
           "style": _style(build.game),
           "art": [s.credit for s in credits(build.game)]}
    body = render(env, "contents.svg.j2", ctx, f"the contents page of {build.game.id}")
    page = Page(w, h, [body], side="sheet", label=f"{m.name} · contents")
    return pages_to_pdf([cover_page(build.game, bom, opts), page], f"{m.name} — contents")


def box_lines(game, bom: Bom) -> list[str]:
    """Return what is in the box: each component with its count, in the manifest's order."""
    lines = []
    for p in bom.printed:
        part = game.part(p.component)
        copies = f" x {p.copies}" if p.copies > 1 else ""
        if part.cards:
            n = sum(c.copies for c in part.cards)
            noun = "token" if p.kind == "tokens" else "card"
            lines.append(f"{p.name}: {n} {noun}{'s' if n != 1 else ''}{copies}")
        else:
            lines.append(f"{p.name}{copies}")
    return lines


def cover_art(game, most: int = 21) -> list[str]:
    """Return up to ``most`` of the pictures the game's cards name (their ``art`` field),
    taken evenly from each deck that has them."""
    decks = [[c.fields["art"] for c in part.cards if isinstance(c.fields.get("art"), str)]
             for part in game.parts]
    decks = [d for d in decks if d]
    picked: list[str] = []
    for k in range(max((len(d) for d in decks), default=0)):
        for d in decks:
            if k < len(d) and d[k] not in picked and len(picked) < most:
                picked.append(d[k])
    return picked


def cover_page(game, bom: Bom, opts: PrintOptions) -> Page:
    """Lay out the cover: the title, the game's pictures, what is in the box and credits."""
    m = game.manifest
    w, h, area = _area(opts)
    players = "Solitaire" if m.players == "1" else (f"{m.players} players" if m.players else "")
    said = [" · ".join(t for t in (f"Game by {m.designer}" if m.designer else "", players)
                       if t),
            "Print-and-play edition made with printshop"]
    said += [f"Art: {s.credit}" for s in credits(game)]
    ctx = {"game": {"name": m.name, "subtitle": m.subtitle}, "area": area,
           "style": _style(game), "art": cover_art(game), "box": box_lines(game, bom),
           "credits": [c for c in said if c]}
    env = make_environment([SHARED_TEMPLATES], game.icons)
    body = render(env, "cover.svg.j2", ctx, f"the cover of {game.id}")
    return Page(w, h, [body], side="sheet", label=f"{m.name} · cover")


def blank_pdf(game, opts: PrintOptions) -> bytes:
    """Render the page left blank on purpose, so that the next front prints on a new sheet."""
    from .pdf import pages_to_pdf

    w, h, area = _area(opts)
    env = make_environment([SHARED_TEMPLATES], {})
    ctx = {"game": {"name": game.manifest.name}, "area": area, "style": _style(game)}
    body = render(env, "blank.svg.j2", ctx, f"the blank page of {game.id}")
    page = Page(w, h, [body], side="blank")
    return pages_to_pdf([page], f"{game.manifest.name} — blank page")
