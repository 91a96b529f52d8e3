"""A deck list brought back: export a CSV, edit it as a spreadsheet saves it (a BOM, CRLF),
import it into the game's data, rebuild."""

from __future__ import annotations

import shutil
from pathlib import Path

from click.testing import CliRunner

from conftest import EXAMPLE
from printshop.cli import main


def run(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def project(tmp_path: Path) -> Path:
    copy = tmp_path / "project"
    shutil.copytree(EXAMPLE, copy)
    return copy


def spreadsheet(tmp_path: Path, text: str, edits: dict[str, str]) -> Path:
    """Return the CSV edited line by line and saved with a BOM and CRLF, as Excel does."""
    lines = text.splitlines()
    for start, new in edits.items():
        i = next(n for n, line in enumerate(lines) if line.startswith(start))
        lines[i] = new
    path = tmp_path / "edited.csv"
    path.write_bytes(("\r\n".join(lines) + "\r\n").encode("utf-8-sig"))
    return path


def test_export_edit_copies_import_and_rebuild(tmp_path):
    game = project(tmp_path)
    exported = run("export", "decklist", "lantern-fair", "--project", game, "--format", "csv",
                   "--out", "-")
    assert exported.exit_code == 0, exported.output
    assert exported.output.startswith("deck,id,name,copies,"), "the CSV itself on stdout"
    stalls = game / "data" / "lantern-fair" / "stalls.yaml"
    before = stalls.read_text()
    edited = spreadsheet(tmp_path, exported.output, {
        "coins,one,": "coins,one,One,14,,,,1",
        "coins,three,": "coins,three,Three,5,,,,3",
        "stalls,goldfish,": "stalls,goldfish,Goldfish Scoop,1,games,4,"
                            "Each opponent pays you :coin:.,"})

    dry = run("import", "lantern-fair", edited, "--project", game, "--dry-run")
    assert dry.exit_code == 0, dry.output
    assert dry.output.splitlines() == [
        "data/lantern-fair/stalls.yaml: stalls/goldfish: cost: 3 -> 4",
        "data/lantern-fair/coins.yaml: coins/one: copies: 12 -> 14",
        "data/lantern-fair/coins.yaml: coins/three: copies: 6 -> 5",
        "3 changes; nothing written (--dry-run)"]
    assert stalls.read_text() == before, "a dry run writes nothing"

    done = run("import", "lantern-fair", edited, "--project", game)
    assert done.exit_code == 0, done.output
    # edited where each value stands: the other cards and the layout as written
    changed = [(a, b) for a, b in zip(before.splitlines(), stalls.read_text().splitlines())
               if a != b]
    assert changed == [(changed[0][0], changed[0][0].replace("cost: 3,", "cost: 4,"))]
    assert (game / "data" / "lantern-fair" / "coins.yaml").read_text() == (
        "cards:\n  - {id: one, name: One, value: 1, copies: 14}\n"
        "  - {id: three, name: Three, value: 3, copies: 5}\n")

    again = run("export", "decklist", "lantern-fair", "--project", game, "--format", "csv")
    assert "coins,one,One,14," in again.output and "coins,three,Three,5," in again.output
    assert "stalls,goldfish,Goldfish Scoop,1,games,4," in again.output
    built = run("build", "lantern-fair", "--project", game, "--out", tmp_path / "out",
                "--quiet")
    assert built.exit_code == 0, built.output
    listed = run("list", "lantern-fair", "--project", game)
    assert "(19 tokens, 2 distinct)" in listed.output
    assert run("import", "lantern-fair", edited, "--project", game).output == "no changes\n"


def test_a_bad_cell_is_located_and_nothing_is_written(tmp_path):
    game = project(tmp_path)
    exported = run("export", "decklist", "lantern-fair", "--project", game, "--format", "csv")
    stalls = game / "data" / "lantern-fair" / "stalls.yaml"
    before = stalls.read_text()
    edited = spreadsheet(tmp_path, exported.output, {
        "stalls,noodle-cart,": "stalls,noodle-cart,Noodle Cart,2,food,1,"
                               "Gain :coin: when a neighbour opens a **food** stall.,",
        "stalls,sweet-buns,": "stalls,sweet-buns,Sweet Buns,many,food,2,x,",
        "stalls,ring-toss,": "stalls,ring-tos,Ring Toss,1,games,2,x,"})
    result = run("import", "lantern-fair", edited, "--project", game)
    assert result.exit_code == 1
    assert f"{edited}:3: column 'copies' of card 'sweet-buns': 'many'" in result.output
    assert f"{edited}:4: no card 'ring-tos'" in result.output
    assert "Traceback" not in result.output
    assert stalls.read_text() == before
    # a value the game's schema refuses is found in the edited file, before it is written
    edited = spreadsheet(tmp_path, exported.output, {
        "stalls,goldfish,": "stalls,goldfish,Goldfish Scoop,1,games,9,x,"})
    result = run("import", "lantern-fair", edited, "--project", game)
    assert result.exit_code == 1
    assert "data/lantern-fair/stalls.yaml:5: cards[3].cost: " in result.output, result.output
    assert stalls.read_text() == before


def test_block_and_flow_cards_are_edited_where_the_values_stand():
    from printshop.export.decklist_import import edited

    text = ("# the deck\ncards:\n  - id: a   # first\n    name: A\n    tags: [x, y]\n"
            "    cost: 2\n  - id: b\n    name: 'B'\n  - {id: c, name: C}\n")
    assert edited(text, [(0, "cost", 3), (1, "copies", 4), (2, "copies", 2),
                         (0, "tags", ["x", "z"]), (1, "name", "Bee: two")]) == (
        "# the deck\ncards:\n  - id: a   # first\n    name: A\n    tags: [x, z]\n"
        "    cost: 3\n  - id: b\n    name: 'Bee: two'\n    copies: 4\n"
        "  - {id: c, name: C, copies: 2}\n")
