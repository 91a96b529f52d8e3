"""Card images: one PNG per card face, each its PDF page in pixels (raster.py draws it with
the PDF's own renderer).

Images are cut at the trim line by default (what the card looks like once cut); with
``bleed`` they keep the bleed, for print-on-demand shops that want it. Circular tokens cut at
the trim are transparent outside the circle.
"""

from __future__ import annotations

from pathlib import Path

from ..files import limits
from ..files.errors import PrintshopError, Problem
from ..files.project import Project
from ..layout.impose import Face
from ..load import cache
from ..load.geometry import PrintOptions
from ..write import raster
from . import deck_parts, default_out, drawn_cards, load_one
from .faceimages import FaceImages, Wanted

DEFAULT_DPI = 300
MM_PER_INCH = 25.4


def pixels(mm: float, dpi: float) -> int:
    """Return how many pixels ``mm`` millimetres take at ``dpi``."""
    return max(1, round(mm * dpi / MM_PER_INCH))


def face_size(face: Face, dpi: float, bleed: bool = False) -> tuple[int, int]:
    """Return the pixel size of a face's image: its trim size, or trim plus bleed."""
    b = face.bleed if bleed else 0.0
    return pixels(face.w + 2 * b, dpi), pixels(face.h + 2 * b, dpi)


def checked_size(game, part, face: Face, dpi: float, bleed: bool = False) -> tuple[int, int]:
    """Return a face's pixel size, refusing an image larger than the max_pixels limit."""
    w, h = face_size(face, dpi, bleed)
    limit = limits.current().max_pixels
    if w * h > limit:
        raise PrintshopError(Problem(f"data/{game.id}/game.yaml", limits.exceeded(
            "max_pixels", f"a card image of {part.id} would be {w:,} x {h:,} = {w * h:,} pixels "
            f"at {dpi:g} dpi", limit), ("components", part.id)))
    return w, h


def face_options(face: Face, bleed: bool = False, dpi: float | None = None) -> dict:
    """Return how a card image of a face is drawn (FaceImages.want's options): on white,
    with its bleed or cut at the trim, a round face cut at the trim transparent outside its
    circle."""
    margin = (face.bleed, face.bleed) if bleed else (0.0, 0.0)
    cut = "circle" if face.shape == "circle" and not bleed else "rect"
    return {"margin": margin, "cut": cut, "dpi": dpi}


def face_image(face: Face, width: int, height: int, bleed: bool = False):
    """Draw one face as its PDF page draws it: an image of exactly width x height pixels on
    white (RGB); a round face cut at the trim is transparent outside its circle (RGBA)."""
    options = face_options(face, bleed)
    return raster.face_image(face, (width, height), options["margin"], raster.WHITE,
                             options["cut"])


def face_png(face: Face, width: int, height: int, bleed: bool = False,
             dpi: float | None = None) -> bytes:
    """Render one face to a PNG of exactly width x height pixels (saying ``dpi`` if given)."""
    return raster.png(face_image(face, width, height, bleed), dpi)


def card_images(game, dpi: int = DEFAULT_DPI, bleed: bool = False,
                deck: str | None = None, progress=None,
                out_dir: Path | None = None) -> dict[str, bytes]:
    """Return a PNG per card face and back, keyed '<deck>/<card-id>.png', and the face cache
    for ``out_dir`` (faceimages.py) when one is given.

    A deck whose cards all share one back gets it once, as '<deck>/back.png'; otherwise each
    card's back is '<deck>/<card-id>-back.png'. Each distinct face is drawn once.
    ``progress(done, total)`` hears of each face drawn.
    """
    opts = PrintOptions()
    faces = FaceImages(game, out_dir)
    named: dict[str, Wanted] = {}
    for part in deck_parts(game, deck):
        cards = drawn_cards(game, part, opts)
        backs = {back.svg for _, _, back in cards if back is not None}
        shared = len(backs) == 1 and all(back is not None for _, _, back in cards)
        for card, front, back in cards:
            size = checked_size(game, part, front, dpi, bleed)
            named[f"{part.id}/{card.id}.png"] = faces.want(part.id, front, size,
                                                           **face_options(front, bleed, dpi))
            if back is not None:
                name = f"{part.id}/back.png" if shared else f"{part.id}/{card.id}-back.png"
                named[name] = faces.want(part.id, back, size, **face_options(back, bleed, dpi))
    if not named:
        raise PrintshopError(Problem(f"data/{game.id}/game.yaml",
                                     "the game has no decks or tokens to draw as images"))
    faces.draw(progress)
    return {**{name: faces[wanted].png for name, wanted in named.items()},
            **faces.cache_files(named)}


def export_png(project: Project, game_id: str, out_dir: Path | None = None,
               dpi: int = DEFAULT_DPI, bleed: bool = False,
               deck: str | None = None, progress=None) -> list[Path]:
    """Write one PNG per card face and back of a game; return the files written (a previous
    export's images that are no longer drawn are removed)."""
    from .folder import replace_export

    out = Path(out_dir or default_out(game_id, "png"))
    files = card_images(load_one(project, game_id), dpi, bleed, deck, progress, out)
    written = replace_export(out, files, f"{deck}/" if deck else "")
    return [p for p in written if cache.CACHE_DIR not in p.relative_to(out).parts]
