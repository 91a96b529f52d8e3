"""Tile a drawing larger than the paper: pages that assemble into the whole board.

Each join works the way a poster is pasted up. The tile on the left (or above) carries a glue
strip: the picture runs on past the join for ``glue`` millimetres. The next tile is cut exactly
at the join and laid over that strip, so its cut edge meets the join and the picture continues.
Alignment marks sit on the glue strip (covered by the next tile) and crop marks in the page
margin (cut away), so nothing of them is left on the play surface.

All page coordinates are millimetres from the page's top-left corner; board coordinates are
millimetres from the drawing's top-left corner.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..draw import text as textmod
from ..load.geometry import LABEL_BAND, PrintOptions, paper_size
from .impose import MARK_GAP, MARK_MAX, MARK_MIN, MARK_STROKE, Page, Placement, _f, _line

JOIN_BLEED = 2.0    # picture printed beyond a cut join edge, so a cut a little wide shows none
MARK_ROOM = MARK_GAP + MARK_MIN
CROP_COLOUR = "#777"
# The alignment colour: a magenta no built-in board uses, so a mark left showing is plain to see.
ALIGN_COLOUR = "#e0007a"
GLUE_TINT = "#f6cfe2"
ALIGN_LINE = (0.4, 0.8)  # the alignment line spans these distances past the join, on the strip


@dataclass(frozen=True)
class Tile:
    """One page of a tiled board: the part it shows, its glue strips and where it prints."""

    col: int
    row: int
    x: float            # board coordinates of the part this tile shows once assembled
    y: float
    w: float
    h: float
    glue_right: float   # width of the glue strip past the right edge (0 on the last column)
    glue_bottom: float
    bleed_left: float   # picture printed left of the cut edge, cut away (0 on the first column)
    bleed_top: float
    page_x: float       # where the board's (0, 0) lands on this tile's page
    page_y: float

    @property
    def name(self) -> str:
        return tile_name(self.col, self.row)

    @property
    def cut_box(self) -> tuple[float, float, float, float]:
        """Return (x0, y0, x1, y1) in board coordinates: the tile once cut out."""
        return (self.x, self.y, self.x + self.w + self.glue_right,
                self.y + self.h + self.glue_bottom)

    @property
    def print_box(self) -> tuple[float, float, float, float]:
        """Return (x0, y0, x1, y1) in board coordinates: all of the picture the page prints."""
        x0, y0, x1, y1 = self.cut_box
        return x0 - self.bleed_left, y0 - self.bleed_top, x1, y1


@dataclass(frozen=True)
class TilePlan:
    """How a board is split over pages of one size and orientation."""

    page_w: float
    page_h: float
    cols: int
    rows: int
    glue: float
    tiles: tuple[Tile, ...]


def tile_name(col: int, row: int) -> str:
    """Return a tile's name: a row letter and a column number (A1, A2, B1...)."""
    return f"{chr(ord('A') + row)}{col + 1}"


def _splits(length: float, count: int) -> list[float]:
    """Return count + 1 cut positions dividing length evenly, inner ones on whole millimetres."""
    inner = [math.floor(length * i / count + 0.5) for i in range(1, count)]
    return [0.0, *map(float, inner), float(length)]


def _widest(cuts: list[float], glue: float) -> float:
    """Return the widest printed span of any tile along one axis."""
    n = len(cuts) - 1
    return max(cuts[i + 1] - cuts[i] + (JOIN_BLEED if i > 0 else 0.0)
               + (glue if i < n - 1 else 0.0) for i in range(n))


def _count(length: float, room: float, glue: float) -> int:
    """Return the fewest tiles along one axis whose printed spans fit in room."""
    n = 1
    while _widest(_splits(length, n), glue) > room:
        n += 1
    return n


class TilingError(ValueError):
    """A board's asked-for tiling cannot hold it on the paper: says why and what would."""


def printable_area(paper: str, margin: float = 5.0) -> dict[str, tuple[float, float]]:
    """Return the largest board (w, h mm) one page holds, and one tile of a tiled board
    prints (its glue strip and join bleed included), portrait and landscape."""
    pw, ph = paper_size(paper)
    out = {}
    for name, (w, h) in (("portrait", (pw, ph)), ("landscape", (ph, pw))):
        win_w, win_h = w - 2 * margin, h - 2 * margin - LABEL_BAND
        out[name] = (win_w, win_h)
        out[f"{name} tile"] = (win_w - 2 * MARK_ROOM, win_h - 2 * MARK_ROOM)
    return out


def _fits(draw_w, draw_h, win_w, win_h, cols, rows, glue) -> bool:
    """Say whether cols x rows tiles of the board fit a page window (marks room if tiled)."""
    if cols == rows == 1:
        return draw_w <= win_w and draw_h <= win_h
    room_w, room_h = win_w - 2 * MARK_ROOM, win_h - 2 * MARK_ROOM
    return _widest(_splits(draw_w, cols), glue) <= room_w and \
        _widest(_splits(draw_h, rows), glue) <= room_h


