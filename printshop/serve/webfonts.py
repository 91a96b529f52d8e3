"""The page's fonts: the shipped fonts cut down to the characters a project's games use.

The cards are drawn in the fonts the PDF embeds (2.3 MB whole, Symbola alone 3.1 MB). The
page declares each font twice under the same family: the whole file, and after it a subset
with a ``unicode-range`` naming exactly its characters. The browser takes a character from
the last face whose range holds it, so it fetches only the small subsets, and the whole font
only for a character the subset lacks (typed since the subset was made): nothing is ever
missing.

A subset holds every character of the games' data and template files (both cases of each
letter, since a template may change case) and a base of Latin-1 and typographic punctuation.
Cutting a font takes 1-3 s, too slow for a request: the subsets are made once, by a separate
process (so the studio's drawing keeps its interpreter), and kept in the per-user cache folder
(printshop.load.cache) under a name holding the font and a hash of the characters; until they are
ready, the page declares the whole fonts only. A subset keeps its font's format
(TrueType/OpenType), which the studio's responses send compressed (gzip): WOFF2 would need
brotli, one more compiled dependency, for fonts that gzip already brings to about 127 KB.

The fonts' licences allow this: DejaVu (Bitstream Vera terms: modified copies keep no
"Bitstream" or "Vera" name), Linux Libertine (GPL with the font exception, or the OFL) and
Symbola (free for any use); a subset keeps the font's name table, its copyright and licence.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

from ..load.cache import cache_folder, keep, read_kept, trim
from ..load.fonts import FAMILIES, FONT_DIR
from .files import NotServed, read_project_file

# Always in a subset: printable ASCII, Latin-1, and the punctuation and signs the text engine
# and templates commonly print (dashes, typographic quotes, bullet, ellipsis, minus, times...).
BASE_CHARS = ("".join(chr(c) for c in range(0x20, 0x7F)) +
              "".join(chr(c) for c in range(0xA0, 0x100)) +
              "\u2010\u2011\u2013\u2014\u2018\u2019\u201a\u201c\u201d\u201e\u2022\u2026"
              "\u2039\u203a\u20ac\u2122\u2212\u2190\u2191\u2192\u2193\u2713\u2717\u2605\u2606"
              "\u2660\u2663\u2665\u2666\u00d7\u00f7")
TEXT_SUFFIXES = {".yaml", ".yml", ".csv", ".tsv", ".json", ".j2", ".svg", ".md", ".txt", ".py"}
MAX_TEXT_FILES = 2000             # files read per project for its characters
MAX_TEXT_BYTES = 4 * 1024 * 1024  # per file
MAX_KEPT = 60                     # subsets kept in the cache folder
FONT_FILES = sorted({name for weights in FAMILIES.values() for name in weights.values()})
# Cut first what most cards use: the body font, then titles, then the symbols.
ORDER = sorted(FONT_FILES, key=lambda n: (not n.startswith("DejaVu"), "Symbola" in n, n))
# (folder, key) of the subsets being made, for every studio of this process: made once.
_MAKING: set[tuple[str, str]] = set()
_MAKING_LOCK = threading.Lock()


def text_chars(texts) -> set[str]:
    """Return the characters of ``texts`` with both cases of every letter."""
    chars: set[str] = set()
    for text in texts:
        chars.update(text)
    for c in list(chars):
        chars.update(c.upper() + c.lower())
    return chars


def folder_texts(folder: Path):
    """Yield the text of the data and template files under ``folder`` (read through the
    guarded reader; a file it refuses is skipped)."""
    seen = 0
    for here, dirs, names in os.walk(folder, followlinks=False):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d != "__pycache__")
        for name in sorted(names):
            if Path(name).suffix.lower() not in TEXT_SUFFIXES:
                continue
            seen += 1
            if seen > MAX_TEXT_FILES:
                return
            rel = (Path(here) / name).relative_to(folder).as_posix()
            try:
                yield read_project_file(folder, rel, MAX_TEXT_BYTES).decode("utf-8", "replace")
            except NotServed:
                continue


def game_chars(game) -> set[str]:
    """Return the characters a game's cards can print: those of its data and templates."""
    folders = [Path(game.data_dir)] if game.data_dir else []
    folders += [Path(d) for d in game.template_dirs]
    return text_chars(t for folder in folders if folder.is_dir()
                      for t in folder_texts(folder))


def charset(chars: set[str]) -> str:
    """Return a set of characters as a sorted string (control characters left out)."""
    return "".join(sorted(c for c in chars | set(BASE_CHARS)
                          if ord(c) >= 0x20 and not 0xD800 <= ord(c) < 0xE000))


