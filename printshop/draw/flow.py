"""Flow headed sections through columns and pages: a rules sheet without hand-placed lines.

A sheet's text is a list of sections, each a heading and a body. The body's paragraphs are set
by text.py (shaped, broken, at one size: flowing text never shrinks) and poured into the
columns of a page from the top down, column after column, page after page. A typesetter's
rules decide where a column may end: a heading keeps with the first lines of its body (never
last in a column), a paragraph leaves no single line at a column's foot or head, and a
paragraph of three lines or fewer is never split. The layout is a pure function of its
inputs, so each page of a sheet computes the same flow and draws its own share of it; the
whole flow's page count is written on the drawing (``data-pages``) for a sheet whose
``pages`` is ``auto``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from markupsafe import Markup

from ..load import fonts
from . import text as textmod
from .text import TextError

FLOW_CLASS = "ps-flow"
PAGES_ATTR = "data-pages"
PAGES_FOUND = re.compile(rf'class="{FLOW_CLASS}" {PAGES_ATTR}="(\d+)"')
SECTION_KEYS = ("heading", "body")
MAX_COLUMNS = 4
KEEP = 2            # the fewest lines of a paragraph a column may begin or end with
SPACE_BEFORE = 0.7  # before a heading that does not open a column, in the heading's em
SPACE_AFTER = 0.3   # between a heading and its body, in the body's em
PARAGRAPH = 0.45    # between two paragraphs of a body, in the body's em


@dataclass(frozen=True)
class Block:
    """A heading or a paragraph, broken into lines at one size and face."""

    lines: tuple
    em: float                  # mm
    family: str
    color: str
    heading: bool
    section: int               # which section it belongs to (a heading keeps with its own)
    space: float               # mm above it, unless it opens a column


@dataclass(frozen=True)
class Placed:
    """Lines of a block set in one column: which lines, and the top of the first (mm)."""

    block: Block
    start: int
    end: int
    top: float


@dataclass(frozen=True)
class Metrics:
    """A face's vertical measures at one size: what a run of n lines takes, in mm."""

    ascent: float
    descent: float
    step: float

    def height(self, n: int) -> float:
        """Return the height of n lines, from the first line's top to the last's foot."""
        return (n - 1) * self.step + self.ascent + self.descent if n else 0.0


def _metrics(block: Block, line_height: float) -> Metrics:
    face = fonts.face(block.family)
    return Metrics(face.ascent * block.em, face.descent * block.em, line_height * block.em)


def _sections(sections) -> list[tuple[str, str]]:
    """Return (heading, body) of each section; refuse anything else, saying where."""
    if not isinstance(sections, (list, tuple)):
        raise TextError(f"flow(): sections must be a list of {{heading, body}}, got "
                        f"{type(sections).__name__}")
    out = []
    for i, section in enumerate(sections):
        if not isinstance(section, dict):
            raise TextError(f"flow(): sections[{i}] must be a mapping with heading and body, "
                            f"got {type(section).__name__}")
        unknown = [k for k in section if k not in SECTION_KEYS]
        if unknown:
            raise TextError(f"flow(): sections[{i}] has no key {unknown[0]!r}; a section has "
                            f"{' and '.join(SECTION_KEYS)}")
        heading, body = section.get("heading", ""), section.get("body", "")
        for key, value in (("heading", heading), ("body", body)):
            if not isinstance(value, (str, int, float)) or isinstance(value, bool):
                raise TextError(f"flow(): sections[{i}].{key} must be text, got "
                                f"{type(value).__name__}")
        if not str(heading).strip() and not str(body).strip():
            raise TextError(f"flow(): sections[{i}] has neither heading nor body")
        out.append((str(heading).strip(), str(body).strip()))
    return out


def _set(text: str, width: float, size: float, family: str, icons: dict, line_height: float,
         hyphenate: str | None, extra: tuple) -> tuple[tuple, float]:
    """Break one paragraph into lines at ``size`` (never smaller); return (lines, em)."""
    try:
        _, lines, _, em = textmod.layout(text, width, float("inf"), size, size, family, icons,
                                         line_height, True, None, "left", hyphenate, extra)
    except TextError as exc:
        if "does not fit" not in str(exc):
            raise
        raise TextError(f"flow(): a word of {text[:50]!r} is wider than a column "
                        f"({width:.1f} mm) at {size:g}pt") from None
    return tuple(lines), em


def blocks(sections, width: float, size: float, heading_size: float, family: str,
           heading_family: str, color: str, heading_color: str, icons: dict,
           line_height: float, hyphenate: str | None = None, extra: tuple = ()) -> list[Block]:
    """Return the headings and paragraphs of the sections, each broken to the column."""
    out = []
    for index, (heading, body) in enumerate(_sections(sections)):
        if heading:
            lines, em = _set(heading, width, heading_size, heading_family, icons, line_height,
                             hyphenate, extra)
            out.append(Block(lines, em, heading_family, heading_color, True, index,
                             SPACE_BEFORE * em))
        paragraphs = [p.strip() for p in body.split("\n") if p.strip()]
        for k, paragraph in enumerate(paragraphs):
            lines, em = _set(paragraph, width, size, family, icons, line_height, hyphenate,
                             extra)
            space = (SPACE_AFTER if heading and k == 0 else PARAGRAPH if k else
                     SPACE_BEFORE * heading_size / size) * em
            out.append(Block(lines, em, family, color, False, index, space))
    return out


