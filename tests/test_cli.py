"""The command line: list, validate, build, with the example project and the built-in games."""

from __future__ import annotations

import hashlib
import re
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
    from printshop.load.geometry import PrintOptions
    from printshop.files.project import Project

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


# -- Courtesy: help, summaries, suggestions ---------------------------------------------

def _commands(group, prefix=()):
    """Yield (name path, command) for every command under a click group."""
    import click

    for name, cmd in sorted(group.commands.items()):
        yield prefix + (name,), cmd
        if isinstance(cmd, click.Group):
            yield from _commands(cmd, prefix + (name,))


def test_dash_h_is_help_everywhere():
    assert run("-h").exit_code == 0 and "Commands:" in run("-h").output
    for path, _ in _commands(main):
        result = run(*path, "-h")
        assert result.exit_code == 0 and "Usage:" in result.output, path


def test_every_option_of_every_command_says_what_it_does():
    import click

    for path, cmd in _commands(main):
        for param in cmd.params:
            if isinstance(param, click.Option):
                assert param.help and "\n" not in param.help.strip(), (path, param.name)


def test_no_help_text_is_cut_off():
    for path in [()] + [p for p, _ in _commands(main)]:
        text = run(*path, "--help").output
        # "[ARGS]..." and "FILE..." mean "any number"; a cut leaves "words..." at a line end.
        body = [line for line in text.splitlines() if not line.startswith("Usage:")]
        assert not any(re.search(r"[a-z,]\.\.\.$", line.rstrip()) for line in body), path


def test_unknown_names_get_the_nearest_suggested(tmp_path):
    game = run("build", "deiti", "--out", str(tmp_path))
    assert game.exit_code == 1 and "no game 'deiti' (did you mean 'deity'?)" in game.output
    assert "Traceback" not in game.output
    deck = run("export", "decklist", "deity", "--deck", "nation")
    assert deck.exit_code == 1 and "no deck 'nation' (did you mean 'nations'?)" in deck.output
    far = run("build", "zzzz", "--out", str(tmp_path))
    assert "did you mean" not in far.output


def test_build_closes_with_a_summary_and_names_unchanged_files(tmp_path):
    first = run("build", "--project", str(EXAMPLE), "--out", str(tmp_path))
    assert first.exit_code == 0, first.output
    lines = first.output.strip().splitlines()
    assert sum(line.startswith("wrote ") for line in lines) == 4
    # The cover sheet counts, and one-sided pages have empty backs (the file prints duplex).
    assert lines[-1] == (f"4 files written in {tmp_path}; the print-and-play files hold 8 pages "
                         "on 4 sheets (1 of 250-300 gsm card, 1 of 300 gsm card, 2 of plain "
                         "paper)")
    again = run("build", "--project", str(EXAMPLE), "--out", str(tmp_path))
    lines = again.output.strip().splitlines()
    assert not any(line.startswith("wrote ") for line in lines)
    assert sum(line.startswith("unchanged ") for line in lines) == 4
    assert lines[-1].startswith("0 files written, 4 unchanged in ")
    assert "8 pages on 4 sheets" in lines[-1]


def test_quiet_prints_nothing_but_errors(tmp_path):
    quiet = run("build", "--project", str(EXAMPLE), "--out", str(tmp_path), "--quiet")
    assert quiet.exit_code == 0 and quiet.output == ""
    failed = run("build", "nosuchgame", "--out", str(tmp_path), "--quiet")
    assert failed.exit_code == 1 and "no game 'nosuchgame'" in failed.output
