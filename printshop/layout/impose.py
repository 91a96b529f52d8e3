"""Impose faces onto pages: card sheets with crop marks, duplex and gutter-fold backs,
one card per page for print shops, and booklets (boards larger than the paper: tiles.py).

All coordinates are millimetres from the page's top-left corner.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import lru_cache

from ..draw import text as textmod
from ..load.geometry import LABEL_BAND, PrintOptions, paper_size

MARK_GAP = 1.0      # between the bleed edge and a crop mark
MARK_MAX = 5.0      # longest crop mark
MARK_MIN = 2.0      # shorter than this and the mark is left out
MARK_STROKE = 0.2
SLUG = 8.0          # room for crop marks around a one-card page
EDGE = 5.0          # nothing is drawn nearer the paper's edge: home printers cannot print there


@dataclass(frozen=True)
class Face:
    """One side of a card as an SVG fragment in its own coordinates (0,0 = trim corner)."""

    svg: str
    w: float
    h: float
    bleed: float
    shape: str = "rect"


@dataclass(frozen=True)
class Item:
    """A physical card to place: its front, its back (or None) and its id."""

    front: Face
    back: Face | None
    card_id: str


@dataclass
class Placement:
    """Where a face's trim box sits on a page."""

    x: float
    y: float
    w: float
    h: float
    bleed: float
    side: str
    card_id: str
    shape: str = ""   # rect or circle, where the cut line follows the card's own shape


@dataclass
class Page:
    """One page: its size, SVG body, what was placed, and its label."""

    width: float
    height: float
    parts: list[str | Nested] = field(default_factory=list)
    placements: list[Placement] = field(default_factory=list)
    label: str = ""
    side: str = "front"
    trim_box: tuple | None = None
    bleed_box: tuple | None = None
    label_top: bool = False
    owners: tuple[str, ...] = ()   # the components whose cards are on it (card sheets)


def _f(v: float) -> str:
    return textmod._fmt(v)


svg_number = _f   # a number as printshop writes it in SVG


@dataclass(frozen=True)
class Nested:
    """A face placed on a page with its trim corner at (x, y). As text it is the SVG that
    nest() writes; the PDF renderer draws each distinct face once per document instead."""

    face: Face
    x: float
    y: float

    def __str__(self) -> str:
        return nest(self.face, self.x, self.y)


def nest(face: Face, x: float, y: float) -> str:
    """Return SVG placing ``face`` with its trim corner at (x, y), clipped to its bleed."""
    b = face.bleed
    return (f'<svg x="{_f(x - b)}" y="{_f(y - b)}" width="{_f(face.w + 2 * b)}" '
            f'height="{_f(face.h + 2 * b)}" viewBox="{_f(-b)} {_f(-b)} {_f(face.w + 2 * b)} '
            f'{_f(face.h + 2 * b)}">{face.svg}</svg>')


def _line(x1, y1, x2, y2, stroke="#000", width=MARK_STROKE, dash=None) -> str:
    d = f' stroke-dasharray="{dash}"' if dash else ""
    return (f'<line x1="{_f(x1)}" y1="{_f(y1)}" x2="{_f(x2)}" y2="{_f(y2)}" stroke="{stroke}" '
            f'stroke-width="{_f(width)}"{d}/>')


def crop_marks(placements: list[Placement], page_w: float, page_h: float, margin: float,
               region: tuple | None = None) -> list[str]:
    """Draw crop marks in the margins outside the block of cards, one per trim edge."""
    if not placements:
        return []
    boxes = tuple((p.x, p.y, p.w, p.h, p.bleed) for p in placements)
    return list(_crop_marks(boxes, page_w, page_h, margin, region))


