"""Faults a hostile folder can set off beyond the overlay corpus (tests/hostile/): options,
map files, read-only output and folders that change while they are watched.

Each one must end in a located message and exit 1 (exit 2 for a bad option), never a
traceback, and must leave the output as it was.
"""

from __future__ import annotations

import os
import re
import shutil
import warnings
from pathlib import Path

import pytest
from click.testing import CliRunner

from conftest import EXAMPLE
from printshop.cli import main
from printshop.load.geometry import PrintOptions
from printshop.layout.tiles import tile_plan
from printshop.load.models import MAX_OVERLAP
from printshop.files.project import Project
from printshop.watch import Watcher, watched_files
from printshop.games.pocketciv_maps.atlas import check_map_file
from printshop.games.pocketciv_maps.model import dump_map, load_map

REPO = Path(__file__).resolve().parent.parent
DRAWN_MAP = REPO / "examples" / "maps" / "brickfields-drawn.yaml"


def run(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def assert_clean_failure(result, code: int = 1):
    assert result.exit_code == code, result.output
    assert "Traceback" not in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)


@pytest.mark.parametrize("offset", ["nan,0", "0,inf", "-inf,1"])
def test_a_back_offset_that_is_not_a_number_is_refused(offset, tmp_path):
    result = run("build", "--quiet", "--back-offset", offset, "--out", tmp_path / "out")
    assert_clean_failure(result, 2)
    assert f"--back-offset: expected X,Y in millimetres, e.g. 1.5,-0.5, got '{offset}'" \
        in result.output
    assert not (tmp_path / "out").exists()


def test_map_coordinates_scaled_beyond_reason_are_a_located_error(tmp_path):
    world, _ = load_map(DRAWN_MAP.read_text(), "m.yaml")
    text = re.sub(r"\[(-?[\d.]+), (-?[\d.]+)\]",
                  lambda m: f"[{m[1]}e306, {m[2]}e306]", dump_map(world))
    path = tmp_path / "huge.yaml"
    path.write_text(text)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # numpy's overflow warnings were the first sign
        _, problems = check_map_file(path)
    assert [p.rule for p in problems] == ["pocketciv.map.coordinates"] * 8
    first = problems[0]
    assert first.line is not None and "expected coordinates from -1e+06 to 1e+06" in \
        first.message
    result = run("validate", "map", path)
    assert_clean_failure(result)
    assert "[pocketciv.map.coordinates] point 1 of line 1 of region" in result.output


# Output folders that take no files -------------------------------------------------------------

def _read_only_folders(tmp_path: Path) -> list[Path]:
    folder = tmp_path / "read-only"
    folder.mkdir()
    folder.chmod(0o555)
    # /proc takes no new files even from root, for whom a read-only mode means nothing.
    return [Path("/proc")] + ([folder] if os.geteuid() != 0 else [])


def _names(folder: Path) -> list[str]:
    """File names in a folder, leaving out /proc's process folders (they come and go)."""
    return sorted(p.name for p in folder.iterdir() if not p.name.isdigit())


def test_a_build_into_a_folder_that_takes_no_files_is_a_located_error(tmp_path):
    for out in _read_only_folders(tmp_path):
        before = _names(out)
        result = run("build", "lantern-fair", "--quiet", "--project", EXAMPLE, "--out", out)
        assert_clean_failure(result)
        assert f"{out}: cannot write into the output folder" in result.output
        assert result.output.rstrip().endswith("1 error, nothing written")
        assert _names(out) == before


@pytest.mark.parametrize("name", ["x.csv", "self/x.csv"])
def test_a_deck_list_into_a_folder_that_takes_no_files_is_a_located_error(name, tmp_path):
    for folder in _read_only_folders(tmp_path):
        out = folder / name
        result = run("export", "decklist", "lantern-fair", "--project", EXAMPLE, "--format",
                     "csv", "--out", out)
        assert_clean_failure(result)
        # /proc/self is a link: refused as one, before printshop tries to write there
        assert f"{out.parent}: cannot write into the output folder" in result.output or \
            f"{out.parent}: is a symbolic link" in result.output
        assert not out.exists()


