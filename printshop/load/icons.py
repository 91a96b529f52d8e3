"""Icon sets: named SVG fragments drawn in a 100 x 100 box, checked to be self-contained.

A game's icons.yaml maps a name to an SVG fragment, to an icon of a set shipped with printshop
(``game-icons:anvil``), or to a list of such icons placed as layers. The shipped sets are
listed in printshop/art/sets.yaml with their licences; a game that uses one credits it.
"""

from __future__ import annotations

import difflib
import os
import re
import threading
import zipfile
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from xml.etree import ElementTree

from ..files.errors import PrintshopError, Problem
from .source import load_document

SVG_NS = "http://www.w3.org/2000/svg"
ALLOWED_TAGS = {"g", "path", "circle", "ellipse", "rect", "line", "polyline", "polygon", "text",
                "tspan", "defs", "linearGradient", "radialGradient", "stop", "clipPath"}
_NAME = re.compile(r"^[a-z0-9][a-z0-9-]*$")
_URL = re.compile(r"url\(\s*['\"]?\s*([^)'\"\s]*)")
# An icon of a shipped set: PREFIX:NAME.
REF = re.compile(r"([a-z0-9][a-z0-9-]*):([a-z0-9][a-z0-9-]*)")
# The class a set icon's group carries, so a drawing (and a game's icons) say which set it is.
SET_CLASS = "ps-set-"
ART_DIR = Path(__file__).resolve().parent.parent / "art"
LAYER_KEYS = ("icon", "x", "y", "size", "rotate", "flip", "color")


class IconError(Exception):
    """An icon name or reference that names nothing: says what was asked and what is near."""


@dataclass(frozen=True)
class IconSet:
    """A set of icons shipped with printshop, with what its licence asks of those who use it."""

    prefix: str
    name: str
    url: str
    licence: str
    licence_url: str
    licence_file: Path
    archive: Path
    box: float
    authors: tuple[str, ...]
    credit: str
    source: str

    def notice(self) -> str:
        """Return this set's paragraph of a NOTICE file."""
        return (f"{self.name} ({self.url})\n  {self.credit}.\n  Licence: {self.licence}, "
                f"{self.licence_url} (full text: {self.licence_file.name}).\n  Authors: "
                f"{', '.join(self.authors)}.\n  Source: {self.source}.\n")


@lru_cache(maxsize=1)
def icon_sets() -> dict[str, IconSet]:
    """Return the shipped icon sets by prefix (printshop/art/sets.yaml)."""
    doc = load_document(ART_DIR / "sets.yaml", "printshop/art/sets.yaml", ART_DIR)
    return {prefix: IconSet(prefix, e["name"], e["url"], e["licence"], e["licence_url"],
                            ART_DIR / e["licence_file"], ART_DIR / e["archive"], float(e["box"]),
                            tuple(e["authors"]), e["credit"], e["source"])
            for prefix, e in doc.data.items()}


_archives: dict[tuple[str, int], tuple[zipfile.ZipFile, frozenset]] = {}
_archive_lock = threading.Lock()


def _archive(s: IconSet) -> tuple[zipfile.ZipFile, frozenset]:
    """Open a set's archive once a process (its index only; icons are read as asked).

    Keyed by process: a forked worker shares its parent's open file and its position, so
    reading through the parent's handle in two processes at once would mix their reads."""
    key = (s.prefix, os.getpid())
    with _archive_lock:
        if key not in _archives:
            z = zipfile.ZipFile(s.archive)
            _archives[key] = (z, frozenset(z.namelist()))
        return _archives[key]


def set_names(prefix: str) -> frozenset:
    """Return every icon name of a shipped set."""
    return _archive(icon_sets()[prefix])[1]


@lru_cache(maxsize=4096)
def set_icon(ref: str) -> str:
    """Return the fragment (in a 100 x 100 box) for a shipped set's icon, PREFIX:NAME."""
    m = REF.fullmatch(ref)
    sets = icon_sets()
    if m is None or m.group(1) not in sets:
        raise IconError(f"'{ref}' names no shipped icon set; expected SET:NAME with SET one of "
                        f"{', '.join(sorted(sets))} (game-icons:anvil)")
    s = sets[m.group(1)]
    z, names = _archive(s)
    name = m.group(2)
    if name not in names:
        near = difflib.get_close_matches(name, names, n=3, cutoff=0.6)
        hint = f"; did you mean {', '.join(f'{s.prefix}:{n}' for n in near)}?" if near else ""
        raise IconError(f"no icon '{name}' in {s.name}{hint} (browse {s.url})")
    with _archive_lock:
        d = z.read(name).decode("ascii")
    if d.startswith("="):
        return set_icon(f"{s.prefix}:{d[1:]}")
    return (f'<g class="{SET_CLASS}{s.prefix}" transform="scale({100 / s.box!r})">'
            f'<path d="{d}"/></g>')


