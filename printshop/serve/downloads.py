"""The studio's downloads, each made by the library call the command line makes."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

from ..files.errors import PrintshopError
from ..load.models import Game

PDF = "application/pdf"
DECKLIST_TYPES = {"csv": "text/csv; charset=utf-8", "json": "application/json",
                  "md": "text/markdown; charset=utf-8"}


def print_and_play(app, game: Game):
    """Build the game's print-and-play PDF in memory (rules checked, as the build does)."""
    from ..build import check_games, render_all

    check_games([game])
    built = render_all([game], app.studio.opts, jobs=1)[0]
    return f"{game.id}-print-and-play.pdf", PDF, built.combined


def component_pdf(component: str):
    """Return the maker of one component's PDF."""
    def make(app, game: Game):
        from ..build import render_component

        result = render_component(game, component, app.studio.opts)
        if isinstance(result, list):
            raise PrintshopError(result)
        return f"{component}.pdf", PDF, result.pdf
    return make


def decklist(fmt: str):
    """Return the maker of the deck list in one format."""
    def make(app, game: Game):
        from ..export.decklist import FORMATS, deck_list

        text = FORMATS[fmt](deck_list(game))
        return f"{game.id}-decklist.{fmt}", DECKLIST_TYPES[fmt], text.encode("utf-8")
    return make


def tts(app, game: Game):
    """Make the Tabletop Simulator export in memory and send it as a zip.

    Nothing is written: not into --out, and so never through an output/<game> link a shared
    project may ship. The save addresses its images in <out>/<game>/tts, where
    `printshop export tts` writes them (the README inside says so).
    """
    import json

    from ..export.tts import readme, tts_export, url_maker

    out = Path(app.out_dir) / game.id / "tts"
    result = tts_export(game, url_maker(None))
    files = dict(result.images)
    files[f"{game.id}.json"] = (json.dumps(result.save, ensure_ascii=False, indent=2)
                                + "\n").encode("utf-8")
    files["README.txt"] = readme(game, result, None, out).encode("utf-8")
    return zipped(f"{game.id}-tts", files)


def zipped(folder: str, files: dict[str, bytes]) -> tuple[str, str, bytes]:
    """Return files as a zip download holding one folder (fixed dates: the same bytes for the
    same files)."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for name in sorted(files):
            info = zipfile.ZipInfo(f"{folder}/{name}", (1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            zf.writestr(info, files[name])
    return f"{folder}.zip", "application/zip", buf.getvalue()


def proof(app, game: Game):
    """Draw the game's proof sheet (every distinct card, labelled) as a PDF in memory."""
    from ..check.gather import drawing
    from ..write.pdf import pages_to_pdf
    from ..export.proof import proof_pages

    opts = app.studio.opts
    with drawing(game, "proof"):
        pdf = pages_to_pdf(proof_pages(game, opts), f"{game.manifest.name} — proof")
    return f"{game.id}-proof{'-low-ink' if opts.low_ink else ''}.pdf", PDF, pdf


def png(app, game: Game):
    """Draw a PNG of every card face and back, as `printshop export png` does, in a zip."""
    from ..export.images import card_images

    return zipped(f"{game.id}-png", card_images(game))


def pod(shop_id: str):
    """Return the maker of a print-on-demand shop's upload (`printshop export pod`)."""
    def make(app, game: Game):
        from ..export.pod import pod_export
        from ..export.shops import shop

        return zipped(f"{game.id}-pod-{shop_id}", pod_export(game, shop(shop_id)).files)
    return make


def shop_names() -> list[tuple[str, str]]:
    """Return (id, name) of the print-on-demand shops printshop knows."""
    from ..export.shops import shops

    return [(k, s.name) for k, s in shops().items()]


def find(what: str, game: Game):
    """Return the maker of a download named in a URL, or None."""
    if what == f"{game.id}-print-and-play.pdf":
        return print_and_play
    if what == "tts.zip":
        return tts
    if what == "proof.pdf":
        return proof
    if what == "png.zip":
        return png
    if what.startswith("pod/") and what.endswith(".zip") and \
            what[len("pod/"):-len(".zip")] in dict(shop_names()):
        return pod(what[len("pod/"):-len(".zip")])
    if what.startswith("decklist.") and what.split(".", 1)[1] in DECKLIST_TYPES:
        return decklist(what.split(".", 1)[1])
    if what.startswith("components/") and what.endswith(".pdf"):
        component = what[len("components/"):-len(".pdf")]
        if component in {p.id for p in game.parts}:
            return component_pdf(component)
    return None
