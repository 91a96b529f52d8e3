"""Lines broken as a typesetter breaks them, and the size text is set at: the Unicode
line-breaking rules (ICU) give the places a line may end, a few typesetting rules take some
away (an icon expression or a number and its unit stay together) or choose among them (no
lone last word, balanced centred lines, hanging bullets, hyphens where the game asks); layout()
finds the largest size from the one asked down that fits the box."""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache

from ..load import fonts
from .shaping import Piece, TextError, bidi_levels, segments, shape

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
    levels = bidi_levels(plain)
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
            pieces.extend(segments(plain[k:end], family, weights[k], lv, extra))
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
            first = shape(head + "-", piece.family, piece.weight, False)
            if first.width <= room:
                rest = shape(tail, piece.family, piece.weight, False)
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


