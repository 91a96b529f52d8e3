"""The bill of materials: what to print and on what, what to cut, and what else to get.

One model feeds both the `printshop bom` text and the contents page of every
print-and-play PDF; the paper comes from the print run (printrun.py).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from ..load.geometry import PrintOptions, card_size
from ..load.models import Game, Part
from .printrun import (MODES, ComponentPDF, PrintRun, copies_of, game_stocks, plan_run,
                       sentence, sheets_alone)


@dataclass(frozen=True)
class Printed:
    """One component's own file: its pages, the sheets they take, how and on what."""

    component: str
    name: str
    kind: str
    file: str
    pages: int
    sheets: int
    how: str        # two-sided, one-sided or mounted, as the print run prints it
    note: str
    stock: str
    advice: str
    cut: str
    copies: int = 1


@dataclass(frozen=True)
class Bom:
    """Everything a game needs: files to print, paper, cutting steps and things to get."""

    game: str
    name: str
    paper_size: str
    backs: str
    flip: str
    layout: str
    printed: list[Printed]
    run: PrintRun
    cut: list[tuple[str, str]] = field(default_factory=list)
    get: list[str] = field(default_factory=list)
    sheets_alone: int = 0   # the sheets with every component on sheets of its own

    @property
    def pages(self) -> int:
        return self.run.pages

    @property
    def sheets(self) -> int:
        """Return the sheets of paper and card the print-and-play file takes."""
        return self.run.total_sheets


    def stock(self) -> list[tuple[str, int]]:
        """Return (paper or card, sheets) in the order the print run uses them."""
        return self.run.sheets()


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def _size(part: Part) -> str:
    w, h = card_size(part.spec.size)
    if part.spec.shape == "circle":
        return f"{w:g} mm round"
    return f"{w:g} x {h:g} mm"


def _tiles(pages: int, sides: tuple[str, ...]) -> int:
    """Return a board's tiles: its pages without the assembly diagram."""
    if sides:
        return sum(1 for s in sides if s != "assembly")
    return pages - 1 if pages > 1 else 1


def cut_step(part: Part, pages: int, opts: PrintOptions, sides: tuple[str, ...] = ()) -> str:
    """Return how to cut a component out of its printed pages ('' when nothing to cut)."""
    kind = part.kind
    if kind == "deck":
        n = part.card_count()
        if opts.layout == "single":
            how = "trim each page to its trim box"
        elif opts.backs == "fold" and part.spec.back:
            how = "fold each sheet on the dashed line, glue it, then cut on the crop marks"
        else:
            how = "cut on the crop marks" if opts.crop_marks else "cut along the card edges"
        step = f"{_plural(n, 'card')}, {_size(part)}: {how}"
    elif kind == "tokens":
        step = f"{_plural(part.card_count(), 'token')}, {_size(part)}: cut along the outlines"
    elif kind == "board":
        w, h = part.spec.size
        tiles = _tiles(pages, sides)
        step = (f"{w:g} x {h:g} mm board in {tiles} tiles: cut out each tile at its crop "
                "marks and glue them as the assembly page shows" if tiles > 1 else
                f"{w:g} x {h:g} mm board: trim to its edge")
    elif kind == "booklet":
        step = "fold the sheets in half, nest them in order and staple on the fold"
    else:
        step = ""
    extra = sentence(part.spec.cut.strip().rstrip("."))
    return ". ".join(s for s in (step, extra) if s)   # the manifest's note: a sentence


def sleeves(game: Game) -> list[str]:
    """Return a line per card size: how many sleeves the game's decks would fill (decks with
    a back only: cut-outs and stand-ups without one are not shuffled, so not sleeved)."""
    counts: dict[tuple[float, float], int] = {}
    names: dict[tuple[float, float], str] = {}
    for part in game.parts:
        if part.kind == "deck" and part.spec.back and not part.spec.mount:
            size = card_size(part.spec.size)
            counts[size] = counts.get(size, 0) + part.card_count()
            if isinstance(part.spec.size, str):
                names.setdefault(size, part.spec.size)
    return [f"Card sleeves (optional): {n} for {w:g} x {h:g} mm"
            f"{f' ({names[(w, h)]})' if (w, h) in names else ''} cards"
            for (w, h), n in counts.items()]


