"""The print run: a game's components planned as one job for a home printer.

components -> print run -> pdf. Cards and tokens of one size, stock and way of printing
share sheets across decks (each card keeps its own back, mirrored behind it); every other
page keeps its component's drawing. The pages fall into runs, one per stock and way of
printing ("duplex, long-edge flip, on 300 gsm card"), and every duplex front lands on an
odd page with its back on the next, a marked blank page filling in where parity needs it.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

from .geometry import PrintOptions
from .impose import Item, Page, cards_per_sheet, deck_sheets
from .models import Game, Part

# What a component prints on when its manifest names no stock.
DEFAULT_STOCK = {
    "deck": "250-300 gsm card",
    "tokens": "300 gsm card",
    "sheet": "plain paper",
    "board": "120-160 gsm paper",
    "booklet": "plain paper",
}
ASSEMBLY_STOCK = "plain paper"


@dataclass
class ComponentPDF:
    """One component's finished PDF and what the print run and contents page need of it."""

    game: str
    component: str
    name: str
    kind: str
    pdf: bytes
    pages: int
    duplex: bool
    note: str
    stock: str
    cut: str
    sides: tuple[str, ...] = ()     # each page's side: front, back, sheet, tile, assembly...
    items: list[Item] | None = None  # the physical cards, for sharing sheets (not cached)


@dataclass(frozen=True)
class Stock:
    """What goes through the printer, the advice that came with it, and what it is glued to."""

    key: str
    advice: str = ""
    mount: str = ""


def sentence(text: str) -> str:
    """Return text as the start of a sentence: its first letter a capital."""
    return text[:1].upper() + text[1:]


def stock_of(part: Part) -> Stock:
    """Split a component's stock note into the paper or card to load and the advice."""
    spec = part.spec
    key, _, advice = spec.stock.partition(";")
    key = " ".join(key.split()) or DEFAULT_STOCK.get(part.kind, "plain paper")
    advice = " ".join(advice.split()).rstrip(".")
    return Stock(key, sentence(advice), " ".join(spec.mount.split()))


def max_players(players: str) -> int:
    """Return the largest player count a manifest's players line allows ("2-5" -> 5)."""
    counts = [int(n) for n in re.findall(r"\d+", players or "")]
    return max(counts) if counts else 1


def copies_of(game: Game, part: Part) -> int:
    """Return how many copies of a component a game needs: one per player or one."""
    return max_players(game.manifest.players) if part.spec.per_player else 1


@dataclass(frozen=True)
class Mode:
    """A way of putting pages through the printer."""

    rank: int       # runs print in this order
    duplex: bool
    how: str


MODES = {
    "duplex-long": Mode(0, True, "duplex, long-edge flip"),
    "duplex-short": Mode(1, True, "duplex, short-edge flip"),
    "mounted": Mode(2, False, "single-sided, fronts and backs on separate pages; glue each "
                              "page of fronts onto board and the page after it onto the "
                              "other side, lined up on the cut lines, before cutting"),
    "single": Mode(3, False, "single-sided"),
}


@dataclass
class Piece:
    """A component's share of a run: its pages there, and how it is cut."""

    component: str
    name: str
    # (first, last) pages of the print-and-play file, counted from 1: one span, or two for a
    # deck whose full sheets come first and whose last cards share sheets with other decks.
    spans: list[tuple[int, int]] = field(default_factory=list)
    assembly: bool = False   # a board's assembly diagram: read while joining, not cut out

    @property
    def first(self) -> int:
        return self.spans[0][0]

    @property
    def last(self) -> int:
        return self.spans[-1][1]

    def add(self, first: int, last: int) -> None:
        """Add pages first..last, joining them to the last span when they follow on."""
        if self.spans and first <= self.spans[-1][1] + 1:
            self.spans[-1] = (self.spans[-1][0], max(last, self.spans[-1][1]))
        else:
            self.spans.append((first, last))

    def where(self, one: str, many: str, dash: str) -> str:
        """Return the pages as a reader finds them: "p. 3", "pp. 3–8, 11–12"."""
        spans = [f"{a}" if a == b else f"{a}{dash}{b}" for a, b in self.spans]
        return f"{one if len(spans) == 1 and self.first == self.last else many} " \
            + ", ".join(spans)


