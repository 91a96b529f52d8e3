"""Print-on-demand uploads: each card drawn at a shop's pixel size, named, ordered and, where
the shop asks, converted to a CMYK PDF/X file, with a README listing every upload slot.

load -> match each deck to a shop product -> draw with the shop's bleed -> pre-flight -> write.
A card is scaled uniformly so its trim fills the shop's trim on the tighter side (never
stretched); the slack on the other side and the bleed are the card's own background, drawn by
its template to ``size.bleed``, which is set to cover the shop's bleed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from .. import raster
from ..errors import PrintshopError, Problem
from ..geometry import PrintOptions, card_size
from ..impose import Face, Page, Placement, nest
from ..models import Card, Game, Part
from ..project import Project
from ..text import _fmt
from . import DECK_KINDS, default_out, drawing, load_one, prepress
from .preflight import CardSide, card_warnings, gs_binary, pdf_warnings
from .shops import MM_PER_INCH, Product, Shop, shop as find_shop



@dataclass
class Geometry:
    """How a card maps onto a shop's upload: pixels per mm and the bleed on each side in mm."""

    per_mm: float
    bleed_x: float
    bleed_y: float
    safe_mm: float

    @property
    def bleed(self) -> float:
        return max(self.bleed_x, self.bleed_y)


@dataclass
class Slot:
    """One card of an upload: its files and how many copies to set."""

    deck: str
    card: Card
    n: int
    front: str
    back: str


@dataclass
class DeckUpload:
    """A deck matched to a shop's product, with its cards' slots."""

    part: Part
    product_key: str
    product: Product
    slots: list[Slot] = field(default_factory=list)
    one_back: str = ""


@dataclass
class PodExport:
    """What an upload writes, and what pre-flight found."""

    files: dict[str, bytes]
    warnings: list[Problem]
    readme: str


def geometry(shop: Shop, product: Product, w: float, h: float) -> Geometry:
    """Return the mapping of a w x h mm card onto a product's upload."""
    tw, th = product.trim_px
    per_mm = min(tw / w, th / h)
    W, H = product.size
    return Geometry(per_mm, (W / per_mm - w) / 2, (H / per_mm - h) / 2, product.safe / per_mm)


def upload_image(face: Face, g: Geometry, product: Product):
    """Draw a face at the product's pixel size as its PDF page draws it; return the image
    before it is laid on white (transparent where nothing is drawn)."""
    return raster.face_image(face, product.size, (g.bleed_x, g.bleed_y), background=None)


def png_bytes(image, dpi: int) -> bytes:
    """Return an RGBA image laid on white as PNG bytes with a pHYs chunk for ``dpi``."""
    return raster.png(raster.on_white(image), dpi)


def blank_back(front: Face) -> Face:
    """Return a plain white back for a deck drawn without a back template."""
    b = front.bleed
    return Face(f'<rect x="{_fmt(-b)}" y="{_fmt(-b)}" width="{_fmt(front.w + 2 * b)}" '
                f'height="{_fmt(front.h + 2 * b)}" fill="#fff"/>', front.w, front.h, b,
                front.shape)


def match_decks(game: Game, shop: Shop) -> tuple[list[DeckUpload], list[str]]:
    """Return the decks a shop prints, matched to its products, and notes on those it does not."""
    uploads, skipped = [], []
    for part in game.parts:
        if part.kind not in DECK_KINDS:
            skipped.append(f"{part.kind} '{part.id}': not a deck; print it from the PDF")
            continue
        size = part.spec.size
        w, h = card_size(size)
        found = shop.product_for(size if isinstance(size, str) else None, w, h)
        if found is None:
            skipped.append(f"{part.kind} '{part.id}' ({w:g} x {h:g} mm): {shop.name} has no "
                           f"product of this size here (products: {', '.join(shop.products)})")
            continue
        uploads.append(DeckUpload(part, *found))
    return uploads, skipped


def file_name(pattern: str, part: Part, n: int, card: Card) -> str:
    """Return a file name from a shop's pattern."""
    return pattern.format(deck=part.id, n=n, card=card.id, copies=card.copies)


