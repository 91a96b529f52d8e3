"""The fonts printshop ships: where they are, how cairo finds them, and their metrics."""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from struct import error as struct_error   # fontTools raises it on short tables
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from ..files.guard import private_dir

FONT_DIR = Path(__file__).resolve().parent.parent / "fonts"

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
    """Return the shipped family (or a game's checked font) for a family name or alias."""
    family = ALIASES.get(name, name)
    if family not in FAMILIES and not known_family(family):
        raise KeyError(name)
    return family


def files(family: str) -> dict[str, str]:
    """Return a family's font files by weight (a game's font: its checked copy, absolute)."""
    return FAMILIES.get(family) or GAME_FAMILIES[family]


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
    by_weight = files(resolve_family(family))
    return _face_file(by_weight.get(weight) or by_weight["normal"])


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


# A shaper per face file: HarfBuzz reads the font's own tables (kerning, ligatures, marks).
@lru_cache(maxsize=None)
def shaper(family: str, weight: str = "normal"):
    """Return (HarfBuzz font, units per em) for a face (a weight the family lacks: normal)."""
    import uharfbuzz as hb

    by_weight = files(resolve_family(family))
    path = FONT_DIR / (by_weight.get(weight) or by_weight["normal"])  # a game's: absolute
    face = hb.Face(hb.Blob.from_file_path(str(path)))
    return hb.Font(face), face.upem


@lru_cache(maxsize=None)
def space_glyph(family: str, weight: str = "normal") -> int:
    """Return the glyph id of the face's space (drawn between words so the text layer has it)."""
    font, _ = shaper(family, weight)
    return font.get_nominal_glyph(32) or 0


# A game's own fonts are copied, once checked, into a folder only this user can reach, under
# a family name made of their content's hash: the name the SVG carries finds the same bytes in
# any process (a worker, a later build drawing a cached page), and two games' fonts never clash.
GAME_FONT_PREFIX = "ps-"
GAME_FAMILIES: dict[str, dict[str, str]] = {}


def _game_font_dir() -> Path:
    return private_dir("printshop-game-fonts")


def game_font(root: Path, rel: str, label: str) -> str:
    """Check a game's font file and return the family name it is drawn and shaped under."""
    from io import BytesIO

    from fontTools.ttLib import TTFont, TTLibError

    from ..files.errors import PrintshopError, Problem
    from ..files.guard import read_project_file
    from ..files.limits import current

    data = read_project_file(root, rel, current().max_font_bytes, label, "max_font_bytes")
    family = GAME_FONT_PREFIX + hashlib.sha256(data).hexdigest()[:16]
    path = _game_font_dir() / (family + ".ttf")
    if family not in GAME_FAMILIES:
        if not path.is_file():
            try:
                font = TTFont(BytesIO(data))
                for table in ("cmap", "head", "hhea", "hmtx", "maxp", "name"):
                    font[table]   # parsed here: a broken table is refused, not met while drawing
                _rename(font, family)
                out = BytesIO()
                font.save(out)
            except (TTLibError, KeyError, AssertionError, ValueError, struct_error,
                    IndexError, TypeError) as exc:
                raise PrintshopError(Problem(label, f"not a font printshop can read ({exc})")) \
                    from None
            fd, tmp = tempfile.mkstemp(prefix=family, dir=path.parent)
            with os.fdopen(fd, "wb") as fh:
                fh.write(out.getvalue())
            os.replace(tmp, path)
        _add_game_family(family, path)
    return family


def _rename(font, family: str) -> None:
    """Give a font the family name printshop draws it under (fontconfig finds it by it)."""
    name = font["name"]
    name.names = [n for n in name.names if n.nameID not in (1, 2, 3, 4, 6, 16, 17, 21, 22)]
    for ident, value in ((1, family), (2, "Regular"), (3, family), (4, family), (6, family)):
        name.setName(value, ident, 3, 1, 0x409)
        name.setName(value, ident, 1, 0, 0)
    if "OS/2" in font:
        font["OS/2"].usWeightClass = 400
        font["OS/2"].fsSelection = (font["OS/2"].fsSelection & ~0b1100001) | 0b1000000


def _add_game_family(family: str, path: Path) -> None:
    """Make a checked copy of a game's font known to the shaper, the metrics and cairo."""
    GAME_FAMILIES[family] = {"normal": str(path)}
    _fontconfig_add(str(path))


def known_family(family: str) -> bool:
    """Say whether a family is shipped or a game's font checked in this or an earlier build."""
    if family in FAMILIES or family in GAME_FAMILIES:
        return True
    if family.startswith(GAME_FONT_PREFIX) and family[len(GAME_FONT_PREFIX):].isalnum():
        path = _game_font_dir() / (family + ".ttf")
        if path.is_file():
            _add_game_family(family, path)
            return True
    return False


@lru_cache(maxsize=None)
def _fontconfig_add(path: str) -> None:
    """Add a font file to fontconfig's current set, so cairo finds it by its family name."""
    import ctypes
    import ctypes.util

    use_shipped_fonts()
    lib = ctypes.CDLL(ctypes.util.find_library("fontconfig") or "libfontconfig.so.1")
    lib.FcConfigAppFontAddFile.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
    lib.FcConfigAppFontAddFile(None, path.encode())