def tile_plan(draw_w: float, draw_h: float, opts: PrintOptions, glue: float,
              tiles: tuple[int, int] | None = None) -> TilePlan:
    """Split a board over the fewest pages, each join with a glue strip of ``glue`` mm, or
    over ``tiles`` (columns, rows) when the board asks; TilingError when those cannot hold it."""
    pw, ph = paper_size(opts.paper)
    best = None
    for w, h in ((pw, ph), (ph, pw)):
        win_w, win_h = w - 2 * opts.margin, h - 2 * opts.margin - LABEL_BAND
        if tiles is not None:
            cols, rows = tiles
            if not _fits(draw_w, draw_h, win_w, win_h, cols, rows, glue):
                continue
        elif draw_w <= win_w and draw_h <= win_h:
            cols = rows = 1
        else:
            cols = _count(draw_w, win_w - 2 * MARK_ROOM, glue)
            rows = _count(draw_h, win_h - 2 * MARK_ROOM, glue)
        if best is None or cols * rows < best[2] * best[3]:
            best = (w, h, cols, rows)
    if best is None:
        raise TilingError(_no_fit(draw_w, draw_h, opts, glue, tiles))
    w, h, cols, rows = best
    xs, ys = _splits(draw_w, cols), _splits(draw_h, rows)
    tiles = []
    for r in range(rows):
        for c in range(cols):
            tile = Tile(c, r, xs[c], ys[r], xs[c + 1] - xs[c], ys[r + 1] - ys[r],
                        glue if c < cols - 1 else 0.0, glue if r < rows - 1 else 0.0,
                        JOIN_BLEED if c > 0 else 0.0, JOIN_BLEED if r > 0 else 0.0, 0.0, 0.0)
            x0, y0, x1, y1 = tile.print_box
            # Centred in the margins, on whole millimetres like the joins.
            px = math.floor((w - (x1 - x0)) / 2 + 0.5)
            py = math.floor(opts.margin + (h - 2 * opts.margin - LABEL_BAND - (y1 - y0)) / 2
                            + 0.5)
            tiles.append(Tile(*[getattr(tile, f) for f in
                                ("col", "row", "x", "y", "w", "h", "glue_right", "glue_bottom",
                                 "bleed_left", "bleed_top")], px - x0, py - y0))
    return TilePlan(w, h, cols, rows, glue, tuple(tiles))


def _no_fit(draw_w, draw_h, opts: PrintOptions, glue: float, tiles) -> str:
    """Say why ``tiles`` cannot hold a board, and what would."""
    cols, rows = tiles
    span_w = _widest(_splits(draw_w, cols), glue) if cols > 1 else draw_w
    span_h = _widest(_splits(draw_h, rows), glue) if rows > 1 else draw_h
    area = printable_area(opts.paper, opts.margin)
    key = "tile" if cols * rows > 1 else ""
    holds = " or ".join(f"{a[0]:g} x {a[1]:g} mm ({o})" for o in ("portrait", "landscape")
                        for a in [area[f"{o} {key}".strip()]])
    auto = tile_plan(draw_w, draw_h, opts, glue)
    return (f"{cols} x {rows} tiles cannot hold a {draw_w:g} x {draw_h:g} mm board on "
            f"{opts.paper.upper() if opts.paper == 'a4' else opts.paper}: each "
            f"{'tile' if cols * rows > 1 else 'page'} would print {span_w:g} x {span_h:g} mm"
            f"{' (glue strip and join included)' if cols * rows > 1 else ''}, and one holds "
            f"{holds}; it fits as tiles: [{auto.cols}, {auto.rows}], or make the board "
            "smaller")


def crop_marks(tile: Tile, plan: TilePlan, margin: float) -> list[str]:
    """Draw a crop mark in the page margin at both ends of each of the tile's four cuts."""
    ox, oy = tile.page_x, tile.page_y
    cx0, cy0, cx1, cy1 = tile.cut_box
    px0, py0, px1, py1 = tile.print_box
    left, top, right, bottom = px0 + ox - MARK_GAP, py0 + oy - MARK_GAP, px1 + ox + MARK_GAP, \
        py1 + oy + MARK_GAP
    room = {"top": top - margin, "bottom": plan.page_h - margin - LABEL_BAND - bottom,
            "left": left - margin, "right": plan.page_w - margin - right}
    size = {k: min(v, MARK_MAX) for k, v in room.items()}
    out = []
    for x in (cx0 + ox, cx1 + ox):
        if size["top"] >= MARK_MIN:
            out.append(_line(x, top, x, top - size["top"], CROP_COLOUR, MARK_STROKE))
        if size["bottom"] >= MARK_MIN:
            out.append(_line(x, bottom, x, bottom + size["bottom"], CROP_COLOUR, MARK_STROKE))
    for y in (cy0 + oy, cy1 + oy):
        if size["left"] >= MARK_MIN:
            out.append(_line(left, y, left - size["left"], y, CROP_COLOUR, MARK_STROKE))
        if size["right"] >= MARK_MIN:
            out.append(_line(right, y, right + size["right"], y, CROP_COLOUR, MARK_STROKE))
    return out