# Watching folders that vanish -----------------------------------------------------------------

def _watcher(root: Path, out: Path, ids=("lantern-fair",)):
    messages: list[str] = []
    watcher = Watcher(Project.open(root), tuple(ids), PrintOptions(), out, messages.append,
                      jobs=1)
    return watcher, messages


def test_a_folder_renamed_while_it_is_scanned_is_skipped(tmp_path, monkeypatch):
    root = tmp_path / "project"
    shutil.copytree(EXAMPLE, root)
    (root / "templates" / "lantern-fair" / "extra").mkdir()
    (root / "templates" / "lantern-fair" / "extra" / "x.svg.j2").write_text("<g/>")
    real_scandir = os.scandir

    def scandir(path=".", *args):
        if Path(path).name == "extra":  # renamed between being listed and being read
            (root / "templates" / "lantern-fair" / "extra").rename(root / "moved")
        return real_scandir(path, *args)

    monkeypatch.setattr(os, "scandir", scandir)
    files = watched_files(Project.open(root), ["lantern-fair"])
    monkeypatch.undo()
    assert root / "data" / "lantern-fair" / "game.yaml" in files
    assert not any("extra" in p.parts for p in files)


def test_a_game_folder_renamed_while_watched_fails_that_build_and_watching_goes_on(tmp_path):
    root = tmp_path / "project"
    shutil.copytree(EXAMPLE, root)
    out = tmp_path / "out"
    watcher, messages = _watcher(root, out)
    assert watcher.start()
    good = (out / "lantern-fair" / "stalls.pdf").read_bytes()
    (root / "data" / "lantern-fair").rename(root / "data" / "lantern-fair-old")
    assert watcher.step() is False
    assert "the build failed" in messages[-1]
    assert "no game 'lantern-fair' (did you mean 'lantern-fair-old'?); games here: " \
        "lantern-fair-old" in messages[-1]
    assert watcher.step() is None  # still gone: nothing new to say
    (root / "data" / "lantern-fair-old").rename(root / "data" / "lantern-fair")
    assert watcher.step() is True
    assert (out / "lantern-fair" / "stalls.pdf").read_bytes() == good


def test_print_options_refuse_a_back_offset_that_is_not_a_number():
    with pytest.raises(ValueError, match="back_offset must be finite"):
        PrintOptions(back_offset=(float("nan"), 0.0))


@pytest.mark.parametrize("paper", ["a4", "letter"])
def test_every_board_the_manifest_allows_is_tiled_whole(paper):
    # Before overlaps were limited, one past the page window gave a single cropped tile.
    opts = PrintOptions(paper=paper)
    for w in (1, 150, 199, 200, 201, 283, 300, 601, 5000):
        for h in (1, 150, 195, 196, 282, 283, 600, 5000):
            for overlap in (0, 10, MAX_OVERLAP):
                tiles = tile_plan(w, h, opts, overlap).tiles
                assert max(t.x + t.w for t in tiles) >= w - 1e-6, (w, h, overlap)
                assert max(t.y + t.h for t in tiles) >= h - 1e-6, (w, h, overlap)


def test_validate_map_refuses_a_pipe_and_a_huge_file_without_reading_them(tmp_path):
    pipe = tmp_path / "pipe.yaml"
    os.mkfifo(pipe)
    result = run("validate", "map", pipe)            # would hang if the pipe were opened to read
    assert_clean_failure(result)
    assert f"{pipe}: expected a regular file, found a named pipe (FIFO)" in result.output
    big = tmp_path / "big.yaml"
    big.write_bytes(b"#" * (3 * 1024 * 1024))
    result = run("validate", "map", big)
    assert_clean_failure(result)
    assert f"{big}: the file is 3,145,728 bytes; at most 2,097,152 bytes are read" in result.output
