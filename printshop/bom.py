"""The bill of materials: what to print and on what, what to cut, and what else to get.

One model feeds both the `printshop bom` text and the contents page of every
print-and-play PDF.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from .geometry import PrintOptions, card_size
from .models import Game, Part
from .project import Project

# What a component prints on when its manifest names no stock.
DEFAULT_STOCK = {
    "deck": "card, 250-300 gsm",
    "tokens": "heavy card, 300 gsm or more",
    "sheet": "plain paper",
    "board": "card, or paper glued to board",
    "booklet": "plain paper",
}


@dataclass(frozen=True)
class Printed:
    """One file to print: its pages, the sheets they take, how and on what."""

    component: str
    name: str
    kind: str
    file: str
    pages: int
    sheets: int
    duplex: bool
    note: str
    stock: str
    paper: str
    cut: str


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
    cut: list[tuple[str, str]] = field(default_factory=list)
    get: list[str] = field(default_factory=list)

    @property
    def pages(self) -> int:
        return sum(p.pages for p in self.printed)

    @property
    def sheets(self) -> int:
        return sum(p.sheets for p in self.printed)

    def stock(self) -> list[tuple[str, int]]:
        """Return (paper or card, sheets) in the order the components first use them."""
        totals: dict[str, int] = {}
        for p in self.printed:
            totals[p.paper] = totals.get(p.paper, 0) + p.sheets
        return list(totals.items())


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def _size(part: Part) -> str:
    w, h = card_size(part.spec.size)
    if part.spec.shape == "circle":
        return f"{w:g} mm round"
    return f"{w:g} x {h:g} mm"


def cut_step(part: Part, pages: int, opts: PrintOptions) -> str:
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
        tiles = pages - 1 if pages > 1 else 1
        step = (f"{w:g} x {h:g} mm board in {tiles} tiles: trim each tile on its dashed edge "
                "and join them as the assembly page shows" if tiles > 1 else
                f"{w:g} x {h:g} mm board: trim to its edge")
    elif kind == "booklet":
        step = "fold the sheets in half, nest them in order and staple on the fold"
    else:
        step = ""
    extra = part.spec.cut.strip().rstrip(".")
    return "; ".join(s for s in (step, extra) if s)


def sleeves(game: Game) -> list[str]:
    """Return a line per card size: how many sleeves the game's decks would fill."""
    counts: dict[tuple[float, float], int] = {}
    names: dict[tuple[float, float], str] = {}
    for part in game.parts:
        if part.kind == "deck":
            size = card_size(part.spec.size)
            counts[size] = counts.get(size, 0) + part.card_count()
            if isinstance(part.spec.size, str):
                names.setdefault(size, part.spec.size)
    return [f"Card sleeves (optional): {n} for {w:g} x {h:g} mm"
            f"{f' ({names[(w, h)]})' if (w, h) in names else ''} cards"
            for (w, h), n in counts.items()]


def tools(game: Game, printed: list[Printed], opts: PrintOptions) -> list[str]:
    """Return the tools the components call for, as one line (or none)."""
    kinds = {p.kind for p in game.parts}
    found = []
    if kinds & {"deck", "tokens", "board"}:
        found.append("scissors or a paper trimmer")
    if any(p.kind == "tokens" and p.spec.shape == "circle" for p in game.parts):
        found.append("a craft knife or a circle punch for the round tokens")
    folds = opts.backs == "fold" and any(p.kind == "deck" and p.spec.back for p in game.parts)
    tiled = any(p.kind == "board" and p.pages > 1 for p in printed)
    if folds:
        found.append("a glue stick")
    if tiled:
        found.append("tape or glue to join the board tiles")
    if "booklet" in kinds:
        found.append("a stapler")
    return ["Tools: " + ", ".join(found)] if found else []


def bill_of_materials(game: Game, components, opts: PrintOptions) -> Bom:
    """Return the bill of materials from a game and its rendered components.

    ``components`` are the build's ComponentPDFs (or anything with component, name, kind,
    pages, duplex, note, stock and cut), in the game's order.
    """
    printed = []
    for c in components:
        sheets = math.ceil(c.pages / 2) if c.duplex else c.pages
        # A stock note reads "300 gsm card; sleeve each card": the paper is what precedes ';'.
        paper = c.stock.split(";")[0].strip() or DEFAULT_STOCK.get(c.kind, "plain paper")
        printed.append(Printed(c.component, c.name, c.kind, f"{c.component}.pdf", c.pages,
                               sheets, c.duplex, c.note, c.stock, paper, c.cut))
    cut = []
    for p in printed:
        step = cut_step(game.part(p.component), p.pages, opts)
        if step:
            cut.append((p.name, step))
    get = sleeves(game) + list(game.manifest.provide) + tools(game, printed, opts)
    return Bom(game.id, game.manifest.name, opts.paper, opts.backs, opts.flip, opts.layout,
               printed, cut, [" ".join(str(g).split()) for g in get])


def bom_text(bom: Bom) -> str:
    """Return the bill of materials as plain text for the terminal."""
    paper = "A4" if bom.paper_size == "a4" else "Letter"
    backs = {"duplex": f"backs printed duplex (flip on the {bom.flip} edge)",
             "fold": "backs beside fronts for gutter folding",
             "none": "no card backs"}[bom.backs]
    if bom.layout == "single":
        backs = "cards one per page for a print shop, each back on the page after its front"
    out = [f"{bom.name}: bill of materials", f"{paper} paper, {backs}", ""]
    out.append(f"Print: {_plural(len(bom.printed), 'file')}, {_plural(bom.pages, 'page')} on "
               f"{_plural(bom.sheets, 'sheet')}")
    width = max(len(p.file) for p in bom.printed)
    for p in bom.printed:
        how = "duplex" if p.duplex else "one-sided"
        if bom.layout == "single" and p.kind in ("deck", "tokens"):
            how = "card-size"
        out.append(f"  {p.file:<{width}}  {_plural(p.pages, 'page'):>9} on "
                   f"{_plural(p.sheets, 'sheet'):<10}  {how:<9}  {p.stock or p.paper}")
    out += ["", "Paper and card:"]
    out += [f"  {_plural(n, 'sheet')} of {stock}" for stock, n in bom.stock()]
    if bom.cut:
        out += ["", "Cut:"]
        out += [f"  {name}: {step}" for name, step in bom.cut]
    if bom.get:
        out += ["", "Also get:"]
        out += [f"  {line}" for line in bom.get]
    out += ["", f"{bom.game}-print-and-play.pdf holds every file above after a contents page."]
    return "\n".join(out) + "\n"


def plan(project: Project, game_id: str, opts: PrintOptions | None = None) -> Bom:
    """Return a game's bill of materials, laying out its pages without writing PDFs."""
    from .build import ComponentPDF
    from .components import RENDERERS
    from .export import drawing, load_one

    opts = opts or PrintOptions()
    game = load_one(project, game_id)
    components = []
    for part in game.parts:
        with drawing(game, part.id):
            r = RENDERERS[part.kind](game, part, opts)
        components.append(ComponentPDF(game.id, part.id, part.spec.name, part.kind, b"",
                                       len(r.pages), r.duplex, r.note, part.spec.stock,
                                       part.spec.cut))
    return bill_of_materials(game, components, opts)


def bom(project: Project, game_id: str, opts: PrintOptions | None = None) -> str:
    """Return a game's bill of materials as text."""
    return bom_text(plan(project, game_id, opts))