def _glue_strip(x0: float, y0: float, length: float, glue: float, vertical: bool,
                neighbour: str) -> list[str]:
    """Mark one glue strip (page coordinates of its join end): a line, arrows and a label."""
    # Drawn as if the strip lay below a horizontal join, then turned for a vertical one.
    lo, hi = ALIGN_LINE
    out = [f'<rect x="0" y="{_f(lo)}" width="{_f(length)}" height="{_f(hi - lo)}" '
           f'fill="{ALIGN_COLOUR}"/>']
    if glue >= 5:
        for f in (0.2, 0.8):
            cx = length * f
            out.append(f'<path d="M{_f(cx)} {_f(hi + 0.4)} L{_f(cx - 1.6)} {_f(hi + 3.2)} '
                       f'L{_f(cx + 1.6)} {_f(hi + 3.2)} Z" fill="{ALIGN_COLOUR}"/>')
    label = f"glue here · {neighbour} goes on top, its cut edge over the line"
    width = textmod.text_width(label, 7) + 3
    if glue >= 6 and width <= length * 0.6:
        box_y, box_h = hi + 0.6, min(glue - hi - 1.2, 4.0)
        out.append(f'<rect x="{_f((length - width) / 2)}" y="{_f(box_y)}" width="{_f(width)}" '
                   f'height="{_f(box_h)}" rx="0.8" fill="#fff"/>')
        out.append(str(textmod.text_box(label, (length - width) / 2, box_y, width, box_h,
                                        size=7, min_size=7, color=ALIGN_COLOUR, align="center",
                                        valign="middle", wrap=False)))
    if vertical:
        # A quarter turn anticlockwise: the line still hugs the join, the label reads upwards.
        transform = f"translate({_f(x0)} {_f(y0 + length)}) rotate(-90)"
    else:
        transform = f"translate({_f(x0)} {_f(y0)})"
    return [f'<g transform="{transform}">' + "".join(out) + "</g>"]


def alignment_marks(tile: Tile, plan: TilePlan) -> list[str]:
    """Mark the tile's glue strips, each naming the neighbour that covers it."""
    at = {(t.col, t.row): t for t in plan.tiles}
    ox, oy = tile.page_x, tile.page_y
    x0, y0, x1, y1 = tile.cut_box
    out = []
    if tile.glue_right:
        out += _glue_strip(tile.x + tile.w + ox, y0 + oy, y1 - y0, tile.glue_right, True,
                           at[tile.col + 1, tile.row].name)
    if tile.glue_bottom:
        out += _glue_strip(x0 + ox, tile.y + tile.h + oy, x1 - x0, tile.glue_bottom, False,
                           at[tile.col, tile.row + 1].name)
    return out


def impose_tiles(drawing: str, draw_w: float, draw_h: float, opts: PrintOptions, title: str,
                 glue: float, tiles: tuple[int, int] | None = None
                 ) -> tuple[list[Page], tuple[Tile, ...]]:
    """Tile a large drawing over pages with glue strips, crop marks and an assembly page."""
    plan = tile_plan(draw_w, draw_h, opts, glue, tiles)
    many = len(plan.tiles) > 1
    pages = []
    for t in plan.tiles:
        page = Page(plan.page_w, plan.page_h, side="tile")
        x0, y0, x1, y1 = t.print_box
        page.parts.append(
            f'<svg x="{_f(x0 + t.page_x)}" y="{_f(y0 + t.page_y)}" width="{_f(x1 - x0)}" '
            f'height="{_f(y1 - y0)}" viewBox="{_f(x0)} {_f(y0)} {_f(x1 - x0)} {_f(y1 - y0)}">'
            f'{drawing}</svg>')
        page.placements.append(Placement(t.page_x, t.page_y, draw_w, draw_h, 0.0, "tile",
                                         t.name))
        if many:
            page.parts += alignment_marks(t, plan)
            page.parts += crop_marks(t, plan, opts.margin)
            page.label = (f"{title} · tile {t.name} of {plan.cols} x {plan.rows} · cut at the "
                          "grey marks and join as the assembly page shows")
        else:
            page.label = title
        pages.append(page)
    if many:
        pages.append(assembly_page(plan, draw_w, draw_h, title, opts))
    return pages, plan.tiles


