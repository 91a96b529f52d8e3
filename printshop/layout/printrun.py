"""The print run: a game's components planned as one job for a home printer.

components -> print run -> pdf. Cards and tokens of one size, stock and way of printing
share sheets across decks (each card keeps its own back, mirrored behind it), and tokens
printed on one side fill a card sheet's empty places where that saves their sheet (both laid
out in sharing.py); every other page keeps its component's drawing. The pages fall into runs, one per stock and way of
printing ("duplex, long-edge flip, on 300 gsm card"), and every duplex front lands on an
odd page with its back on the next, a marked blank page filling in where parity needs it.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field, replace

from ..load.geometry import PrintOptions
from ..load.models import Game, Part
from .impose import Item, deck_names
from .sharing import Laid, Source, gang, share_places, with_empty_backs

# What a component prints on when its manifest names no stock.
DEFAULT_STOCK = {
    "deck": "250-300 gsm card",
    "tokens": "300 gsm card",
    "sheet": "plain paper",
    "board": "120-160 gsm paper",
    "booklet": "plain paper",
}
ASSEMBLY_STOCK = "plain paper"
COVER_STOCK = "plain paper"


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


# Folded in two, a card is twice its paper: 300 gsm card folds into 600 gsm, which cracks.
FOLD_STOCK = Stock("160 gsm paper", "Folded in two it makes a card of about 320 gsm; score "
                   "each fold with a bone folder (or a blunt knife) and a ruler before folding")


def print_stock(part: Part, opts: PrintOptions) -> Stock:
    """Return what a component prints on with these options: in fold mode, cards and tokens
    that print their backs beside their fronts (and are not glued onto board) go on paper
    that folds into card."""
    stock = stock_of(part)
    if opts.backs == "fold" and opts.layout == "sheet" and part.kind in ("deck", "tokens") \
            and part.spec.back and not stock.mount:
        return Stock(FOLD_STOCK.key, FOLD_STOCK.advice, stock.mount)
    return stock


GSM = re.compile(r"(\d+)(?:\s*-\s*(\d+))?\s*gsm\s+(.+)")


def joint_stocks(keys: list[str]) -> dict[str, str]:
    """Return, per stock, the stock it prints on: stocks of one material whose weights
    overlap ("250-300 gsm card" and "300 gsm card") print on their overlap ("300 gsm card"),
    so that one stock is bought and their part-empty sheets can be shared. Each stock joins
    the first group (in the order given) it overlaps; anything else stays as it is."""
    groups: list[list] = []   # [material, lightest, heaviest, its stocks]
    for key in dict.fromkeys(keys):
        found = GSM.fullmatch(key)
        if not found:
            continue
        low, high, material = int(found[1]), int(found[2] or found[1]), found[3]
        for group in groups:
            if group[0] == material and low <= group[2] and group[1] <= high:
                group[1], group[2] = max(group[1], low), min(group[2], high)
                group[3].append(key)
                break
        else:
            groups.append([material, low, high, [key]])
    joint = {key: key for key in keys}
    for material, low, high, members in groups:
        for key in members:
            joint[key] = f"{low} gsm {material}" if low == high else \
                f"{low}-{high} gsm {material}"
    return joint


def game_stocks(game: Game, opts: PrintOptions, parts: list[Part] | None = None,
                joint: bool = True) -> dict[str, Stock]:
    """Return what each component prints on in its game's file (``parts``: these only),
    stocks that overlap joined unless ``joint`` is false."""
    parts = game.parts if parts is None else parts
    own = {p.id: print_stock(p, opts) for p in parts}
    if not joint:
        return own
    onto = joint_stocks([s.key for s in own.values()])
    return {pid: replace(s, key=onto[s.key]) for pid, s in own.items()}


def max_players(players: str) -> int:
    """Return the largest player count a manifest's players line allows ("2-5" -> 5)."""
    counts = [int(n) for n in re.findall(r"\d+", players or "")]
    return max(counts) if counts else 1


def copies_of(game: Game, part: Part) -> int:
    """Return how many copies of a component a game needs at most: one per player, or as
    many as its manifest says."""
    return max_players(game.manifest.players) if part.spec.per_player else part.spec.copies


@dataclass(frozen=True)
class Mode:
    """What a component's pages hold behind each other when the file prints whole."""

    rank: int       # runs of these pages come first in this order
    two_sided: bool  # a back design behind each front (else each page has an empty back)
    how: str        # the contents page's words for it
    label: str      # the page label's words for a front


MODES = {
    "two-sided": Mode(0, True, "each front with its own back behind it", ""),
    "mounted": Mode(1, False, "fronts and backs on separate sheets, each with an empty back: "
                              "glue each sheet of fronts onto {mount} and the sheet of backs "
                              "after it onto the other side, lined up on the cut lines, "
                              "before cutting", "glue onto {mount}"),
    "one-sided": Mode(2, False, "one side printed, the back left empty", "back left empty"),
}