@dataclass
class Source:
    """Pages of a run in order: a component PDF's pages, newly imposed sheets, or a blank."""

    component: str | None = None     # take these pages of this component's PDF
    indexes: list[int] = field(default_factory=list)
    pages: list[Page] = field(default_factory=list)   # or draw these
    blank: bool = False
    gang: tuple | None = None        # cards of several decks sharing sheets, before imposing
    name: str = ""
    assembly: bool = False
    laid: list[Page] = field(default_factory=list)   # what taken card sheets hold, as imposed

    @property
    def count(self) -> int:
        return 1 if self.blank else len(self.indexes) + len(self.pages)


@dataclass
class Run:
    """Pages printed in one go: one stock, one way of printing, one number of copies."""

    mode: str
    stock: str
    copies: int = 1
    title: str = ""
    sources: list[Source] = field(default_factory=list)
    pieces: list[Piece] = field(default_factory=list)
    first: int = 0
    last: int = 0
    advice: list[str] = field(default_factory=list)

    @property
    def pages(self) -> int:
        return sum(s.count for s in self.sources)

    @property
    def sheets(self) -> int:
        """Return the sheets of paper one copy of the run takes."""
        return math.ceil(self.pages / 2) if MODES[self.mode].duplex else self.pages

    def instruction(self) -> str:
        """Return what to tell the printer: pages, how, on what, how many copies."""
        span = f"pages {self.first}-{self.last}" if self.last > self.first else \
            f"page {self.first}"
        copies = f", {self.copies} copies (one per player)" if self.copies > 1 else ""
        return f"Print {span} {MODES[self.mode].how.split(';')[0]}, on {self.stock}{copies}"


@dataclass
class PrintRun:
    """A game's whole print-and-play file: a cover and a contents page, then the runs."""

    runs: list[Run]
    contents_pages: int = 2
    blank_after_contents: bool = False

    @property
    def pages(self) -> int:
        return self.contents_pages + int(self.blank_after_contents) + sum(
            r.pages for r in self.runs)

    def sheets(self) -> list[tuple[str, int]]:
        """Return (stock, sheets) over every copy of every run, in the order first used."""
        totals: dict[str, int] = {}
        for r in self.runs:
            totals[r.stock] = totals.get(r.stock, 0) + r.sheets * r.copies
        return list(totals.items())

    @property
    def total_sheets(self) -> int:
        return sum(n for _, n in self.sheets())


def identical_sides(items: list[Item]) -> bool:
    """Say whether every card's back is drawn exactly like its front."""
    return bool(items) and all(i.back is not None and i.back.svg == i.front.svg
                               for i in items)


def items_of(part: Part, faces: dict) -> list[Item]:
    """Return a deck's physical cards, copies included, from its drawn faces."""
    out = []
    for card in part.cards:
        front, *back = faces[card.id]
        out.extend(Item(front, back[0] if back else None, card.id)
                   for _ in range(card.copies))
    return out


def card_mode(part: Part, items: list[Item], opts: PrintOptions) -> tuple[str, bool]:
    """Return how a deck's sheets print and whether its backs print at all."""
    backs = opts.backs != "none" and any(i.back for i in items)
    if part.spec.mount and backs and opts.backs == "duplex":
        return "mounted", True   # both sides are glued on, even when they look alike
    if identical_sides(items):
        backs = False            # the same drawing twice: one side printed is enough
    if not backs or opts.backs == "fold":
        return "single", backs
    return f"duplex-{opts.flip}", True


