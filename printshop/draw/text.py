"""Lay out text in SVG as a typesetter sets it: shaped, kerned, broken well, shrunk to fit.

SVG has no wrapping, so lines are broken before they are written: shaping.py shapes every word
with HarfBuzz (right-to-left text ordered by the bidi algorithm), breaking.py breaks the lines
and chooses the size. This module writes them: each run carries its glyphs and their positions
(``data-glyphs``) so that render.py draws exactly what was measured, and its real text, so the
PDF's text layer reads as printed (spaces, order, copy and search).

It is the typesetting surface the rest of printshop uses: text_box, text_lines, text_width,
draw_lines, and, from the modules below, layout, TextError, PT and MIN_PT.
"""

from __future__ import annotations

from markupsafe import Markup, escape

from ..load import fonts
from .breaking import MIN_PT, PT, Line, layout
from .shaping import Piece, TextError, bidi_levels, segments

__all__ = ["GLYPHS_ATTR", "MIN_PT", "PT", "RUN_CLASS", "TextError", "draw_lines", "icon_svg",
           "layout", "recolour", "text_box", "text_lines", "text_width"]

# Marks the <text> elements laid out here: every run has its own x, y, family and weight (and
# its glyphs), so the PDF renderer draws each run in one call instead of letter by letter.
RUN_CLASS = "ps-runs"
GLYPHS_ATTR = "data-glyphs"


def _fmt(v: float, places: int = 3) -> str:
    text = f"{v:.{places}f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def _visual(line: Line) -> list[tuple]:
    """Return a line's pieces and spaces in the order they are drawn (bidi rule L2)."""
    items = []
    for k, word in enumerate(line.words):
        items.extend((p.level, p) for p in word.pieces)
        if k + 1 < len(line.words) and word.space:
            items.append((word.space_level, word.space))
    levels = [lv for lv, _ in items]
    if levels and max(levels) > 0:
        lowest_odd = min(lv for lv in levels if lv % 2) if any(lv % 2 for lv in levels) else 1
        for level in range(max(levels), lowest_odd - 1, -1):
            i = 0
            while i < len(items):
                if items[i][0] >= level:
                    j = i
                    while j < len(items) and items[j][0] >= level:
                        j += 1
                    items[i:j] = items[i:j][::-1]
                    i = j
                else:
                    i += 1
    return [item for _, item in items]


class _Run:
    """Pieces of one face and direction drawn in one call: text, glyphs, positions in mm."""

    def __init__(self, piece: Piece, x: float):
        self.family, self.weight, self.rtl = piece.family, piece.weight, piece.rtl
        self.x = x
        self.parts: list[tuple[str, list]] = []     # (text, glyphs) in the order drawn

    def fits(self, piece: Piece) -> bool:
        return (piece.family, piece.weight, piece.rtl) == (self.family, self.weight, self.rtl)

    def add(self, piece: Piece, x: float, em: float) -> None:
        self.parts.append((piece.text, [(g, c, x + gx * em, gy * em)
                                        for g, c, gx, gy in piece.glyphs]))

    def add_space(self, x: float) -> None:
        self.parts.append((" ", [(fonts.space_glyph(self.family, self.weight), 0, x, 0.0)]))

    @staticmethod
    def _dx(text: str, placed: list, widths: dict, em: float) -> str:
        """Return SVG's dx list placing each character where its glyph is (kerning, for a
        browser or cairosvg, which advance by the font's plain widths): a character drawn
        inside another's glyph (a ligature) follows it by its plain width. '' if none moves."""
        first = {}
        for _, c, gx, _ in placed:
            first.setdefault(c, gx)
        shifts, at, expected = [], placed[0][2], placed[0][2]
        for i, ch in enumerate(text):
            at = first.get(i, expected)
            shifts.append(at - expected)
            expected = at + widths.get(ord(ch), 0.5) * em
        while shifts and abs(shifts[-1]) < 5e-5:
            shifts.pop()
        return " ".join(_fmt(v, 4) for v in shifts)

    def svg(self, baseline: float, family: str, em: float) -> str:
        # The text in reading order (a right-to-left run's parts were met from its end);
        # glyphs as drawn, each naming its character's index in that text.
        order = range(len(self.parts) - 1, -1, -1) if self.rtl else range(len(self.parts))
        start, at = {}, 0
        for k in order:
            start[k] = at
            at += len(self.parts[k][0])
        text = "".join(self.parts[k][0] for k in order)
        placed = [(g, start[k] + c, gx, gy) for k, (_, glyphs) in enumerate(self.parts)
                  for g, c, gx, gy in glyphs]
        # "id:x" when a glyph draws the character of its own index (most do), else
        # "id:character:x", and ":dy" after that for a glyph raised or lowered (a mark).
        tokens = [f"{g}:{_fmt(gx, 4)}" if c == k and not gy else
                  f"{g}:{c}:{_fmt(gx, 4)}" + (f":{_fmt(-gy, 4)}" if gy else "")
                  for k, (g, c, gx, gy) in enumerate(placed)]
        attrs = f' font-family="{self.family}"' if self.family != family else ""
        attrs += ' font-weight="bold"' if self.weight == "bold" else ""
        if not self.rtl and placed:
            widths = fonts.face(self.family, self.weight).widths
            dx = self._dx(text, placed, widths, em)
            attrs += f' dx="{dx}"' if dx else ""
        return (f'<tspan x="{_fmt(self.x)}" y="{_fmt(baseline)}"{attrs} '
                f'{GLYPHS_ATTR}="{" ".join(tokens)}">{escape(text)}</tspan>')