def _kept(n: int) -> int:
    """Return the fewest lines of an n-line paragraph that may stand alone in a column."""
    return n if n <= KEEP + 1 else KEEP


def pour(items: list[Block], tops: list[float], bottom: float, columns: int,
         line_height: float, last: tuple[int, float] | None = None) -> list[list[list[Placed]]]:
    """Pour blocks into columns: return pages of columns of placed lines.

    ``tops`` gives the top of the columns on the first pages (the last one repeats);
    ``bottom`` is where every column ends, except on page ``last[0]`` (ends at ``last[1]``)."""
    pages: list[list[list[Placed]]] = [[[] for _ in range(columns)]]
    page, col = 0, 0
    y = tops[0]

    def top_of(p: int) -> float:
        return tops[min(p, len(tops) - 1)]

    def foot(p: int) -> float:
        return last[1] if last is not None and p == last[0] else bottom

    def next_column() -> None:
        nonlocal page, col, y
        col += 1
        if col == columns:
            page, col = page + 1, 0
            pages.append([[] for _ in range(columns)])
        y = top_of(page)

    i = 0
    while i < len(items):
        block = items[i]
        m = _metrics(block, line_height)
        opening = not pages[page][col]
        space = 0.0 if opening else block.space
        n = len(block.lines)
        if block.heading:
            # A heading keeps with the first KEEP lines of its body (a one-line paragraph
            # and the first lines of the next one, say): never alone at a column's foot.
            need = space + m.height(n)
            j, kept = i + 1, 0
            while j < len(items) and kept < KEEP and not items[j].heading and \
                    items[j].section == block.section:
                body = items[j]
                k = _kept(len(body.lines))
                need += body.space + _metrics(body, line_height).height(k)
                kept, j = kept + k, j + 1
            if y + need > foot(page) + 1e-6:
                if opening:
                    raise TextError(f"flow(): the heading {_plain(block)!r} and the first "
                                    f"lines of its section are taller than a column "
                                    f"({foot(page) - top_of(page):.1f} mm)")
                next_column()
                continue
            pages[page][col].append(Placed(block, 0, n, y + space))
            y += space + m.height(n)
            i += 1
            continue
        start = 0
        while start < n:
            opening = not pages[page][col]
            space = 0.0 if opening or start else block.space
            room = foot(page) - y - space
            fit = 0
            while fit < n - start and m.height(fit + 1) <= room + 1e-6:
                fit += 1
            left = n - start
            if fit >= left:
                take = left
            else:
                take = min(fit, left - KEEP) if left > KEEP + 1 else 0
                if take < KEEP:
                    take = 0
            if take == 0:
                if opening:
                    if fit == 0:
                        raise TextError(f"flow(): a column ({foot(page) - top_of(page):.1f} mm) "
                                        f"is shorter than one line of {_plain(block)!r}")
                    take = fit      # a column too short for the rules: fill it anyway
                else:
                    next_column()
                    continue
            pages[page][col].append(Placed(block, start, start + take, y + space))
            y += space + m.height(take)
            start += take
            if start < n:
                next_column()
        i += 1
    while len(pages) > 1 and not any(pages[-1]):
        pages.pop()
    return pages


def balanced(items: list[Block], tops: list[float], bottom: float, columns: int,
             line_height: float) -> list[list[list[Placed]]]:
    """Pour blocks, then shorten the last page's columns as far as its text still fits them
    (a typesetter's balanced last page: two half columns, not one full and one empty)."""
    pages = pour(items, tops, bottom, columns, line_height)
    if columns == 1:
        return pages
    n = len(pages)
    lo, hi = tops[min(n - 1, len(tops) - 1)], bottom
    best = pages
    for _ in range(14):
        mid = (lo + hi) / 2
        try:
            tried = pour(items, tops, bottom, columns, line_height, (n - 1, mid))
        except TextError:
            tried = None
        if tried is not None and len(tried) == n:
            hi, best = mid, tried
        else:
            lo = mid
    return best


def _plain(block: Block) -> str:
    words = [w.text for line in block.lines for w in line.words]
    return " ".join(words)[:50]


def _column_x(x: float, w: float, columns: int, gap: float) -> tuple[list[float], float]:
    width = (w - gap * (columns - 1)) / columns
    return [x + k * (width + gap) for k in range(columns)], width


