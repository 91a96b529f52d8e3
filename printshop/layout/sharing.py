"""Cards and tokens sharing sheets in the print run: the sources a run's pages come from,
decks whose last cards share sheets (their full sheets taken as their own PDFs hold them),
and tokens whose last sheet moves into the empty card places of a card sheet.

printrun.py plans the runs; this module lays out what shares a sheet.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from ..load.geometry import PrintOptions
from ..load.models import Game, Part
from .impose import Item, Page, cards_per_sheet, deck_sheets


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
    mode: str = "one-sided"
    sides: tuple[str, ...] = ()      # each taken page's side, as its component drew it

    @property
    def count(self) -> int:
        return 1 if self.blank else len(self.indexes) + len(self.pages)


def gang(game: Game, members: list[tuple[Part, list[Item], int]], opts: PrintOptions,
          backs: bool, marks: str, drawn: dict
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


def _one_page(s: Source, k: int) -> Source:
    """Return page k of a source as a source of its own."""
    if s.pages:
        return replace(s, pages=[s.pages[k]])
    return replace(s, indexes=[s.indexes[k]], sides=s.sides[k:k + 1], laid=s.laid[k:k + 1])


def _pages(sources: list[Source]) -> list[Source]:
    """Return the sources split into one a page (blanks kept as they are)."""
    return [s if s.blank else _one_page(s, k) for s in sources for k in range(s.count)]


def _joined(sources: list[Source]) -> list[Source]:
    """Return the sources with neighbours that can be one source joined: pages drawn afresh,
    or pages of one component's PDF, printed alike."""
    out: list[Source] = []
    for s in sources:
        last = out[-1] if out else None
        if last is not None and not (s.blank or last.blank) and s.mode == last.mode \
                and s.assembly == last.assembly and bool(s.pages) == bool(last.pages) \
                and (s.pages or s.component == last.component):
            out[-1] = replace(last, pages=last.pages + s.pages,
                              indexes=last.indexes + s.indexes, sides=last.sides + s.sides,
                              laid=last.laid + s.laid)
        else:
            out.append(s)
    return out


def with_empty_backs(sources: list[Source]) -> tuple[list[Source], int]:
    """Return the sources with an empty page after each of their pages, and the factor that
    turns a page's offset among them into its offset now (2)."""
    out = []
    for one in _pages(sources):
        out += [one] if one.blank else [one, Source(blank=True)]
    return out, 2


@dataclass
class Laid:
    """A run's entry laid out: its pages before any empty backs and, for cards and tokens,
    each component's spans of them (0-based) and the pages of other entries it is also on."""

    source: Source
    taken: list[Source]
    spans: list[tuple[Part, list[tuple[int, int]]]] = field(default_factory=list)
    away: dict[str, list[tuple[int, int]]] = field(default_factory=dict)  # (entry, page)


def _page_of(s: Source) -> Page:
    return s.pages[0] if s.pages else s.laid[0]


def share_places(laid: list[Laid], gangs: dict, opts: PrintOptions) -> None:
    """Move the last sheet of tokens printed on one side into the empty card places of the
    run's card sheets, where all its tokens fit: that sheet is saved. A card place holding
    tokens has nothing behind it (a two-sided sheet's back leaves it empty), so no token is
    backed by another component; tokens whose backs print, or that are glued onto board
    with their backs, keep their sheets."""
    from .impose import Nested, fill_places, free_places, tokens_per_place

    hosts = [(i, gangs[lay.source.gang][0][1][0].front) for i, lay in enumerate(laid)
             if lay.source.gang is not None and lay.source.gang[6] == "crop"
             and lay.source.mode in ("two-sided", "one-sided")]
    for g, lay in enumerate(laid):
        key = lay.source.gang
        if key is None or key[6] != "cut" or key[0] != "one-sided" or key[7] or not hosts:
            continue
        pages = _pages(lay.taken)
        last = _page_of(pages[-1])
        faces = [p.face for p in last.parts if isinstance(p, Nested)]
        tokens = [(f, p.card_id) for f, p in zip(faces, last.placements)]
        places = [(i, j, free_places(_page_of(one), face, opts))
                  for i, face in hosts for j, one in enumerate(_pages(laid[i].taken))]
        if sum(tokens_per_place(tokens[0][0], box) for _, _, boxes in places
               for box in boxes) < len(tokens):
            continue
        on_last = [part for part, where in lay.spans
                   if any(a <= len(pages) - 1 <= b for a, b in where)]
        for i, face in hosts:
            host = _pages(laid[i].taken)
            for j, one in enumerate(host):
                if not tokens:
                    break
                page, placed = fill_places(_page_of(one), face, opts, tokens, last.owners)
                if not placed:
                    continue
                tokens = tokens[placed:]
                host[j] = Source(pages=[page], mode=one.mode)
                if j + 1 < len(host) and _page_of(host[j + 1]).side == "back":
                    back = host[j + 1]   # labelled as its front is
                    owned = replace(_page_of(back), owners=page.owners)
                    host[j + 1] = replace(back, pages=[owned]) if back.pages else \
                        replace(back, laid=[owned])
                for part in on_last:
                    lay.away.setdefault(part.id, []).append((i, j))
            laid[i].taken = _joined(host)
        lay.taken = _joined(pages[:-1])
        lay.spans = [(part, [(a, min(b, len(pages) - 2)) for a, b in where
                             if a <= len(pages) - 2]) for part, where in lay.spans]
