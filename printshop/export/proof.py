"""Proof sheets: every distinct card of every deck on as few pages as stay readable, each
labelled with its id and copies, to review before printing a whole run.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

from ..draw import text as textmod
from ..files.project import Project
from ..layout.impose import Face, Page
from ..load.geometry import LABEL_BAND, PrintOptions, paper_size
from ..load.models import Game
from . import deck_parts, drawn_cards, load_one

# Cards may shrink to 5/6 of their size: the 6 pt floor of card text then prints at 5 pt,
# the smallest size still comfortable to read on paper.
SCALES = (1.0, 0.9, 5 / 6)
GAP = 4.0           # mm between cards
LABEL = 5.0         # mm under each card for its label
LABEL_PT = 7.0
HEADING = 9.0       # mm for a deck's heading
TITLE = 12.0        # mm for the proof's title on the first page
OUTLINE = "#8a8a8a"


@dataclass(frozen=True)
class Tile:
    """One card to show: its drawing and its label (id and copies)."""

    face: Face
    label: str


@dataclass(frozen=True)
class Section:
    """One deck on the proof: a heading and its tiles."""

    heading: str
    tiles: list[Tile]


def sections(game: Game, opts: PrintOptions) -> list[Section]:
    """Return a section per deck: each distinct front, then each distinct back."""
    out = []
    for part in deck_parts(game):
        cards = drawn_cards(game, part, opts)
        tiles = [Tile(front, f"{card.id} ×{card.copies}") for card, front, _ in cards]
        backs: dict[str, tuple[Face, int]] = {}
        for card, _, back in cards:
            if back is not None:
                face, n = backs.get(back.svg, (back, 0))
                backs[back.svg] = (face, n + card.copies)
        tiles += [Tile(face, f"back ×{n}") for face, n in backs.values()]
        noun = "tokens" if part.kind == "tokens" else "cards"
        out.append(Section(f"**{part.spec.name}** ({part.id}): {len(cards)} distinct, "
                           f"{part.card_count()} {noun}", tiles))
    return out


@dataclass(frozen=True)
class Placed:
    """A tile or heading at a place on a page (mm from the top-left corner)."""

    x: float
    y: float
    w: float
    tile: Tile | None = None
    heading: str = ""


def _cell_width(section: Section, scale: float) -> float:
    label = max(textmod.text_width(t.label, textmod.MIN_PT) for t in section.tiles) + 1.0
    return max(max(t.face.w for t in section.tiles) * scale, label)


def layout(secs: list[Section], page_w: float, page_h: float, scale: float,
           margin: float) -> list[list[Placed]] | None:
    """Pack sections row by row onto pages; None when a card does not fit the page."""
    left, right = margin, page_w - margin
    bottom = page_h - margin - LABEL_BAND
    pages: list[list[Placed]] = [[]]
    y = margin + TITLE
    for sec in secs:
        cell_w = _cell_width(sec, scale)
        row_h = max(t.face.h for t in sec.tiles) * scale + LABEL
        cols = int((right - left + GAP + 1e-9) // (cell_w + GAP))
        if cols < 1 or margin + HEADING + row_h > bottom:
            return None
        x0 = left + (right - left - (cols * cell_w + (cols - 1) * GAP)) / 2
        heading = sec.heading
        for start in range(0, len(sec.tiles), cols):
            need = row_h + (HEADING if heading else 0.0)
            if y + need > bottom + 1e-9:
                pages.append([])
                y = margin
                heading = heading or sec.heading + " (continued)"
            if heading:
                pages[-1].append(Placed(left, y, right - left, heading=heading))
                y += HEADING
                heading = ""
            for i, tile in enumerate(sec.tiles[start:start + cols]):
                pages[-1].append(Placed(x0 + i * (cell_w + GAP), y, cell_w, tile=tile))
            y += row_h + GAP
        y += GAP
    return pages


def best_layout(secs: list[Section], opts: PrintOptions) -> tuple[float, float,
                                                                   list[list[Placed]], float]:
    """Choose the orientation and scale giving the fewest pages, then the largest cards."""
    pw, ph = paper_size(opts.paper)
    best = None
    for scale in SCALES:
        for w, h in ((pw, ph), (ph, pw)):
            pages = layout(secs, w, h, scale, opts.margin)
            if pages is not None and (best is None or len(pages) < len(best[2])):
                best = (w, h, pages, scale)
    if best is None:
        raise ValueError(f"a card is too large for a proof on {opts.paper} paper")
    return best


def _draw(p: Placed, scale: float, n: int) -> str:
    """Draw a heading, or a card clipped to its trim with its outline and label."""
    if p.tile is None:
        return str(textmod.text_box(p.heading, p.x, p.y + 2.0, p.w, HEADING - 3.0, size=10,
                                    color="#222", wrap=False))
    face = p.tile.face
    w, h = face.w * scale, face.h * scale
    x = p.x + (p.w - w) / 2
    f = textmod._fmt
    body = face.svg
    if face.shape == "circle":
        body = (f'<clipPath id="proof-trim-{n}"><circle cx="{f(face.w / 2)}" '
                f'cy="{f(face.h / 2)}" r="{f(min(face.w, face.h) / 2)}"/></clipPath>'
                f'<g clip-path="url(#proof-trim-{n})">{body}</g>')
    out = [f'<svg x="{f(x)}" y="{f(p.y)}" width="{f(w)}" height="{f(h)}" '
           f'viewBox="0 0 {f(face.w)} {f(face.h)}">{body}</svg>']
    if face.shape == "circle":
        out.append(f'<circle cx="{f(x + w / 2)}" cy="{f(p.y + h / 2)}" r="{f(min(w, h) / 2)}" '
                   f'fill="none" stroke="{OUTLINE}" stroke-width="0.25"/>')
    else:
        out.append(f'<rect x="{f(x)}" y="{f(p.y)}" width="{f(w)}" height="{f(h)}" '
                   f'fill="none" stroke="{OUTLINE}" stroke-width="0.25"/>')
    out.append(str(textmod.text_box(p.tile.label, p.x, p.y + h + 0.8, p.w, LABEL - 0.8,
                                    size=LABEL_PT, color="#333", align="center", wrap=False)))
    return "".join(out)


def proof_pages(game: Game, opts: PrintOptions) -> list[Page]:
    """Lay out every distinct card of the game's decks on labelled proof pages."""
    from ..files.errors import PrintshopError, Problem

    secs = sections(game, opts)
    if not secs:
        raise PrintshopError(Problem(f"data/{game.id}/game.yaml",
                                     "the game has no decks or tokens to proof"))
    w, h, placed, scale = best_layout(secs, opts)
    variant = " · low ink" if opts.low_ink else ""
    distinct = sum(len(s.tiles) for s in secs)
    title = (f"**{game.manifest.name}: proof sheet**{variant} · {len(secs)} deck"
             f"{'s' if len(secs) != 1 else ''}, {distinct} drawings at "
             f"{math.floor(scale * 100)}% size")
    pages = []
    for n, items in enumerate(placed):
        parts = [_draw(p, scale, i) for i, p in enumerate(items)]
        if n == 0:
            parts.insert(0, str(textmod.text_box(title, opts.margin, opts.margin,
                                                 w - 2 * opts.margin, TITLE - 3.0, size=13,
                                                 color="#222", wrap=False)))
        pages.append(Page(w, h, parts, side="sheet",
                          label=f"{game.manifest.name} · proof{variant}"))
    return pages


def proof(project: Project, game_id: str, out_dir: Path | None = None,
          opts: PrintOptions | None = None) -> Path:
    """Write a game's proof sheet PDF; return its path."""
    from . import drawing
    from ..files.output import write_files
    from ..write.pdf import pages_to_pdf

    opts = opts or PrintOptions()
    game = load_one(project, game_id)
    with drawing(game, "proof"):
        pages = proof_pages(game, opts)
        pdf = pages_to_pdf(pages, f"{game.manifest.name} — proof")
    name = f"{game_id}-proof{'-low-ink' if opts.low_ink else ''}.pdf"
    return write_files(Path(out_dir or Path("output") / game_id), {name: pdf})[0]
