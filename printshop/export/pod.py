"""Print-on-demand uploads: a game's components grouped into a shop's products, each card
drawn once at the shop's pixel size, named, ordered and, where the shop asks, converted to a
CMYK PDF/X file, with a README naming every product to order.

load -> match components to products -> draw with the shop's bleed -> group into orders ->
pre-flight -> write. A card is scaled uniformly so its trim fills the shop's trim on the
tighter side (never stretched); the slack on the other side and the bleed are the card's own
background, drawn by its template to ``size.bleed``, which is set to cover the shop's bleed.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from ..draw.text import _fmt
from ..files.errors import PrintshopError, Problem
from ..files.project import Project
from ..layout.impose import Face, Page, Placement, nest
from ..load.geometry import PrintOptions, card_size
from ..load.models import Card, Game, Part
from ..write import raster
from . import default_out, drawing, load_one, prepress
from .faceimages import FaceImages, Wanted
from .preflight import CardSide, card_warnings, gs_binary, pdf_warnings
from .products import Order, Piece, elsewhere, group, match
from .shops import MM_PER_INCH, Product, Shop, shop as find_shop, shop_id, shops

Progress = Callable[[int, int], None]  # (steps done, steps in all)


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


def blank_back(front: Face) -> Face:
    """Return a plain white back for a deck drawn without a back template."""
    b = front.bleed
    return Face(f'<rect x="{_fmt(-b)}" y="{_fmt(-b)}" width="{_fmt(front.w + 2 * b)}" '
                f'height="{_fmt(front.h + 2 * b)}" fill="#fff"/>', front.w, front.h, b,
                front.shape)


def file_name(pattern: str, order: Order, n: int, part: Part, card: Card) -> str:
    """Return a file name from a shop's pattern; a card of an order holding several decks is
    named with its deck's id."""
    name = card.id if len(order.parts) == 1 else f"{part.id}-{card.id}"
    return pattern.format(deck=order.id, n=n, card=name, copies=card.copies)


def draw_pieces(game: Game, shop: Shop, product: Product, parts: list[Part],
                warnings: list[Problem]) -> tuple[list[Piece], dict[str, Geometry]]:
    """Draw every distinct card of the decks going on one product, once each side."""
    from ..components.deck import card_faces

    pieces, geometries = [], {}
    for part in parts:
        g = geometries[part.id] = geometry(shop, product, *card_size(part.spec.size))
        opts = PrintOptions(bleed=g.bleed)
        with drawing(game, part.id):
            for index, card in enumerate(part.cards):
                front, back = card_faces(game, part, opts, card)
                pieces.append(Piece(part, card, index, front, back or blank_back(front)))
        if not part.spec.back:
            warnings.append(Problem(f"data/{game.id}/game.yaml", f"{part.id} has no back "
                                    "template: its backs are plain white",
                                    ("components", part.id), rule="pod.backs"))
    return pieces, geometries


def name_order(shop: Shop, order: Order) -> list[tuple[Piece, str, Face]]:
    """Name an order's files; return the sides it uploads: (piece, 'front' or 'back', face)
    (one back for the whole order where the shop takes that)."""
    one_back = order.one_back and shop.shared_back and shop.upload == "images"
    sides = []
    for n, piece in enumerate(order.pieces, start=1):
        part, card = piece.part, piece.card
        piece.front_file = file_name(shop.names.front, order, n, part, card)
        piece.back_file = file_name(shop.names.back if one_back else shop.names.card_back,
                                    order, n, part, card)
        sides += [(piece, "front", piece.front)] + ([] if one_back and n > 1 else
                                                    [(piece, "back", piece.back)])
    order.one_back = one_back
    return sides


def want_order(shop: Shop, order: Order, geometries: dict[str, Geometry],
               faces: FaceImages) -> list[tuple[Piece, str, Wanted]]:
    """Ask for the upload image of each side of an order (a face many cards share is one
    image); return the sides with their requests."""
    product = order.product
    out = []
    for piece, side, face in name_order(shop, order):
        g = geometries[piece.part.id]
        out.append((piece, side, faces.want(
            piece.part.id, face, product.size, margin=(g.bleed_x, g.bleed_y), background=None,
            dpi=shop.dpi, white=True, keep="alpha", encode=shop.upload == "images")))
    return out


