"""The command line: list, validate, build, with the example project and the built-in games."""

from __future__ import annotations

import hashlib
import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner
from pypdf import PdfReader

from conftest import EXAMPLE
from printshop.cli import main


def run(*args):
    return CliRunner().invoke(main, list(args))


def test_list_shows_games_components_and_card_counts():
    result = run("list", "--project", str(EXAMPLE))
    assert result.exit_code == 0
    assert "lantern-fair: Lantern Fair" in result.output
    assert "stalls" in result.output and "6 cards, 6 distinct" in result.output
    assert "18 tokens, 2 distinct" in result.output
    builtin = run("list", "deity")
    assert builtin.exit_code == 0 and "deity: Deity" in builtin.output


def test_validate_example_passes():
    result = run("validate", "--project", str(EXAMPLE))
    assert result.exit_code == 0 and "lantern-fair: ok (3 rules)" in result.output


def test_build_example_project(tmp_path):
    result = run("build", "--project", str(EXAMPLE), "--out", str(tmp_path), "--quiet")
    assert result.exit_code == 0, result.output
    out = tmp_path / "lantern-fair"
    assert sorted(p.name for p in out.iterdir()) == ["aid.pdf", "coins.pdf",
                                                     "lantern-fair-print-and-play.pdf",
                                                     "stalls.pdf"]
    assert not list(tmp_path.glob(".printshop-staging-*"))


def test_build_options_reach_the_pdf(tmp_path):
    result = run("build", "--project", str(EXAMPLE), "--out", str(tmp_path), "--quiet",
                 "--paper", "letter", "--layout", "single", "--backs", "duplex", "--bleed", "2")
    assert result.exit_code == 0, result.output
    reader = PdfReader(tmp_path / "lantern-fair" / "stalls.pdf")
    assert len(reader.pages) == 12  # six cards, each front then back
    trim = reader.pages[0].trimbox
    assert round(float(trim.width) * 25.4 / 72, 1) == 63.0
    contents = PdfReader(tmp_path / "lantern-fair" / "lantern-fair-print-and-play.pdf")
    assert round(float(contents.pages[0].mediabox.width)) == 612  # Letter


def test_unknown_game_is_a_clean_error(tmp_path):
    result = run("build", "nosuchgame", "--out", str(tmp_path))
    assert result.exit_code == 1
    assert "no game 'nosuchgame'; games here:" in result.output and "deity" in result.output
    assert not any(tmp_path.iterdir())


def test_bad_back_offset_is_a_usage_error():
    result = run("build", "--back-offset", "left")
    assert result.exit_code == 2 and "--back-offset" in result.output


def test_not_a_project_folder(tmp_path):
    result = run("list", "--project", str(tmp_path))
    assert result.exit_code == 1 and "not a printshop project" in result.output


def test_builds_are_byte_identical_across_processes(tmp_path):
    digests = []
    for name in ("one", "two"):
        out = tmp_path / name
        subprocess.run([sys.executable, "-m", "printshop.cli", "build", "deity", "--quiet",
                        "--out", str(out)], check=True, capture_output=True)
        digests.append({p.relative_to(out).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
                        for p in sorted((out / "deity").glob("*.pdf"))})
    assert digests[0] == digests[1] and len(digests[0]) == 7


def test_accented_names_and_suit_symbols_reach_the_pdf(tmp_path):
    import shutil
    project = tmp_path / "project"
    shutil.copytree(EXAMPLE, project)
    stalls = project / "data" / "lantern-fair" / "stalls.yaml"
    stalls.write_text(stalls.read_text(encoding="utf-8").replace(
        "Noodle Cart", "Café Élodie ♠♥♦♣"), encoding="utf-8")
    result = run("build", "--project", str(project), "--out", str(tmp_path / "out"), "--quiet")
    assert result.exit_code == 0, result.output
    text = PdfReader(tmp_path / "out" / "lantern-fair" / "stalls.pdf").pages[0].extract_text()
    assert "Café Élodie ♠♥♦♣" in text


def test_a_rebuild_skips_unchanged_components(tmp_path):
    import shutil

    from printshop.build import build
    from printshop.geometry import PrintOptions
    from printshop.project import Project

    project = tmp_path / "project"
    shutil.copytree(EXAMPLE, project)
    out = tmp_path / "out"
    first: list[str] = []
    build(Project.open(project), [], PrintOptions(), out, progress=first.append, jobs=1)
    before = {p.name: p.read_bytes() for p in (out / "lantern-fair").glob("*.pdf")}
    again: list[str] = []
    build(Project.open(project), [], PrintOptions(), out, progress=again.append, jobs=1)
    assert all(label.endswith("(unchanged)") for label in again) and len(again) == 3
    assert {p.name: p.read_bytes() for p in (out / "lantern-fair").glob("*.pdf")} == before
    # Editing the stall template redraws the stalls and nothing else.
    stall = project / "templates" / "lantern-fair" / "stall.svg.j2"
    stall.write_text(stall.read_text().replace("size=13", "size=12"))
    third: list[str] = []
    build(Project.open(project), [], PrintOptions(), out, progress=third.append, jobs=1)
    redrawn = [label for label in third if not label.endswith("(unchanged)")]
    assert redrawn == ["lantern-fair/stalls"] or sorted(redrawn) == sorted(
        ["lantern-fair/stalls", "lantern-fair/coins", "lantern-fair/aid"])
    assert (out / "lantern-fair" / "stalls.pdf").read_bytes() != before["stalls.pdf"]
    # Other print options are other inputs: nothing is taken from the cache.
    letter: list[str] = []
    build(Project.open(project), [], PrintOptions(paper="letter"), out, progress=letter.append,
          jobs=1)
    assert not any(label.endswith("(unchanged)") for label in letter)