def text_box(text, x: float, y: float, w: float, h: float, size: float = 9,
             min_size: float = MIN_PT, font: str = "body", color: str = "#000",
             align: str = "left", valign: str = "top", line_height: float = 1.2,
             icons: dict[str, str] | None = None, weight: str = "normal",
             wrap: bool = True, icon_color: str | None = None,
             fallback: float | None = None, hyphenate: str | None = None,
             fonts_by_name: dict[str, str] | None = None) -> Markup:
    """Return SVG for ``text`` set in the box (x, y, w, h), shrunk to fit if needed.

    ``fallback`` names the one smaller size of a type scale: the text is set at ``size``, or
    at ``fallback`` if it does not fit, never between (``min_size`` is then not used).
    ``hyphenate`` is a language ('en', 'de_DE'): words may then break with a hyphen.
    ``fonts_by_name`` are the game's own fonts (name -> family): ``font`` may name one, and
    each is tried for characters the chosen font lacks."""
    icons = icons or {}
    game_fonts = fonts_by_name or {}
    family = fonts.resolve_family(game_fonts.get(font, font))
    if weight == "bold":
        text = f"**{text}**" if "**" not in str(text) else text
    pt, lines, _, em = layout(text, w, h, size, min_size, family, icons, line_height, wrap,
                              fallback, align, hyphenate, tuple(game_fonts.values()))
    face = fonts.face(family)
    block = ((len(lines) - 1) * line_height + face.ascent + face.descent) * em
    top = y + {"top": 0.0, "middle": (h - block) / 2, "bottom": h - block}[valign]
    baselines = [top + face.ascent * em + n * line_height * em for n in range(len(lines))]
    return draw_lines(lines, baselines, x, w, em, family, color, align, icons, icon_color)


def draw_lines(lines, baselines, x: float, w: float, em: float, family: str, color: str,
               align: str, icons: dict[str, str], icon_color: str | None = None) -> Markup:
    """Return SVG drawing laid-out lines, each on its baseline (mm), in a column (x, w)."""
    # The size to a millionth: glyphs are placed with the font's own advances at this size.
    out = [f'<text class="{RUN_CLASS}" font-family="{family}" font-size="{_fmt(em, 6)}" '
           f'fill="{escape(color)}">']
    icon_out = []
    for line, baseline in zip(lines, baselines):
        start = x + line.indent * em + {"left": 0.0, "center": (w - line.width * em) / 2,
                                        "right": w - line.width * em}[align]
        cursor = start
        run: _Run | None = None
        pending_space = None
        runs = []
        for item in _visual(line):
            if isinstance(item, float):
                if run is not None:
                    pending_space = cursor
                cursor += item * em
                continue
            if item.icon:
                # currentColor is the text's colour, as in CSS, unless icon_color names one
                fragment = recolour(icons[item.icon], icon_color or color)
                icon_out.append(icon_svg(fragment, cursor + 0.025 * em, baseline - 0.86 * em,
                                         em, icon_color))
                run, pending_space = None, None
            elif item.text and (run is not None or not item.text.isspace()):
                # (a space between two icons starts no run: it only moves the cursor)
                if run is None or not run.fits(item):
                    run = _Run(item, cursor)
                    runs.append(run)
                elif pending_space is not None:
                    run.add_space(pending_space)
                run.add(item, cursor, em)
                pending_space = None
            cursor += item.width * em
        out.extend(r.svg(baseline, family, em) for r in runs)
    out.append("</text>")
    return Markup("<g>" + "".join(out) + "".join(icon_out) + "</g>")


def recolour(fragment: str, color: str | None) -> str:
    """Return an icon's fragment with ``currentColor`` (in fills and strokes) made ``color``."""
    if "currentColor" not in fragment:
        return fragment
    return fragment.replace("currentColor", str(escape(color)) if color else "#000")


def icon_svg(fragment: str, x: float, y: float, size: float, color: str | None = None) -> Markup:
    """Return an icon (drawn in a 100 x 100 box) placed at (x, y) with the given size."""
    fill = f' fill="{escape(color)}"' if color else ""
    return Markup(f'<g transform="translate({_fmt(x)} {_fmt(y)}) scale({_fmt(size / 100)})"'
                  f'{fill}>{fragment}</g>')


def text_lines(text, w: float, size: float = 9, font: str = "body", weight: str = "normal",
               line_height: float = 1.2, icons: dict[str, str] | None = None,
               hyphenate: str | None = None, fonts_by_name: dict[str, str] | None = None
               ) -> int:
    """Return how many lines ``text`` takes in a box ``w`` mm wide at ``size`` points, broken
    exactly as text() breaks it (icons, bold, hyphenation), so a template can size a row or
    a box before setting the text in it."""
    if not str(text).strip():
        return 0
    game_fonts = fonts_by_name or {}
    family = fonts.resolve_family(game_fonts.get(font, font))
    if weight == "bold":
        text = f"**{text}**" if "**" not in str(text) else text
    try:
        _, lines, _, _ = layout(text, w, float("inf"), size, size, family, icons or {},
                                line_height, True, None, "left", hyphenate,
                                tuple(game_fonts.values()))
    except TextError:       # a word wider than the box: text() would shrink or refuse it
        raise TextError(f"a word does not fit in {w:g} mm at {size:g}pt: {str(text)[:60]!r}")
    return len(lines)


def text_width(text: str, size: float, font: str = "body", weight: str = "normal",
               fonts_by_name: dict[str, str] | None = None) -> float:
    """Return the width in mm of a single line of plain text at ``size`` points, shaped."""
    if not text:
        return 0.0
    game_fonts = fonts_by_name or {}
    family = fonts.resolve_family(game_fonts.get(font, font))
    levels = bidi_levels(str(text))
    return sum(p.width for p in segments(str(text), family, weight,
                                          tuple(levels) if levels else None,
                                          tuple(game_fonts.values()))) * size * PT
