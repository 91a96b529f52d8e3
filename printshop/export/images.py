"""Card images: one PNG per card face, each its PDF page in pixels (raster.py draws it with
the PDF's own renderer).

Images are cut at the trim line by default (what the card looks like once cut); with
``bleed`` they keep the bleed, for print-on-demand shops that want it. Circular tokens cut at
the trim are transparent outside the circle.
"""

from __future__ import annotations

from pathlib import Path

from ..files import limits
from ..write import raster
from ..files.errors import PrintshopError, Problem
from ..load.geometry import PrintOptions
from ..layout.impose import Face
from ..files.project import Project
from . import deck_parts, default_out, drawing, drawn_cards, load_one

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


def face_image(face: Face, width: int, height: int, bleed: bool = False):
    """Draw one face as its PDF page draws it: an image of exactly width x height pixels on
    white (RGB); a round face cut at the trim is transparent outside its circle (RGBA)."""
    margin = (face.bleed, face.bleed) if bleed else (0.0, 0.0)
    cut = "circle" if face.shape == "circle" and not bleed else "rect"
    return raster.face_image(face, (width, height), margin, raster.WHITE, cut)


def face_png(face: Face, width: int, height: int, bleed: bool = False,
             dpi: float | None = None) -> bytes:
    """Render one face to a PNG of exactly width x height pixels (saying ``dpi`` if given)."""
    return raster.png(face_image(face, width, height, bleed), dpi)


def card_images(game, dpi: int = DEFAULT_DPI, bleed: bool = False,
                deck: str | None = None, progress=None) -> dict[str, bytes]:
    """Return a PNG per card face and back, keyed '<deck>/<card-id>.png'.

    A deck whose cards all share one back gets it once, as '<deck>/back.png'; otherwise each
    card's back is '<deck>/<card-id>-back.png'. A back several cards share is drawn once.
    ``progress(done, total)`` hears of each card drawn.
    """
    opts = PrintOptions()
    files: dict[str, bytes] = {}
    parts = deck_parts(game, deck)
    total, done = sum(len(p.cards) for p in parts), 0
    for part in parts:
        cards = drawn_cards(game, part, opts)
        drawn: dict[str, bytes] = {}
        backs = {back.svg for _, _, back in cards if back is not None}
        shared = len(backs) == 1 and all(back is not None for _, _, back in cards)
        with drawing(game, part.id):
            for card, front, back in cards:
                size = checked_size(game, part, front, dpi, bleed)
                files[f"{part.id}/{card.id}.png"] = face_png(front, *size, bleed, dpi)
                if back is not None and not shared:
                    if back.svg not in drawn:
                        drawn[back.svg] = face_png(back, *size, bleed, dpi)
                    files[f"{part.id}/{card.id}-back.png"] = drawn[back.svg]
                done += 1
                if progress:
                    progress(done, total)
            if shared:
                back = cards[0][2]
                files[f"{part.id}/back.png"] = face_png(
                    back, *checked_size(game, part, back, dpi, bleed), bleed, dpi)
    if not files:
        raise PrintshopError(Problem(f"data/{game.id}/game.yaml",
                                     "the game has no decks or tokens to draw as images"))
    return files


def export_png(project: Project, game_id: str, out_dir: Path | None = None,
               dpi: int = DEFAULT_DPI, bleed: bool = False,
               deck: str | None = None, progress=None) -> list[Path]:
    """Write one PNG per card face and back of a game; return the files written."""
    from ..files.output import write_files

    files = card_images(load_one(project, game_id), dpi, bleed, deck, progress)
    return write_files(Path(out_dir or default_out(game_id, "png")), files)
