"""Hostile inputs of the third reliability round that the folder corpus cannot hold: links,
commands other than build, the map's seeds, and text that would act on a terminal."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from printshop.cli import main
from printshop.files.errors import printable

from conftest import EXAMPLE

DEEP = Path(__file__).parent / "hostile" / "130-deep-field-spec"


def run(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def clean_failure(result, *expected: str) -> None:
    """A clean located error: exit 1, no traceback, every expected line said."""
    assert result.exit_code == 1, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), \
        repr(result.exception)
    assert "Traceback" not in result.output
    for line in expected:
        assert line in result.output, f"expected {line!r} in:\n{result.output}"


@pytest.fixture
def project(tmp_path) -> Path:
    root = tmp_path / "project"
    shutil.copytree(EXAMPLE, root)
    return root


@pytest.mark.parametrize("command", [["validate"], ["list"], ["bom", "lantern-fair"],
                                     ["export", "decklist", "lantern-fair"],
                                     ["build", "--out", "OUT"]])
def test_a_field_spec_nested_300_deep_is_a_located_error_in_every_command(project, tmp_path,
                                                                           command):
    shutil.copy(DEEP / "data" / "lantern-fair" / "game.yaml",
                project / "data" / "lantern-fair" / "game.yaml")
    command = [str(tmp_path / "out") if c == "OUT" else c for c in command]
    clean_failure(run(*command, "--project", project),
                  "data/lantern-fair/game.yaml:27: components[0].fields.deep",
                  "field specs nest at most 16 deep")


@pytest.mark.parametrize("where, name, key", [
    ("data", "stalls.yaml", "components[0].data"),
    ("templates", "stall.svg.j2", "components[0].front")])
def test_a_loop_of_symbolic_links_is_a_located_error(project, tmp_path, where, name, key):
    folder = project / where / "lantern-fair"
    (folder / name).unlink()
    os.symlink("loop-b", folder / name)
    os.symlink(name, folder / "loop-b")
    clean_failure(run("build", "--out", tmp_path / "out", "--project", project),
                  f"{key}: '{name}' is a loop of symbolic links, not a file")
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("seed, expected", [
    ("²", "'²' is not a seed"), ("٣", "'٣' is not a seed"), ("1_000", "'1_000' is not a seed"),
    ("m2-standard-42\n", None)])
def test_a_seed_is_ascii_digits_or_a_printed_seed(tmp_path, seed, expected):
    result = run("map", "pocketciv", "--seed", seed, "--out", tmp_path / "maps")
    if expected is None:   # a printed seed read from a file may end with a newline
        assert result.exit_code == 0, result.output
    else:
        clean_failure(result, expected)


def test_counting_on_past_the_largest_seed_is_refused(tmp_path):
    clean_failure(run("map", "pocketciv", "--seed", "999999999999999999", "--count", "5",
                      "--out", tmp_path / "maps"),
                  "--count: 5 maps from seed 999999999999999999 on pass the largest seed")
    assert not (tmp_path / "maps").exists()


def _cards(project: Path, first: str) -> None:
    """Replace the example deck's first card with this YAML mapping."""
    path = project / "data" / "lantern-fair" / "stalls.yaml"
    lines = path.read_text(encoding="utf-8").splitlines()
    path.write_text("\n".join([lines[0], f"  - {first}"] + lines[2:]) + "\n", encoding="utf-8")


def test_an_id_with_a_newline_at_its_end_is_refused(project):
    _cards(project, '{id: "one\\n", name: Noodle Cart, stall: food, cost: 1, text: Gain 1.}')
    clean_failure(run("validate", "--project", project),
                  "cards[0].id: expected an id of lowercase letters")


@pytest.mark.parametrize("name, what", [
    ("Noodle\\nCart", "holds a line break"),
    ("Noodle\\e]52;c;SGVsbG8=\\aCart", "holds the control character U+001B"),
    ("Noodle\\x9bCart", "holds the control character U+009B")])
def test_a_card_name_holds_no_control_character(project, name, what):
    _cards(project, f'{{id: one, name: "{name}", stall: food, cost: 1, text: Gain 1.}}')
    result = run("validate", "--project", project)
    clean_failure(result, f"cards[0].name: ", what)
    assert "\x1b" not in result.output and "\x9b" not in result.output