def draw_page(page: list[list[Placed]], xs: list[float], width: float, icons: dict,
              line_height: float) -> list[str]:
    """Return SVG of one page's columns."""
    out = []
    for x, column in zip(xs, page):
        for placed in column:
            block = placed.block
            m = _metrics(block, line_height)
            lines = block.lines[placed.start:placed.end]
            baselines = [placed.top + m.ascent + k * m.step for k in range(len(lines))]
            out.append(textmod.draw_lines(lines, baselines, x, width, block.em, block.family,
                                          block.color, "left", icons))
    return out


@lru_cache(maxsize=64)
def _flowed(key: tuple, x: float, y: float, w: float, h: float, first_y: float | None,
            columns: int, gap: float, size: float, heading_size: float, family: str,
            heading_family: str, color: str, heading_color: str, line_height: float,
            icon_items: tuple, hyphenate: str | None, extra: tuple) -> tuple[str, ...]:
    """Return the SVG of every page of a flow (cached: each page of a sheet asks for it)."""
    sections = [{"heading": heading, "body": body} for heading, body in key]
    icons = dict(icon_items)
    xs, width = _column_x(x, w, columns, gap)
    items = blocks(sections, width, size, heading_size, family, heading_family, color,
                   heading_color, icons, line_height, hyphenate, extra)
    tops = [y if first_y is None else first_y, y]
    pages = balanced(items, tops, y + h, columns, line_height)
    return tuple("".join(draw_page(p, xs, width, icons, line_height)) for p in pages)


def flow(sections, x: float, y: float, w: float, h: float, page, columns: int = 2,
         gap: float = 6, size: float = 10, heading_size: float = 13, font: str = "body",
         heading_font: str = "title", color: str = "#000", heading_color: str | None = None,
         first_y: float | None = None, line_height: float = 1.25,
         icons: dict[str, str] | None = None, hyphenate: str | None = None,
         fonts_by_name: dict[str, str] | None = None) -> Markup:
    """Return SVG for this page's share of ``sections`` flowed through ``columns`` columns.

    Every page's columns fill the box (x, y, w, h); on the first page they start at
    ``first_y`` instead (below a title). ``page`` is the sheet's ``page``: its ``index``
    chooses the share, its ``count`` (none for ``pages: auto``) is checked against what the
    text needs."""
    index, count = _page(page)
    if isinstance(columns, bool) or not isinstance(columns, int) or \
            not 1 <= columns <= MAX_COLUMNS:
        raise TextError(f"flow(columns={columns!r}): expected a whole number from 1 to "
                        f"{MAX_COLUMNS}")
    for name, value in (("x", x), ("y", y), ("w", w), ("h", h), ("gap", gap), ("size", size),
                        ("heading_size", heading_size), ("line_height", line_height)):
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise TextError(f"flow(): {name} must be a number, got {value!r}")
    if first_y is not None and not y <= first_y < y + h:
        raise TextError(f"flow(first_y={first_y!r}): expected a number from y ({y:g}) to the "
                        f"box's foot ({y + h:g})")
    for name, value in (("size", size), ("heading_size", heading_size)):
        if value < textmod.MIN_PT:
            raise TextError(f"flow(): {name} {value:g}pt is below the {textmod.MIN_PT:g}pt "
                            "readability floor")
    if w - gap * (columns - 1) < 10 * columns or h <= 0 or gap < 0 or line_height < 1:
        raise TextError(f"flow(): {columns} columns with {gap:g} mm gaps do not fit "
                        f"{w:g} x {h:g} mm (a column needs 10 mm, a line height 1 or more)")
    game_fonts = fonts_by_name or {}
    family = fonts.resolve_family(game_fonts.get(font, font))
    heading_family = fonts.resolve_family(game_fonts.get(heading_font, heading_font))
    pages = _flowed(tuple(_sections(sections)), float(x), float(y), float(w), float(h),
                    None if first_y is None else float(first_y), columns, float(gap),
                    float(size), float(heading_size), family, heading_family, str(color),
                    str(heading_color or color), float(line_height),
                    tuple(sorted((icons or {}).items())), hyphenate,
                    tuple(game_fonts.values()))
    if count is not None and len(pages) > count:
        raise TextError(f"flow(): the sections need {len(pages)} pages at {size:g}pt in "
                        f"{columns} columns; the sheet has pages: {count} (write pages: auto "
                        "to add pages as needed)")
    body = pages[index] if index < len(pages) else ""
    return Markup(f'<g class="{FLOW_CLASS}" {PAGES_ATTR}="{len(pages)}">{body}</g>')


def _page(page) -> tuple[int, int | None]:
    """Return (index, count) of the sheet's ``page`` mapping (count None: pages: auto)."""
    if not isinstance(page, dict) or not isinstance(page.get("index"), int):
        raise TextError(f"flow(): page must be the sheet's page (write page=page), got "
                        f"{repr(page)[:40]}")
    count = page.get("count")
    if page.get("auto") or not isinstance(count, int):
        return page["index"], None
    return page["index"], count


def pages_needed(svg: str) -> int | None:
    """Return how many pages a drawn page's flow needs (None: it has no flow)."""
    found = PAGES_FOUND.search(svg)
    return int(found.group(1)) if found else None