def write_order(game: Game, shop: Shop, order: Order, geometries: dict[str, Geometry],
                files: dict[str, bytes], warnings: list[Problem], step: Callable[[], None],
                faces: FaceImages, flattened: dict | None = None) -> list[Page]:
    """Name an order's files, check each distinct side once and put the images in
    ``files`` (drawing what ``faces`` has not drawn yet); return its pages for a PDF shop
    (faces made opaque for a CMYK one, taken from ``flattened`` where it has them)."""
    product = order.product
    sides = want_order(shop, order, geometries, faces)
    faces.draw()
    checked = set()
    for piece, side, wanted in sides:
        part = piece.part
        g = geometries[part.id]
        if wanted not in checked:    # a back many cards share is checked once
            checked.add(wanted)
            w, h = card_size(part.spec.size)
            warnings.extend(card_warnings(CardSide(
                game, part, piece.index, side, wanted.face.svg, w, h, part.spec.shape,
                g.per_mm, g.safe_mm, faces[wanted].kept, (product.bleed, product.bleed),
                shop.dpi)))
        if shop.upload == "images":
            files[piece.front_file if side == "front" else piece.back_file] = faces[wanted].png
        if side == "front":
            step()
    if shop.upload != "pdf":
        return []
    if shop.colour == "cmyk":      # PDF/X-1a: nothing see-through (prepress.py)
        for part in order.parts:
            mine = [p for p in order.pieces if p.part is part]
            flat = prepress.flat_faces([(p.card, p.front, p.back) for p in mine], game, part,
                                       warnings, flattened)
            for piece, (_, front, back) in zip(mine, flat):
                piece.front, piece.back = front, back
    return card_pages(shop, product, geometries, order.pieces)


def card_pages(shop: Shop, product: Product, geometries: dict[str, Geometry],
               pieces: list[Piece]) -> list[Page]:
    """Lay out one card per page at the shop's page size, every copy, in the shop's order."""
    W, H = (v / shop.dpi * MM_PER_INCH for v in product.size)
    bleed = product.bleed / shop.dpi * MM_PER_INCH
    out = []
    for piece in pieces:
        k = geometries[piece.part.id].per_mm * MM_PER_INCH / shop.dpi    # card mm -> page mm
        sides = [("front", piece.front), ("back", piece.back)]
        if shop.order == "back-front":
            sides.reverse()
        for _ in range(piece.card.copies):
            for side, face in sides:
                tx, ty = W / 2 - k * face.w / 2, H / 2 - k * face.h / 2
                page = Page(W, H, side=side)
                page.parts.append(f'<rect x="0" y="0" width="{_fmt(W)}" height="{_fmt(H)}" '
                                  f'fill="#fff"/><g transform="translate({_fmt(tx)} {_fmt(ty)})'
                                  f' scale({k:.6f})">{nest(face, 0.0, 0.0)}</g>')
                page.trim_box = (bleed, bleed, W - 2 * bleed, H - 2 * bleed)
                page.placements.append(Placement(tx, ty, k * face.w, k * face.h, k * face.bleed,
                                                 side, piece.card.id))
                page.bleed_box = (0.0, 0.0, W, H)
                out.append(page)
    return out


def board_png(game: Game, shop: Shop, order: Order) -> bytes:
    """Draw a board on its product: scaled by the order's scale, turned to the product's
    orientation, centred on white with the board's edge drawn into nothing (boards have no
    bleed of their own)."""
    from ..components.base import base_context, draw

    part, product = order.parts[0], order.product
    w, h = part.spec.size
    ctx = {**base_context(game, PrintOptions()), "data": part.data, "size": {"w": w, "h": h}}
    with drawing(game, part.id):
        face = Face(draw(game, part.spec.template, ctx, f"board {part.id}"), w, h, 0.0)
        W, H = (shop.inches_mm(v) for v in product.size)
        turn = (w - h) * (W - H) < 0     # a landscape board on a portrait product
        bw, bh = (h, w) if turn else (w, h)
        # the upload shows the board's trim at its scale; the rest of the page is white
        mx = (W / order.scale - bw) / 2
        my = (H / order.scale - bh) / 2
        image = raster.face_image(face, (product.size[0], product.size[1]) if not turn else
                                  (product.size[1], product.size[0]),
                                  (my, mx) if turn else (mx, my))
    if turn:
        image = image.rotate(90, expand=True)
    return raster.png(image, shop.dpi)


