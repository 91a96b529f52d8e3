"""Tabletop Simulator: the saved object against the fields TTS reads, real scale, image limits.

The schema below is written from TTS's save-file documentation,
https://kb.tabletopsimulator.com/custom-content/save-file-format/ (save, ObjectStates,
Transform, CustomDeck, CustomImage) and the object-data declarations of
https://app.unpkg.com/@typed-tabletop-simulator/declaration@2.2.1/files/src/objectData.d.ts
(CardID, DeckIDs, ContainedObjects, CustomTile). Every key printshop writes must be one TTS
reads, with the type TTS reads it as.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner
from PIL import Image

from conftest import EXAMPLE
from printshop.cli import main
from printshop.export.tts import MAX_SHEET_PX, MM_PER_UNIT, TILE_UNITS_AT_SCALE_1

NUM = (int, float)
TRANSFORM = {k: NUM for k in ("posX", "posY", "posZ", "rotX", "rotY", "rotZ",
                               "scaleX", "scaleY", "scaleZ")}
CUSTOM_DECK = {"FaceURL": str, "BackURL": str, "NumWidth": int, "NumHeight": int,
               "BackIsHidden": bool, "UniqueBack": bool, "Type": int}
CUSTOM_TILE = {"Type": int, "Thickness": NUM, "Stackable": bool, "Stretch": bool}
CUSTOM_IMAGE = {"ImageURL": str, "ImageSecondaryURL": str, "ImageScalar": NUM,
                "WidthScale": NUM, "CustomTile": CUSTOM_TILE}
OBJECT = {"GUID": str, "Name": str, "Nickname": str, "Description": str,
          "Transform": TRANSFORM}
CARD = {**OBJECT, "CardID": int, "CustomDeck": {"*": CUSTOM_DECK}}
OBJECTS = {
    "Card": CARD,
    "DeckCustom": {**OBJECT, "DeckIDs": [int], "CustomDeck": {"*": CUSTOM_DECK},
                   "ContainedObjects": [CARD]},
    "Custom_Tile": {**OBJECT, "CustomImage": CUSTOM_IMAGE},
}
OBJECTS["Bag"] = {**OBJECT, "ContainedObjects": [OBJECTS["Custom_Tile"]]}
SAVE = {k: str for k in ("SaveName", "GameMode", "Date", "VersionNumber", "Table", "Sky",
                         "Note", "Rules", "XmlUI", "LuaScript", "LuaScriptState")}
SAVE.update(ObjectStates=list, TabStates=dict)


def conforms(value, schema, where: str) -> list[str]:
    """Return every way ``value`` strays from ``schema`` (dicts: exact keys; lists: items)."""
    if isinstance(schema, dict):
        if not isinstance(value, dict):
            return [f"{where}: expected an object"]
        if set(schema) == {"*"}:
            return [e for k, v in value.items() for e in conforms(v, schema["*"], f"{where}.{k}")]
        errors = [f"{where}: TTS reads no key {k!r}" for k in value if k not in schema]
        errors += [f"{where}: missing {k!r}" for k in schema if k not in value]
        return errors + [e for k in schema if k in value
                         for e in conforms(value[k], schema[k], f"{where}.{k}")]
    if isinstance(schema, list):
        if not isinstance(value, list):
            return [f"{where}: expected a list"]
        return [e for i, v in enumerate(value) for e in conforms(v, schema[0], f"{where}[{i}]")]
    if schema is NUM:
        ok = isinstance(value, NUM) and not isinstance(value, bool)
    elif schema is int:
        ok = isinstance(value, int) and not isinstance(value, bool)
    else:
        ok = isinstance(value, schema)
    return [] if ok else [f"{where}: expected {schema}, got {value!r}"]


def check_tts_schema(save: dict) -> None:
    errors = conforms(save, SAVE, "save")
    for i, obj in enumerate(save["ObjectStates"]):
        where = f"ObjectStates[{i}]"
        assert obj.get("Name") in OBJECTS, f"{where}: unknown object {obj.get('Name')!r}"
        errors += conforms(obj, OBJECTS[obj["Name"]], where)
        assert obj["Nickname"], f"{where}: every object is named"
        assert re.fullmatch(r"[0-9a-f]{6}", obj["GUID"])
        cards = [obj] if obj["Name"] == "Card" else \
            obj["ContainedObjects"] if obj["Name"] == "DeckCustom" else []
        for card in cards:
            assert str(card["CardID"] // 100) in card["CustomDeck"]
    assert not errors, "\n".join(errors)
    guids = [o["GUID"] for o in save["ObjectStates"]]
    assert len(guids) == len(set(guids)), "GUIDs are unique"


def run(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def board_project(tmp_path: Path) -> Path:
    """Lantern Fair with a 400 x 300 mm board added."""
    project = tmp_path / "project"
    shutil.copytree(EXAMPLE, project)
    (project / "templates" / "lantern-fair" / "map.svg.j2").write_text(
        '<rect x="0" y="0" width="{{ size.w }}" height="{{ size.h }}" fill="#7a6"/>\n')
    manifest = project / "data" / "lantern-fair" / "game.yaml"
    manifest.write_text(manifest.read_text().replace(
        "rules:\n", "  - id: map\n    kind: board\n    name: Fair ground\n    size: [400, 300]"
        "\n    template: map.svg.j2\nrules:\n", 1))
    return project


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("tts")
    out = tmp / "out"
    result = run("export", "tts", "lantern-fair", "--project", board_project(tmp), "--out", out,
                 "--dpi", "100")
    assert result.exit_code == 0, result.output
    return out, json.loads((out / "lantern-fair.json").read_text())


def real_size_mm(obj: dict) -> float:
    """Return the longer side in mm that a Custom_Tile shows at its Transform scale."""
    return obj["Transform"]["scaleX"] * TILE_UNITS_AT_SCALE_1 * MM_PER_UNIT


def test_the_saved_object_has_only_fields_tts_reads(exported):
    check_tts_schema(exported[1])


def test_deity_saved_object_has_only_fields_tts_reads(tmp_path):
    result = run("export", "tts", "deity", "--out", tmp_path, "--dpi", "50")
    assert result.exit_code == 0, result.output
    check_tts_schema(json.loads((tmp_path / "deity.json").read_text()))


def test_boards_tokens_and_aids_are_tiles_at_their_real_size(exported):
    out, save = exported
    by_name = {}
    for obj in save["ObjectStates"]:
        by_name.setdefault(obj["Nickname"], []).append(obj)
    board, = by_name["Fair ground"]
    assert board["Name"] == "Custom_Tile"
    assert real_size_mm(board) == pytest.approx(400, abs=0.5)
    assert board["Transform"]["scaleX"] == board["Transform"]["scaleZ"]
    image = Image.open(out / "lantern-fair-map.png")
    assert image.size[0] / image.size[1] == pytest.approx(400 / 300, abs=0.01)
    one, = by_name["One x12"]
    three, = by_name["Three x6"]
    assert one["Name"] == three["Name"] == "Bag", "each token's copies in a bag"
    assert len(one["ContainedObjects"]) == 12 and len(three["ContainedObjects"]) == 6
    coins = one["ContainedObjects"] + three["ContainedObjects"]
    assert len({c["GUID"] for c in coins}) == 18
    for coin in coins:
        assert real_size_mm(coin) == pytest.approx(25, abs=0.1)
        assert coin["CustomImage"]["CustomTile"]["Stackable"] is True
    aid, = by_name["How to play"]
    assert real_size_mm(aid) == pytest.approx(297, abs=0.5)    # an A4 page


def test_the_last_slot_of_a_sheet_holds_the_back(exported):
    out, save = exported
    deck = next(o for o in save["ObjectStates"] if o["Name"] == "DeckCustom")
    entry = deck["CustomDeck"]["1"]
    assert entry["BackIsHidden"] is True
    sheet = Image.open(out / Path(entry["FaceURL"]).name).convert("RGB")
    back = Image.open(out / Path(entry["BackURL"]).name).convert("RGB")
    w, h = back.size
    last = entry["NumWidth"] * entry["NumHeight"] - 1
    x, y = (last % entry["NumWidth"]) * w, (last // entry["NumWidth"]) * h
    assert sheet.crop((x, y, x + w, y + h)).tobytes() == back.tobytes()


def test_no_image_passes_4096_pixels_and_the_readme_says_where_dpi_was_lowered(tmp_path):
    result = run("export", "tts", "deity", "--out", tmp_path, "--dpi", "600")
    assert result.exit_code == 0, result.output
    for png in tmp_path.glob("*.png"):
        assert max(Image.open(png).size) <= MAX_SHEET_PX, png.name
    readme = (tmp_path / "README.txt").read_text()
    assert "Resolution lowered (TTS advises at most 4096 px a side):" in readme
    assert "deity-turn-reference.png: drawn at" in readme


def test_local_files_are_named_for_the_cloud_manager_and_the_readme_says_what_to_do(exported):
    out, save = exported
    assert all(p.name.startswith("lantern-fair-") for p in out.glob("*.png"))
    readme = (out / "README.txt").read_text()
    assert "Upload All Loaded Files" in readme and "--base-url" in readme
    assert "Saves/Saved Objects" in readme


def test_base_url_addresses_every_image_under_the_prefix(tmp_path):
    result = run("export", "tts", "lantern-fair", "--project", EXAMPLE, "--out", tmp_path,
                 "--base-url", "https://cdn.example.org/games/lf", "--dpi", "50")
    assert result.exit_code == 0, result.output
    save = json.loads((tmp_path / "lantern-fair.json").read_text())
    check_tts_schema(save)
    text = json.dumps(save)
    urls = re.findall(r'"(?:FaceURL|BackURL|ImageURL|ImageSecondaryURL)": "([^"]+)"', text)
    assert urls and all(u.startswith("https://cdn.example.org/games/lf/") for u in urls)
    assert {u.rsplit("/", 1)[1] for u in urls} <= {p.name for p in tmp_path.iterdir()}
    assert "https://cdn.example.org/games/lf" in (tmp_path / "README.txt").read_text()


def test_addresses_are_relative_to_the_export_folder_unless_a_base_url_is_given(exported):
    out, save = exported
    urls = re.findall(r'"(?:FaceURL|BackURL|ImageURL|ImageSecondaryURL)": "([^"]+)"',
                      json.dumps(save))
    assert urls and all("/" not in u and (out / u).is_file() for u in urls)
    readme = (out / "README.txt").read_text()
    assert "--base-url https://host/folder/" in readme and out.resolve().as_uri() in readme


def test_pocketcivs_tokens_are_bags_and_small_decks_keep_their_resolution(tmp_path):
    """168 PocketCiv counters were 168 loose tiles; a deck of four tarot aids or six idols
    was drawn at 89-124 dpi to fit a full 10 x 7 sheet it never fills."""
    result = run("export", "tts", "cvlizations", "--out", tmp_path, "--dpi", "150", "--quiet")
    assert result.exit_code == 0, result.output
    assert result.output == ""
    save = json.loads((tmp_path / "cvlizations.json").read_text())
    check_tts_schema(save)
    bags = [o for o in save["ObjectStates"] if o["Name"] == "Bag"]
    assert sum(len(b["ContainedObjects"]) for b in bags) + sum(
        o["Name"] == "Custom_Tile" and "(Tokens)" in o["Description"]
        for o in save["ObjectStates"]) == 104
    assert len(bags) <= 7
    aids = next(o for o in save["ObjectStates"] if o["Nickname"].startswith("Player aids"))
    entry = next(iter(aids["CustomDeck"].values()))
    with Image.open(tmp_path / entry["FaceURL"]) as sheet:
        card_w = sheet.size[0] / entry["NumWidth"]
    assert card_w / 70 * 25.4 == pytest.approx(150, abs=1.5), "150 dpi, as asked"
    assert "aids: cards drawn at" not in (tmp_path / "README.txt").read_text()