def draw_deck(game: Game, shop: Shop, up: DeckUpload, files: dict[str, bytes],
              pages: dict[str, list[Page]], warnings: list[Problem]) -> None:
    """Draw a deck's cards for the shop: images into ``files`` or pages into ``pages``."""
    from ..components.deck import card_faces

    part, product = up.part, up.product
    w, h = card_size(part.spec.size)
    g = geometry(shop, product, w, h)
    opts = PrintOptions(bleed=g.bleed)
    drawn = []
    with drawing(game, part.id):
        for card in part.cards:
            front, back = card_faces(game, part, opts, card)
            drawn.append((card, front, back or blank_back(front)))
    if not part.spec.back:
        warnings.append(Problem(f"data/{game.id}/game.yaml", f"{part.id} has no back "
                                "template: its backs are plain white", ("components", part.id),
                                rule="pod.backs"))
    shared = len({b.svg for _, _, b in drawn}) == 1
    if shop.backs == "one" and not shared:
        warnings.append(Problem(f"data/{game.id}/game.yaml", f"{part.id}: the cards have "
                                f"different backs, and {shop.name} takes one back per deck; "
                                "the backs are written per card", ("components", part.id),
                                rule="pod.backs"))
    one_back = shared and shop.backs == "one"
    for n, (card, front, back) in enumerate(drawn, start=1):
        names = {"front": file_name(shop.names.front, part, n, card),
                 "back": file_name(shop.names.back if one_back else shop.names.card_back,
                                   part, n, card)}
        up.slots.append(Slot(part.id, card, n, names["front"], names["back"]))
        sides = [("front", front)] + ([] if one_back and n > 1 else [("back", back)])
        for side, face in sides:
            with drawing(game, part.id):
                image = upload_image(face, g, product)
            warnings.extend(card_warnings(CardSide(
                game, part, n - 1, side, face.svg, w, h, part.spec.shape, g.per_mm,
                g.safe_mm, image, (product.bleed, product.bleed), shop.dpi)))
            if shop.upload == "images":
                files[names[side]] = png_bytes(image, shop.dpi)
    if one_back:
        up.one_back = up.slots[0].back
    if shop.upload == "pdf":
        if shop.colour == "cmyk":      # PDF/X-1a: nothing see-through (prepress.py)
            drawn = prepress.flat_faces(drawn, game, part, warnings)
        pages[up.slots[0].front] = card_pages(shop, product, g, drawn)


def card_pages(shop: Shop, product: Product, g: Geometry, drawn) -> list[Page]:
    """Lay out one card per page at the shop's page size, every copy, in the shop's order."""
    W, H = (v / shop.dpi * MM_PER_INCH for v in product.size)
    bleed = product.bleed / shop.dpi * MM_PER_INCH
    k = g.per_mm * MM_PER_INCH / shop.dpi    # card mm -> page mm
    out = []
    for card, front, back in drawn:
        sides = [("front", front), ("back", back)]
        if shop.order == "back-front":
            sides.reverse()
        for _ in range(card.copies):
            for side, face in sides:
                tx, ty = W / 2 - k * face.w / 2, H / 2 - k * face.h / 2
                page = Page(W, H, side=side)
                page.parts.append(f'<rect x="0" y="0" width="{_fmt(W)}" height="{_fmt(H)}" '
                                  f'fill="#fff"/><g transform="translate({_fmt(tx)} {_fmt(ty)})'
                                  f' scale({k:.6f})">{nest(face, 0.0, 0.0)}</g>')
                page.trim_box = (bleed, bleed, W - 2 * bleed, H - 2 * bleed)
                page.placements.append(Placement(tx, ty, k * face.w, k * face.h, k * face.bleed,
                                                 side, card.id))
                page.bleed_box = (0.0, 0.0, W, H)
                out.append(page)
    return out