def _layer(entry, where: str) -> str:
    """Return one layer of a composed icon: a reference, or a mapping placing one."""
    if isinstance(entry, str):
        return set_icon(entry)
    if not isinstance(entry, dict) or not isinstance(entry.get("icon"), str):
        raise IconError(f"{where}: expected SET:NAME or a mapping with 'icon' (and x, y, size, "
                        "rotate, flip, color)")
    unknown = sorted(set(entry) - set(LAYER_KEYS))
    if unknown:
        raise IconError(f"{where}: unknown key '{unknown[0]}'; expected {', '.join(LAYER_KEYS)}")
    nums = {}
    for key, default in (("x", 0.0), ("y", 0.0), ("size", 100.0), ("rotate", 0.0)):
        v = entry.get(key, default)
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not -1000 <= v <= 1000:
            raise IconError(f"{where}.{key}: expected a number from -1000 to 1000, got {v!r}")
        nums[key] = float(v)
    if nums["size"] <= 0:
        raise IconError(f"{where}.size: expected a size above 0, got {nums['size']:g}")
    flip = entry.get("flip", False)
    if flip not in (False, True, "x", "y"):
        raise IconError(f"{where}.flip: expected true, 'x' or 'y', got {flip!r}")
    color = entry.get("color")
    if color is not None and not (isinstance(color, str) and re.fullmatch(
            r"#[0-9a-fA-F]{3}|#[0-9a-fA-F]{6}|[a-z]+", color)):
        raise IconError(f"{where}.color: expected a colour such as '#8b1e1e', got {color!r}")
    k = nums["size"] / 100
    t = f"translate({nums['x']:g} {nums['y']:g})"
    if nums["rotate"]:
        t += f" rotate({nums['rotate']:g} {50 * k:g} {50 * k:g})"
    if flip in (True, "x"):
        t += f" translate({100 * k:g} 0) scale(-1 1)"
    elif flip == "y":
        t += f" translate(0 {100 * k:g}) scale(1 -1)"
    t += f" scale({k:g})"
    fill = f' fill="{color}"' if color else ""
    return f'<g transform="{t}"{fill}>{set_icon(entry["icon"])}</g>'


def resolve(entry) -> str:
    """Return the fragment an icons.yaml entry stands for (fragment, reference or layers)."""
    if isinstance(entry, list):
        if not 1 <= len(entry) <= 8:
            raise IconError("a composed icon has from 1 to 8 layers")
        return "".join(_layer(e, f"[{i}]") for i, e in enumerate(entry))
    if isinstance(entry, str) and REF.fullmatch(entry.strip()):
        return set_icon(entry.strip())
    return entry


def sets_used(fragments) -> list[IconSet]:
    """Return the shipped sets whose icons appear in these fragments (or references)."""
    sets = icon_sets()
    found = set()
    for f in fragments:
        if not isinstance(f, str):
            continue
        for prefix in sets:
            if f'"{SET_CLASS}{prefix}"' in f or f.startswith(prefix + ":"):
                found.add(prefix)
    return [sets[p] for p in sorted(found)]


def fragment_problem(fragment: str) -> str | None:
    """Return why an SVG fragment is unsafe or malformed, or None if it is fine."""
    try:
        root = ElementTree.fromstring(f'<g xmlns="{SVG_NS}">{fragment}</g>')
    except ElementTree.ParseError as exc:
        return f"not well-formed SVG: {exc}"
    for el in root.iter():
        tag = el.tag.split("}")[-1]
        if tag not in ALLOWED_TAGS:
            return f"element <{tag}> is not allowed in an icon (allowed: shapes, paths, text)"
        for name, value in el.attrib.items():
            local = name.split("}")[-1]
            if local == "href" or local.startswith("on"):
                return f"attribute '{local}' is not allowed in an icon"
            for url in _URL.findall(value):
                if not url.startswith("#"):
                    return f"external reference '{url}' is not allowed in an icon"
    return None


def load_icons(path: Path, label: str, root: Path | None = None) -> dict[str, str]:
    """Load an icon file (inside ``root``): a mapping of icon name to an SVG fragment."""
    doc = load_document(path, label, root)
    if not isinstance(doc.data, dict):
        raise PrintshopError(Problem(label, "expected a mapping of icon name to SVG fragment"))
    problems, icons = [], {}
    for name, fragment in doc.data.items():
        line = doc.line((name,))
        if not isinstance(name, str) or not _NAME.fullmatch(name):
            problems.append(Problem(label, "an icon name uses lowercase letters, digits and '-'",
                                    (name,), line))
            continue
        if not isinstance(fragment, (str, list)):
            problems.append(Problem(label, "expected an SVG fragment, SET:NAME (game-icons:"
                                    "anvil) or a list of layers", (name,), line))
            continue
        try:
            fragment = resolve(fragment)
        except IconError as exc:
            problems.append(Problem(label, str(exc), (name,), line))
            continue
        why = fragment_problem(fragment)
        if why:
            problems.append(Problem(label, why, (name,), line))
            continue
        icons[name] = fragment.strip()
    if problems:
        raise PrintshopError(problems)
    return icons


SHARED_ICON_FILE = Path(__file__).resolve().parent.parent / "templates" / "icons.yaml"


def shared_icons() -> dict[str, str]:
    """Return the icon set every game can use (suits and other common marks)."""
    return load_icons(SHARED_ICON_FILE, "printshop/templates/icons.yaml")


def _strings(value, depth: int = 0):
    """Yield the strings inside a piece of data (lists and mappings followed 20 deep)."""
    if isinstance(value, str):
        yield value
    elif depth < 20 and isinstance(value, dict):
        for v in value.values():
            yield from _strings(v, depth + 1)
    elif depth < 20 and isinstance(value, (list, tuple)):
        for v in value:
            yield from _strings(v, depth + 1)


def credits(game) -> list[IconSet]:
    """Return the shipped icon sets a game draws: named in its icons or in its data."""
    found = list(game.icons.values())
    for part in game.parts:
        found.extend(s for s in _strings(part.data) if REF.fullmatch(s))
    return sets_used(found)


def notice(game) -> dict[str, bytes]:
    """Return NOTICE.txt and the licence files to write beside a game's PDFs, if it uses art."""
    used = credits(game)
    if not used:
        return {}
    text = (f"{game.manifest.name}: art from elsewhere in these files\n\n"
            + "\n".join(s.notice() for s in used))
    out = {"NOTICE.txt": text.encode("utf-8")}
    out.update({s.licence_file.name: s.licence_file.read_bytes() for s in used})
    return out
