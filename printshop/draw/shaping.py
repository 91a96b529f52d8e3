"""Words shaped by HarfBuzz with their font's own kerning, ligatures and marks: a run of one
face and direction (Piece), the face that draws each character (the chosen one, the game's,
then fallbacks), and right-to-left text ordered by the Unicode bidirectional algorithm."""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache

from ..load import fonts


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


# Joiners, variation selectors and direction marks: drawn by no font, taking no room.
_INVISIBLE = frozenset("\u200b\u200c\u200d\u200e\u200f\u2060\ufe0e\ufe0f")
_RTL = re.compile("[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufefc\U00010800-\U00010fff]")


# Latin, Greek and Cyrillic are set without ligatures: cairo's PDF maps a ligature glyph back
# through the font's own code point for it ("ﬁ", or Libertine's private U+E049 for "Th"), so a
# reader would find "goldﬁsh" and "\ue049ieving", not the words. Scripts that need their
# ligatures (Arabic, Devanagari) keep every feature.
_NO_LIGATURES = {"liga": False, "clig": False}


@lru_cache(maxsize=65536)
def shape(text: str, family: str, weight: str, rtl: bool) -> Piece:
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
def segments(word: str, family: str, weight: str, levels: tuple[int, ...] | None = None,
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
        piece = shape(text, fam, weight, level % 2 == 1)
        if level != piece.level:
            piece = Piece(piece.text, fam, weight, piece.width, glyphs=piece.glyphs,
                          rtl=piece.rtl, level=level)
        pieces.append(piece)
    return tuple(pieces)


def bidi_levels(text: str) -> list[int] | None:
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