@lru_cache(maxsize=64)
def _crop_marks(boxes: tuple, page_w: float, page_h: float, margin: float,
                region: tuple | None) -> tuple[str, ...]:
    # Cached: every full sheet of a deck has the same marks.
    rx0, ry0, rx1, ry1 = region or (0.0, 0.0, page_w, page_h)
    left = min(x - b for x, y, w, h, b in boxes)
    right = max(x + w + b for x, y, w, h, b in boxes)
    top = min(y - b for x, y, w, h, b in boxes)
    bottom = max(y + h + b for x, y, w, h, b in boxes)
    xs = sorted({round(v, 4) for x, y, w, h, b in boxes for v in (x, x + w)})
    ys = sorted({round(v, 4) for x, y, w, h, b in boxes for v in (y, y + h)})
    out = []
    room_top = top - MARK_GAP - (ry0 + margin)
    room_bottom = (ry1 - margin) - (bottom + MARK_GAP)
    room_left = left - MARK_GAP - (rx0 + margin)
    room_right = (rx1 - margin) - (right + MARK_GAP)
    for x in xs:
        if room_top >= MARK_MIN:
            out.append(_line(x, top - MARK_GAP, x, top - MARK_GAP - min(room_top, MARK_MAX)))
        if room_bottom >= MARK_MIN:
            out.append(_line(x, bottom + MARK_GAP, x,
                             bottom + MARK_GAP + min(room_bottom, MARK_MAX)))
    for y in ys:
        if room_left >= MARK_MIN:
            out.append(_line(left - MARK_GAP, y, left - MARK_GAP - min(room_left, MARK_MAX), y))
        if room_right >= MARK_MIN:
            out.append(_line(right + MARK_GAP, y,
                             right + MARK_GAP + min(room_right, MARK_MAX), y))
    return tuple(out)


def cut_lines(placements: list[Placement], shape: str) -> list[str]:
    """Draw a thin cut outline on each token's trim edge, in its own shape if it has one."""
    out = []
    for p in placements:
        if (p.shape or shape) == "circle":
            out.append(f'<circle cx="{_f(p.x + p.w / 2)}" cy="{_f(p.y + p.h / 2)}" '
                       f'r="{_f(min(p.w, p.h) / 2)}" fill="none" stroke="#555" '
                       f'stroke-width="{_f(MARK_STROKE)}"/>')
        else:
            out.append(f'<rect x="{_f(p.x)}" y="{_f(p.y)}" width="{_f(p.w)}" height="{_f(p.h)}" '
                       f'fill="none" stroke="#555" stroke-width="{_f(MARK_STROKE)}"/>')
    return out


