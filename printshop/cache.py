"""Skip unchanged components on a rebuild: a content hash of everything that shapes a PDF.

A component's key covers printshop's own code and templates, the game's manifest, the
component's data, every file in the game's template folder, the print options and the PDF
date. The cache lives in the output folder, beside what it speeds up.
"""

from __future__ import annotations

import hashlib
import json
import os
from functools import lru_cache
from pathlib import Path

from .geometry import PrintOptions
from .models import Game, Part
from .project import PACKAGE_DIR

CACHE_DIR = ".printshop-cache"
_CODE_SUFFIXES = (".py", ".j2", ".yaml", ".json")


def _hash_files(root: Path, suffixes: tuple[str, ...] | None = None) -> str:
    h = hashlib.sha256()
    if root.is_dir():
        for path in sorted(root.rglob("*")):
            if path.is_file() and (suffixes is None or path.suffix in suffixes) and \
                    "__pycache__" not in path.parts:
                h.update(path.relative_to(root).as_posix().encode())
                h.update(path.read_bytes())
    return h.hexdigest()


@lru_cache(maxsize=1)
def code_fingerprint() -> str:
    """Return a hash of printshop's own code, templates and metrics."""
    return _hash_files(PACKAGE_DIR, _CODE_SUFFIXES)


def _plain(value):
    return json.dumps(value, sort_keys=True, default=str, ensure_ascii=False)


def component_key(game: Game, part: Part, opts: PrintOptions) -> str:
    """Return the content hash that decides whether a component must be drawn again."""
    h = hashlib.sha256()
    for piece in (code_fingerprint(), opts.key(), os.environ.get("SOURCE_DATE_EPOCH", ""),
                  _plain(game.manifest.model_dump(mode="json")), part.id,
                  _plain([(c.id, c.name, c.copies, c.fields) for c in part.cards]),
                  _plain(part.data if not part.cards else None),
                  *(_hash_files(Path(d)) for d in game.template_dirs[:1])):
        h.update(piece.encode())
        h.update(b"\0")
    return h.hexdigest()[:32]


def combined_key(component_keys: list[str], opts: PrintOptions) -> str:
    """Return the hash of a game's print-and-play PDF from its components' hashes."""
    return hashlib.sha256("|".join(component_keys + [opts.key(), code_fingerprint()])
                          .encode()).hexdigest()[:32]


def entry_name(game_id: str, name: str, key: str) -> str:
    """Return a cache entry's file name (relative to the output folder)."""
    return f"{CACHE_DIR}/{game_id}/{name}-{key}"


def load(out_dir: Path, game_id: str, name: str, key: str) -> tuple[bytes, dict] | None:
    """Return a cached PDF and its facts, or None."""
    base = out_dir / entry_name(game_id, name, key)
    try:
        return base.with_suffix(".pdf").read_bytes(), json.loads(
            base.with_suffix(".json").read_text())
    except (OSError, ValueError):
        return None


def entries(game_id: str, name: str, key: str, pdf: bytes, facts: dict) -> dict[str, bytes]:
    """Return the files that store one cache entry."""
    base = entry_name(game_id, name, key)
    return {base + ".pdf": pdf, base + ".json": json.dumps(facts, sort_keys=True).encode()}


def prune(out_dir: Path, keep: set[str]) -> None:
    """Remove cache entries of the built games that this build did not use."""
    for game_dir in {str(Path(k).parent) for k in keep}:
        folder = out_dir / game_dir
        for path in folder.glob("*") if folder.is_dir() else []:
            rel = path.relative_to(out_dir).as_posix()
            if rel not in keep:
                path.unlink(missing_ok=True)
