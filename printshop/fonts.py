"""The fonts printshop ships: where they are, how cairo finds them, and their metrics."""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from .guard import private_dir

FONT_DIR = Path(__file__).resolve().parent / "fonts"

# Family name as written in SVG -> files by weight.
FAMILIES = {
    "DejaVu Sans Condensed": {"normal": "DejaVuSansCondensed.ttf",
                              "bold": "DejaVuSansCondensed-Bold.ttf",
                              "italic": "DejaVuSansCondensed-Oblique.ttf"},
    "Linux Libertine O": {"normal": "LinLibertine_R.otf", "bold": "LinLibertine_RB.otf"},
    "Symbola": {"normal": "Symbola.ttf"},
}
# Tried in order for a character the chosen family lacks: wide Unicode, then emoji and symbols.
FALLBACKS = ("DejaVu Sans Condensed", "Symbola")
ALIASES = {"body": "DejaVu Sans Condensed", "title": "Linux Libertine O",
           "sans": "DejaVu Sans Condensed", "serif": "Linux Libertine O"}

_CONF = """<?xml version="1.0"?>
<!DOCTYPE fontconfig SYSTEM "fonts.dtd">
<fontconfig>
  <dir>{fonts}</dir>
  <cachedir>{cache}</cachedir>
  <config><rescan><int>0</int></rescan></config>
</fontconfig>
"""


def use_shipped_fonts() -> None:
    """Point fontconfig at the shipped fonts only, so output never depends on the machine."""
    if os.environ.get("PRINTSHOP_FONTCONFIG_SET") == str(FONT_DIR):
        return
    # A folder only this user can reach: in the shared temporary directory another local user
    # could otherwise plant a link where the configuration is written.
    key = hashlib.sha1(str(FONT_DIR).encode()).hexdigest()[:12]
    base = private_dir(f"printshop-fontconfig-{key}")
    (base / "cache").mkdir(mode=0o700, exist_ok=True)
    conf = base / "fonts.conf"
    text = _CONF.format(fonts=FONT_DIR, cache=base / "cache")
    if conf.is_symlink() or not conf.is_file() or conf.read_text() != text:
        fd, tmp = tempfile.mkstemp(prefix="fonts.conf.", dir=base)
        with os.fdopen(fd, "w") as fh:
            fh.write(text)
        os.replace(tmp, conf)
    os.environ["FONTCONFIG_FILE"] = str(conf)
    os.environ["PRINTSHOP_FONTCONFIG_SET"] = str(FONT_DIR)


def resolve_family(name: str) -> str:
    """Return the shipped family for a family name or alias ('body', 'title')."""
    family = ALIASES.get(name, name)
    if family not in FAMILIES:
        raise KeyError(name)
    return family


@dataclass(frozen=True)
class FaceMetrics:
    """Advance widths and vertical metrics of one font face, in em units."""

    widths: dict[int, float]
    ascent: float
    descent: float

    def covers(self, char: str) -> bool:
        """Say whether this face has a glyph for the character."""
        return ord(char) in self.widths

    def width(self, text: str) -> float:
        """Return the advance of ``text`` in em, without kerning (as cairo's toy API draws)."""
        w = self.widths
        return sum(w.get(ord(c), 0.5) for c in text)


METRICS_DIR = FONT_DIR / "metrics"


def read_metrics(file: str) -> FaceMetrics:
    """Read a face's metrics from the font file itself (slow: fontTools parses the font)."""
    from fontTools.ttLib import TTFont

    font = TTFont(FONT_DIR / file, lazy=True)
    upem = font["head"].unitsPerEm
    hmtx = font["hmtx"].metrics
    widths = {code: hmtx[glyph][0] / upem for code, glyph in font.getBestCmap().items()}
    hhea = font["hhea"]
    return FaceMetrics(widths, hhea.ascent / upem, -hhea.descent / upem)


def metrics_file(file: str) -> Path:
    """Return where the precomputed metrics of a font file are shipped."""
    return METRICS_DIR / (Path(file).stem + ".json")


def write_metrics(file: str) -> None:
    """Precompute a face's metrics into printshop/fonts/metrics (run when fonts change)."""
    m = read_metrics(file)
    METRICS_DIR.mkdir(exist_ok=True)
    # Widths are grouped by value: fonts reuse a few hundred advances for thousands of glyphs.
    groups: dict[str, list[int]] = {}
    for code, width in sorted(m.widths.items()):
        groups.setdefault(repr(width), []).append(code)
    data = {"ascent": m.ascent, "descent": m.descent, "widths": groups}
    metrics_file(file).write_text(json.dumps(data, sort_keys=True, separators=(",", ":")))


@lru_cache(maxsize=None)
def face(family: str, weight: str = "normal") -> FaceMetrics:
    """Return the metrics of a shipped face (a weight the family lacks: its normal face)."""
    files = FAMILIES[resolve_family(family)]
    return _face_file(files.get(weight) or files["normal"])


@lru_cache(maxsize=None)
def _face_file(file: str) -> FaceMetrics:
    """Return a font file's metrics, from its precomputed file: read once per process, however
    its face is asked for (face("x") and face("x", "normal"), Symbola bold and normal)."""
    path = metrics_file(file)
    if not path.is_file():
        return read_metrics(file)
    data = json.loads(path.read_text())
    widths = {code: float(width) for width, codes in data["widths"].items() for code in codes}
    return FaceMetrics(widths, data["ascent"], data["descent"])
