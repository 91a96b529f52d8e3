"""Spreadsheet data: a deck's cards from CSV, with columns mapped to fields and every error
named by row and column."""

from __future__ import annotations

import csv
import io
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner
from pypdf import PdfReader

from conftest import EXAMPLE, edit_yaml
from printshop.cli import main
from printshop.files.errors import PrintshopError
from printshop.export import load_one
from printshop.files.project import Project


def run(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def csv_project(tmp_path: Path, coins: str, columns: dict | None = None,
                fields: dict | None = None) -> Path:
    """Copy the example with its coins read from a CSV file instead of YAML."""
    root = tmp_path / "project"
    shutil.copytree(EXAMPLE, root)
    data = root / "data" / "lantern-fair"
    (data / "coins.yaml").unlink()
    (data / "coins.csv").write_text(coins, encoding="utf-8")

    def change(manifest):
        comp = next(c for c in manifest["components"] if c["id"] == "coins")
        comp["data"] = "coins.csv"
        if columns:
            comp["columns"] = columns
        comp["fields"].update(fields or {})
    edit_yaml(data / "game.yaml", change)
    return root


def problems(root: Path) -> list[str]:
    with pytest.raises(PrintshopError) as info:
        load_one(Project.open(root), "lantern-fair")
    return [str(p) for p in info.value.problems]


def test_csv_deck_loads_like_the_yaml_one(tmp_path):
    root = csv_project(tmp_path, "Coin,name,value,qty\none,One,1,12\nthree,Three,3,6\n",
                       columns={"Coin": "id", "qty": "copies"})
    csv_coins = load_one(Project.open(root), "lantern-fair").part("coins").cards
    yaml_coins = load_one(Project.open(EXAMPLE), "lantern-fair").part("coins").cards
    assert [(c.id, c.name, c.copies, c.fields) for c in csv_coins] == \
        [(c.id, c.name, c.copies, c.fields) for c in yaml_coins]
    result = run("build", "--project", root, "--out", tmp_path / "out", "--quiet")
    assert result.exit_code == 0, result.output
    assert len(PdfReader(tmp_path / "out" / "lantern-fair" / "coins.pdf").pages) == 2


def test_a_deck_list_exported_as_csv_loads_back_as_deck_data(tmp_path):
    result = run("export", "decklist", "lantern-fair", "--project", EXAMPLE, "--deck", "stalls",
                 "--format", "csv")
    assert result.output.startswith("id,name,copies,")   # one deck: no deck column to drop
    root = tmp_path / "project"
    shutil.copytree(EXAMPLE, root)
    data = root / "data" / "lantern-fair"
    (data / "stalls.csv").write_text(result.output, encoding="utf-8")
    edit_yaml(data / "game.yaml", lambda m: m["components"][0].update(data="stalls.csv"))
    from_csv = load_one(Project.open(root), "lantern-fair").part("stalls").cards
    shipped = load_one(Project.open(EXAMPLE), "lantern-fair").part("stalls").cards
    assert [(c.id, c.name, c.copies, c.fields) for c in from_csv] == \
        [(c.id, c.name, c.copies, c.fields) for c in shipped]


def test_lists_in_cells_are_separated_by_semicolons(tmp_path):
    root = csv_project(tmp_path, "id,name,value,copies,stalls\none,One,1,12,food; games\n"
                                 "three,Three,3,6,\n",
                       fields={"stalls": {"type": "list", "required": False, "default": [],
                                          "items": {"type": "enum", "values": "stalls"}}})
    cards = load_one(Project.open(root), "lantern-fair").part("coins").cards
    assert cards[0].fields["stalls"] == ["food", "games"] and cards[1].fields["stalls"] == []


def test_errors_name_the_row_and_the_column(tmp_path):
    root = csv_project(tmp_path, "id,name,value,copies,stalls\n"
                                 "one,One,1,12,food\n"
                                 "\n"                                   # a blank row counts
                                 'three,"Three\nthe coin",x,6,lights\n'  # a cell with a break
                                 "five,Five,9,one,food; toys\n",
                       fields={"stalls": {"type": "list", "items": {"type": "enum",
                                                                   "values": "stalls"}}})
    found = problems(root)
    assert "data/lantern-fair/coins.csv:4: row 4, column 'value': expected a whole number " \
           "from 1 to 5, got 'x'" in found
    assert "data/lantern-fair/coins.csv:6: row 5, column 'value': expected a whole number " \
           "from 1 to 5, got 9" in found
    assert "data/lantern-fair/coins.csv:6: row 5, column 'copies': expected a whole number " \
           "of copies from 1 to 1000, got 'one'" in found
    assert "data/lantern-fair/coins.csv:6: row 5, column 'stalls', item 2: expected one of " \
           "food, games, lights; got 'toys'" in found
    # A name is one line: the break a spreadsheet allows inside a cell is refused there.
    assert any(f.startswith("data/lantern-fair/coins.csv:4: row 4, column 'name': 'Three\\nthe"
                            " coin' holds a line break") for f in found)
    result = run("validate", "--project", root)
    assert result.exit_code == 1 and "5 errors, nothing written" in result.output


def test_mapped_columns_and_duplicate_ids_use_the_spreadsheet_names(tmp_path):
    root = csv_project(tmp_path, "Coin,Title,Worth,Count\none,One,1,12\none,Uno,7,6\n",
                       columns={"Coin": "id", "Title": "name", "Worth": "value",
                                "Count": "copies"})
    found = problems(root)
    assert "data/lantern-fair/coins.csv:3: row 3, column 'Coin': duplicate card id 'one' " \
           "(first used in row 2)" in found
    assert "data/lantern-fair/coins.csv:3: row 3, column 'Worth': expected a whole number " \
           "from 1 to 5, got 7" in found


def test_an_unknown_column_is_reported_once_at_the_header(tmp_path):
    root = csv_project(tmp_path, "id,name,value,copies,colour\none,One,1,12,gold\n"
                                 "three,Three,3,6,silver\n")
    found = problems(root)
    assert found == ["data/lantern-fair/coins.csv:1: column 'colour': unknown column; accepted "
                     "columns: id, name, copies, value (or name the field it holds under "
                     "'columns:' in the deck's manifest entry)"]


def test_a_column_mapped_to_no_field_is_a_manifest_error(tmp_path):
    root = csv_project(tmp_path, "id,name,value,qty\none,One,1,12\n",
                       columns={"qty": "count"})
    found = problems(root)
    assert any(p.startswith("data/lantern-fair/game.yaml:") and
               "components[1].columns.qty: 'count' is no field of this deck; expected one of "
               "id, name, copies, value" in p for p in found)


def test_extra_cells_must_be_empty(tmp_path):
    root = csv_project(tmp_path, "id,name,value,copies\none,One,1,12,,\nthree,Three,3,6,oops\n")
    found = problems(root)
    assert found == ["data/lantern-fair/coins.csv:3: row 3 has 5 cells but the header has "
                     "4 columns"]
