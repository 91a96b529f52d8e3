"""Lay out text in SVG as a typesetter sets it: shaped, kerned, broken well, shrunk to fit.

SVG has no wrapping, so lines are broken here: the Unicode line-breaking rules (ICU) give the
places a line may end, a few typesetting rules take some away (an icon expression or a number
and its unit stay together) or choose among them (no lone last word, balanced centred lines,
hanging bullets, hyphens where the game asks). Every word is shaped by HarfBuzz with its
font's own kerning, ligatures and marks; right-to-left text is ordered by the Unicode
bidirectional algorithm. Each run carries its glyphs and their positions (``data-glyphs``) so
that render.py draws exactly what was measured, and its real text, so the PDF's text layer reads
as printed (spaces, order, copy and search).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache

from markupsafe import Markup, escape

from ..load import fonts

PT = 25.4 / 72  # millimetres per point
MIN_PT = 6.0
ICON_EM = 1.05
_TOKEN = re.compile(r"(\*\*|:[a-z0-9][a-z0-9-]*:|\n)")
# An icon stands in the text given to the line breaker as a letter would (a private-use
# character breaks as a letter does: never inside "2:food:", as at a space).
ICON_CHAR = "\ue000"
# Operators of an icon expression: never a line's first or last word ("■ +" / "⬢").
OPERATORS = frozenset("+-−–=×÷→←↔⇒/&<>≤≥")
UNIT = re.compile(r"(?:[A-Z]{1,4}|mm|cm|pt|px|in|kg|km|g|m|s|h|min|%)(?![^\W_])")
LONG_WORD = re.compile(r"[^\W\d_]{3,}")
BULLETS = ("• ", "‣ ", "◦ ", "– ", "- ")
# The narrowest line the one-word-last-line rule tries, as a share of the box.
REBALANCE_STEPS = (0.97, 0.94, 0.91, 0.88, 0.85, 0.82, 0.79)


# Marks the <text> elements laid out here: every run has its own x, y, family and weight (and
# its glyphs), so the PDF renderer draws each run in one call instead of letter by letter.
RUN_CLASS = "ps-runs"
GLYPHS_ATTR = "data-glyphs"


class TextError(Exception):
    """Text that cannot be set: it overflows its box or uses an unprintable character."""


@dataclass(frozen=True)
class Piece:
    """A shaped run of one face and direction, or an icon; widths in em.

    ``glyphs`` are (glyph id, character index in ``text``, x from the piece's start, y up)."""

    text: str
    family: str
    weight: str
    width: float
    icon: str | None = None
    glyphs: tuple = ()
    rtl: bool = False
    level: int = 0


@dataclass(frozen=True)
class Word:
    """What lies between two places a line may end: pieces, then the space after them."""

    pieces: tuple[Piece, ...]
    width: float
    space: float              # the trailing space's width in em (0: none)
    space_level: int = 0
    text: str = ""            # its plain text, to hyphenate


@dataclass(frozen=True)
class Line:
    """Words set on one line, from ``indent`` em (a bullet's hanging indent)."""

    words: tuple[Word, ...]
    indent: float = 0.0

    @property
    def width(self) -> float:
        """Return the line's width in em, its indent included, without a trailing space."""
        if not self.words:
            return self.indent
        return self.indent + sum(w.width + w.space for w in self.words[:-1]) + \
            self.words[-1].width


# Joiners, variation selectors and direction marks: drawn by no font, taking no room.
_INVISIBLE = frozenset("\u200b\u200c\u200d\u200e\u200f\u2060\ufe0e\ufe0f")
_RTL = re.compile("[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufefc\U00010800-\U00010fff]")


# Latin, Greek and Cyrillic are set without ligatures: cairo's PDF maps a ligature glyph back
# through the font's own code point for it ("ﬁ", or Libertine's private U+E049 for "Th"), so a
# reader would find "goldﬁsh" and "\ue049ieving", not the words. Scripts that need their
# ligatures (Arabic, Devanagari) keep every feature.
_NO_LIGATURES = {"liga": False, "clig": False}


@lru_cache(maxsize=65536)
def _shape(text: str, family: str, weight: str, rtl: bool) -> Piece:
    """Shape a run of one face with HarfBuzz (its kerning, ligatures, marks, joining)."""
    import uharfbuzz as hb

    font, upem = fonts.shaper(family, weight)
    buf = hb.Buffer()
    buf.add_str(text)
    buf.guess_segment_properties()
    buf.direction = "rtl" if rtl else "ltr"
    hb.shape(font, buf, _NO_LIGATURES if max(text) < "\u0590" else {})
    x, glyphs = 0, []
    for info, pos in zip(buf.glyph_infos, buf.glyph_positions):
        glyphs.append((info.codepoint, info.cluster, (x + pos.x_offset) / upem,
                       pos.y_offset / upem))
        x += pos.x_advance
    return Piece(text, family, weight, x / upem, glyphs=tuple(glyphs), rtl=rtl,
                 level=1 if rtl else 0)


def _family_of(ch: str, family: str, weight: str, extra: tuple[str, ...]) -> str | None:
    """Return the first face that draws ``ch``: the chosen one, the game's, then fallbacks."""
    if fonts.face(family, weight).covers(ch):
        return family
    return next((f for f in extra + fonts.FALLBACKS if fonts.face(f, weight).covers(ch)), None)


@lru_cache(maxsize=65536)
def _segments(word: str, family: str, weight: str, levels: tuple[int, ...] | None = None,
              extra: tuple[str, ...] = ()) -> tuple[Piece, ...]:
    """Split a word into runs by face and direction and shape each (per-glyph fallback)."""
    runs: list[list] = []
    for i, ch in enumerate(word):
        level = levels[i] if levels else 0
        if ch in _INVISIBLE or (runs and unicodedata.combining(ch)):
            fam = runs[-1][0] if runs else family
            level = runs[-1][2] if runs else level
        else:
            fam = _family_of(ch, family, weight, extra)
            if fam is None:
                raise TextError(f"no shipped font can draw {ch!r} (U+{ord(ch):04X})")
        if runs and runs[-1][0] == fam and runs[-1][2] == level:
            runs[-1][1] += ch
        else:
            runs.append([fam, ch, level])
    pieces = []
    for fam, text, level in runs:
        piece = _shape(text, fam, weight, level % 2 == 1)
        if level != piece.level:
            piece = Piece(piece.text, fam, weight, piece.width, glyphs=piece.glyphs,
                          rtl=piece.rtl, level=level)
        pieces.append(piece)
    return tuple(pieces)


def _bidi_levels(text: str) -> list[int] | None:
    """Return each character's embedding level by the Unicode bidi algorithm (None: all 0)."""
    if not _RTL.search(text):
        return None
    from bidi import algorithm as uba

    storage = uba.get_empty_storage()
    storage["base_level"] = uba.get_base_level(text)
    storage["base_dir"] = ("L", "R")[storage["base_level"]]
    uba.get_embedding_levels(text, storage, False, False)
    uba.explicit_embed_and_overrides(storage, False)
    uba.resolve_weak_types(storage, False)
    uba.resolve_neutral_types(storage, False)
    uba.resolve_implicit_levels(storage, False)
    chars = storage["chars"]
    if len(chars) != len(text):   # explicit embeddings removed: keep the paragraph's level
        return [storage["base_level"]] * len(text)
    return [c["level"] for c in chars]


_BREAKER = None


def break_units(text: str) -> list[str]:
    """Return ``text`` cut where the Unicode line-breaking rules (ICU) let a line end."""
    global _BREAKER
    if not text:
        return []
    if _BREAKER is None:
        from icu4py.breakers import LineBreaker
        from icu4py.locale import Locale

        _BREAKER = (LineBreaker, Locale("en"))
    return list(_BREAKER[0](text, _BREAKER[1]))


def _glued(units: list[str]) -> list[str]:
    """Join units a line must not end between: an icon expression, a number and its unit."""
    stripped = [u.rstrip() for u in units]
    keep = [True] * len(units)          # keep[i]: a line may end after unit i
    for i in range(len(units) - 1):
        a, b = stripped[i], stripped[i + 1]
        if not a or not b:
            continue
        if a in OPERATORS or b in OPERATORS or (b[0] in OPERATORS and b[1:2] in ("", ")")):
            keep[i] = False                                  # "■ +" / "⬢": never apart
        elif a[-1].isdigit() and (b[0] == ICON_CHAR or UNIT.match(b) or
                                  unicodedata.category(b[0]) in ("So", "Sm", "Sc")):
            keep[i] = False                                  # "3 AV", "2 :food:"
    depth, start = 0, None
    for i, a in enumerate(stripped):                         # "(■ + ⬢)": one unit
        if depth == 0 and "(" in a and ")" not in a[a.index("("):]:
            depth, start = 1, i
        elif depth and ")" in a:
            inner = "".join(units[start:i + 1])
            if not LONG_WORD.search(inner.replace(ICON_CHAR, "")):
                for k in range(start, i):
                    keep[k] = False
            depth = 0
    out, pending = [], ""
    for unit, may_end in zip(units, keep):
        pending += unit
        if may_end:
            out.append(pending)
            pending = ""
    if pending:
        out.append(pending)
    return out


def _paragraphs(text: str, icons: dict[str, str]):
    """Yield each paragraph of marked-up text as (plain text, weights, icon names by index)."""
    plain, weights, icon_at = [], [], {}
    weight = "normal"
    for token in _TOKEN.split(text):
        if not token:
            continue
        if token == "**":
            weight = "bold" if weight == "normal" else "normal"
        elif token == "\n":
            yield "".join(plain), weights, icon_at
            plain, weights, icon_at = [], [], {}
        elif token[0] == ":" and token[-1] == ":" and token[1:-1] in icons:
            icon_at[len(plain)] = token[1:-1]
            plain.append(ICON_CHAR)
            weights.append(weight)
        else:
            plain.extend(token)
            weights.extend([weight] * len(token))
    yield "".join(plain), weights, icon_at


def _words(plain: str, weights: list[str], icon_at: dict[int, str], family: str,
           extra: tuple[str, ...]) -> list[Word]:
    """Cut a paragraph into words at the places a line may end, each shaped."""
    levels = _bidi_levels(plain)
    words, at = [], 0
    for unit in _glued(break_units(plain)):
        body = unit.rstrip(" \t")
        n = len(body)
        pieces: list[Piece] = []
        k = at
        while k < at + n:
            if k in icon_at:
                pieces.append(Piece("", family, weights[k], ICON_EM, icon=icon_at[k],
                                    level=levels[k] if levels else 0))
                k += 1
                continue
            end = k + 1
            while end < at + n and end not in icon_at and weights[end] == weights[k]:
                end += 1
            lv = tuple(levels[k:end]) if levels else None
            pieces.extend(_segments(plain[k:end], family, weights[k], lv, extra))
            k = end
        space = 0.0
        if len(unit) > n:
            space = fonts.face(family, weights[at + n]).width(" ") * (len(unit) - n)
        words.append(Word(tuple(pieces), sum(p.width for p in pieces), space,
                          levels[at + n] if levels and len(unit) > n else
                          (levels[at] if levels and n else 0), body))
        at += len(unit)
    return words


def _fill(words: list[Word], width: float, indent: float, hyphenate=None) -> list[Line]:
    """Break words greedily into lines no wider than ``width`` em (hyphenating if asked)."""
    lines, line, used = [], [], 0.0
    todo = list(words)
    i = 0
    while i < len(todo):
        word = todo[i]
        room = width - (indent if lines else 0.0)
        extra = line[-1].space if line else 0.0
        if line and used + extra + word.width > room + 1e-9:
            split = hyphenate(word, room - used - extra) if hyphenate else None
            if split:
                todo[i:i + 1] = split
                line.append(split[0])
                i += 1
            lines.append(Line(tuple(line), indent if lines else 0.0))
            line, used = [], 0.0
            continue
        line.append(word)
        used += extra + word.width
        i += 1
    lines.append(Line(tuple(line), indent if lines else 0.0))
    return lines


def _indent(words: list[Word], plain: str) -> float:
    """Return a bullet paragraph's hanging indent in em (0 for other paragraphs)."""
    if words and plain.startswith(BULLETS) and len(words) > 1:
        return words[0].width + words[0].space
    return 0.0


def _set_paragraph(words: list[Word], width: float, indent: float, align: str,
                   hyphenate) -> list[Line]:
    """Break one paragraph: greedy, then balanced if centred, then no lone last word."""
    lines = _fill(words, width, indent, hyphenate)
    if len(lines) < 2 or any(w.width > width for w in words):
        return lines
    if align == "center":
        lo, hi = max(w.width for w in words), width
        for _ in range(12):                 # the narrowest width keeping the number of lines
            mid = (lo + hi) / 2
            if len(_fill(words, mid, indent)) <= len(lines):
                hi = mid
            else:
                lo = mid
        balanced = _fill(words, hi + 1e-6, indent)
        if len(balanced) == len(lines):
            lines = balanced
    if len(lines) >= 3 and len(lines[-1].words) == 1 and lines[-1].words[0].text and \
            not _is_cjk(lines[-1].words[0].text):
        lines = _no_lone_last_word(words, lines, width, indent)
    return lines


def _no_lone_last_word(words: list[Word], lines: list[Line], width: float,
                       indent: float) -> list[Line]:
    """Give a paragraph's last line a second word: the one before it, brought down if the
    line then fits, else a narrower measure that keeps the number of lines."""
    before, last = lines[-2], lines[-1]
    if len(before.words) >= 2 and before.words[-1].space:   # not half of a hyphenated word
        moved = Line((before.words[-1],) + last.words, last.indent)
        if moved.width <= width + 1e-9:
            return lines[:-2] + [Line(before.words[:-1], before.indent), moved]
    for share in REBALANCE_STEPS:
        tried = _fill(words, width * share, indent)
        if len(tried) == len(lines) and len(tried[-1].words) >= 2:
            return tried
        if len(tried) > len(lines):
            break
    return lines


def _is_cjk(text: str) -> bool:
    return any("\u3000" <= c <= "\u9fff" or "\uf900" <= c <= "\ufaff" for c in text)


def _hyphenator(lang: str | None, family: str):
    """Return a function splitting a word with a hyphen to fit a room (em), for ``lang``."""
    if not lang:
        return None
    hyph = _pyphen(lang)

    def split(word: Word, room: float):
        if len(word.pieces) != 1 or word.pieces[0].icon or len(word.text) < 6 or \
                not word.text.isalpha():
            return None
        piece = word.pieces[0]
        for head, tail in hyph.iterate(word.text):
            if len(head) < 3 or len(tail) < 3:
                continue
            first = _shape(head + "-", piece.family, piece.weight, False)
            if first.width <= room:
                rest = _shape(tail, piece.family, piece.weight, False)
                return [Word((first,), first.width, 0.0, 0, head + "-"),
                        Word((rest,), rest.width, word.space, word.space_level, tail)]
        return None
    return split


@lru_cache(maxsize=16)
def _pyphen(lang: str):
    import pyphen

    if not pyphen.language_fallback(lang):
        raise TextError(f"no hyphenation patterns for the language {lang!r}")
    return pyphen.Pyphen(lang=lang)


def _fmt(v: float, places: int = 3) -> str:
    text = f"{v:.{places}f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


@lru_cache(maxsize=4096)
def _prepared(text: str, family: str, icon_names: frozenset, extra: tuple[str, ...]):
    """Return the paragraphs of a text as (words, hanging indent): shaped once per text."""
    icons = dict.fromkeys(icon_names, "")
    out = []
    for plain, weights, icon_at in _paragraphs(text, icons):
        words = _words(plain, weights, icon_at, family, extra)
        out.append((tuple(words), _indent(words, plain)))
    return tuple(out)


def layout(text: str, width: float, height: float, size: float, min_size: float,
           family: str, icons: dict[str, str], line_height: float = 1.2,
           wrap: bool = True, fallback: float | None = None, align: str = "left",
           hyphenate: str | None = None, extra: tuple[str, ...] = ()):
    """Return (size_pt, lines, widest_em, em) for the largest size from ``size`` down that fits.

    With ``fallback`` (a type scale's one smaller step) only ``size`` and ``fallback`` are
    tried, nothing between them."""
    if fallback is not None:
        if fallback < MIN_PT:
            raise TextError(f"fallback {fallback}pt is below the {MIN_PT}pt readability floor")
        try:
            return layout(text, width, height, size, size, family, icons, line_height, wrap,
                          None, align, hyphenate, extra)
        except TextError:
            return layout(text, width, height, fallback, fallback, family, icons, line_height,
                          wrap, None, align, hyphenate, extra)
    if min_size < MIN_PT:
        raise TextError(f"min_size {min_size}pt is below the {MIN_PT}pt readability floor")
    family = fonts.resolve_family(family)
    paragraphs = _prepared(str(text), family, frozenset(icons), tuple(extra))
    face = fonts.face(family)
    split = _hyphenator(hyphenate, family)
    pt = float(size)
    while True:
        em = pt * PT
        room = width / em if wrap else float("inf")
        lines = [line for words, indent in paragraphs
                 for line in _set_paragraph(list(words), room, indent, align, split)]
        widest = max(line.width for line in lines)
        needed = ((len(lines) - 1) * line_height + face.ascent + face.descent) * em
        if widest * em <= width + 1e-6 and needed <= height + 1e-6:
            return pt, lines, widest, em
        if pt - 0.25 < min_size - 1e-9:
            raise TextError(f"text does not fit in {width:g} x {height:g} mm even at "
                            f"{min_size:g}pt: {str(text)[:60]!r}")
        pt -= 0.25


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
    levels = _bidi_levels(str(text))
    return sum(p.width for p in _segments(str(text), family, weight,
                                          tuple(levels) if levels else None,
                                          tuple(game_fonts.values()))) * size * PT