def key_of(chars: str) -> str:
    return hashlib.sha256(chars.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def unicode_range(codepoints) -> str:
    """Return a CSS unicode-range covering ``codepoints`` (runs written as U+A-B)."""
    runs, points = [], sorted(set(codepoints))
    for cp in points:
        if runs and cp == runs[-1][1] + 1:
            runs[-1][1] = cp
        else:
            runs.append([cp, cp])
    return ",".join(f"U+{a:X}" if a == b else f"U+{a:X}-{b:X}" for a, b in runs)


def subset_font(source: Path, chars: str) -> bytes:
    """Return the font at ``source`` cut down to ``chars`` (its name table kept whole)."""
    import io

    from fontTools import subset

    options = subset.Options()
    options.name_IDs = ["*"]          # copyright, licence and names stay with the font
    options.name_languages = ["*"]
    options.layout_features = ["*"]   # kerning and ligatures as the browser draws them
    options.notdef_outline = True
    options.hinting = False
    font = subset.load_font(str(source), options)
    try:
        subsetter = subset.Subsetter(options)
        subsetter.populate(unicodes=[ord(c) for c in chars])
        subsetter.subset(font)
        out = io.BytesIO()
        subset.save_font(font, out, options)
    finally:
        font.close()
    return out.getvalue()


class WebFonts:
    """The subsets for the characters a studio's games use: which are ready, their bytes,
    and the @font-face rules that declare them over the whole fonts."""

    def __init__(self, store: Path | None = None):
        self.store = store if store is not None else cache_folder()
        self.ready: dict[str, dict[str, str]] = {}   # key -> font file -> subset file name
        self.latest: dict[str, str] = {}   # font file -> its newest subset made or found
        self._lock = threading.Lock()
        self._scratch: tempfile.TemporaryDirectory | None = None
        self._covers: dict[str, str] = {}

    def name(self, font: str, key: str) -> str:
        stem, suffix = os.path.splitext(font)
        return f"font-{stem}-{key}{suffix}"

    def media(self, name: str) -> str:
        return "font/otf" if Path(name).suffix == ".otf" else "font/ttf"

    def folder(self) -> Path:
        """Return where subsets are kept: the cache folder, else a private temporary one."""
        if self.store is not None:
            return self.store
        if self._scratch is None:
            self._scratch = tempfile.TemporaryDirectory(prefix="printshop-fonts-")
        return Path(self._scratch.name)

    def subsets(self, chars: str) -> dict[str, str]:
        """Return the subsets ready for ``chars`` (font file -> subset name); start making
        the missing ones in the background."""
        key = key_of(chars)
        with self._lock:
            done = self.ready.setdefault(key, {})
            missing = [f for f in ORDER if f not in done]
            for font in list(missing):
                name = self.name(font, key)
                if (self.folder() / name).is_file():
                    done[font] = self.latest[font] = name
                    missing.remove(font)
            job = (str(self.folder()), key)
            with _MAKING_LOCK:
                start = bool(missing) and job not in _MAKING
                if start:
                    _MAKING.add(job)
            if start:
                threading.Thread(target=self._make, args=(chars, key, missing),
                                 daemon=True, name="printshop-webfonts").start()
            return dict(done)

    def _make(self, chars: str, key: str, fonts: list[str]) -> None:
        """Cut ``fonts`` in a child process, one at a time, each ready as soon as it is."""
        folder = self.folder()
        try:
            for font in fonts:
                name = self.name(font, key)
                command = [sys.executable, "-m", "printshop.serve.webfonts", str(FONT_DIR / font),
                           str(folder / name)]
                done = subprocess.run(command, input=chars.encode("utf-8", "surrogatepass"),
                                      capture_output=True, timeout=120,
                                      cwd=Path(__file__).resolve().parents[2])
                if done.returncode != 0 or not (folder / name).is_file():
                    return            # the whole fonts stay in use: nothing is missing
                with self._lock:
                    self.ready.setdefault(key, {})[font] = self.latest[font] = name
            trim(folder, "font-", "", MAX_KEPT)
        except (OSError, subprocess.SubprocessError):
            return
        finally:
            with _MAKING_LOCK:
                _MAKING.discard((str(folder), key))

    def wait(self, chars: str, timeout: float = 120) -> dict[str, str]:
        """Return the subsets for ``chars`` once all are made (tests and benchmarks)."""
        import time

        deadline = time.monotonic() + timeout
        while True:
            ready = self.subsets(chars)
            if len(ready) == len(ORDER) or time.monotonic() > deadline:
                return ready
            time.sleep(0.05)

    def body(self, name: str) -> bytes | None:
        """Return a subset's bytes, if ``name`` is one this studio made."""
        with self._lock:
            known = any(name in done.values() for done in self.ready.values()) or \
                name in self.latest.values()
        if not known:
            return None
        return read_kept(self.folder(), name, 16 * 1024 * 1024)

    def cover(self, name: str) -> str:
        """Return the unicode-range of a subset: the characters its cmap maps (a character
        the font lacks stays outside, and goes on to the next family as before)."""
        with self._lock:
            known = self._covers.get(name)
        if known is None:
            from fontTools.ttLib import TTFont

            with TTFont(str(self.folder() / name), lazy=True) as font:
                known = unicode_range(font.getBestCmap() or {})
            with self._lock:
                self._covers[name] = known
        return known

    def faces(self, chars: str | None) -> str:
        """Return the @font-face rules: each whole font, then its subset when it is ready
        (while the subset for new characters is made, the last one: the whole font behind it
        has the new characters)."""
        ready = {**self.latest, **(self.subsets(chars) if chars else {})}
        rules = []
        for family, weights in FAMILIES.items():
            for weight, file in weights.items():
                style = "italic" if weight == "italic" else "normal"
                bold = "bold" if weight == "bold" else "normal"
                common = f'font-family:"{family}";font-weight:{bold};font-style:{style}'
                rules.append(f"@font-face{{{common};src:url(/fonts/{file})}}")
                if file in ready:
                    try:
                        cover = self.cover(ready[file])
                    except Exception:  # noqa: BLE001 - a damaged cache file: whole font only
                        continue
                    rules.append(f"@font-face{{{common};src:url(/fonts/{ready[file]});"
                                 f"unicode-range:{cover}}}")
        return "".join(rules)


def main() -> int:
    """Cut one font: ``python -m printshop.serve.webfonts SOURCE DEST``, the
    characters on standard input; the file appears whole or not at all."""
    source, dest = Path(sys.argv[1]), Path(sys.argv[2])
    try:
        os.nice(10)                   # behind the studio's drawing and the browser
    except OSError:
        pass
    chars = sys.stdin.buffer.read().decode("utf-8", "surrogatepass")
    data = subset_font(source, chars)
    return 0 if keep(dest.parent, dest.name, data) else 1


if __name__ == "__main__":
    sys.exit(main())