def _page_mode(c: ComponentPDF, part: Part, opts: PrintOptions) -> str:
    if part.kind == "booklet":
        return "duplex-short"
    if part.kind in ("deck", "tokens") and "back" in c.sides and opts.backs == "duplex":
        return "mounted" if part.spec.mount else f"duplex-{opts.flip}"  # one card a page
    if c.duplex and part.kind != "tokens" and opts.layout == "sheet":
        return "duplex-long" if part.kind == "sheet" else f"duplex-{opts.flip}"
    if c.duplex and part.spec.mount:
        return "mounted"
    return "single"


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def _gang(game: Game, members: list[tuple[Part, list[Item], int]], opts: PrintOptions,
          backs: bool, marks: str, drawn: dict[str, ComponentPDF]
          ) -> tuple[list[Source], list[tuple[Part, list[tuple[int, int]]]]]:
    """Lay out decks that share sheets, given as (deck, its cards, copies). Each deck's full
    sheets are taken as its own PDF holds them; only its last cards, those of a sheet it does
    not fill, are imposed afresh onto sheets shared with the other decks' last cards. That
    takes as many sheets as sharing every card would, and draws a few cards instead of all.

    A deck whose own PDF was laid out otherwise (other backs or marks) shares all its cards.
    When sharing the last cards would save no sheet (a single deck has some left over, or
    two decks' leftovers fill two sheets), every deck is taken whole from its PDF. Return
    the sources in order and, per deck, the spans of those pages (0-based) its cards are on.
    """
    run_opts = opts if backs else PrintOptions(**{**opts.__dict__, "backs": "none"})
    name = game.manifest.name
    decks = []   # per deck: its cards, its pages as its own PDF lays them, those to take
    for part, items, copies in members:
        items = [i if backs else Item(i.front, None, i.card_id) for i in items]
        alone = drawn[part.id]
        laid = deck_sheets(items, [part.spec.name] * len(items), run_opts, name, marks)
        # deck_sheets is a function of its inputs: the same cards, options and marks as the
        # deck's own PDF (render_deck) mean the same pages; the choice of backs means nothing
        # to cards that have none. (A plan made without drawing, for the bill of materials,
        # has no PDF bytes but the same pages: it plans the same file.)
        as_drawn = alone.pages == len(laid) and items == alone.items \
            and (run_opts == opts or not any(i.back for i in items)) \
            and marks == ("cut" if alone.kind == "tokens" else "crop")
        per_sheet = cards_per_sheet(items[0].front, run_opts, any(i.back for i in items))
        step = 2 if any(p.side == "back" for p in laid) else 1
        full = len(items) // per_sheet if as_drawn else 0
        decks.append({"part": part, "items": items, "copies": copies, "laid": laid,
                      "per_sheet": per_sheet, "pages": full * step, "cards": full * per_sheet,
                      "whole": as_drawn})
    short = [d for d in decks if len(d["items"]) > d["cards"]]
    left = sum((len(d["items"]) - d["cards"]) * d["copies"] for d in short)
    if short and all(d["whole"] and d["copies"] == 1 for d in short) and \
            -(-left // short[0]["per_sheet"]) == len(short):
        # Sharing would save no sheet: each deck's last sheet is taken as drawn too.
        for d in short:
            d["pages"], d["cards"] = len(d["laid"]), len(d["items"])
        short = []
    sources: list[Source] = []
    spans: dict[str, list[tuple[int, int]]] = {d["part"].id: [] for d in decks}
    at = 0
    for d in decks:
        if d["pages"]:
            part, n = d["part"], d["pages"]
            sources.append(Source(part.id, list(range(n)) * d["copies"], name=part.spec.name,
                                  laid=d["laid"][:n] * d["copies"]))
            spans[part.id].append((at, at + n * d["copies"] - 1))
            at += n * d["copies"]
    if short:
        rest = [(d["part"], d["items"][d["cards"]:] * d["copies"]) for d in short]
        pages = deck_sheets([i for _, items in rest for i in items],
                            [part.spec.name for part, items in rest for _ in items],
                            run_opts, name, marks)
        sources.append(Source(pages=pages))
        per_sheet = short[0]["per_sheet"]
        step = 2 if any(p.side == "back" for p in pages) else 1
        card = 0
        for part, items in rest:
            first, last = card // per_sheet, (card + len(items) - 1) // per_sheet
            spans[part.id].append((at + first * step, at + last * step + step - 1))
            card += len(items)
    return sources, [(d["part"], spans[d["part"].id]) for d in decks]


def plan_run(game: Game, components: list[ComponentPDF], opts: PrintOptions) -> PrintRun:
    """Plan a game's print-and-play file from its rendered components."""
    runs: dict[tuple, Run] = {}
    gangs: dict[tuple, list[tuple[Part, list[Item], int]]] = {}
    by_id = {c.component: c for c in components}

    def run_for(mode: str, stock: str, copies: int) -> Run:
        return runs.setdefault((mode, stock, copies), Run(mode, stock, copies))

    for c in components:
        part = game.part(c.component)
        stock = stock_of(part)
        copies = copies_of(game, part)
        if part.kind in ("deck", "tokens") and opts.layout == "sheet" and c.items:
            mode, backs = card_mode(part, c.items, opts)
            front = c.items[0].front
            marks = "cut" if part.kind == "tokens" else "crop"
            # Tokens cut on their own outlines, so round and square ones share sheets.
            shape = front.shape if marks == "crop" else "any"
            key = (mode, stock.key, front.w, front.h, front.bleed, shape, marks, backs)
            if key not in gangs:
                gangs[key] = []
                run_for(mode, stock.key, 1).sources.append(Source(gang=key))
            gangs[key].append((part, c.items, copies))
            continue
        sides = c.sides or ("sheet",) * c.pages
        main = [i for i, s in enumerate(sides) if s != "assembly"]
        extra = [i for i, s in enumerate(sides) if s == "assembly"]
        mode = _page_mode(c, part, opts)
        if main:
            run = run_for(mode, stock.key, copies)
            run.sources.append(Source(c.component, main, name=part.spec.name))
            if MODES[mode].duplex and len(main) % 2:
                run.sources.append(Source(blank=True))
        if extra:
            run_for("single", ASSEMBLY_STOCK, 1).sources.append(
                Source(c.component, extra, name=f"{part.spec.name}: assembly diagram",
                       assembly=True))

    for run in runs.values():
        sources, run.sources, at = run.sources, [], 0
        for source in sources:
            if source.gang is not None:
                taken, spans = _gang(game, gangs[source.gang], opts, source.gang[-1],
                                     source.gang[-2], by_id)
                for part, where in spans:
                    piece = Piece(part.id, part.spec.name)
                    for first, last in where:
                        piece.add(at + first, at + last)
                    run.pieces.append(piece)
                run.sources += taken
                at += sum(s.count for s in taken)
                continue
            if source.component:
                run.pieces.append(Piece(source.component, source.name,
                                        [(at, at + source.count - 1)], source.assembly))
            run.sources.append(source)
            at += source.count

    ordered = sorted(runs.values(), key=lambda r: MODES[r.mode].rank)
    plan = PrintRun(ordered)
    page = plan.contents_pages + 1
    for i, run in enumerate(ordered):
        if MODES[run.mode].duplex and page % 2 == 0:
            # What came before ended on a front: a blank back keeps this run's fronts odd.
            if i == 0:
                plan.blank_after_contents = True
            else:
                ordered[i - 1].sources.append(Source(blank=True))
                ordered[i - 1].last += 1
            page += 1
        run.first, run.last = page, page + run.pages - 1
        for piece in run.pieces:
            piece.spans = [(a + run.first, b + run.first) for a, b in piece.spans]
        page = run.last + 1
        run.title = f"{MODES[run.mode].how.split(';')[0].capitalize()}, on {run.stock}"
        advice = MODES[run.mode].how.partition("; ")[2]
        if advice:
            run.advice.append(sentence(advice))
    return plan


def sheets_alone(game: Game, components: list[ComponentPDF], opts: PrintOptions) -> int:
    """Return the sheets the components would take printed each on its own sheets, copies
    included: what sharing sheets saves is the difference from the print run's."""
    return sum(plan_run(game, [c], opts).total_sheets for c in components)

