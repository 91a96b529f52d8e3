"""A game's components grouped into a shop's products: what a designer orders.

match -> draw (pod.py) -> group. Decks and token sets of one size go on the shop's card or chit
product of that size, all in one order where the product takes a back per card (a deck with
mixed backs), split by back where it takes one back per deck; an order larger than the
product holds is split again. Boards go on the smallest board or mat they fit, booklets and
sheets on a booklet or document of their page size. What no product takes is listed with the
reason, and with the shops that do sell it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..layout.impose import Face
from ..load.geometry import card_size, paper_size
from ..load.models import Card, Game, Part
from . import DECK_KINDS
from .shops import PAGE_KINDS, SHEET_KINDS, Product, Shop

MAX_JOINED = 3          # an order of up to this many decks is named after them all
PAPERS = ("a4", "letter")


@dataclass
class Piece:
    """One distinct card or chit of an order, drawn: its deck, data place and faces."""

    part: Part
    card: Card
    index: int              # the card's place in its deck's data
    front: Face
    back: Face
    front_file: str = ""
    back_file: str = ""


@dataclass
class Order:
    """One product to order: which components it holds and, for cards, every piece."""

    id: str
    key: str                # the product's key in shops.yaml
    product: Product
    parts: list[Part]
    pieces: list[Piece] = field(default_factory=list)
    one_back: bool = False
    scale: float = 1.0      # boards and pages: printed at this share of their size
    paper: str = ""         # sheets: the paper to build them on
    note: str = ""

    @property
    def count(self) -> int | None:
        """Return the cards or chits the order holds, copies included, or its pages (None
        where the build counts them)."""
        if self.pieces:
            return sum(p.card.copies for p in self.pieces)
        return page_count(self.parts[0])


@dataclass
class Match:
    """Where each component of a game goes at one shop, before anything is drawn."""

    cards: dict[str, list[Part]] = field(default_factory=dict)     # product key -> decks
    sheets: list[Order] = field(default_factory=list)              # boards, booklets, sheets
    missing: list[tuple[Part, str]] = field(default_factory=list)  # (component, why not)


def page_count(part: Part) -> int | None:
    """Return the pages of a sheet component or a board (one); None for a booklet, whose
    pages are counted when it is drawn."""
    if part.kind == "sheet":
        return part.spec.pages
    return None if part.kind == "booklet" else 1


def _deck_product(shop: Shop, part: Part):
    size = part.spec.size
    w, h = card_size(size)
    return shop.product_for(size if isinstance(size, str) else None, w, h, part.spec.shape)


def _page_size(part: Part) -> list[tuple[str, float, float]]:
    if part.kind == "booklet":
        size = part.spec.page_size
        w, h = paper_size(size) if isinstance(size, str) else size
        return [("", w, h)]
    return [(paper, *paper_size(paper)) for paper in PAPERS]


def place(shop: Shop, part: Part) -> tuple[str, Product, float, str] | str:
    """Return (product key, product, scale, paper) for a component, or why none fits."""
    if part.kind in DECK_KINDS:
        found = _deck_product(shop, part)
        if found:
            return (*found, 1.0, "")
        w, h = card_size(part.spec.size)
        what = "card" if part.kind == "deck" else f"{part.spec.shape} chit"
        kind = "cards" if part.kind == "deck" else "chits"
        sizes = sorted({f"{a:.0f} x {b:.0f}" for a, b in
                        (shop.trim_mm(p) for p in shop.products.values()
                         if p.kind == kind and (kind == "cards" or p.shape == part.spec.shape))})
        return (f"{w:g} x {h:g} mm: {shop.name} sells no {what} of this size"
                + (f" (its sizes: {', '.join(sizes)} mm)" if sizes else ""))
    if part.kind == "board":
        w, h = part.spec.size
        found = shop.sheet_for(SHEET_KINDS, w, h)
        if found:
            return (*found, "")
        return (f"{w:g} x {h:g} mm: {shop.name} sells no board or mat it fits on at "
                f"90-100 % of its size")
    if part.kind in ("sheet", "booklet"):
        kinds = ("booklet",) if part.kind == "booklet" else PAGE_KINDS
        best = None
        for paper, w, h in _page_size(part):
            found = shop.sheet_for(kinds, w, h)
            if found and (best is None or found[2] > best[2]):
                best = (*found, paper)
        if best:
            return best
        return f"{shop.name} sells no {' or '.join(kinds)} of this page size"
    return f"{shop.name} has no product for a {part.kind}"


def match(game: Game, shop: Shop) -> Match:
    """Return where each of a game's components goes at a shop (nothing drawn yet)."""
    found = Match()
    for part in game.parts:
        where = place(shop, part)
        if isinstance(where, str):
            found.missing.append((part, where))
        elif part.kind in DECK_KINDS:
            found.cards.setdefault(where[0], []).append(part)
        else:
            key, product, scale, paper = where
            found.sheets.append(Order(part.id, key, product, [part], scale=scale, paper=paper))
    return found


def group(shop: Shop, key: str, product: Product, pieces: list[Piece]) -> list[Order]:
    """Return the orders of one product: every piece in one, split by back where the product
    takes one back per order, then by the most the product holds."""
    by_back: dict[str, list[Piece]] = {}
    if shop.backs_of(product) == "one":
        for piece in pieces:
            by_back.setdefault(piece.back.svg, []).append(piece)
    else:
        by_back[""] = list(pieces)
    orders = []
    for chunk in by_back.values():
        for part_chunk in _by_quantity(chunk, product.quantity.max):
            parts = list(dict.fromkeys(p.part.id for p in part_chunk))
            order = Order("", key, product, [next(p.part for p in part_chunk if p.part.id == i)
                                             for i in parts], part_chunk)
            order.one_back = len({p.back.svg for p in part_chunk}) == 1
            orders.append(order)
    for part in {p.part.id: p.part for p in pieces}.values():
        holding = [o for o in orders if part in o.parts]
        backs = len({p.back.svg for p in pieces if p.part is part})
        why = (f"its cards have different backs and {shop.name} takes one back per "
               f"{product.name}" if backs > 1 and shop.backs_of(product) == "one" else
               f"one {product.name} order holds at most {product.quantity.max} cards")
        for order in holding if len(holding) > 1 else []:
            order.note = f"deck '{part.id}' is split over {len(holding)} orders: {why}"
    _name(orders, key)
    return orders


def _by_quantity(pieces: list[Piece], most: int) -> list[list[Piece]]:
    chunks: list[list[Piece]] = [[]]
    count = 0
    for piece in pieces:
        if chunks[-1] and count + piece.card.copies > most:
            chunks.append([])
            count = 0
        chunks[-1].append(piece)
        count += piece.card.copies
    return chunks


def _name(orders: list[Order], key: str) -> None:
    """Name orders after their decks ('a', 'a+b', the product for more), unique by number."""
    bases = []
    for order in orders:
        ids = [p.id for p in order.parts]
        bases.append(ids[0] if len(ids) == 1 else "+".join(ids) if len(ids) <= MAX_JOINED
                     else key)
    for n, (order, base) in enumerate(zip(orders, bases)):
        same = [i for i, b in enumerate(bases) if b == base]
        order.id = base if len(same) == 1 else f"{base}-{same.index(n) + 1}"


def elsewhere(part: Part, shops, here: Shop) -> list[str]:
    """Return the names of the other shops with a product for a component."""
    return [s.name for s in shops if s != here and not isinstance(place(s, part), str)]
