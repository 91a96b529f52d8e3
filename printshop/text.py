"""Lay out text in SVG: wrap inside a box, shrink to fit, draw inline icons on the baseline.

SVG has no wrapping, so lines are broken here with the shipped fonts' own advance widths and
every run is placed with an explicit x; cairo then draws exactly what was measured.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from markupsafe import Markup, escape

from . import fonts

PT = 25.4 / 72  # millimetres per point
MIN_PT = 6.0
ICON_EM = 1.05
_TOKEN = re.compile(r"(\*\*|:[a-z0-9][a-z0-9-]*:|\n|[ \t]+)")


# Marks the <text> elements laid out here: every run has its own x, y, family and weight, so
# the PDF renderer may draw each run in one call instead of letter by letter.
RUN_CLASS = "ps-runs"


class TextError(Exception):
    """Text that cannot be set: it overflows its box or uses an unprintable character."""


@dataclass(frozen=True)
class Piece:
    """A word fragment in one face, or an icon; widths in em."""

    text: str
    family: str
    weight: str
    width: float
    icon: str | None = None


# Joiners, variation selectors and direction marks: drawn by no font, taking no room.
_INVISIBLE = frozenset("\u200b\u200c\u200d\u200e\u200f\ufe0e\ufe0f")


def _is_rtl(ch: str) -> bool:
    return 0x0590 <= ord(ch) <= 0x08FF or 0xFB1D <= ord(ch) <= 0xFEFC


def _visual_order(word: str) -> str:
    """Reverse runs of right-to-left letters so they read correctly when drawn left to right.

    cairo's simple text API draws characters in the order given; this is enough for Hebrew
    words. It is not the full Unicode bidirectional algorithm, and Arabic is not shaped.
    """
    if not any(_is_rtl(c) for c in word):
        return word
    out, run = [], []
    for ch in word:
        if _is_rtl(ch) or (run and not ch.isascii() and not ch.isalnum()):
            run.append(ch)
        else:
            out.extend(reversed(run))
            run = []
            out.append(ch)
    out.extend(reversed(run))
    return "".join(out)


@lru_cache(maxsize=65536)
def _segments(word: str, family: str, weight: str) -> tuple[Piece, ...]:
    """Split a word into runs by which face can draw each character."""
    primary = fonts.face(family, weight)
    runs: list[list] = []
    for ch in _visual_order(word):
        if ch in _INVISIBLE:
            fam = runs[-1][0] if runs else family
        elif primary.covers(ch):
            fam = family
        else:
            fam = next((f for f in fonts.FALLBACKS if fonts.face(f, weight).covers(ch)), None)
            if fam is None:
                raise TextError(f"no shipped font can draw {ch!r} (U+{ord(ch):04X})")
        if runs and runs[-1][0] == fam:
            runs[-1][1] += ch
        else:
            runs.append([fam, ch])
    return tuple(Piece(t, fam, weight, fonts.face(fam, weight).width(t)) for fam, t in runs)


def _words(text: str, family: str, icons: dict[str, str]):
    """Yield words (lists of pieces), 'space' and 'break' markers from marked-up text."""
    weight = "normal"
    word: list[Piece] = []
    for token in _TOKEN.split(text):
        if not token:
            continue
        if token == "**":
            weight = "bold" if weight == "normal" else "normal"
        elif token == "\n":
            if word:
                yield word
                word = []
            yield "break"
        elif token.isspace():
            if word:
                yield word
                word = []
            yield "space"
        elif token.startswith(":") and token.endswith(":") and token[1:-1] in icons:
            word.append(Piece("", family, weight, ICON_EM, icon=token[1:-1]))
        else:
            word.extend(_segments(token, family, weight))
    if word:
        yield word


def _lines(words, width_em: float, space_em: float):
    """Break words greedily into lines no wider than width_em; return (lines, widest)."""
    lines, line, line_w, widest, pending_space = [], [], 0.0, 0.0, False
    for w in words:
        if w == "break":
            lines.append(line)
            widest = max(widest, line_w)
            line, line_w, pending_space = [], 0.0, False
            continue
        if w == "space":
            pending_space = bool(line)
            continue
        ww = sum(p.width for p in w)
        extra = space_em if pending_space else 0.0
        if line and line_w + extra + ww > width_em:
            lines.append(line)
            widest = max(widest, line_w)
            line, line_w, extra = [], 0.0, 0.0
        line.append((line_w + extra, w))
        line_w += extra + ww
        pending_space = False
    lines.append(line)
    widest = max(widest, line_w)
    return lines, widest


def _fmt(v: float, places: int = 3) -> str:
    text = f"{v:.{places}f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def layout(text: str, width: float, height: float, size: float, min_size: float,
           family: str, icons: dict[str, str], line_height: float = 1.2,
           wrap: bool = True, fallback: float | None = None):
    """Return (size_pt, lines, widths) for the largest size from ``size`` down that fits.

    With ``fallback`` (a type scale's one smaller step) only ``size`` and ``fallback`` are
    tried, nothing between them."""
    if fallback is not None:
        if fallback < MIN_PT:
            raise TextError(f"fallback {fallback}pt is below the {MIN_PT}pt readability floor")
        try:
            return layout(text, width, height, size, size, family, icons, line_height, wrap)
        except TextError:
            return layout(text, width, height, fallback, fallback, family, icons, line_height,
                          wrap)
    if min_size < MIN_PT:
        raise TextError(f"min_size {min_size}pt is below the {MIN_PT}pt readability floor")
    family = fonts.resolve_family(family)
    words = list(_words(str(text), family, icons))
    space_em = fonts.face(family).width(" ")
    face = fonts.face(family)
    pt = float(size)
    while True:
        em = pt * PT
        lines, widest = _lines(words, width / em if wrap else float("inf"), space_em)
        needed = ((len(lines) - 1) * line_height + face.ascent + face.descent) * em
        if widest * em <= width + 1e-6 and needed <= height + 1e-6:
            return pt, lines, widest, em
        if pt - 0.25 < min_size - 1e-9:
            raise TextError(f"text does not fit in {width:g} x {height:g} mm even at "
                            f"{min_size:g}pt: {str(text)[:60]!r}")
        pt -= 0.25


def text_box(text, x: float, y: float, w: float, h: float, size: float = 9,
             min_size: float = MIN_PT, font: str = "body", color: str = "#000",
             align: str = "left", valign: str = "top", line_height: float = 1.2,
             icons: dict[str, str] | None = None, weight: str = "normal",
             wrap: bool = True, icon_color: str | None = None,
             fallback: float | None = None) -> Markup:
    """Return SVG for ``text`` wrapped in the box (x, y, w, h), shrunk to fit if needed.

    ``fallback`` names the one smaller size of a type scale: the text is set at ``size``, or
    at ``fallback`` if it does not fit, never between (``min_size`` is then not used)."""
    icons = icons or {}
    family = fonts.resolve_family(font)
    if weight == "bold":
        text = f"**{text}**" if "**" not in str(text) else text
    pt, lines, _, em = layout(text, w, h, size, min_size, family, icons, line_height, wrap,
                              fallback)
    face = fonts.face(family)
    block = ((len(lines) - 1) * line_height + face.ascent + face.descent) * em
    top = y + {"top": 0.0, "middle": (h - block) / 2, "bottom": h - block}[valign]
    # The size to a millionth: a run of words is drawn with the font's own advances, so the
    # size's rounding would add up along a line.
    out = [f'<text class="{RUN_CLASS}" font-family="{family}" font-size="{_fmt(em, 6)}" '
           f'fill="{escape(color)}">']
    icon_out = []
    space_em = face.width(" ")
    spaced = {(family, "normal"): True}     # faces whose space is the one measured
    for n, line in enumerate(lines):
        baseline = top + face.ascent * em + n * line_height * em
        line_w = (line[-1][0] + sum(p.width for p in line[-1][1])) if line else 0.0
        start = x + {"left": 0.0, "center": (w - line_w * em) / 2,
                     "right": w - line_w * em}[align]
        runs: list[tuple[float, Piece, list[str]]] = []   # words drawn in one call each
        joinable = False        # the last run ends a word, and nothing came after it
        for offset, word in line:
            cursor = start + offset * em
            for k, piece in enumerate(word):
                if piece.icon:
                    icon_out.append(icon_svg(icons[piece.icon], cursor + 0.025 * em,
                                             baseline - 0.86 * em, em, icon_color))
                    joinable = False
                elif piece.text:
                    last = runs[-1][1] if runs else None
                    face_of = (piece.family, piece.weight)
                    if face_of not in spaced:
                        spaced[face_of] = fonts.face(*face_of).width(" ") == space_em
                    if joinable and k == 0 and (last.family, last.weight) == face_of and \
                            spaced[face_of]:
                        runs[-1][2].append(" " + piece.text)   # its face's own space is the
                    else:                                      # one the layout measured
                        runs.append((cursor, piece, [piece.text]))
                    joinable = True
                cursor += piece.width * em
        for at, piece, texts in runs:
            attrs = f' font-family="{piece.family}"' if piece.family != family else ""
            attrs += ' font-weight="bold"' if piece.weight == "bold" else ""
            out.append(f'<tspan x="{_fmt(at)}" y="{_fmt(baseline)}"{attrs}>'
                       f'{escape("".join(texts))}</tspan>')
    out.append("</text>")
    return Markup("<g>" + "".join(out) + "".join(icon_out) + "</g>")


def icon_svg(fragment: str, x: float, y: float, size: float, color: str | None = None) -> Markup:
    """Return an icon (drawn in a 100 x 100 box) placed at (x, y) with the given size."""
    fill = f' fill="{escape(color)}"' if color else ""
    return Markup(f'<g transform="translate({_fmt(x)} {_fmt(y)}) scale({_fmt(size / 100)})"'
                  f'{fill}>{fragment}</g>')


def text_width(text: str, size: float, font: str = "body", weight: str = "normal") -> float:
    """Return the width in mm of a single line of plain text at ``size`` points."""
    family = fonts.resolve_family(font)
    return sum(p.width for p in _segments(str(text), family, weight)) * size * PT if text else 0.0