# The one printer setting of a file, by the flip its two-sided pages were laid out for.
SETTINGS = {"long": "double-sided, flip on long edge", "short": "double-sided, flip on short edge",
            "none": "single-sided"}


@dataclass
class Piece:
    """A component's share of a run: its pages there, and how it is cut."""

    component: str
    name: str
    # (first, last) pages of the print-and-play file, counted from 1: one span, or two for a
    # deck whose full sheets come first and whose last cards share sheets with other decks.
    spans: list[tuple[int, int]] = field(default_factory=list)
    assembly: bool = False   # a board's assembly diagram: read while joining, not cut out
    mode: str = "one-sided"
    places: list[int] = field(default_factory=list)   # pages where it fills card places

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
class Run:
    """Pages printed on one stock, one number of copies."""

    stock: str
    copies: int = 1
    title: str = ""
    sources: list[Source] = field(default_factory=list)
    pieces: list[Piece] = field(default_factory=list)
    first: int = 0
    last: int = 0
    advice: list[str] = field(default_factory=list)
    duplex: bool = True   # the file's setting: two pages a sheet

    @property
    def pages(self) -> int:
        return sum(s.count for s in self.sources)

    @property
    def sheets(self) -> int:
        """Return the sheets of paper one copy of the run takes."""
        return math.ceil(self.pages / 2) if self.duplex else self.pages

    @property
    def rank(self) -> int:
        return min((MODES[s.mode].rank for s in self.sources if not s.blank), default=9)

    def span(self) -> str:
        return f"pages {self.first}-{self.last}" if self.last > self.first else \
            f"page {self.first}"

    def instruction(self) -> str:
        """Return what to print, on what and how many times (the setting is the file's)."""
        copies = f", {self.copies} times" if self.copies > 1 else ""
        return f"Print {self.span()} on {self.stock}{copies}"

    def sheet_count(self) -> str:
        """Return the sheets this run takes, totalled over its copies."""
        each = _plural(self.sheets, "sheet")
        if self.copies > 1:
            return f"{each} each, {_plural(self.sheets * self.copies, 'sheet')} in all"
        return each


@dataclass
class PrintRun:
    """A game's whole print-and-play file: a cover and a contents page, then the runs."""

    runs: list[Run]
    contents_pages: int = 2
    blank_after_contents: bool = False
    setting: str = SETTINGS["long"]
    labels: list[str | None] = field(default_factory=list)   # each page's label, blanks None
    stocks: dict[str, Stock] = field(default_factory=dict)   # what each component prints on

    @property
    def duplex(self) -> bool:
        return self.setting != SETTINGS["none"]

    @property
    def pages(self) -> int:
        return self.contents_pages + int(self.blank_after_contents) + sum(
            r.pages for r in self.runs)

    def cover_line(self) -> str:
        """Return the line for the cover and contents pages, as the runs' lines go."""
        span = f"pages 1-{self.contents_pages}" if self.contents_pages > 1 else "page 1"
        return f"Print {span} on {COVER_STOCK}: {_plural(self.cover_sheets, 'sheet')} " \
            "(the cover and these contents)"

    @property
    def cover_sheets(self) -> int:
        """Return the sheets of plain paper the cover and the contents page take."""
        return math.ceil(self.contents_pages / 2) if self.duplex else self.contents_pages

    def sheets(self) -> list[tuple[str, int]]:
        """Return (stock, sheets) over every copy of every run and the cover, in the order
        first used."""
        totals: dict[str, int] = {}
        for r in self.runs:
            totals[r.stock] = totals.get(r.stock, 0) + r.sheets * r.copies
        totals[COVER_STOCK] = totals.get(COVER_STOCK, 0) + self.cover_sheets
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
    if part.spec.mount and backs:
        # Both sides are glued on, even when they look alike: on sheets of their own when
        # backs print duplex, beside the fronts (to fold round the board) in fold mode.
        return ("mounted" if opts.backs == "duplex" else "one-sided"), True
    if identical_sides(items):
        backs = False            # the same drawing twice: one side printed is enough
    if not backs or opts.backs == "fold":
        return "one-sided", backs
    return "two-sided", True


