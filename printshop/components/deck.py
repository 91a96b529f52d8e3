"""Decks and token sheets: each card's front and back drawn, then imposed."""

from __future__ import annotations

from ..geometry import DEFAULT_BLEED, PrintOptions, card_size
from ..impose import Face, Item, deck_sheets, impose_single
from ..models import Card, Game, Part
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


def render_deck(game: Game, part: Part, opts: PrintOptions):
    """Draw every card of a deck and impose the copies onto pages."""
    spec = part.spec
    items, faces = [], {}
    backs: dict[str, Face] = {}
    for card in part.cards:
        front, back = card_faces(game, part, opts, card)
        if back is not None:
            back = backs.setdefault(back.svg, back)  # one drawing per distinct back
        faces[card.id] = [front] + ([back] if back else [])
        items.extend(Item(front, back, card.id) for _ in range(card.copies))
    title = f"{game.manifest.name} · {spec.name}"
    marks = "cut" if part.kind == "tokens" else "crop"
    if opts.layout == "single":
        pages = impose_single(items, opts, title)
    else:
        pages = deck_sheets(items, [spec.name] * len(items), opts, game.manifest.name, marks)
    duplex = bool(spec.back) and opts.backs == "duplex" and opts.layout == "sheet"
    count = part.card_count()
    noun = "tokens" if part.kind == "tokens" else "cards"
    note = f"{count} {noun}" + (", print duplex" if duplex else "")
    if spec.back and opts.backs == "fold":
        note += ", gutter fold"
    return Rendered(spec.id, spec.name, pages, duplex, note, faces)
