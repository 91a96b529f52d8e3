"""Exports draw each face once and find unchanged images again; a re-export leaves only its
own current files; Ghostscript that fails is an error, not a traceback."""

from __future__ import annotations

import shutil
import subprocess

import pytest
from click.testing import CliRunner

from conftest import EXAMPLE
from printshop.cli import main
from printshop.export import faceimages
from printshop.export.images import export_png
from printshop.export.tts import export_tts
from printshop.files.project import Project
from printshop.scaffold import new_game

DPI = 40


@pytest.fixture
def fair(tmp_path):
    root = tmp_path / "project"
    shutil.copytree(EXAMPLE, root)
    return root


def stalls(root):
    return root / "data" / "lantern-fair" / "stalls.yaml"


def png_export(root, out, deck="stalls") -> tuple[dict[str, bytes], int]:
    """Export the stalls as PNGs; return the images by name and how many faces were drawn."""
    before = faceimages.drawings
    export_png(Project.open(str(root)), "lantern-fair", out, DPI, deck=deck)
    return ({p.relative_to(out).as_posix(): p.read_bytes() for p in out.rglob("*.png")
             if ".printshop-cache" not in p.parts}, faceimages.drawings - before)


def test_a_second_export_after_one_card_changed_redraws_that_card_alone(fair, tmp_path):
    out = tmp_path / "png"
    first, drawn = png_export(fair, out)
    # six distinct fronts and the back all six share
    assert drawn == 7 and len(first) == 7 and "stalls/back.png" in first
    again, drawn = png_export(fair, out)
    assert drawn == 0 and again == first, "nothing changed: nothing drawn, the same bytes"
    path = stalls(fair)
    path.write_text(path.read_text(encoding="utf-8").replace("Ring Toss", "Hoop Toss"),
                    encoding="utf-8")
    changed, drawn = png_export(fair, out)
    assert drawn == 1
    assert [n for n in first if changed[n] != first[n]] == ["stalls/ring-toss.png"]


def test_an_edited_or_planted_image_is_drawn_again_not_trusted(fair, tmp_path):
    out = tmp_path / "png"
    first, _ = png_export(fair, out)
    (out / "stalls" / "goldfish.png").write_bytes(first["stalls/noodle-cart.png"])
    again, drawn = png_export(fair, out)
    assert drawn == 1 and again == first


def test_a_face_many_cards_share_is_drawn_once_per_export(fair, tmp_path):
    # TTS: the stalls' back fills the sheets' last slot and is the deck's back image; each
    # coin's back is its front template drawn again
    before = faceimages.drawings
    export_tts(Project.open(str(fair)), "lantern-fair", tmp_path / "tts", dpi=DPI)
    from printshop.export import drawn_cards, load_one
    from printshop.load.geometry import PrintOptions

    game = load_one(Project.open(str(fair)), "lantern-fair")
    distinct = set()
    for part in game.parts:
        if part.kind in ("deck", "tokens"):
            distinct |= {f.svg for _, front, back in drawn_cards(game, part, PrintOptions())
                         for f in (front, back) if f is not None}
    # the deck's shared back is asked for twice (a sheet cell and its own file): one image
    assert faceimages.drawings - before == len(distinct)


def test_a_card_taken_out_of_the_data_loses_its_image_and_other_files_stay(fair, tmp_path):
    out = tmp_path / "png"
    first, _ = png_export(fair, out, deck=None)
    assert "stalls/goldfish.png" in first
    (out / "notes.txt").write_text("mine")
    (out / "stalls" / "mine.png").write_bytes(b"a file of the user's own")
    path = stalls(fair)
    path.write_text("\n".join(line for line in path.read_text(encoding="utf-8").splitlines()
                              if "goldfish" not in line) + "\n", encoding="utf-8")
    again, _ = png_export(fair, out, deck=None)
    assert set(first) - set(again) == {"stalls/goldfish.png"}
    assert not (out / "stalls" / "goldfish.png").exists()
    assert (out / "notes.txt").read_text() == "mine"
    assert (out / "stalls" / "mine.png").read_bytes() == b"a file of the user's own"
    # a deck exported alone leaves the other decks' images where they are
    coins = {n for n in again if n.startswith("coins/")}
    assert coins
    png_export(fair, out, deck="stalls")
    assert all((out / n).exists() for n in coins)


def test_a_planted_export_list_removes_nothing(fair, tmp_path):
    out = tmp_path / "png"
    png_export(fair, out)
    (out / "keep.txt").write_text("mine")
    listing = out / ".printshop-cache" / "export.json"
    listing.write_text(listing.read_text().replace('"stalls/back.png"',
                                                   '"keep.txt", "stalls/back.png"'))
    png_export(fair, out)
    assert (out / "keep.txt").read_text() == "mine"


def test_tts_names_a_one_page_sheet_of_pages_auto_without_a_page_number(tmp_path):
    new_game("harbour", tmp_path)
    out = tmp_path / "tts"
    export_tts(Project.open(str(tmp_path)), "harbour", out, dpi=DPI)
    names = {p.name for p in out.glob("*.png")}
    assert "harbour-rules.png" in names and "harbour-rules-1.png" not in names
    assert '"Nickname": "' in (out / "harbour.json").read_text()


@pytest.mark.parametrize("failure, said", [
    (subprocess.TimeoutExpired("gs", 600), "total_render_seconds"),
    (FileNotFoundError(2, "No such file or directory"), "could not be run"),
])
def test_ghostscript_that_times_out_or_is_missing_is_a_located_error(monkeypatch, tmp_path,
                                                                      failure, said):
    def fail(*args, **kwargs):
        raise failure

    monkeypatch.setattr(subprocess, "run", fail)
    out = tmp_path / "dtc"
    result = CliRunner().invoke(main, ["export", "pod", "lantern-fair", "--project",
                                       str(EXAMPLE), "--shop", "dtc", "--out", str(out)])
    assert result.exit_code == 1, result.output
    assert isinstance(result.exception, SystemExit), "an error message, not a traceback"
    assert "Ghostscript" in result.output and said in result.output
    assert ".pdf" in result.output, "the message names the file being checked"
    assert not out.exists() or not any(out.iterdir()), "nothing written"


@pytest.mark.parametrize("export", ["png", "tts", "tgc", "dtc"])
def test_every_export_reports_its_progress_up_to_the_end(export, tmp_path):
    from printshop.export.pod import export_pod

    heard = []
    project, out = Project.open(str(EXAMPLE)), tmp_path / export

    def progress(done, total):
        heard.append((done, total))

    if export == "png":
        export_png(project, "lantern-fair", out, DPI, progress=progress)
    elif export == "tts":
        export_tts(project, "lantern-fair", out, dpi=DPI, progress=progress)
    else:
        export_pod(project, "lantern-fair", export, out, progress=progress)
    assert heard, "the bar hears of the work"
    totals = {total for _, total in heard}
    assert len(totals) == 1, "one total for the whole export"
    dones = [done for done, _ in heard]
    assert dones == sorted(dones) and dones[-1] == totals.pop(), "it ends full"
