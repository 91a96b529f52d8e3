"""The studio's downloads, each made by the library call the command line makes."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

from ..errors import PrintshopError
from ..models import Game
from .files import read_project_file

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
    """Write the Tabletop Simulator export into output/<game>/tts and send it as a zip."""
    from ..export.tts import export_tts

    out = Path(app.out_dir) / game.id / "tts"
    written = export_tts(app.studio.project, game.id, out)
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for path in sorted(written):
            rel = Path(path).resolve().relative_to(out.resolve()).as_posix()
            info = zipfile.ZipInfo(f"{game.id}-tts/{rel}", (1980, 1, 1, 0, 0, 0))
            zf.writestr(info, read_project_file(out, rel))
    return f"{game.id}-tts.zip", "application/zip", buf.getvalue()


def find(what: str, game: Game):
    """Return the maker of a download named in a URL, or None."""
    if what == f"{game.id}-print-and-play.pdf":
        return print_and_play
    if what == "tts.zip":
        return tts
    if what.startswith("decklist.") and what.split(".", 1)[1] in DECKLIST_TYPES:
        return decklist(what.split(".", 1)[1])
    if what.startswith("components/") and what.endswith(".pdf"):
        component = what[len("components/"):-len(".pdf")]
        if component in {p.id for p in game.parts}:
            return component_pdf(component)
    return None