def readme(game: Game, shop: Shop, uploads: list[DeckUpload], skipped: list[str],
           warnings: list[Problem], pdf_note: str) -> str:
    """Return README.txt: each upload slot, its files and copies, and what to do next."""
    out = [f"{game.manifest.name} for {shop.name}", f"Shop specification: {shop.url}", ""]
    for up in uploads:
        p = up.product
        total = sum(s.card.copies for s in up.slots)
        out.append(f"Deck '{up.part.id}' ({up.part.spec.name}): {p.name}, {total} cards, "
                   f"{len(up.slots)} distinct")
        out.append(f"  upload: {p.size[0]} x {p.size[1]} px at {shop.dpi} dpi, bleed "
                   f"{p.bleed:g} px, safe zone {p.safe:g} px, {shop.file_type.upper()} "
                   f"{shop.colour.upper()}{', ' + shop.pdfx if shop.pdfx else ''}")
        out.append(f"  source: {p.url}")
        if not p.confirmed:
            out.append(f"  NOT CONFIRMED: {p.note}")
        if shop.upload == "pdf":
            order = "back, then front" if shop.order == "back-front" else "front, then back"
            out.append(f"  file: {up.slots[0].front} ({2 * total} pages: every copy, {order})")
        elif up.one_back:
            out.append(f"  back (one for the whole deck): {up.one_back}")
        for s in up.slots:
            if shop.upload == "pdf":
                out.append(f"  {s.n:3d}. {s.card.id:<28} x{s.card.copies}  {s.card.name}")
            else:
                back = "" if up.one_back else f"  back: {s.back}"
                out.append(f"  {s.front}  x{s.card.copies}  {s.card.name}{back}")
        out.append("")
    if skipped:
        out.append("Not in this upload:")
        out.extend(f"  {s}" for s in skipped)
        out.append("")
    out.append("Next: " + shop.next_steps)
    if pdf_note:
        out += ["", pdf_note]
    out.append("")
    if warnings:
        out.append(f"Pre-flight: {len(warnings)} warning{'s' if len(warnings) != 1 else ''}")
        out.extend(f"  {w}" for w in warnings)
    else:
        out.append("Pre-flight: no warnings (text in the safe zone, bleed filled, images at "
                   f"{shop.dpi} dpi, fonts embedded).")
    return "\n".join(out) + "\n"


def pod_export(game: Game, shop: Shop) -> PodExport:
    """Draw a game's decks as a shop's upload and check them; nothing is written."""
    from ..pdf import pages_to_pdf

    uploads, skipped = match_decks(game, shop)
    if not uploads:
        raise PrintshopError(Problem(f"data/{game.id}/game.yaml", f"no deck of {game.id} fits "
                                     f"a product of {shop.name}: " + "; ".join(skipped)))
    files: dict[str, bytes] = {}
    pages: dict[str, list[Page]] = {}
    warnings: list[Problem] = []
    for up in uploads:
        draw_deck(game, shop, up, files, pages, warnings)
    pdf_note = ""
    for name, deck_pages in pages.items():
        title = f"{game.manifest.name} — {name.removesuffix('.pdf')}"
        with drawing(game, name.removesuffix(".pdf")):
            data = source = pages_to_pdf(deck_pages, title)
        cmyk = shop.colour == "cmyk"
        if cmyk and gs_binary() is None:
            pdf_note = (f"Ghostscript (gs) was not found: the PDFs are RGB, not the CMYK "
                        f"{shop.pdfx or 'file'} {shop.name} requires. Install Ghostscript and "
                        "export again before uploading.")
            warnings.append(Problem(name, pdf_note, rule="pod.cmyk"))
            cmyk = False
        elif cmyk:
            data = prepress.to_cmyk_pdfx(data, title, shop.max_ink or 400,   # 400: no limit
                                         shop.output_intent)
        warnings.extend(pdf_warnings(data, name, cmyk, shop.max_ink if cmyk else None,
                                     source, deck_pages))
        files[name] = data
    text = readme(game, shop, uploads, skipped, warnings, pdf_note)
    files["README.txt"] = text.encode("utf-8")
    return PodExport(files, warnings, text)


def export_pod(project: Project, game_id: str, shop_id: str, out_dir: Path | None = None,
               check_only: bool = False) -> tuple[list[Path], list[Problem]]:
    """Check a game against a shop and, unless check_only, write its upload; return both."""
    from ..output import write_files

    shop = find_shop(shop_id)
    result = pod_export(load_one(project, game_id), shop)
    if check_only:
        return [], result.warnings
    out = Path(out_dir or default_out(game_id, f"pod-{shop_id}"))
    return write_files(out, result.files), result.warnings
