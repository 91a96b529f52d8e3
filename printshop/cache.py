"""Skip unchanged components on a rebuild: a content hash of everything that shapes a PDF.

A component's key covers printshop's own code and templates, the game's manifest, the
component's data, every file in the game's template folder, the print options and the PDF
date. The output folder holds no second copy of any PDF: a small manifest per game,
``.printshop-cache/<game>.json``, records each component's key, the SHA-256 of the PDF written
for it and the facts the contents page needs. A rebuild reuses a PDF already in the output
folder only when its key matches and its bytes still hash to the recorded value, so a changed
or planted file is drawn again, never trusted.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

from . import guard, limits
from .errors import PrintshopError
from .models import Game, Part
from .project import PACKAGE_DIR

if TYPE_CHECKING:
    from .geometry import PrintOptions

CACHE_DIR = ".printshop-cache"
MANIFEST_BYTES = 4 * 1024 * 1024
PDF_BYTES = 2 * 1024 * 1024 * 1024
_CODE_SUFFIXES = (".py", ".j2", ".yaml", ".json")


def _hash_files(root: Path, suffixes: tuple[str, ...] | None = None) -> str:
    """Hash every file under ``root`` by name and content, following no symbolic link.

    A link is hashed by its target's name; a FIFO, socket or device by its kind (reading
    one could block); a file over max_file_bytes by its size and time (it is refused when
    used, and reading it whole here would defeat the limit).
    """
    h = hashlib.sha256()
    cap = max(limits.current().max_file_bytes, limits.current().max_image_bytes)
    found = []
    for folder, dirs, files in os.walk(root, followlinks=False):
        dirs[:] = [d for d in dirs if d != "__pycache__"]
        found += [Path(folder) / name for name in files + [d for d in dirs
                                                          if os.path.islink(Path(folder) / d)]]
    for path in sorted(found):
        if suffixes is not None and path.suffix not in suffixes:
            continue
        h.update(path.relative_to(root).as_posix().encode() + b"\0")
        try:
            info = os.lstat(path)
            if stat.S_ISLNK(info.st_mode):
                h.update(b"link:" + os.readlink(path).encode())
            elif not stat.S_ISREG(info.st_mode):
                h.update(f"kind:{stat.S_IFMT(info.st_mode)}".encode())
            elif info.st_size > cap:
                h.update(f"big:{info.st_size}:{info.st_mtime_ns}".encode())
            else:
                h.update(guard.read_project_file(root, path, cap))
        except (OSError, PrintshopError):
            h.update(b"unreadable")
    return h.hexdigest()


@lru_cache(maxsize=1)
def code_fingerprint() -> str:
    """Return a hash of printshop's own code, templates and metrics."""
    return _hash_files(PACKAGE_DIR, _CODE_SUFFIXES)


def _plain(value):
    return json.dumps(value, sort_keys=True, default=str, ensure_ascii=False)


def manifest_text(game: Game) -> str:
    """Return the manifest as a component's key hashes it: pydantic's dump as sorted JSON.

    A game read back from the load cache brings the text along, so a rebuild need not make
    its manifest (pydantic) just to hash it.
    """
    memo = game.memo.get("manifest_json")
    if memo is not None and memo[0] is game.__dict__.get("_manifest"):
        return memo[1]
    return _plain(game.manifest.model_dump(mode="json"))


def _template_files(game: Game, folder) -> str:
    """Return the hash of a game's template folder, taken once per loaded game.

    A Game is its files as loaded; every component's key is taken from the same listing
    (hashing the folder again for each of 40 components cost 60 ms of a rebuild).
    """
    memo = game.memo.setdefault("template_files", {})
    name = str(folder)
    if name not in memo:
        memo[name] = _hash_files(Path(folder))
    return memo[name]


def component_key(game: Game, part: Part, opts: PrintOptions) -> str:
    """Return the content hash that decides whether a component must be drawn again."""
    h = hashlib.sha256()
    for piece in (code_fingerprint(), opts.key(), os.environ.get("SOURCE_DATE_EPOCH", ""),
                  manifest_text(game), part.id,
                  _plain([(c.id, c.name, c.copies, c.fields) for c in part.cards]),
                  _plain(part.data if not part.cards else None),
                  *(_template_files(game, d) for d in game.template_dirs[:1])):
        h.update(piece.encode())
        h.update(b"\0")
    return h.hexdigest()[:32]


def combined_key(component_keys: list[str], opts: PrintOptions) -> str:
    """Return the hash of a game's print-and-play PDF from its components' hashes."""
    return hashlib.sha256("|".join(component_keys + [opts.key(), code_fingerprint()])
                          .encode()).hexdigest()[:32]


def manifest_name(game_id: str) -> str:
    """Return the file name of a game's cache manifest, relative to the output folder."""
    return f"{CACHE_DIR}/{game_id}.json"


def load_manifest(out_dir: Path, game_id: str) -> dict[str, dict]:
    """Return a game's cache manifest (component -> key, file, sha256, facts), or {}."""
    try:
        raw = guard.read_project_file(out_dir, manifest_name(game_id), MANIFEST_BYTES)
        data = json.loads(raw.decode("utf-8"))
    except (PrintshopError, ValueError):
        return {}
    entries = data.get("components") if isinstance(data, dict) else None
    if not isinstance(entries, dict):
        return {}
    return {name: e for name, e in entries.items() if isinstance(e, dict) and
            isinstance(e.get("key"), str) and isinstance(e.get("sha256"), str) and
            isinstance(e.get("file"), str) and isinstance(e.get("facts"), dict)}


def reuse(out_dir: Path, manifest: dict[str, dict], name: str, key: str, file: str
          ) -> tuple[bytes, dict] | None:
    """Return the PDF already at ``file`` and its facts when the manifest vouches for it.

    It must have been recorded under ``key`` for ``file`` and still hash to the recorded
    SHA-256; anything else (a missing, edited or planted file, a link) is a miss.
    """
    entry = manifest.get(name)
    if entry is None or entry["key"] != key or entry["file"] != file:
        return None
    try:
        guard.output_path(out_dir, file)
        pdf = guard.read_project_file(out_dir, file, PDF_BYTES)
    except PrintshopError:
        return None
    if hashlib.sha256(pdf).hexdigest() != entry["sha256"]:
        return None
    return pdf, entry["facts"]


def manifest_bytes(entries: dict[str, tuple[str, str, bytes, dict]]) -> bytes:
    """Return a game's manifest from component -> (key, file, pdf, facts)."""
    components = {name: {"key": key, "file": file, "sha256": hashlib.sha256(pdf).hexdigest(),
                         "facts": facts}
                  for name, (key, file, pdf, facts) in entries.items()}
    return json.dumps({"version": 2, "components": components}, sort_keys=True,
                      indent=1).encode() + b"\n"


def remove_legacy(out_dir: Path, game_id: str) -> None:
    """Delete the PDF copies that older printshop versions kept in the cache (best effort)."""
    try:
        guard.remove_output(out_dir, f"{CACHE_DIR}/{game_id}")
    except (OSError, PrintshopError):
        pass  # the build itself succeeded; stale copies only take room