def _page_mode(c: ComponentPDF, part: Part, opts: PrintOptions) -> str:
    if part.kind == "booklet":
        return "two-sided"
    if part.kind in ("deck", "tokens") and "back" in c.sides and opts.backs == "duplex":
        return "mounted" if part.spec.mount else "two-sided"  # one card a page
    if c.duplex and part.kind not in ("tokens", "board") and opts.layout == "sheet":
        return "two-sided"     # the manifest says its pages are the two sides of one sheet
    if c.duplex and part.spec.mount:
        return "mounted"
    return "one-sided"


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def _lay_out(run: Run, laid: list[Laid], duplex: bool) -> None:
    """Put a run's entries in order, with empty backs where their pages print one side,
    and each component's pages."""
    run.sources, at, starts = [], 0, []
    for lay in laid:
        taken, grow = lay.taken, 1
        if duplex and not MODES[lay.source.mode].two_sided:
            taken, grow = with_empty_backs(taken)
        elif duplex and lay.source.gang is None and lay.source.count % 2:
            taken = taken + [Source(blank=True)]   # the last page's back is left empty
        starts.append((at, grow, sum(s.count for s in taken)))
        run.sources += taken
        at += starts[-1][2]
    for lay, (at, grow, count) in zip(laid, starts):
        source = lay.source
        if source.gang is None:
            run.pieces.append(Piece(source.component, source.name, [(at, at + count - 1)],
                                    source.assembly, source.mode))
            continue
        for part, where in lay.spans:
            spans = [(at + a * grow, at + b * grow + grow - 1) for a, b in where]
            piece = Piece(part.id, part.spec.name, mode=source.mode)
            for i, j in lay.away.get(part.id, []):
                there, step, _ = starts[i]
                spans.append((there + j * step, there + j * step + step - 1))
                piece.places.append(there + j * step)
            for first, last in sorted(spans):
                piece.add(first, last)
            run.pieces.append(piece)


SIDE_WORDS = {"front": "fronts", "back": "backs", "fold": "fold on the dashed line, glue, cut",
              "assembly": "assembly diagram"}


def page_labels(game: Game, plan: PrintRun, mounts: dict[str, str], opts: PrintOptions
                ) -> list[str | None]:
    """Return each page's label: the game, what is on the page, which of its sheets, the
    side and how it prints (None for empty backs, booklet pages and card-size pages)."""
    from .tiles import tile_plan

    name = game.manifest.name
    pages: list[tuple | None] = [None] * plan.pages
    pages[0] = ((name,), "cover", "", "", 0)
    pages[1] = ((name,), "contents", "", "", 1)
    at = plan.contents_pages + int(plan.blank_after_contents)
    for run in plan.runs:
        for s in run.sources:
            if s.blank:
                at += 1
                continue
            drawn = s.pages or s.laid
            for k in range(s.count):
                page = drawn[k] if drawn else None
                owners = page.owners if page is not None and page.owners else (s.name,)
                side = page.side if page is not None else (s.sides[k] if s.sides else "sheet")
                index = s.indexes[k] if s.indexes else k
                pages[at] = (owners, side, s.mode, s.component or "", index)
                at += 1
    counts: dict[tuple, int] = {}
    numbered: list[tuple | None] = []
    for n, info in enumerate(pages):
        if info is None or info[1] in ("cover", "contents"):
            numbered.append(None)
            continue
        owners, side, mode, component, _ = info
        key = (owners, side == "tile", side == "assembly")
        if not (MODES[mode].two_sided and side == "back"):
            counts[key] = counts.get(key, 0) + 1
        numbered.append((key, counts.get(key, 1)))
    labels: list[str | None] = []
    for n, (info, num) in enumerate(zip(pages, numbered)):
        if info is None:
            labels.append(None)
            continue
        owners, side, mode, component, index = info
        if side in ("cover", "contents"):
            labels.append(f"{name} · {side}")
            continue
        part = game.part(component) if component else None
        if part is not None and (part.kind == "booklet" or opts.layout == "single" and
                                 part.kind in ("deck", "tokens")):
            # A booklet's pages fill the sheet and number themselves; a card-size page
            # for a print shop is all card.
            labels.append(None)
            continue
        key, k = num
        noun = "shared sheet" if len(owners) > 1 else "tile" if side == "tile" else "sheet"
        words = [SIDE_WORDS.get(side, "")]
        if MODES[mode].two_sided and side == "back":
            words = [f"backs of page {n}"]   # n counts from 0: the page before this one
        if plan.duplex and not MODES[mode].two_sided:
            words.append(MODES["one-sided"].label)
        if mode == "mounted":
            words.append(MODES[mode].label.format(mount=mounts.get(component) or "board"))
        total = counts[key]
        which = f"{noun} {k} of {total}" if total > 1 else noun if noun != "sheet" else ""
        if side == "tile" and part is not None and total > 1:
            # The tile's own name, as the assembly diagram shows it.
            tiles = tile_plan(*part.spec.size, opts, part.spec.overlap)
            which = f"tile {tiles.tiles[index].name} of {tiles.cols} x {tiles.rows}"
            words = ["join as the assembly diagram shows"] + words
        if side == "assembly":
            which = ""   # one a board, named by its words
        labels.append(" · ".join(t for t in [name, deck_names(list(owners)), which] + words
                                 if t))
    return labels


