"""Load a game once per content: a cache of loaded, schema-checked games and of passed rules.

Loading a game parses its YAML keeping every key's line, checks the manifest (printshop.load.strict)
and every card against its fields; running its rules may draw maps. All of it is a function of the game's files, printshop's own code and the
limits, so a game whose files hash the same as last time is read back from a JSON file instead:

- The key hashes printshop's code (cache.code_fingerprint), the Python and PyYAML in use, the limits, the game's id and folders as messages name them, and the name and bytes of
  every file under its data and template folders, each read through guard.read_project_file.
  A folder holding a symbolic link, a FIFO, a device or a file over max_file_bytes is never
  cached (what such a file does depends on more than its folder), nor is a game whose folder
  leads out of the project.
- Only successes are kept: a game that fails to load, or whose rules fail, is loaded and checked
  afresh every time, so every message keeps its file and line. A game read back is the same
  game: its cards, data and line numbers as loaded; its manifest is checked again from the same
  parsed data when something first needs more than its id, kind and name.
- The files live in a folder only this user can reach (guard.private_dir, beside Jinja's
  compiled templates), never in the project or the output folder, so neither a game folder
  nor anything planted in an output folder can vouch for a game; each is JSON (no code), named
  by its key, and written whole or not at all (a temporary file renamed into place).
  ``PRINTSHOP_CACHE_DIR`` names another folder, or ``off`` turns the cache off.
- The files are hashed again after a load or a rules run; a game edited meanwhile is not
  stored under a key it no longer matches.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from functools import lru_cache
from pathlib import Path

from ..files import guard, limits
from ..files.errors import PrintshopError
from ..files.project import SHARED_TEMPLATES, GameFolder
from .cache import cache_folder, code_fingerprint, keep, manifest_text, read_kept, trim
from .models import Card, Game, Later, Part

VERSION = "printshop-load-1"
ENTRY_BYTES = 512 * 1024 * 1024
KEEP = 200   # entries kept; the oldest beyond are removed when a new one is written
@lru_cache(maxsize=1)
def _environment() -> str:
    """Return what besides printshop's code shapes a load: Python and the parsing libraries."""
    from importlib.util import find_spec

    out = [sys.version, str(sys.get_int_max_str_digits())]
    for name in ("yaml",):
        try:
            spec = find_spec(name)
            info = os.stat(spec.origin)
            out.append(f"{name}:{spec.origin}:{info.st_size}:{info.st_mtime_ns}")
        except (ImportError, AttributeError, TypeError, ValueError, OSError):
            out.append(f"{name}:?")
    return "\n".join(out)


def _tree(h, t, project: Path, top: Path, base: str, tbase: str, cap: int) -> bool:
    """Hash the files under ``top`` by name and bytes into ``h`` (and, unless ``t`` is None,
    into ``t`` as cache._hash_files does: relative name, NUL, bytes, no __pycache__); return
    False when one makes the folder uncacheable (a link, a special file, a file over ``cap``
    or one that cannot be read)."""
    try:
        entries = sorted(os.scandir(top), key=lambda e: e.name)
    except OSError:
        return False
    for entry in entries:
        rel, trel = f"{base}/{entry.name}", f"{tbase}{entry.name}"
        if entry.is_symlink():
            return False
        if entry.is_dir(follow_symlinks=False):
            h.update(b"d" + os.fsencode(rel) + b"\0")
            if not _tree(h, None if entry.name == "__pycache__" else t, project,
                         Path(entry.path), rel, trel + "/", cap):
                return False
        elif entry.is_file(follow_symlinks=False):
            try:
                if entry.stat(follow_symlinks=False).st_size > cap:
                    return False
                data = guard.read_project_file(project, entry.path, cap)
            except (OSError, PrintshopError):
                return False
            h.update(b"f" + os.fsencode(rel) + b"\0" + str(len(data)).encode() + b"\0")
            h.update(data)
            if t is not None:
                t.update(trel.encode("utf-8", "surrogateescape") + b"\0")
                t.update(data)
        else:
            return False
    return True


