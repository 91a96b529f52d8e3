"""Face images of one export, each drawn once: asked for first, then drawn on the build's
forked workers, then handed to every consumer that asked for the same face at the same size.

An export asks (``want``) for every face image it needs before any is drawn; asking twice for
the same face at the same pixel size, margin and cut is one drawing (a back a deck shares, a
card front on several sheets). ``draw`` then draws them on worker processes (workers.py), each
worker encoding its own PNGs, so the encoding is shared out too.

A finished PNG written by an export is found again by the next export into the same folder:
``.printshop-cache/faces.json`` records, under the digest of everything that shapes the image
(printshop's code, the game's template folder, the face's SVG, size, margin, cut, background,
dpi), the file that holds it, so exporting again after one card changed draws that card
alone. As with the build's PDFs (cache.py), the folder keeps no second copy, and each entry
is signed with the user's secret: a planted or edited image is drawn again, never trusted.
Images kept for the export's own checks (the pre-flight's alpha, TTS's sheet cells) are
drawn every time.
"""

from __future__ import annotations

import hashlib
import hmac
import itertools
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from ..files import guard
from ..files.errors import PrintshopError
from ..layout.impose import Face
from ..load import cache
from ..load.models import Game
from ..write import raster

FACES_MANIFEST = f"{cache.CACHE_DIR}/faces.json"
FACE_BYTES = 64 * 1024 * 1024      # a kept face image read back (a 1200 dpi poster is less)
KEEP = ("image", "alpha")          # what a request may keep besides its PNG

# Counts every face drawn in this process and its workers' answers: the seam a test counts
# drawings through.
drawings = 0


@dataclass(frozen=True)
class Wanted:
    """One face image: the face, its pixel size, the bleed margin shown (mm), background
    (None: transparent), cut, the PNG's dpi, whether the PNG is laid on white, what is kept
    besides the PNG (None, 'image' or 'alpha') and whether a PNG is made at all."""

    face: Face
    size: tuple[int, int]
    margin: tuple[float, float] = (0.0, 0.0)
    background: tuple | None = raster.WHITE
    cut: str = "rect"
    dpi: float | None = None
    white: bool = False
    keep: str | None = None
    encode: bool = True

    def digest(self, salt: str) -> str:
        """Return the hex digest naming this image in the cache."""
        f = self.face
        text = repr((salt, f.svg, f.w, f.h, f.bleed, f.shape, self.size, self.margin,
                     self.background, self.cut, self.dpi, self.white))
        return hashlib.sha256(text.encode()).hexdigest()[:40]


@dataclass
class Drawn:
    """A drawn face: its PNG and, when asked for, its image or alpha channel (PIL)."""

    png: bytes
    kept: object = None


def draw_one(wanted: Wanted) -> Drawn:
    """Draw one face image and encode its PNG (run on a worker)."""
    image = raster.face_image(wanted.face, wanted.size, wanted.margin, wanted.background,
                              wanted.cut)
    png = raster.png(raster.on_white(image) if wanted.white else image, wanted.dpi) \
        if wanted.encode else b""
    kept = image if wanted.keep == "image" else \
        image.getchannel("A") if wanted.keep == "alpha" else None
    return Drawn(png, kept)