def plan_run(game: Game, components: list[ComponentPDF], opts: PrintOptions,
             setting: str | None = None) -> PrintRun:
    """Plan a game's print-and-play file from its rendered components: one printer setting
    for the whole file (``setting`` chooses it, else the components do). Components whose
    stocks overlap print on the overlap where their sharing sheets then saves a sheet."""
    parts = [game.part(c.component) for c in components]
    own = game_stocks(game, opts, parts, joint=False)
    plan = _plan(game, components, opts, setting, own)
    joint = game_stocks(game, opts, parts)
    if joint != own:
        shared = _plan(game, components, opts, setting, joint)
        if shared.total_sheets < plan.total_sheets:
            return shared
    return plan


def _plan(game: Game, components: list[ComponentPDF], opts: PrintOptions,
          setting: str | None, stocks: dict[str, Stock]) -> PrintRun:
    runs: dict[tuple, Run] = {}
    gangs: dict[tuple, list[tuple[Part, list[Item], int]]] = {}
    by_id = {c.component: c for c in components}
    mounts = {c.component: stock_of(game.part(c.component)).mount for c in components}

    def run_for(stock: str, copies: int) -> Run:
        return runs.setdefault((stock, copies), Run(stock, copies))

    for c in components:
        part = game.part(c.component)
        stock = stocks[part.id]
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
                run_for(stock.key, 1).sources.append(Source(gang=key, mode=mode))
            gangs[key].append((part, c.items, copies))
            continue
        sides = c.sides or ("sheet",) * c.pages
        main = [i for i, s in enumerate(sides) if s != "assembly"]
        extra = [i for i, s in enumerate(sides) if s == "assembly"]
        mode = _page_mode(c, part, opts)
        if main:
            run_for(stock.key, copies).sources.append(
                Source(c.component, main, name=part.spec.name, mode=mode,
                       sides=tuple(sides[i] for i in main)))
        if extra:
            run_for(ASSEMBLY_STOCK, 1).sources.append(
                Source(c.component, extra, name=part.spec.name, assembly=True,
                       sides=tuple(sides[i] for i in extra)))

    if setting is None:
        two_sided = any(s.mode == "two-sided" for r in runs.values() for s in r.sources)
        setting = SETTINGS[opts.flip] if two_sided else SETTINGS["none"]
    duplex = setting != SETTINGS["none"]
    for run in runs.values():
        run.duplex = duplex
        # Two-sided pages first, so that what follows a run's empty backs is on a new sheet.
        laid = []
        for source in sorted(run.sources, key=lambda s: MODES[s.mode].rank):
            if source.gang is None:
                laid.append(Laid(source, [source]))
                continue
            taken, spans = gang(game, gangs[source.gang], opts, source.gang[-1],
                                 source.gang[-2], by_id)
            for t in taken:
                t.mode = source.mode
            laid.append(Laid(source, taken, spans))
        if opts.layout == "sheet":
            share_places(laid, gangs, opts)
        _lay_out(run, laid, duplex)

    ordered = sorted(runs.values(), key=lambda r: r.rank)
    plan = PrintRun(ordered, setting=setting, stocks=stocks)
    page = plan.contents_pages + 1
    for run in ordered:
        if duplex and page % 2 == 0:
            # Never happens while every run holds whole sheets; kept for a one-page contents.
            plan.blank_after_contents = True
            page += 1
        run.first, run.last = page, page + run.pages - 1
        for piece in run.pieces:
            piece.spans = [(a + run.first, b + run.first) for a, b in piece.spans]
            piece.places = [n + run.first for n in piece.places]
        page = run.last + 1
        run.title = f"On {run.stock}"
        for mode in dict.fromkeys(s.mode for s in run.sources if not s.blank):
            if mode == "mounted":
                mount = next((mounts[p.component] for p in run.pieces
                              if p.mode == mode and mounts.get(p.component)), "board")
                run.advice.append(sentence(MODES[mode].how.format(mount=mount)))
    plan.labels = page_labels(game, plan, mounts, opts)
    return plan


def sheets_alone(game: Game, components: list[ComponentPDF], opts: PrintOptions,
                 setting: str | None = None) -> int:
    """Return the sheets the components would take printed each on its own sheets, copies
    included, with the file's one setting: what sharing sheets saves is the difference."""
    alone = [plan_run(game, [c], opts, setting) for c in components]
    return sum(p.total_sheets - p.cover_sheets for p in alone) + (
        alone[0].cover_sheets if alone else 0)