def mounting(game: Game, run: PrintRun, paper: str) -> list[str]:
    """Return what the mounted components are glued onto, with how much, and the glue."""
    lines, glued = [], []
    for r in run.runs:
        for piece in r.pieces:
            part = game.part(piece.component)
            mount = part.spec.mount.strip()
            if not mount or piece.assembly:
                continue
            glued.append(part.spec.name)
            copies = r.copies
            if part.kind == "board":
                lines.append(f"{sentence(mount)}: {_plural(copies, 'piece')} for the "
                             f"{part.spec.name}, glued on after the tiles are joined")
                continue
            pages = sum(b - a + 1 for a, b in piece.spans)
            fronts = pages // (4 if r.duplex else 2)   # fronts and backs, each an empty back
            lines.append(f"{sentence(mount)}: {_plural(fronts * copies, 'sheet')} of "
                         f"{paper} size for the {part.spec.name} (both sides glued on)")
    if glued:
        lines.append("Glue: a glue stick or spray glue (for " + ", ".join(glued) + ")")
    return lines


def tools(game: Game, printed: list[Printed], opts: PrintOptions) -> list[str]:
    """Return the tools the components call for, as one line (or none)."""
    kinds = {p.kind for p in game.parts}
    found = []
    if kinds & {"deck", "tokens", "board"}:
        found.append("scissors or a paper trimmer")
    if any(p.kind == "tokens" and p.spec.shape == "circle" for p in game.parts):
        found.append("a craft knife or a circle punch for the round tokens")
    folds = opts.backs == "fold" and any(p.kind in ("deck", "tokens") and p.spec.back
                                         for p in game.parts)
    tiled = any(p.kind == "board" and p.pages > 1 for p in printed)
    if folds:
        found.append("a bone folder or a blunt knife and a ruler to score each fold first "
                     "(folded card is twice as thick)")
        found.append("a glue stick")
    if tiled:
        found.append("tape or glue to join the board tiles")
    if "booklet" in kinds:
        found.append("a stapler")
    return ["Tools: " + ", ".join(found)] if found else []


def _sheets_in_run(run: PrintRun, component: str) -> int:
    """Return the sheets of one copy of the print run that hold a component's pages (its
    own or shared), its assembly diagram aside."""
    sheets = set()
    for r in run.runs:
        for piece in r.pieces:
            if piece.component != component or piece.assembly:
                continue
            for a, b in piece.spans:
                sheets |= {(n + 1) // 2 if run.duplex else n for n in range(a, b + 1)
                           if run.labels[n - 1] is not None}
    return len(sheets)


def bill_of_materials(game: Game, components: list[ComponentPDF], opts: PrintOptions,
                      run: PrintRun | None = None) -> Bom:
    """Return the bill of materials from a game, its rendered components and its print run."""
    run = run or plan_run(game, components, opts)
    modes = {p.component: p.mode for r in run.runs for p in r.pieces if not p.assembly}
    printed = []
    stocks = run.stocks or game_stocks(game, opts, [game.part(c.component)
                                                    for c in components], joint=False)
    for c in components:
        part = game.part(c.component)
        pages = c.pages
        if c.kind == "board":
            pages = _tiles(c.pages, c.sides)  # the assembly diagram is read, not cut out
        how = modes.get(c.component, "one-sided")
        sheets = _sheets_in_run(run, c.component) or (
            math.ceil(pages / 2) if MODES[how].two_sided else pages)
        stock = stocks[part.id]
        advice = "; ".join(a for a in (stock.advice, f"glue onto {stock.mount}"
                                       if stock.mount else "") if a)
        if opts.backs == "fold" and part.kind in ("deck", "tokens") and part.spec.back \
                and stock.mount:
            advice = "; ".join(a for a in (advice, "cut each sheet on the dashed line and "
                                           "glue the halves either side of the board") if a)
        printed.append(Printed(c.component, c.name, c.kind, f"{c.component}.pdf", c.pages,
                               sheets, how, c.note, stock.key, advice, c.cut,
                               copies_of(game, part)))
    cut = []
    for c, p in zip(components, printed):
        step = cut_step(game.part(p.component), p.pages, opts, c.sides)
        if p.copies > 1:
            why = "one per player" if game.part(p.component).spec.per_player else "the most " \
                  "a game uses"
            step = f"print {p.copies} ({why}); " + step
        if step:
            cut.append((p.name, step))
    paper = "A4" if opts.paper == "a4" else "Letter"
    get = sleeves(game) + mounting(game, run, paper) + list(game.manifest.provide) \
        + tools(game, printed, opts)
    return Bom(game.id, game.manifest.name, opts.paper, opts.backs, opts.flip, opts.layout,
               printed, run, cut, [" ".join(str(g).split()) for g in get],
               sheets_alone(game, components, opts, run.setting))


