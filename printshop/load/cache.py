"""Skip unchanged work: a content hash of everything that shapes a PDF, and where the per-user
caches live.

A component's key covers printshop's own code and templates, the game's manifest, the
component's data, every file in the game's template folder, the print options and the PDF
date. The output folder holds no second copy of any PDF: a small manifest per game,
``.printshop-cache/<game>.json``, records each component's key, the SHA-256 of the PDF written
for it and the facts the contents page needs. A rebuild reuses a PDF already in the output
folder only when its key matches and its bytes still hash to the recorded value, so a changed
or planted file is drawn again, never trusted.

Besides the output folder's manifests, printshop keeps a per-user cache folder
(``cache_folder``) of games already loaded (printshop.load.loadcache). It is private to the user
(guard.private_dir), or the folder PRINTSHOP_CACHE_DIR names; ``PRINTSHOP_CACHE_DIR=off``
turns it off. printshop's own code is known by its files' stat data (code_fingerprint), as
Python knows the sources of its bytecode.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import stat
import tempfile
import time
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

from ..files import guard, limits
from ..files.errors import PrintshopError
from ..files.project import PACKAGE_DIR
from .models import Game, Part

if TYPE_CHECKING:
    from .geometry import PrintOptions

CACHE_DIR = ".printshop-cache"
MANIFEST_BYTES = 4 * 1024 * 1024
PDF_BYTES = 2 * 1024 * 1024 * 1024
_CODE_SUFFIXES = (".py", ".j2", ".yaml", ".json")


_OFF = ("", "0", "off", "no", "none", "false")


def cache_folder() -> Path | None:
    """Return the per-user cache folder, or None when it is turned off or unusable."""
    value = os.environ.get("PRINTSHOP_CACHE_DIR")
    if value is None:
        return _private()
    if value.strip().lower() in _OFF:
        return None
    path = Path(value)
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError:
        return None
    return path if path.is_dir() else None


@lru_cache(maxsize=1)
def _private() -> Path | None:
    try:
        return guard.private_dir("printshop-cache")
    except OSError:
        return None


def read_kept(store: Path, name: str, limit: int) -> bytes | None:
    """Return a file of the cache folder (read through the guard), or None."""
    try:
        return guard.read_project_file(store, name, limit, limit_name=None)
    except PrintshopError:
        return None


def keep(store: Path, name: str, data: bytes) -> bool:
    """Write a file of the cache folder whole or not at all; a cache that cannot be written is
    no error (False)."""
    try:
        fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=store)
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
            os.replace(tmp, store / name)
        except BaseException:
            os.unlink(tmp)
            raise
    except OSError:
        return False
    return True


def trim(store: Path, prefix: str, suffix: str, most: int, companions=()) -> None:
    """Keep the newest ``most`` files named PREFIX...SUFFIX (and their companions, the same
    name with another suffix); remove the rest, and temporary files over an hour old."""
    try:
        found, stale = [], time.time() - 3600
        for e in os.scandir(store):
            if not e.is_file(follow_symlinks=False):
                continue
            if e.name.startswith(prefix) and e.name.endswith(suffix):
                found.append((e.stat(follow_symlinks=False).st_mtime_ns, e.name))
            elif e.name.startswith(".tmp-") and e.stat(follow_symlinks=False).st_mtime < stale:
                found.append((-1, e.name))
        found.sort()
        olds = [n for t, n in found if t == -1] + [n for t, n in found if t != -1][:-most]
        for name in olds:
            stem = name[:-len(suffix)] if name.endswith(suffix) else name
            for gone in (name, *(stem + c for c in companions)):
                try:
                    os.unlink(store / gone)
                except FileNotFoundError:
                    pass
    except OSError:
        pass


def _listing(root: Path, suffixes: tuple[str, ...] | None) -> list[Path]:
    """Return what _hash_files hashes under ``root``, in its order."""
    found = []
    for folder, dirs, files in os.walk(root, followlinks=False):
        dirs[:] = [d for d in dirs if d != "__pycache__"]
        found += [Path(folder) / name for name in files + [d for d in dirs
                                                          if os.path.islink(Path(folder) / d)]]
    return [p for p in sorted(found) if suffixes is None or p.suffix in suffixes]


def _hash_files(root: Path, suffixes: tuple[str, ...] | None = None) -> str:
    """Hash every file under ``root`` by name and content, following no symbolic link.

    A link is hashed by its target's name; a FIFO, socket or device by its kind (reading
    one could block); a file over max_file_bytes by its size and time (it is refused when
    used, and reading it whole here would defeat the limit).
    """
    return _hash_listed(root, _listing(root, suffixes))


def _hash_listed(root: Path, paths: list[Path]) -> str:
    h = hashlib.sha256()
    cap = max(limits.current().max_file_bytes, limits.current().max_image_bytes)
    for path in paths:
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


SETTLED_NS = 2_000_000_000   # a file changed this recently may change again unseen


@lru_cache(maxsize=1)
def code_fingerprint() -> str:
    """Return a fingerprint of printshop's own code, templates and metrics.

    As Python knows its bytecode's sources, the files are known by their names and stat data
    (mode, size, times, inode, device) rather than read: a hundred lstat calls instead of
    reading and hashing the files (about 8 ms). Any write to a file moves its ctime. A file
    changed in the last two seconds may change again without its times moving, so a tree that
    fresh is hashed by content instead (and so is one that cannot be listed).
    """
    paths = _listing(PACKAGE_DIR, _CODE_SUFFIXES)
    sig, newest = hashlib.sha256(repr(limits.current()).encode()), 0
    try:
        for path in paths:
            info = os.lstat(path)
            newest = max(newest, info.st_mtime_ns, info.st_ctime_ns)
            sig.update(f"{path}\0{info.st_mode}\0{info.st_size}\0{info.st_mtime_ns}\0"
                       f"{info.st_ctime_ns}\0{info.st_ino}\0{info.st_dev}\n".encode(
                           "utf-8", "surrogateescape"))
    except OSError:
        return _hash_listed(PACKAGE_DIR, paths)
    if newest >= time.time_ns() - SETTLED_NS:
        return _hash_listed(PACKAGE_DIR, paths)
    return "stat-" + sig.hexdigest()


def _plain(value):
    return json.dumps(value, sort_keys=True, default=str, ensure_ascii=False)


def manifest_text(game: Game) -> str:
    """Return the manifest as a component's key hashes it: its JSON dump, keys sorted.

    A game read back from the load cache brings the text along, so a rebuild need not make
    its manifest just to hash it.
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
    """Return a game's cache manifest (component -> key, file, mac, facts), or {}."""
    try:
        raw = guard.read_project_file(out_dir, manifest_name(game_id), MANIFEST_BYTES)
        data = json.loads(raw.decode("utf-8"))
    except (PrintshopError, ValueError):
        return {}
    entries = data.get("components") if isinstance(data, dict) else None
    if not isinstance(entries, dict):
        return {}
    return {name: e for name, e in entries.items() if isinstance(e, dict) and
            isinstance(e.get("key"), str) and isinstance(e.get("mac"), str) and
            isinstance(e.get("file"), str) and isinstance(e.get("facts"), dict)}