def readme(game: Game, shop: Shop, orders: list[Order], sheets: list[Order],
           missing: list[tuple[Part, str]], warnings: list[Problem], pdf_note: str) -> str:
    """Return README.txt: the products to order, each with its files and copies, what is not
    sold here and where it is, and what to do next."""
    out = [f"{game.manifest.name} for {shop.name}", f"Shop specification: {shop.url}", "",
           "Order:"]
    for n, order in enumerate(orders + sheets, start=1):
        out.append(f"  {n}. {order_line(shop, order)}")
    out.append("")
    for order in orders:
        out += card_order_lines(shop, order)
    for order in sheets:
        out += sheet_order_lines(game, shop, order)
    if missing:
        out.append(f"Not sold by {shop.name}:")
        for part, why in missing:
            others = elsewhere(part, shops().values(), shop)
            where = (f" Sold by {', '.join(others)}." if others else
                     " No shop here sells it: print it from the print-and-play PDF.")
            out.append(f"  {part.kind} '{part.id}' ({part.spec.name}): {why}.{where}")
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


def order_line(shop: Shop, order: Order) -> str:
    """Return one line of the order list: the product, how many, what it holds."""
    p, q = order.product, order.product.quantity
    what = " + ".join(f"'{part.id}'" for part in order.parts)
    if order.pieces:
        count = order.count
        unit = "chits" if p.kind == "chits" else "cards"
        buy = q.ordered(count)
        extra = f" (sold in steps of {q.step}: order {buy})" if buy != count else ""
        backs = ("one back" if order.one_back or len({x.back.svg for x in order.pieces}) == 1
                 else "mixed backs")
        return f"{p.name}: {count} {unit}, {backs}{extra} - {what} ({order.id})"
    scale = f" at {order.scale:.0%} of its size" if order.scale < 0.9995 else ""
    return f"{p.name}: {what}{scale}"


def card_order_lines(shop: Shop, order: Order) -> list[str]:
    """Return the README block of a card or chit order: sizes, sources, files and copies."""
    p = order.product
    distinct = len(order.pieces)
    out = [f"{order.id}: {p.name}, {order.count} {'chits' if p.kind == 'chits' else 'cards'}, "
           f"{distinct} distinct, from " + ", ".join(
               f"{'deck' if part.kind == 'deck' else 'tokens'} '{part.id}' ({part.spec.name})"
               for part in order.parts)]
    out.append(f"  upload: {p.size[0]} x {p.size[1]} px at {shop.dpi} dpi, bleed "
               f"{p.bleed:g} px, safe zone {p.safe:g} px, {shop.file_type.upper()} "
               f"{shop.colour.upper()}{', ' + shop.pdfx if shop.pdfx else ''}")
    out.append(f"  source: {p.url}{'' if p.confirmed else ' (NOT CONFIRMED: ' + p.note + ')'}")
    q = p.quantity
    if q.min > 1 or q.step > 1 or q.max < 100000:
        sure = p.confirmed if q.confirmed is None else q.confirmed
        out.append(f"  quantity: {q.min}-{q.max} in steps of {q.step}"
                   + ("" if sure else f" (NOT CONFIRMED{': ' + q.note if q.note else ''})"))
    if order.note:
        out.append(f"  {order.note}")
    if shop.upload == "pdf":
        order_ = "back, then front" if shop.order == "back-front" else "front, then back"
        out.append(f"  file: {order.id}.pdf ({2 * order.count} pages: every copy, {order_})")
    elif order.one_back:
        out.append(f"  back (one for the whole order): {order.pieces[0].back_file}")
    for n, s in enumerate(order.pieces, start=1):
        if shop.upload == "pdf":
            out.append(f"  {n:3d}. {s.part.id + '/' + s.card.id:<34} x{s.card.copies}  "
                       f"{s.card.name}")
        else:
            back = "" if order.one_back else f"  back: {s.back_file}"
            out.append(f"  {s.front_file}  x{s.card.copies}  {s.card.name}{back}")
    out.append("")
    return out