def run_lines(run: PrintRun) -> list[tuple[str, str, list[str]]]:
    """Return each run as the contents page and `printshop bom` both give it: its pages,
    what to print it on with its sheets, and a line per component on it."""
    out = []
    for r in run.runs:
        pieces = []
        for piece in r.pieces:
            where = piece.where("page", "pages", "-")
            what = "assembly diagram" if piece.assembly else MODES[piece.mode].how.split(":")[0]
            if not run.duplex and not piece.assembly and piece.mode == "one-sided":
                what = "one side printed"
            if piece.places:
                pages = ", ".join(map(str, piece.places))
                what += f"; on {'page' if len(piece.places) == 1 else 'pages'} {pages} in " \
                        "card places the cards leave empty: cut those out on the crop marks " \
                        "first, then each along its outline"
            pieces.append(f"{piece.name} ({where}): {what}")
        out.append((r.span(), f"{r.instruction()}: {r.sheet_count()}", pieces))
    return out


def bom_text(bom: Bom) -> str:
    """Return the bill of materials as plain text for the terminal."""
    paper = "A4" if bom.paper_size == "a4" else "Letter"
    backs = {"duplex": f"backs printed duplex (flip on the {bom.flip} edge)",
             "fold": "backs beside fronts for gutter folding",
             "none": "no card backs"}[bom.backs]
    if bom.layout == "single":
        backs = "cards one per page for a print shop, each back on the page after its front"
    out = [f"{bom.name}: bill of materials", f"{paper} paper, {backs}", ""]
    out.append(f"Print {bom.game}-print-and-play.pdf: {_plural(bom.pages, 'page')} on "
               f"{_plural(bom.sheets, 'sheet')} (each component on sheets of "
               f"its own: {_plural(bom.sheets_alone, 'sheet')})")
    out.append(f"One printer setting for the whole file: {bom.run.setting}, at 100% scale")
    out.append(f"  {bom.run.cover_line()}")
    for span, head, pieces in run_lines(bom.run):
        out.append(f"  {head}")
        out += [f"    {p}" for p in pieces]
    out += ["", "Paper and card:"]
    out += [f"  {_plural(n, 'sheet')} of {stock}" for stock, n in bom.stock()]
    out += ["", f"Each component also has a PDF of its own "
                f"({_plural(len(bom.printed), 'file')}); in the print-and-play file it takes:"]
    fwidth = max(len(p.file) for p in bom.printed)
    for p in bom.printed:
        how = p.how
        if bom.layout == "single" and p.kind in ("deck", "tokens"):
            how = "card-size"
        copies = f" x {p.copies}" if p.copies > 1 else ""
        pages = _plural(p.pages, 'page')
        if p.kind == "board" and p.pages > p.sheets and p.how != "two-sided":
            pages += " (the last the assembly diagram)"
        out.append(f"  {p.file:<{fwidth}}  {pages:>9}, printed on "
                   f"{_plural(p.sheets, 'sheet') + copies:<14}  {how:<9}  {p.stock}")
    notes = [(p.name, p.advice) for p in bom.printed if p.advice]
    if notes:
        out += ["", "Stock notes:"]
        out += [f"  {name}: {advice}" for name, advice in notes]
    if bom.cut:
        out += ["", "Cut:"]
        out += [f"  {name}: {step}" for name, step in bom.cut]
    if bom.get:
        out += ["", "Also get:"]
        out += [f"  {line}" for line in bom.get]
    if any(p.kind in ("board", "sheet") for p in bom.printed):
        out += ["", *printable_lines(bom.paper_size, paper)]
    return "\n".join(out) + "\n"


def printable_lines(paper_size: str, paper: str) -> list[str]:
    """Return what a board or a sheet may use of one page of the paper, in mm."""
    from .tiles import printable_area

    area = {k: f"{w:g} x {h:g}" for k, (w, h) in printable_area(paper_size).items()}
    return [f"Printable area on {paper}, in mm (a board's size, a sheet's area):",
            f"  one page          {area['portrait']} portrait, {area['landscape']} landscape",
            f"  one board tile    {area['portrait tile']} portrait, {area['landscape tile']} "
            "landscape (glue strip included)"]
