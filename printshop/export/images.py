"""Card images: one PNG per card face, drawn from the same SVG as the PDFs.

Images are cut at the trim line by default (what the card looks like once cut); with
``bleed`` they keep the bleed, for print-on-demand shops that want it. Circular tokens cut at
the trim are transparent outside the circle.
"""

from __future__ import annotations

from pathlib import Path

from .. import limits
from .. import pdf  # noqa: F401  (points fontconfig at the shipped fonts before cairo draws)
from ..errors import PrintshopError, Problem
from ..geometry import PrintOptions
from ..impose import Face, nest
from ..project import Project
from ..text import _fmt
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


def face_svg(face: Face, width: int, height: int, bleed: bool = False) -> str:
    """Return a standalone SVG document drawing one face at width x height pixels."""
    b = face.bleed if bleed else 0.0
    w, h = face.w + 2 * b, face.h + 2 * b
    body = nest(face, 0.0, 0.0)
    if face.shape == "circle" and not bleed:
        cx, cy, r = _fmt(face.w / 2), _fmt(face.h / 2), _fmt(min(face.w, face.h) / 2)
        body = (f'<defs><clipPath id="printshop-trim"><circle cx="{cx}" cy="{cy}" r="{r}"/>'
                f'</clipPath></defs><g clip-path="url(#printshop-trim)">'
                f'<circle cx="{cx}" cy="{cy}" r="{r}" fill="#fff"/>{body}</g>')
    else:
        body = (f'<rect x="{_fmt(-b)}" y="{_fmt(-b)}" width="{_fmt(w)}" height="{_fmt(h)}" '
                f'fill="#fff"/>{body}')
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
            f'viewBox="{_fmt(-b)} {_fmt(-b)} {_fmt(w)} {_fmt(h)}" preserveAspectRatio="none">'
            f'{body}</svg>')


def svg_png(svg: str, width: int | None = None, height: int | None = None) -> bytes:
    """Render a standalone SVG document to PNG bytes, at a pixel size when given."""
    import cairosvg

    try:
        return cairosvg.svg2png(bytestring=svg.encode("utf-8"), output_width=width,
                                output_height=height, unsafe=False)
    except Exception as exc:  # cairosvg raises parser errors of several kinds
        raise pdf.SVGRenderError(f"the SVG could not be drawn ({exc})") from None


def checked_size(game, part, face: Face, dpi: float, bleed: bool = False) -> tuple[int, int]:
    """Return a face's pixel size, refusing an image larger than the max_pixels limit."""
    w, h = face_size(face, dpi, bleed)
    limit = limits.current().max_pixels
    if w * h > limit:
        raise PrintshopError(Problem(f"data/{game.id}/game.yaml", limits.exceeded(
            "max_pixels", f"a card image of {part.id} would be {w:,} x {h:,} = {w * h:,} pixels "
            f"at {dpi:g} dpi", limit), ("components", part.id)))
    return w, h


def face_png(face: Face, width: int, height: int, bleed: bool = False) -> bytes:
    """Render one face to a PNG of exactly width x height pixels."""
    return svg_png(face_svg(face, width, height, bleed))


def with_dpi(png: bytes, dpi: float) -> bytes:
    """Return PNG bytes with a pHYs chunk saying ``dpi``, so print tools read the right size."""
    import io

    from PIL import Image

    with Image.open(io.BytesIO(png)) as image:
        buf = io.BytesIO()
        image.save(buf, format="PNG", dpi=(dpi, dpi))
    return buf.getvalue()


def card_images(game, dpi: int = DEFAULT_DPI, bleed: bool = False,
                deck: str | None = None) -> dict[str, bytes]:
    """Return a PNG per card face and back, keyed '<deck>/<card-id>.png'.

    A deck whose cards all share one back gets it once, as '<deck>/back.png'; otherwise each
    card's back is '<deck>/<card-id>-back.png'.
    """
    opts = PrintOptions()
    files: dict[str, bytes] = {}
    for part in deck_parts(game, deck):
        cards = drawn_cards(game, part, opts)
        backs = {back.svg for _, _, back in cards if back is not None}
        shared = len(backs) == 1 and all(back is not None for _, _, back in cards)
        with drawing(game, part.id):
            for card, front, back in cards:
                size = checked_size(game, part, front, dpi, bleed)
                files[f"{part.id}/{card.id}.png"] = face_png(front, *size, bleed)
                if back is not None and not shared:
                    files[f"{part.id}/{card.id}-back.png"] = face_png(back, *size, bleed)
            if shared:
                back = cards[0][2]
                files[f"{part.id}/back.png"] = face_png(
                    back, *checked_size(game, part, back, dpi, bleed), bleed)
    if not files:
        raise PrintshopError(Problem(f"data/{game.id}/game.yaml",
                                     "the game has no decks or tokens to draw as images"))
    return {name: with_dpi(png, dpi) for name, png in files.items()}


def export_png(project: Project, game_id: str, out_dir: Path | None = None,
               dpi: int = DEFAULT_DPI, bleed: bool = False,
               deck: str | None = None) -> list[Path]:
    """Write one PNG per card face and back of a game; return the files written."""
    from ..output import write_files

    files = card_images(load_one(project, game_id), dpi, bleed, deck)
    return write_files(Path(out_dir or default_out(game_id, "png")), files)
