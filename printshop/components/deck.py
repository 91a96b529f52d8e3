"""Decks and token sheets: each card's front and back drawn, then imposed."""

from __future__ import annotations

from ..layout.impose import Face, Item, cards_per_sheet, deck_sheets, impose_single
from ..load.geometry import DEFAULT_BLEED, PrintOptions, card_size
from ..load.models import Card, Game, Part
from .base import SAFE_MARGIN, Rendered, base_context, draw

TOKEN_BLEED = 1.5


def deck_bleed(part: Part, opts: PrintOptions) -> float:
    """Return the bleed of a deck: the user's choice, else the component's, else the default."""
    if opts.bleed is not None:
        return opts.bleed
    if part.spec.bleed is not None:
        return part.spec.bleed
    return TOKEN_BLEED if part.kind == "tokens" else DEFAULT_BLEED


def card_faces(game: Game, part: Part, opts: PrintOptions, card: Card) -> tuple[Face,
                                                                             Face | None]:
    """Draw one card's front and back."""
    spec = part.spec
    w, h = card_size(spec.size)
    bleed = deck_bleed(part, opts)
    ctx = base_context(game, opts)
    ctx.update(card=card.context(), deck={"id": spec.id, "name": spec.name},
               size={"w": w, "h": h, "bleed": bleed, "safe": SAFE_MARGIN,
                     "shape": spec.shape, "radius": spec.corner_radius})
    what = f"card '{card.id}' of {spec.id}"
    front = Face(draw(game, spec.front, {**ctx, "side": "front"}, what), w, h, bleed,
                 spec.shape)
    back = None
    if spec.back:
        back = Face(draw(game, spec.back, {**ctx, "side": "back"}, what + " (back)"), w, h,
                    bleed, spec.shape)
    return front, back


SHEETS_PER_SHARE = 100   # a deck longer than this is drawn in shares, one per worker
SPLIT_AT = 8             # a deck of this many sheets or more is drawn in two shares at least


def share_sheets(sheets: int) -> int:
    """Return how many sheets each share of a deck of ``sheets`` sheets holds: at most
    SHEETS_PER_SHARE, and half the deck from SPLIT_AT sheets on, so that a deck of a hundred
    cards is drawn on two cores."""
    shares = max(-(-sheets // SHEETS_PER_SHARE), 2 if sheets >= SPLIT_AT else 1)
    return -(-sheets // shares)


def _sheets(game: Game, part: Part, opts: PrintOptions) -> tuple[int, int]:
    """Return (cards on a sheet, sheets) of a deck laid out on sheets."""
    w, h = card_size(part.spec.size)
    face = Face("", w, h, deck_bleed(part, opts), part.spec.shape)
    per_sheet = cards_per_sheet(face, opts, bool(part.spec.back) and opts.backs != "none")
    return per_sheet, -(-part.card_count() // per_sheet)


def deck_shares(game: Game, part: Part, opts: PrintOptions) -> int:
    """Return in how many shares a deck is drawn (share_sheets): they depend on the deck
    alone, not on how many cores draw them, so neither do the PDF's bytes."""
    if opts.layout != "sheet" or not part.cards:
        return 1
    try:
        sheets = _sheets(game, part, opts)[1]
    except ValueError:
        return 1   # a card that fits no sheet: drawing it whole reports that, located
    return -(-sheets // share_sheets(sheets)) if sheets else 1


def render_deck(game: Game, part: Part, opts: PrintOptions,
                share: tuple[int, int] | None = None):
    """Draw every card of a deck and impose the copies onto pages; with ``share`` (index,
    shares), only the cards of that share's sheets (deck_shares)."""
    spec = part.spec
    items, faces = [], {}
    backs: dict[str, Face] = {}
    start, stop, first_sheet, sheets = 0, part.card_count(), 0, None
    if share is not None and share[1] > 1:
        per_sheet, sheets = _sheets(game, part, opts)
        size = share_sheets(sheets)
        first_sheet = share[0] * size
        start, stop = first_sheet * per_sheet, (first_sheet + size) * per_sheet
    at = 0
    for card in part.cards:
        low, high = at, at + card.copies
        at = high
        copies = min(high, stop) - max(low, start)
        if copies <= 0:
            continue
        front, back = card_faces(game, part, opts, card)
        if back is not None:
            back = backs.setdefault(back.svg, back)  # one drawing per distinct back
        faces[card.id] = [front] + ([back] if back else [])
        items.extend(Item(front, back, card.id) for _ in range(copies))
    title = f"{game.manifest.name} · {spec.name}"
    marks = "cut" if part.kind == "tokens" else "crop"
    first_page, total_pages = 1, None
    if opts.layout == "single":
        pages = impose_single(items, opts, title)
    else:
        pages = deck_sheets(items, [spec.name] * len(items), opts, game.manifest.name, marks,
                            first_sheet, sheets)
        if sheets is not None and pages:
            step = 2 if any(p.side == "back" for p in pages) else 1
            first_page, total_pages = first_sheet * step + 1, sheets * step
    duplex = bool(spec.back) and opts.backs == "duplex" and opts.layout == "sheet"
    count = part.card_count()
    noun = "tokens" if part.kind == "tokens" else "cards"
    note = f"{count} {noun}" + (", print duplex" if duplex else "")
    if spec.back and opts.backs == "fold":
        note += ", gutter fold"
    return Rendered(spec.id, spec.name, pages, duplex, note, faces, items, first_page,
                    total_pages)