STEPS = (
    "Cut out every tile with a ruler and a sharp knife, from crop mark to crop mark. The "
    "dashed edges above are the ones that show on the board: cut them exactly on the marks.",
    "Lay the tiles out face up in the order of their numbers, row by row from the top left.",
    "Spread glue on the first tile's glue strips, beyond the magenta line on its right and "
    "bottom edges.",
    "Lay the next tile over the strip so its cut edge just covers the magenta line and the "
    "picture runs on across the join; press it flat. Join each tile in turn the same way.",
)


def assembly_page(plan: TilePlan, draw_w: float, draw_h: float, title: str,
                  opts: PrintOptions) -> Page:
    """Draw the assembly page: the tiles in order, their glue strips and cut edges, and steps."""
    w, h, m = plan.page_w, plan.page_h, opts.margin
    page = Page(w, h, side="assembly", label=f"{title} · assembly diagram")
    text_w = w - 2 * m - 20
    page.parts.append(str(textmod.text_box(
        f"**Assembly: {title}**\n{len(plan.tiles)} tiles, {plan.cols} across and {plan.rows} "
        f"down; at each join the next tile covers a {plan.glue:g} mm glue strip.",
        m + 10, m + 2, text_w, 12, size=10, align="center")))
    steps_h, legend_h = 44.0, 8.0
    top, bottom = m + 18, h - m - LABEL_BAND - steps_h - legend_h - 4
    s = min(text_w / draw_w, (bottom - top) / draw_h)
    bx, by = (w - draw_w * s) / 2, top + (bottom - top - draw_h * s) / 2

    def rect(x0, y0, x1, y1, style):
        return (f'<rect x="{_f(bx + x0 * s)}" y="{_f(by + y0 * s)}" width="{_f((x1 - x0) * s)}" '
                f'height="{_f((y1 - y0) * s)}" {style}/>')

    parts = [rect(0, 0, draw_w, draw_h, 'fill="#f4f4f4"')]
    for t in plan.tiles:
        x0, y0, x1, y1 = t.cut_box
        if t.glue_right:
            parts.append(rect(t.x + t.w, y0, x1, y1, f'fill="{GLUE_TINT}"'))
        if t.glue_bottom:
            parts.append(rect(x0, t.y + t.h, x1, y1, f'fill="{GLUE_TINT}"'))
    for t in plan.tiles:
        parts.append(rect(t.x, t.y, t.x + t.w, t.y + t.h,
                          'fill="none" stroke="#999" stroke-width="0.25"'))
    for t in plan.tiles:
        if t.col > 0:
            x = bx + t.x * s
            parts.append(_line(x, by + t.y * s, x, by + (t.y + t.h) * s, ALIGN_COLOUR, 0.6,
                               "2 1.2"))
        if t.row > 0:
            y = by + t.y * s
            parts.append(_line(bx + t.x * s, y, bx + (t.x + t.w) * s, y, ALIGN_COLOUR, 0.6,
                               "2 1.2"))
    parts.append(rect(0, 0, draw_w, draw_h, 'fill="none" stroke="#000" stroke-width="0.4"'))
    for n, t in enumerate(plan.tiles, start=1):
        cx, cy = bx + (t.x + t.w / 2) * s, by + (t.y + t.h / 2) * s
        parts.append(str(textmod.text_box(f"**{t.name}**", cx - 20, cy - 6, 40, 8, size=18,
                                          align="center", valign="bottom", wrap=False)))
        parts.append(str(textmod.text_box(f"lay it {_ordinal(n)}", cx - 20, cy + 2.5, 40, 4,
                                          size=8, color="#555", align="center", wrap=False)))
    ly = bottom + 3
    parts.append(f'<rect x="{_f(m + 10)}" y="{_f(ly)}" width="8" height="4" '
                 f'fill="{GLUE_TINT}"/>')
    parts.append(str(textmod.text_box(
        "glue strip: more of the picture, covered by the next tile", m + 20, ly, text_w / 2 - 12,
        4, size=8, valign="middle", wrap=False)))
    lx = m + 10 + text_w / 2
    parts.append(_line(lx, ly + 2, lx + 8, ly + 2, ALIGN_COLOUR, 0.6, "2 1.2"))
    parts.append(str(textmod.text_box(
        "cut edge: it meets the join", lx + 10, ly, text_w / 2 - 10, 4, size=8,
        valign="middle", wrap=False)))
    steps = "\n".join(f"{n}. {step}" for n, step in enumerate(STEPS, start=1))
    parts.append(str(textmod.text_box(steps, m + 10, h - m - LABEL_BAND - steps_h, text_w,
                                      steps_h, size=9, line_height=1.3)))
    page.parts += parts
    return page


def _ordinal(n: int) -> str:
    """Return 1st, 2nd, 3rd, 4th ..."""
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"