def test_rules_text_keeps_its_line_breaks_but_no_escape(project):
    _cards(project, '{id: one, name: Cart, stall: food, cost: 1, text: "Gain 1.\\nThen rest."}')
    assert run("validate", "--project", project).exit_code == 0
    _cards(project, '{id: one, name: Cart, stall: food, cost: 1, text: "Gain 1.\\e[2J"}')
    clean_failure(run("validate", "--project", project),
                  "cards[0].text: ", "holds the control character U+001B")


def test_a_game_name_holds_no_control_character(project):
    manifest = project / "data" / "lantern-fair" / "game.yaml"
    manifest.write_text(manifest.read_text().replace("name: Lantern Fair",
                                                     'name: "Lantern\\e]0;owned\\aFair"', 1))
    result = run("list", "--project", project)
    clean_failure(result, "data/lantern-fair/game.yaml:3: name: ",
                  "holds the control character U+001B")
    assert "\x1b" not in result.output


def test_the_terminal_sees_controls_escaped():
    assert printable("a\x1b]52;c;SGVsbG8=\x07b\nc\td") == "a\\x1b]52;c;SGVsbG8=\\x07b\nc\td"


@pytest.mark.parametrize("host, warned", [("0.0.0.0", True), ("192.0.2.7", True),
                                          ("127.0.0.1", False), ("::1", False)])
def test_the_studio_warns_when_it_listens_beyond_this_computer(monkeypatch, host, warned):
    import uvicorn

    import printshop.serve as studio
    from printshop.files.project import Project

    class Socket:
        def getsockname(self):
            return (host, 8123)

        def close(self):
            pass

    monkeypatch.setattr(studio, "bind", lambda h, p: Socket())
    monkeypatch.setattr(uvicorn.Server, "run", lambda self, sockets: None)
    said: list[str] = []
    studio.serve(Project.open(EXAMPLE), None, host, 0, open_browser=False, say=said.append)
    warning = [s for s in said if s.startswith("warning:")]
    assert bool(warning) == warned, said
    if warned:
        assert "reached from the network" in warning[0] and "--host 127.0.0.1" in warning[0]


def test_a_game_folder_name_is_checked_as_an_id(project):
    (project / "data" / "lantern-fair").rename(project / "data" / "q?x=1")
    clean_failure(run("list", "--project", project), "data/'q?x=1': a game folder's name is "
                  "the game's id")


def test_a_facts_file_that_is_a_fifo_is_refused_not_read_as_no_facts(project):
    os.mkfifo(project / "data" / "lantern-fair" / "facts.yaml")
    clean_failure(run("validate", "--explain", "--project", project),
                  "data/lantern-fair/facts.yaml: expected a regular file, found a named pipe")


def test_a_card_table_is_at_most_a_thousand_columns_wide(project):
    manifest = project / "data" / "lantern-fair" / "game.yaml"
    manifest.write_text(manifest.read_text().replace("data: coins.yaml", "data: coins.csv"))
    head = "id,name,value," + ",".join(f"x{i}" for i in range(5000))
    (project / "data" / "lantern-fair" / "coins.csv").write_text(
        head + "\n" + "one,One,1" + "," * 5000 + "\n")
    clean_failure(run("validate", "--project", project),
                  "data/lantern-fair/coins.csv:1: row 1 has 5,003 cells; a card table has at "
                  "most 1,000 columns")


@pytest.mark.parametrize("command", [
    ["build", "lantern-fair"], ["proof", "lantern-fair"], ["export", "tts", "lantern-fair"],
    ["export", "png", "lantern-fair"], ["export", "pod", "lantern-fair", "--shop",
                                        "thegamecrafter"],
    ["export", "decklist", "lantern-fair", "--format", "csv", "--out",
     "output/lantern-fair/list.csv"],
    ["map", "pocketciv", "--seed", "3"]], ids=lambda c: " ".join(c[:2]))
def test_no_command_writes_through_a_shipped_output_link(project, tmp_path, monkeypatch,
                                                         command):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "m2-standard-3.yaml").write_text("the victim's own map\n")
    (project / "output").mkdir()
    for name in ("lantern-fair", "maps"):
        os.symlink(outside, project / "output" / name)
    monkeypatch.chdir(project)
    extra = [] if command[0] == "map" else ["--project", str(project)]
    result = run(*command, *extra)
    clean_failure(result, "is a symbolic link")
    assert sorted(p.name for p in outside.iterdir()) == ["m2-standard-3.yaml"]
    assert (outside / "m2-standard-3.yaml").read_text() == "the victim's own map\n"