def game_key(folder: GameFolder) -> tuple[str, str] | None:
    """Return the content key of a game folder and the hash of its template folder (as
    cache._hash_files gives it), or None when the game must not be cached."""
    for sub in (folder.data_dir, folder.template_dir):
        if os.path.lexists(sub) and not guard.inside(folder.root, sub):
            return None   # load_game says where the folder leads
    bounds = limits.current()
    h, t = hashlib.sha256(), hashlib.sha256()
    for piece in (VERSION, code_fingerprint(), _environment(), repr(bounds), folder.id,
                  folder.label(folder.manifest), folder.label(folder.data_dir),
                  folder.label(folder.template_dir)):
        h.update(piece.encode("utf-8", "surrogateescape") + b"\0")
    for sub, name, tree in ((folder.data_dir, "data", None),
                            (folder.template_dir, "templates", t)):
        if not os.path.lexists(sub):
            h.update(f"no {name}\0".encode())
        elif not _tree(h, tree, folder.root, sub, name, "", bounds.max_file_bytes):
            return None
    return h.hexdigest(), t.hexdigest()


# What goes in an entry --------------------------------------------------------------------------

_PAIRS = "\u0000"   # {"\0": [[key, value], ...]}: a mapping with a key JSON has not


class _Inexact(ValueError):
    """A value JSON would not give back unchanged."""


def _pack(value):
    """Return ``value`` as JSON holds it unchanged; raise _Inexact for what it cannot hold.

    YAML mappings may have integer keys (PocketCiv's regions): such a mapping, or one whose
    only key is the marker itself, is kept as a list of pairs under the marker key.
    """
    kind = type(value)
    if kind is dict:
        if all(type(k) is str for k in value) and list(value) != [_PAIRS]:
            return {k: _pack(v) for k, v in value.items()}
        if not all(type(k) in (str, int) for k in value):
            raise _Inexact(value)
        return {_PAIRS: [[k, _pack(v)] for k, v in value.items()]}
    if kind is list:
        return [_pack(v) for v in value]
    if kind is float:
        if value != value or value in (float("inf"), float("-inf")):
            raise _Inexact(value)
        return value
    if value is None or kind in (str, int, bool):
        return value
    raise _Inexact(value)


def _unpack(obj: dict):
    """json.loads' object hook: undo _pack's pairs."""
    if len(obj) == 1 and _PAIRS in obj:
        return {k: v for k, v in obj[_PAIRS]}
    return obj


def _encode(game: Game, manifest_data, manifest_json: str) -> dict | None:
    """Return a loaded game as JSON-ready data, or None when JSON would not give it back."""
    manifest = game.manifest
    if len(manifest.components) != len(game.parts):
        return None
    parts = []
    for spec, part in zip(manifest.components, game.parts):
        if part.spec is not spec:
            return None
        src = part.source
        source = None
        if src is not None:
            lines = src.lines() if type(src.lines) is Later else src.lines
            source = {"file": src.file,
                      "lines": json.dumps([[list(k), v] for k, v in lines.items()]),
                      "rows": [[k, v] for k, v in src.rows.items()],
                      "data": None if src.data is part.data else [src.data]}
        parts.append({"id": spec.id, "kind": spec.kind, "name": spec.name,
                      "data_file": part.data_file, "data": part.data, "source": source,
                      "cards": [[c.id, c.name, c.copies, c.fields, c.line] for c in part.cards]})
    try:
        return _pack({"version": VERSION, "game": {
            "name": manifest.name, "manifest": manifest_data, "manifest_json": manifest_json,
            "icons": game.icons, "icon_file": game.icon_file, "parts": parts}})
    except (_Inexact, RecursionError):
        return None


def _check_manifest(data):
    """Check a cached manifest's data again (it passed with the same code and data before)."""
    from .specs import Manifest

    return Manifest.model_validate(data)