SECRET_FILE = "manifest-secret.key"


@lru_cache(maxsize=1)
def _secret() -> bytes | None:
    """Return this user's secret that signs the rebuild manifests, made once; None when
    there is no private cache folder (then nothing in output/ is reused).

    A game folder from elsewhere may ship output/ and a manifest whose hashes match its own
    PDFs; without this user's secret it cannot sign them, so they are drawn again."""
    store = cache_folder()
    if store is None:
        return None
    secret = read_kept(store, SECRET_FILE, 64)
    if secret is not None and len(secret) == 32:
        return secret
    try:
        fd = os.open(store / SECRET_FILE, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:     # another build made it meanwhile (or it is damaged)
        secret = read_kept(store, SECRET_FILE, 64)
        return secret if secret is not None and len(secret) == 32 else None
    except OSError:
        return None
    secret = os.urandom(32)
    with os.fdopen(fd, "wb") as fh:
        fh.write(secret)
    return secret


def _signature(key: str, file: str, pdf: bytes) -> str | None:
    secret = _secret()
    if secret is None:
        return None
    message = f"{key}\n{file}\n{hashlib.sha256(pdf).hexdigest()}".encode()
    return hmac.new(secret, message, hashlib.sha256).hexdigest()


def reuse(out_dir: Path, manifest: dict[str, dict], name: str, key: str, file: str
          ) -> tuple[bytes, dict] | None:
    """Return the PDF already at ``file`` and its facts when the manifest vouches for it.

    It must have been recorded under ``key`` for ``file`` and carry this user's signature of
    the three; anything else (a missing, edited or planted file or manifest, a link) is a miss.
    """
    entry = manifest.get(name)
    if entry is None or entry["key"] != key or entry["file"] != file:
        return None
    try:
        guard.output_path(out_dir, file)
        pdf = guard.read_project_file(out_dir, file, PDF_BYTES)
    except PrintshopError:
        return None
    signed = _signature(key, file, pdf)
    if signed is None or not hmac.compare_digest(signed, entry["mac"]):
        return None
    return pdf, entry["facts"]


def manifest_bytes(entries: dict[str, tuple[str, str, bytes, dict]]) -> bytes:
    """Return a game's manifest from component -> (key, file, pdf, facts), signed."""
    components = {name: {"key": key, "file": file, "mac": _signature(key, file, pdf) or "",
                         "facts": facts}
                  for name, (key, file, pdf, facts) in entries.items()}
    return json.dumps({"version": 3, "components": components}, sort_keys=True,
                      indent=1).encode() + b"\n"


def remove_legacy(out_dir: Path, game_id: str) -> None:
    """Delete the PDF copies that older printshop versions kept in the cache (best effort)."""
    try:
        guard.remove_output(out_dir, f"{CACHE_DIR}/{game_id}")
    except (OSError, PrintshopError):
        pass  # the build itself succeeded; stale copies only take room
