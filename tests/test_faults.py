"""Faults a hostile folder can set off beyond the overlay corpus (tests/hostile/): options,
map files, read-only output and folders that change while they are watched.

Each one must end in a located message and exit 1 (exit 2 for a bad option), never a
traceback, and must leave the output as it was.
"""

from __future__ import annotations

import re
import warnings
from pathlib import Path

import pytest
from click.testing import CliRunner

from printshop.cli import main
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