@dataclass(frozen=True)
class Grid:
    """A grid of equal cells centred in a region of a page."""

    cols: int
    rows: int
    x0: float
    y0: float
    pitch_x: float
    pitch_y: float

    @property
    def count(self) -> int:
        return self.cols * self.rows

    def cell(self, i: int) -> tuple[float, float]:
        """Return the top-left of cell i (row-major)."""
        return self.x0 + (i % self.cols) * self.pitch_x, self.y0 + (i // self.cols) * self.pitch_y


def fit_grid(region: tuple, cell_w: float, cell_h: float, gap: float = 0.0) -> Grid | None:
    """Fit as many cells as possible into region (x0, y0, x1, y1), centred."""
    x0, y0, x1, y1 = region
    avail_w, avail_h = x1 - x0, y1 - y0
    cols = int((avail_w + gap + 1e-9) // (cell_w + gap))
    rows = int((avail_h + gap + 1e-9) // (cell_h + gap))
    if cols < 1 or rows < 1:
        return None
    used_w = cols * cell_w + (cols - 1) * gap
    used_h = rows * cell_h + (rows - 1) * gap
    return Grid(cols, rows, x0 + (avail_w - used_w) / 2, y0 + (avail_h - used_h) / 2,
                cell_w + gap, cell_h + gap)


def _mark_room(opts: PrintOptions) -> float:
    return MARK_GAP + MARK_MIN if opts.crop_marks else 0.0


def sheet_plan(face: Face, opts: PrintOptions, marks: bool = True):
    """Choose the orientation and grid that fit the most cards; return (w, h, grid)."""
    pw, ph = paper_size(opts.paper)
    best = None
    cell_w, cell_h = face.w + 2 * face.bleed, face.h + 2 * face.bleed
    room = _mark_room(opts) if marks else 0.0
    for w, h in ((pw, ph), (ph, pw)):
        region = (opts.margin + room, opts.margin + room, w - opts.margin - room,
                  h - opts.margin - LABEL_BAND - room)
        grid = fit_grid(region, cell_w, cell_h)
        if grid and (best is None or grid.count > best[2].count):
            best = (w, h, grid)
    if best is None:
        raise ValueError(f"a {face.w:g} x {face.h:g} mm card does not fit on {opts.paper} paper")
    return best


def cards_per_sheet(face: Face, opts: PrintOptions, backs: bool) -> int:
    """Return how many cards impose_sheets puts on a sheet (``backs``: the cards have any)."""
    if backs and opts.backs == "fold":
        return fold_plan(face, opts)[3].count
    return sheet_plan(face, opts)[2].count


def fold_plan(face: Face, opts: PrintOptions):
    """Choose a gutter-fold layout: (w, h, axis, grid of the front half)."""
    pw, ph = paper_size(opts.paper)
    cell_w, cell_h = face.w + 2 * face.bleed, face.h + 2 * face.bleed
    room = _mark_room(opts)
    best = None
    for w, h in ((pw, ph), (ph, pw)):
        for axis in ("x", "y"):
            if axis == "x":  # fold along a vertical line: fronts left, backs right
                region = (opts.margin + room, opts.margin + room, w / 2 - 2,
                          h - opts.margin - LABEL_BAND - room)
            else:            # fold along a horizontal line: fronts top, backs bottom
                region = (opts.margin + room, opts.margin + room, w - opts.margin - room,
                          h / 2 - 2)
            grid = fit_grid(region, cell_w, cell_h)
            if grid and (best is None or grid.count > best[3].count):
                best = (w, h, axis, grid)
    if best is None:
        raise ValueError(f"a {face.w:g} x {face.h:g} mm card does not fit half a page")
    return best


def _place(face: Face, x: float, y: float, side: str, card_id: str, page: Page,
           dx: float = 0.0, dy: float = 0.0) -> None:
    page.parts.append(Nested(face, x + dx, y + dy))
    page.placements.append(Placement(x + dx, y + dy, face.w, face.h, face.bleed, side, card_id,
                                     face.shape))


def mirror_back(x: float, y: float, w: float, h: float, page_w: float, page_h: float,
                opts: PrintOptions) -> tuple[float, float]:
    """Return where a back goes so that it lands behind its front after the chosen flip."""
    portrait = page_h >= page_w
    horizontal = (opts.flip == "long") == portrait
    if horizontal:
        return page_w - x - w, y
    return x, page_h - y - h


def impose_sheets(items: list[Item], opts: PrintOptions, title: str, marks: str = "crop"
                  ) -> list[Page]:
    """Lay cards out on sheets: fronts only, fronts then mirrored backs, or gutter fold."""
    if not items:
        return []
    face = items[0].front
    has_backs = opts.backs != "none" and any(i.back for i in items)
    if has_backs and opts.backs == "fold":
        return _impose_fold(items, opts, title, marks)
    w, h, grid = sheet_plan(face, opts)
    pages = []
    for start in range(0, len(items), grid.count):
        chunk = items[start:start + grid.count]
        front = Page(w, h, side="front", label=f"{title} · fronts")
        for i, item in enumerate(chunk):
            x, y = grid.cell(i)
            _place(item.front, x + item.front.bleed, y + item.front.bleed, "front",
                   item.card_id, front)
        # The marks stop above the label band, so they never run through the page's label.
        _add_marks(front, opts, marks, face.shape, (0.0, 0.0, w, h - LABEL_BAND))
        pages.append(front)
        if has_backs:
            dx, dy = opts.back_offset
            back = Page(w, h, side="back", label=f"{title} · backs")
            # Mirrored top to bottom, the cards take the front's label band: label the top.
            back.label_top = mirror_back(0, 0, 0, 0, w, h, opts)[1] != 0
            for item, p in zip(chunk, front.placements):
                if item.back is None:
                    continue
                bx, by = mirror_back(p.x, p.y, p.w, p.h, w, h, opts)
                _place(item.back, bx, by, "back", item.card_id, back, dx, dy)
            if marks == "cut":
                back.parts.extend(cut_lines(back.placements, face.shape))
            pages.append(back)
    return pages


def deck_sheets(items: list[Item], owners: list[str], opts: PrintOptions, game: str,
                marks: str = "crop", first_sheet: int = 0, sheets: int | None = None
                ) -> list[Page]:
    """Lay out the cards of one deck, or of several decks sharing sheets (``owners`` names
    each item's deck), and label each sheet: the game, the decks on it, which sheet of how
    many (sheets several decks share are counted as shared sheets), and which side. A deck's
    own PDF and the print-and-play file label alike, so the print run can take a deck's pages
    as they are. A part of a larger deck starts at sheet ``first_sheet`` of ``sheets``."""
    pages = impose_sheets(items, opts, game, marks)
    if not pages:
        return pages
    per_sheet = sum(1 for p in pages[0].placements if p.side == "front")
    step = 2 if any(p.side == "back" for p in pages) else 1
    sheets = sheets or -(-len(items) // per_sheet)
    # The backs are mirrored to sit behind the fronts, whether the sheet prints double-sided
    # or its backs are glued on behind the fronts (mounted tokens).
    sides = {"front": "fronts", "back": "backs", "fold": "fold, glue, cut"}
    noun = "shared sheet" if len(set(owners)) > 1 else "sheet"
    for index, page in enumerate(pages):
        sheet = index // step
        on = list(dict.fromkeys(owners[sheet * per_sheet:(sheet + 1) * per_sheet]))
        page.owners = tuple(on)
        page.label = f"{game} · {deck_names(on)} · {noun} {first_sheet + sheet + 1} of " \
                     f"{sheets} {sides[page.side]}"
    return pages


def free_places(page: Page, face: Face, opts: PrintOptions) -> list[tuple]:
    """Return the trim boxes (x0, y0, x1, y1) of the card places a card sheet's front
    leaves empty: impose_sheets fills its grid's places in order, so the last are free."""
    w, h, grid = sheet_plan(face, opts)
    if page.side != "front" or (page.width, page.height) != (w, h):
        return []
    used = sum(1 for p in page.placements if p.side == "front")
    b = face.bleed
    return [(x + b, y + b, x + b + face.w, y + b + face.h)
            for x, y in map(grid.cell, range(used, grid.count))]


def tokens_per_place(token: Face, place: tuple) -> int:
    """Return how many tokens (with their bleed) fit inside one card place's trim box."""
    grid = fit_grid(place, token.w + 2 * token.bleed, token.h + 2 * token.bleed)
    return grid.count if grid else 0


def fill_places(page: Page, face: Face, opts: PrintOptions, tokens: list[tuple[Face, str]],
                owners: tuple[str, ...]) -> tuple[Page, int]:
    """Return a copy of a card sheet's front with tokens, each cut on its own outline, in its
    empty card places (``owners``: the tokens' components), and how many were placed. Each token lies inside a place's trim box,
    so no cut on the crop marks crosses one; the crop marks are drawn again for the whole
    grid (the places holding tokens are cut out like cards, then each token on its line)."""
    places = free_places(page, face, opts)
    if not tokens or not places:
        return page, 0
    cards = [p for p in page.placements if p.side == "front"]
    band = (0.0, 0.0, page.width, page.height - LABEL_BAND)
    old = set(crop_marks(cards, page.width, page.height, opts.margin, band)) \
        if opts.crop_marks else set()
    new = replace(page, parts=[p for p in page.parts if not (isinstance(p, str) and p in old)],
                  placements=list(page.placements),
                  owners=tuple(dict.fromkeys(page.owners + owners)))
    token = tokens[0][0]
    placed, filled = 0, []
    for box in places:
        grid = fit_grid(box, token.w + 2 * token.bleed, token.h + 2 * token.bleed)
        if grid is None or placed == len(tokens):
            continue
        x0, y0, x1, y1 = box
        filled.append(Placement(x0, y0, x1 - x0, y1 - y0, face.bleed, "front", ""))
        for i in range(min(grid.count, len(tokens) - placed)):
            tface, card_id = tokens[placed]
            x, y = grid.cell(i)
            _place(tface, x + tface.bleed, y + tface.bleed, "front", card_id, new)
            placed += 1
    new.parts.extend(cut_lines(new.placements[len(page.placements):], token.shape))
    if opts.crop_marks:
        new.parts.extend(crop_marks(cards + filled, page.width, page.height, opts.margin,
                                    band))
    return new, placed


def deck_names(names: list[str]) -> str:
    """Return deck names for a label: all of them, or the first two and how many more."""
    return ", ".join(names) if len(names) <= 3 else ", ".join(names[:2]) + \
        f" and {len(names) - 2} more"


def _add_marks(page: Page, opts: PrintOptions, marks: str, shape: str,
               region: tuple | None = None) -> None:
    if marks == "cut":
        page.parts.extend(cut_lines(page.placements, shape))
    elif opts.crop_marks:
        page.parts.extend(crop_marks(page.placements, page.width, page.height, opts.margin,
                                     region))


def _impose_fold(items: list[Item], opts: PrintOptions, title: str, marks: str) -> list[Page]:
    face = items[0].front
    w, h, axis, grid = fold_plan(face, opts)
    pages = []
    for start in range(0, len(items), grid.count):
        chunk = items[start:start + grid.count]
        page = Page(w, h, side="fold", label=f"{title} · fold on the dashed line, glue, cut")
        for i, item in enumerate(chunk):
            x, y = grid.cell(i)
            x, y = x + face.bleed, y + face.bleed
            _place(item.front, x, y, "front", item.card_id, page)
            if item.back is not None:
                if axis == "x":
                    bx, by = w - x - face.w, y
                else:
                    bx, by = x, h - y - face.h
                _place(item.back, bx, by, "back", item.card_id, page)
        if axis == "x":
            page.parts.append(_line(w / 2, opts.margin, w / 2, h - opts.margin - LABEL_BAND,
                                    "#888", 0.3, "3 2"))
            halves = [(0, 0, w / 2, h), (w / 2, 0, w, h)]
        else:
            page.parts.append(_line(opts.margin, h / 2, w - opts.margin, h / 2, "#888", 0.3,
                                    "3 2"))
            halves = [(0, 0, w, h / 2), (0, h / 2, w, h)]
        for side, region in zip(("front", "back"), halves):
            placed = [p for p in page.placements if p.side == side]
            if marks == "cut":
                page.parts.extend(cut_lines(placed, face.shape))
            elif opts.crop_marks:
                page.parts.extend(crop_marks(placed, w, h, opts.margin, region))
        pages.append(page)
    return pages


def impose_single(items: list[Item], opts: PrintOptions, title: str) -> list[Page]:
    """One card per page, with TrimBox and BleedBox, backs on the following page."""
    pages = []
    for item in items:
        sides = [("front", item.front)]
        if opts.backs != "none" and item.back is not None:
            sides.append(("back", item.back))
        for side, face in sides:
            slug = SLUG if opts.crop_marks else 0.0
            w = face.w + 2 * face.bleed + 2 * slug
            h = face.h + 2 * face.bleed + 2 * slug
            page = Page(w, h, side=side, label="")
            x, y = slug + face.bleed, slug + face.bleed
            _place(face, x, y, side, item.card_id, page)
            if opts.crop_marks:
                page.parts.extend(crop_marks(page.placements, w, h, 0.0))
            page.trim_box = (x, y, face.w, face.h)
            page.bleed_box = (x - face.bleed, y - face.bleed, face.w + 2 * face.bleed,
                              face.h + 2 * face.bleed)
            pages.append(page)
    return pages


def saddle_order(n_pages: int) -> list[tuple[int | None, int | None]]:
    """Return (left, right) page indexes for each printed side, folded into one booklet."""
    total = ((n_pages + 3) // 4) * 4
    sides = []
    for s in range(total // 4):
        sides.append((total - 1 - 2 * s, 2 * s))
        sides.append((2 * s + 1, total - 2 - 2 * s))
    return [tuple(i if i < n_pages else None for i in pair) for pair in sides]


def impose_booklet(faces: list[Face], opts: PrintOptions, title: str) -> list[Page]:
    """Impose booklet pages two-up on landscape paper in saddle-stitch order, for the flip
    the whole file prints with: on a long-edge flip each sheet's second side is drawn turned
    half round, so that it reads the right way up when the folded sheet is turned like a
    page (a landscape sheet turned over its long edge comes up upside down)."""
    pw, ph = paper_size(opts.paper)
    w, h = ph, pw  # landscape
    half = w / 2
    pages = []
    for n, (left, right) in enumerate(saddle_order(len(faces))):
        page = Page(w, h, side="front" if n % 2 == 0 else "back")
        turned = page.side == "back" and opts.flip == "long"
        for slot, index in ((0, left), (1, right)):
            if index is None:
                continue
            face = faces[index]
            scale = min(half / face.w, h / face.h, 1.0)
            x = slot * half + (half - face.w * scale) / 2
            y = (h - face.h * scale) / 2
            fw, fh = face.w * scale, face.h * scale
            if turned:   # drawn where the turn puts it, then turned about its own centre
                x, y = w - x - fw, h - y - fh
            svg = (f'<svg x="{_f(x)}" y="{_f(y)}" width="{_f(fw)}" height="{_f(fh)}" '
                   f'viewBox="0 0 {_f(face.w)} {_f(face.h)}">{face.svg}</svg>')
            if turned:
                svg = f'<g transform="rotate(180 {_f(x + fw / 2)} {_f(y + fh / 2)})">{svg}</g>'
            page.parts.append(svg)
            page.placements.append(Placement(x, y, fw, fh, 0.0, page.side, str(index + 1),
                                             "turned" if turned else ""))
        # Fold ticks stay 5 mm clear of the paper's edge, where home printers cannot print.
        page.parts.append(_line(half, EDGE, half, EDGE + 4, "#999", 0.2))
        page.parts.append(_line(half, h - EDGE - 4, half, h - EDGE, "#999", 0.2))
        pages.append(page)
    return pages


def label_text(label: str, number: int, total: int, width: float) -> str:
    """Return the label with its page number, shortened to fit ``width`` at 6 pt: the last
    notes go first, then the names in it are cut short."""
    tail = f" · page {number} of {total}"
    parts = label.split(" · ")
    while len(parts) > 3 and textmod.text_width(" · ".join(parts) + tail, 6) > width:
        parts.pop(-1)
    text = " · ".join(parts)
    while len(text) > 12 and textmod.text_width(text + "…" + tail, 6) > width:
        text = text[:-1]
    return text + ("…" if text != " · ".join(parts) else "") + tail


def label_svg(page: Page, number: int, total: int) -> str:
    """Return the page label (game, component, page n of m) for the bottom margin."""
    if not page.label:
        return ""
    text = label_text(page.label, number, total, page.width - 11.0)
    y = 5.2 if page.label_top else page.height - 5.0 - 4.2
    return str(textmod.text_box(text, 5.0, y, page.width - 10.0, 4.0, size=7, color="#666",
                                align="center", wrap=False))


def page_svg(page: Page, number: int, total: int, parts: list | None = None) -> str:
    """Return the whole SVG document of a page (with only ``parts`` of it, if given)."""
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{_f(page.width)}mm" '
            f'height="{_f(page.height)}mm" viewBox="0 0 {_f(page.width)} {_f(page.height)}">'
            + "".join(map(str, page.parts if parts is None else parts))
            + label_svg(page, number, total) + "</svg>")