class FaceImages:
    """The face images an export asks for, drawn once each; ``out_dir`` (the export folder)
    holds the cache of finished PNGs, or None for no cache."""

    def __init__(self, game: Game, out_dir: Path | None = None):
        self.game, self.out_dir = game, out_dir
        self._wanted: dict[Wanted, str] = {}      # request -> the component that asked first
        self._drawn: dict[Wanted, Drawn] = {}
        self._salt = cache.code_fingerprint() + "|" + "|".join(
            cache._template_files(game, d) for d in game.template_dirs[:1])

    def want(self, component: str, face: Face, size: tuple[int, int], **options) -> Wanted:
        """Ask for a face image; return the key its result is found under."""
        wanted = Wanted(face, tuple(size), **options)
        self._wanted.setdefault(wanted, component)
        return wanted

    def __len__(self) -> int:
        return len(self._wanted)

    def __getitem__(self, wanted: Wanted) -> Drawn:
        return self._drawn[wanted]

    def draw(self, progress: Callable[[int, int], None] | None = None,
             jobs: int | None = None) -> None:
        """Draw every face asked for and not drawn yet: from the cache where it vouches for
        the PNG, the rest on worker processes."""
        from ..run.workers import Workers, default_jobs

        todo = [w for w in self._wanted if w not in self._drawn]
        if not todo:
            return
        signed = self._manifest()
        fresh = []
        for wanted in todo:
            hit = self._cached(wanted, signed) if self._cacheable(wanted) else None
            if hit is None:
                fresh.append(wanted)
            else:
                self._drawn[wanted] = Drawn(hit)
        total, done = len(todo), len(todo) - len(fresh)
        if progress and done:
            progress(done, total)
        workers = Workers((jobs or default_jobs()) if len(fresh) > 1 else 1)

        def then(wanted: Wanted) -> Callable[[Drawn], None]:
            def store(result: Drawn) -> None:
                global drawings
                nonlocal done
                drawings += 1
                self._drawn[wanted] = result
                done += 1
                if progress:
                    progress(done, total)
            return store

        ref = (next(_RUNS), self.game.id)
        for wanted in fresh:
            workers.add(_job, (wanted, ref, self._wanted[wanted]), then(wanted))
        _GAMES[ref] = self.game
        try:
            workers.run()
        finally:
            _GAMES.pop(ref, None)

    def _cacheable(self, wanted: Wanted) -> bool:
        return self.out_dir is not None and wanted.keep is None and wanted.encode

    def cache_files(self, named: dict[str, Wanted]) -> dict[str, bytes]:
        """Return the cache's manifest, to write last with the export: for each image, the
        file of ``named`` (file -> image) that holds it, signed."""
        if self.out_dir is None:
            return {}
        entries = {}
        for file, wanted in sorted(named.items()):
            if self._cacheable(wanted):
                digest = wanted.digest(self._salt)
                png = self._drawn[wanted].png
                entries.setdefault(digest, {"file": file, "mac": cache._signature(
                    digest, file, png) or ""})
        return {FACES_MANIFEST: json.dumps({"version": 1, "faces": entries}, sort_keys=True,
                                           indent=1).encode() + b"\n"}

    def _manifest(self) -> dict[str, dict]:
        """Return the cache's signed manifest (digest -> file and signature), or nothing."""
        if self.out_dir is None:
            return {}
        try:
            data = guard.read_project_file(self.out_dir, FACES_MANIFEST, cache.MANIFEST_BYTES,
                                           limit_name=None)
            faces = json.loads(data)["faces"]
        except (PrintshopError, ValueError, KeyError, TypeError):
            return {}
        return faces if isinstance(faces, dict) else {}

    def _cached(self, wanted: Wanted, signed: dict[str, dict]) -> bytes | None:
        """Return a face's PNG from the file the signed manifest says holds it, or None."""
        digest = wanted.digest(self._salt)
        entry = signed.get(digest)
        if not isinstance(entry, dict) or not isinstance(entry.get("file"), str) or \
                not isinstance(entry.get("mac"), str) or not entry["mac"]:
            return None
        try:
            guard.output_path(self.out_dir, entry["file"])
            png = guard.read_project_file(self.out_dir, entry["file"], FACE_BYTES,
                                          limit_name=None)
        except PrintshopError:
            return None
        expected = cache._signature(digest, entry["file"], png)
        return png if expected is not None and hmac.compare_digest(expected, entry["mac"]) \
            else None


# The games of the exports in progress, by (run, game id): forked workers find a face's game
# here, to say which component a drawing failure came from. Each run adds and removes only
# its own (the studio may export in two threads at once).
_GAMES: dict[tuple[int, str], Game] = {}
_RUNS = itertools.count()


def _job(wanted: Wanted, ref: tuple[int, str], component: str) -> Drawn:
    from ..check.failures import drawing

    with drawing(_GAMES[ref], component):
        return draw_one(wanted)