def sheet_order_lines(game: Game, shop: Shop, order: Order) -> list[str]:
    """Return the README block of a board, mat, booklet or printed sheet."""
    p, part = order.product, order.parts[0]
    out = [f"{order.id}: {p.name}, {part.kind} '{part.id}' ({part.spec.name})"]
    sure = "" if p.confirmed else f" (NOT CONFIRMED: {p.note})"
    out.append(f"  upload: {p.size[0]} x {p.size[1]} px at {shop.dpi} dpi, bleed {p.bleed:g} "
               f"px; source: {p.url}{sure}")
    scale = f" at {order.scale:.0%} of its size" if order.scale < 0.9995 else ""
    if part.kind == "board" and shop.upload == "images":
        out.append(f"  file: {order.id}.png (the board{scale}, centred)")
    else:
        paper = f" --paper {order.paper}" if order.paper else ""
        pages = f"{order.count} page{'s' if order.count != 1 else ''}" if order.count else \
            "its pages"
        out.append(f"  file: {part.id}.pdf from `printshop build {game.id}{paper}` "
                   f"({pages}{scale})")
        if part.kind == "booklet":
            out.append("  the build imposes a booklet two-up for home saddle stitching: give "
                       "the shop its pages in reading order (printshop writes no such file "
                       "yet)")
    out.append("")
    return out


def pod_export(game: Game, shop: Shop, progress: Progress | None = None) -> PodExport:
    """Draw a game's components as a shop's orders and check them; nothing is written."""
    from ..write.pdf import pages_to_pdf

    found = match(game, shop)
    if not found.cards and not found.sheets:
        raise PrintshopError(Problem(f"data/{game.id}/game.yaml", f"no component of {game.id} "
                                     f"fits a product of {shop.name}: " + "; ".join(
                                         f"{part.id}: {why}" for part, why in found.missing)))
    files: dict[str, bytes] = {}
    pages: dict[str, list[Page]] = {}
    warnings: list[Problem] = []
    orders: list[Order] = []
    drawn = []
    for key, parts in found.cards.items():
        product = shop.products[key]
        pieces, geometries = draw_pieces(game, shop, product, parts, warnings)
        drawn.append((group(shop, key, product, pieces), geometries))
    boards = [o for o in found.sheets if o.parts[0].kind == "board" and shop.upload == "images"]
    faces = FaceImages(game)
    for group_orders, geometries in drawn:
        for order in group_orders:
            want_order(shop, order, geometries, faces)
    # a board, or a PDF converted to CMYK, takes about as long as three faces
    pdfs = sum(len(os) for os, _ in drawn) if shop.upload == "pdf" else 0
    total = len(faces) + 3 * (len(boards) + pdfs)
    done = 0

    def step(n: int = 1) -> None:
        nonlocal done
        done += n
        if progress:
            progress(done, total)

    faces.draw(lambda n, _: step(n - done))
    flattened = prepress.flattened_on_workers(
        [face for os, _ in drawn for o in os for p in o.pieces for face in (p.front, p.back)]
    ) if shop.upload == "pdf" and shop.colour == "cmyk" else {}
    for group_orders, geometries in drawn:
        for order in group_orders:
            deck_pages = write_order(game, shop, order, geometries, files, warnings,
                                     lambda: None, faces, flattened)
            if deck_pages:
                pages[f"{order.id}.pdf"] = deck_pages
            orders.append(order)
    for order in boards:
        files[f"{order.id}.png"] = board_png(game, shop, order)
        step(3)
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
        step(3)
    text = readme(game, shop, orders, found.sheets, found.missing, warnings, pdf_note)
    files["README.txt"] = text.encode("utf-8")
    return PodExport(files, warnings, text)


def export_pod(project: Project, game_id: str, shop_name: str, out_dir: Path | None = None,
               check_only: bool = False, progress: Progress | None = None
               ) -> tuple[list[Path], list[Problem]]:
    """Check a game against a shop and, unless check_only, write its upload; return both."""
    from .folder import replace_export

    key = shop_id(shop_name)
    result = pod_export(load_one(project, game_id), find_shop(key), progress)
    if check_only:
        return [], result.warnings
    out = Path(out_dir or default_out(game_id, f"pod-{key}"))
    return replace_export(out, result.files), result.warnings