def _component(game: Game, index: int):
    return game.manifest.components[index]


def _lines(text: str) -> dict:
    return {tuple(k): v for k, v in json.loads(text)}


def _decode(entry: dict, folder: GameFolder) -> Game:
    from .source import Document

    g = entry["game"]
    game = Game(folder.id, Later(_check_manifest, (g["manifest"],), name=g["name"]), [],
                folder.data_dir, [folder.template_dir, SHARED_TEMPLATES], g["icons"],
                g["icon_file"])
    game.memo["manifest_json"] = (game.__dict__["_manifest"], g["manifest_json"])
    for i, p in enumerate(g["parts"]):
        part = Part(Later(_component, (game, i), id=p["id"], kind=p["kind"], name=p["name"]),
                    [Card(cid, name, copies, fields, line)
                     for cid, name, copies, fields, line in p["cards"]],
                    p["data"], p["data_file"])
        src = p["source"]
        if src is not None:
            part.source = Document(src["file"], p["data"] if src["data"] is None
                                   else src["data"][0],
                                   Later(_lines, (src["lines"],)),
                                   {k: v for k, v in src["rows"]})
        game.parts.append(part)
    return game


# Reading and writing --------------------------------------------------------------------------

def _read(store: Path, name: str):
    raw = read_kept(store, name, ENTRY_BYTES)
    try:
        return None if raw is None else json.loads(raw, object_hook=_unpack)
    except (ValueError, RecursionError):
        return None


def _write(store: Path, name: str, data: bytes) -> None:
    if keep(store, name, data) and name.endswith(".json"):
        trim(store, "", ".json", KEEP, companions=(".rules",))


def load_game(folder: GameFolder) -> Game:
    """Load and schema-check one game, from the cache when its files are unchanged."""
    store = cache_folder()
    keys = game_key(folder) if store is not None else None
    if keys is not None:
        key, templates = keys
        entry = _read(store, f"{key}.json")
        if isinstance(entry, dict) and entry.get("version") == VERSION:
            try:
                game = _decode(entry, folder)
            except (KeyError, TypeError, ValueError, IndexError):
                game = None
            if game is not None:
                game.memo["load_key"] = (store, key, folder, repr(limits.current()))
                game.memo["template_files"] = {str(folder.template_dir): templates}
                return game
    from .loader import load_game as load_fresh

    game = load_fresh(folder)
    if keys is None:
        return game
    manifest_data = game.memo.pop("manifest_data", None)
    manifest_json = manifest_text(game)
    entry = _encode(game, manifest_data, manifest_json)
    game.memo["manifest_json"] = (game.__dict__["_manifest"], manifest_json)
    if entry is not None and game_key(folder) == keys:   # unchanged while it was loaded
        _write(store, f"{key}.json", json.dumps(entry, separators=(",", ":")).encode())
        game.memo["load_key"] = (store, key, folder, repr(limits.current()))
        game.memo["template_files"] = {str(folder.template_dir): templates}
    return game


def rules_passed(game: Game) -> bool:
    """Say whether this game's rules passed before on the same files, code and limits."""
    store, key, _, bounds = game.memo.get("load_key", (None, None, None, None))
    if key is None or bounds != repr(limits.current()):
        return False
    verdict = _read(store, f"{key}.rules")
    return isinstance(verdict, dict) and verdict.get("key") == key and \
        verdict.get("rules") == "passed"


def record_rules_passed(game: Game) -> None:
    """Remember that this game's rules passed (unless its files changed meanwhile)."""
    store, key, folder, bounds = game.memo.get("load_key", (None, None, None, None))
    if key is None or bounds != repr(limits.current()):
        return
    now = game_key(folder)
    if now is None or now[0] != key:   # edited while its rules ran
        return
    _write(store, f"{key}.rules", json.dumps({"key": key, "rules": "passed"}).encode())
