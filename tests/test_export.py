"""Exports for playtesting: deck lists, Tabletop Simulator saves and sheets, card images."""

from __future__ import annotations

import csv
import io
import json
import shutil
from pathlib import Path
from urllib.parse import unquote

import pytest
import yaml
from click.testing import CliRunner
from PIL import Image

from conftest import EXAMPLE
from printshop.cli import main
from printshop.export import drawn_cards, load_one
from printshop.export.decklist import DeckList, ListedCard, ListedDeck, flat, to_csv, \
    to_markdown
from printshop.export.images import face_png
from printshop.export.tts import CARDS_PER_SHEET, card_pixels
from printshop.load.geometry import PrintOptions
from printshop.files.project import Project, builtin_root

DATA = EXAMPLE / "data" / "lantern-fair"


def run(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def shipped(folder: Path, file: str) -> list[dict]:
    """Return the cards of a data file as written, copies defaulting to 1."""
    cards = yaml.safe_load((folder / file).read_text(encoding="utf-8"))["cards"]
    return [{"id": c["id"], "name": c["name"], "copies": c.get("copies", 1)} for c in cards]


# Deck lists

def test_decklist_json_has_the_documented_shape_and_the_shipped_counts():
    result = run("export", "decklist", "lantern-fair", "--project", EXAMPLE, "--format", "json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert set(data) == {"format", "game", "decks"} and data["game"] == "lantern-fair"
    assert data["format"] == 2
    assert [d["id"] for d in data["decks"]] == ["stalls", "coins"]
    for deck in data["decks"]:
        assert set(deck) == {"id", "name", "cards"}
        for card in deck["cards"]:
            assert set(card) == {"id", "name", "copies", "fields"}
    stalls, coins = data["decks"]
    assert [{k: c[k] for k in ("id", "name", "copies")} for c in stalls["cards"]] == \
        shipped(DATA, "stalls.yaml")
    assert [{k: c[k] for k in ("id", "name", "copies")} for c in coins["cards"]] == \
        shipped(DATA, "coins.yaml")
    assert stalls["cards"][0]["fields"] == {"stall": "food", "cost": 1, "text":
                                            "Gain :coin: when a neighbour opens a **food** stall."}
    assert sum(c["copies"] for c in coins["cards"]) == 18


def test_decklist_csv_is_one_row_per_distinct_card_with_every_field():
    result = run("export", "decklist", "lantern-fair", "--project", EXAMPLE, "--format", "csv")
    assert result.exit_code == 0, result.output
    rows = list(csv.DictReader(io.StringIO(result.output)))
    assert list(rows[0]) == ["deck", "id", "name", "copies", "stall", "cost", "text", "value"]
    assert [(r["deck"], r["id"], int(r["copies"])) for r in rows] == \
        [("stalls", c["id"], c["copies"]) for c in shipped(DATA, "stalls.yaml")] + \
        [("coins", c["id"], c["copies"]) for c in shipped(DATA, "coins.yaml")]
    fireworks = next(r for r in rows if r["id"] == "fireworks")
    assert fireworks["name"] == "Fireworks Café" and fireworks["cost"] == "5"
    assert fireworks["value"] == ""


def test_nested_values_are_flattened_for_csv_and_markdown():
    assert flat(["food", "games"]) == "food; games"
    assert flat({"deal": 1, "attributes": ["food"]}) == '{"deal": 1, "attributes": ["food"]}'
    assert flat([{"a": 1}]) == '[{"a": 1}]'
    assert flat(True) == "true" and flat(None) == "" and flat(2.5) == "2.5"
    deck = DeckList("g", "G", [ListedDeck("d", "Deck", [
        ListedCard("x", "A | B", 2, {"tags": ["p", "q"], "text": "one\ntwo"})])])
    md = to_markdown(deck)
    assert "| `x` | A \\| B | 2 | p; q | one<br>two |" in md
    assert "|  | **total** | **2** |  |  |" in md
    assert list(csv.reader(io.StringIO(to_csv(deck)))) == [
        ["deck", "id", "name", "copies", "tags", "text"],
        ["d", "x", "A | B", "2", "p; q", "one\ntwo"]]


def test_csv_cells_a_spreadsheet_would_run_are_quoted():
    deck = DeckList("g", "G", [ListedDeck("d", "Deck", [
        ListedCard("x", '=HYPERLINK("http://evil")', 1, {
            "a": "+1+1", "b": "-2+3", "c": "@SUM(A1)", "d": "\tx", "e": "\rx",
            "n": "-3", "f": 2.5, "ok": "plain"})])])
    rows = list(csv.reader(io.StringIO(to_csv(deck))))
    assert rows[1] == ["d", "x", '\'=HYPERLINK("http://evil")', "1", "'+1+1", "'-2+3",
                       "'@SUM(A1)", "'\tx", "\nx", "-3", "2.5", "plain"]


def test_markdown_lets_no_html_image_or_carriage_return_through():
    deck = DeckList("g", "G <i>", [ListedDeck("d", "<b>Deck</b>", [
        ListedCard("x", "<img src=x onerror=alert(1)>", 1,
                   {"text": "a\r\nb\rc ![pic](https://evil/x.png) <script>"})])])
    md = to_markdown(deck)
    assert "<img" not in md and "<script>" not in md and "<b>" not in md and "<i>" not in md
    assert "\r" not in md and "![" not in md
    assert "| `x` | &lt;img src=x onerror=alert(1)&gt; | 1 | a<br>b<br>c !\\[pic]" \
           "(https://evil/x.png) &lt;script&gt; |" in md
    assert md.startswith("# G &lt;i&gt;: deck list")


def test_a_data_field_named_deck_keeps_its_own_column():
    deck = DeckList("g", "G", [ListedDeck("suns", "Sun deck", [
        ListedCard("ace", "Ace", 1, {"deck": "sun", "rank": "A"})])])
    rows = list(csv.reader(io.StringIO(to_csv(deck))))
    assert rows == [["deck", "id", "name", "copies", "field:deck", "rank"],
                    ["suns", "ace", "Ace", "1", "sun", "A"]]
    one = DeckList("g", "G", deck.decks, one_deck=True)
    assert list(csv.reader(io.StringIO(to_csv(one)))) == [
        ["id", "name", "copies", "deck", "rank"], ["ace", "Ace", "1", "sun", "A"]]


def test_a_csv_deck_list_loads_back_as_the_same_deck(tmp_path):
    project = tmp_path / "project"
    shutil.copytree(EXAMPLE, project)
    manifest = project / "data" / "lantern-fair" / "game.yaml"
    data = project / "data" / "lantern-fair" / "stalls.yaml"
    # a field named like the deck-id column, lists, text with markup, a formula-like cell
    manifest.write_text(manifest.read_text().replace(
        "      text: {type: text, max_length: 200}\n",
        "      text: {type: text, max_length: 200}\n      deck: {type: str}\n"
        "      tags: {type: list, items: {type: str}, default: []}\n", 1))
    cards = yaml.safe_load(data.read_text())["cards"]
    for n, card in enumerate(cards):
        card.update(deck=["sun", "moon"][n % 2], tags=["a", "b"][: n % 3])
    cards[0]["copies"] = 3
    cards[0]["name"] = "=Noodle Cart"             # written '=Noodle Cart for spreadsheets
    cards[1]["text"] = "+1 coin, then -1 later."
    data.write_text(yaml.safe_dump({"cards": cards}, allow_unicode=True))
    before = load_one(Project.open(project), "lantern-fair").part("stalls").cards
    result = run("export", "decklist", "lantern-fair", "--project", project, "--deck",
                 "stalls", "--format", "csv", "--out", tmp_path / "stalls.csv")
    assert result.exit_code == 0, result.output
    shutil.copy(tmp_path / "stalls.csv", data.with_suffix(".csv"))
    manifest.write_text(manifest.read_text().replace("data: stalls.yaml", "data: stalls.csv"))
    after = load_one(Project.open(project), "lantern-fair").part("stalls").cards
    assert [(c.id, c.name, c.copies, c.fields) for c in after] == \
        [(c.id, c.name, c.copies, c.fields) for c in before]
    assert after[1].fields["deck"] == "moon" and after[2].fields["tags"] == ["a", "b"]
    assert "'=Noodle Cart" in (tmp_path / "stalls.csv").read_text()
    assert after[0].name == "=Noodle Cart" and after[1].fields["text"].startswith("+1 coin")


def test_decklist_markdown_has_a_table_and_total_per_deck():
    result = run("export", "decklist", "lantern-fair", "--project", EXAMPLE, "--format", "md")
    assert result.exit_code == 0, result.output
    md = result.output
    assert md.startswith("# Lantern Fair: deck list")
    assert "## Stall cards (`stalls`): 6 cards, 6 distinct" in md
    assert "## Coins (`coins`): 18 tokens, 2 distinct" in md
    assert "| id | name | copies | value |" in md
    assert "| `one` | One | 12 | 1 |" in md
    assert "|  | **total** | **18** |  |" in md
    assert md.rstrip().endswith("**24 cards and tokens in 2 decks**")


def test_decklist_one_deck_to_a_file(tmp_path):
    out = tmp_path / "lists" / "coins.json"
    result = run("export", "decklist", "lantern-fair", "--project", EXAMPLE, "--deck", "coins",
                 "--format", "json", "--out", out)
    assert result.exit_code == 0, result.output
    assert [d["id"] for d in json.loads(out.read_text())["decks"]] == ["coins"]


def test_decklist_unknown_deck_names_the_decks():
    result = run("export", "decklist", "lantern-fair", "--project", EXAMPLE, "--deck", "nope")
    assert result.exit_code == 1
    assert "no deck 'nope'; decks here: stalls, coins" in result.output


def test_decklist_of_a_builtin_game_matches_its_data():
    result = run("export", "decklist", "deity", "--format", "json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    folder = builtin_root() / "data" / "deity"
    files = {c.id: c.data for c in load_one(Project.open(None), "deity").manifest.components
             if c.kind == "deck"}
    assert [d["id"] for d in data["decks"]] == list(files)
    for deck in data["decks"]:
        assert [{k: c[k] for k in ("id", "name", "copies")} for c in deck["cards"]] == \
            shipped(folder, files[deck["id"]])


# Tabletop Simulator

def local(url: str, folder: Path) -> Path:
    assert "/" not in url and ":" not in url, "relative to the export folder"
    return folder / unquote(url)


def check_save(save: dict, game) -> None:
    """Check a TTS save against the game: references, grids, copies and images."""
    decks = [p for p in game.parts if p.kind == "deck"]
    objects = [o for o in save["ObjectStates"] if o["Name"] in ("DeckCustom", "Card")]
    assert len(objects) == len(decks)
    keys = set()
    for obj, part in zip(objects, decks):
        assert obj["Nickname"] == part.spec.name
        custom = obj["CustomDeck"]
        assert not keys & set(custom), "CustomDeck keys must be unique in the save"
        keys |= set(custom)
        for key, entry in custom.items():
            assert set(entry) == {"FaceURL", "BackURL", "NumWidth", "NumHeight",
                                  "BackIsHidden", "UniqueBack", "Type"}
            assert 1 <= entry["NumWidth"] <= 10 and 1 <= entry["NumHeight"] <= 7
            assert entry["BackIsHidden"] is True
        cards = obj["ContainedObjects"]
        assert obj["DeckIDs"] == [c["CardID"] for c in cards]
        assert len(cards) == part.card_count()
        for card in part.cards:
            ids = {c["CardID"] for c in cards if c["Description"] == card.id}
            assert len(ids) == 1
            assert sum(c["CardID"] in ids for c in cards) == card.copies
            assert {c["Nickname"] for c in cards if c["Description"] == card.id} == {card.name}
        for c in cards:
            key, slot = str(c["CardID"] // 100), c["CardID"] % 100
            entry = custom[key]
            assert slot < entry["NumWidth"] * entry["NumHeight"] - 1  # the last slot: the back
            assert c["CustomDeck"] == {key: entry} and c["Name"] == "Card"


@pytest.fixture(scope="module")
def example_tts(tmp_path_factory):
    out = tmp_path_factory.mktemp("tts")
    result = run("export", "tts", "lantern-fair", "--project", EXAMPLE, "--out", out)
    assert result.exit_code == 0, result.output
    return out


def test_tts_save_references_every_card_and_copy(example_tts):
    save = json.loads((example_tts / "lantern-fair.json").read_text())
    game = load_one(Project.open(EXAMPLE), "lantern-fair")
    check_save(save, game)
    stalls, *bags, aid = save["ObjectStates"]
    assert stalls["DeckIDs"] == [100, 101, 102, 103, 104, 105]
    assert stalls["CustomDeck"]["1"]["UniqueBack"] is False       # one back for all stalls
    # tokens: a bag per token holding a stackable round tile per copy, with face and back
    assert [(b["Name"], b["Nickname"]) for b in bags] == [("Bag", "One x12"),
                                                          ("Bag", "Three x6")]
    coins = [c for b in bags for c in b["ContainedObjects"]]
    assert [c["Nickname"] for c in coins] == ["One"] * 12 + ["Three"] * 6
    assert {c["Name"] for c in coins} == {"Custom_Tile"}
    assert {c["CustomImage"]["CustomTile"]["Type"] for c in coins} == {2}
    assert {local(c["CustomImage"]["ImageSecondaryURL"], example_tts).name for c in coins} == \
        {"lantern-fair-coins-one-back.png", "lantern-fair-coins-three-back.png"}
    assert aid["Name"] == "Custom_Tile" and \
        local(aid["CustomImage"]["ImageURL"], example_tts).is_file()


def test_tts_sheets_have_the_grid_geometry_and_hold_the_cards(example_tts):
    save = json.loads((example_tts / "lantern-fair.json").read_text())
    game = load_one(Project.open(EXAMPLE), "lantern-fair")
    decks = [p for p in game.parts if p.kind == "deck"]
    for obj, part in zip(save["ObjectStates"], decks):
        (key, entry), = obj["CustomDeck"].items()
        face, back = (local(entry[k], example_tts) for k in ("FaceURL", "BackURL"))
        assert face.parent == example_tts and face.is_file() and back.is_file()
        w, h = card_pixels(63, 88, 150)
        sheet = Image.open(face)
        assert sheet.size == (entry["NumWidth"] * w, entry["NumHeight"] * h)
        assert Image.open(back).size == ((w, h) if not entry["UniqueBack"] else sheet.size)
        # the card a CardID names is the card drawn in that slot of the sheet
        cards = drawn_cards(game, part, PrintOptions())
        slot = obj["ContainedObjects"][-1]["CardID"] % 100
        card, front, card_back = next(c for c in cards
                                      if c[0].id == obj["ContainedObjects"][-1]["Description"])
        col, row = slot % entry["NumWidth"], slot // entry["NumWidth"]
        expect = Image.new("RGB", (w, h), "white")
        drawn = Image.open(io.BytesIO(face_png(front, w, h))).convert("RGBA")
        expect.paste(drawn, (0, 0), drawn)
        crop = sheet.convert("RGB").crop((col * w, row * h, col * w + w, row * h + h))
        assert crop.tobytes() == expect.tobytes()
        last = entry["NumWidth"] * entry["NumHeight"] - 1
        hidden = sheet.convert("RGB").crop(((last % entry["NumWidth"]) * w,
                                            (last // entry["NumWidth"]) * h,
                                            (last % entry["NumWidth"]) * w + w,
                                            (last // entry["NumWidth"]) * h + h))
        assert hidden.tobytes() != crop.tobytes()  # the back, not a card face


def test_tts_base_url_prefixes_every_image(tmp_path):
    result = run("export", "tts", "lantern-fair", "--project", EXAMPLE, "--out", tmp_path,
                 "--base-url", "https://example.org/lf", "--dpi", "50")
    assert result.exit_code == 0, result.output
    text = (tmp_path / "lantern-fair.json").read_text()
    urls = [v for k, v in _walk(json.loads(text)) if k.endswith("URL") and v]
    assert urls and all(u.startswith("https://example.org/lf/") for u in urls)
    assert {u.rsplit("/", 1)[1] for u in urls} <= {p.name for p in tmp_path.iterdir()}


def _walk(value):
    if isinstance(value, dict):
        for k, v in value.items():
            yield k, v
            yield from _walk(v)
    elif isinstance(value, list):
        for v in value:
            yield from _walk(v)


def test_a_deck_beyond_69_cards_continues_on_a_second_sheet(tmp_path):
    project = tmp_path / "project"
    shutil.copytree(EXAMPLE, project)
    cards = [{"id": f"c{i}", "name": f"Card {i}", "stall": "food", "cost": i % 6,
              "text": "x", "copies": 1 + i % 2} for i in range(75)]
    (project / "data" / "lantern-fair" / "stalls.yaml").write_text(yaml.safe_dump(
        {"cards": cards}))
    out = tmp_path / "out"
    result = run("export", "tts", "lantern-fair", "--project", project, "--out", out,
                 "--dpi", "50")
    assert result.exit_code == 0, result.output
    save = json.loads((out / "lantern-fair.json").read_text())
    game = load_one(Project.open(project), "lantern-fair")
    check_save(save, game)
    stalls = save["ObjectStates"][0]
    assert CARDS_PER_SHEET == 69
    assert {k: (e["NumWidth"], e["NumHeight"]) for k, e in stalls["CustomDeck"].items()} == \
        {"1": (10, 7), "2": (7, 1)}
    assert sorted(set(stalls["DeckIDs"])) == list(range(100, 169)) + list(range(200, 206))
    w, h = card_pixels(63, 88, 50)
    assert Image.open(out / "lantern-fair-stalls-1.png").size == (10 * w, 7 * h)
    assert Image.open(out / "lantern-fair-stalls-2.png").size == (7 * w, h)


def test_tts_export_of_a_builtin_game(tmp_path):
    result = run("export", "tts", "deity", "--out", tmp_path, "--dpi", "50")
    assert result.exit_code == 0, result.output
    save = json.loads((tmp_path / "deity.json").read_text())
    check_save(save, load_one(Project.open(None), "deity"))
    for k, v in _walk(save):
        if k.endswith("URL") and v:
            assert local(v, tmp_path).is_file()


# Card images

def test_png_per_card_at_the_dpi(tmp_path):
    result = run("export", "png", "lantern-fair", "--project", EXAMPLE, "--out", tmp_path,
                 "--dpi", "100")
    assert result.exit_code == 0, result.output
    stalls = sorted(p.name for p in (tmp_path / "stalls").iterdir())
    assert stalls == sorted([f"{c['id']}.png" for c in shipped(DATA, "stalls.yaml")] +
                            ["back.png"])
    coins = sorted(p.name for p in (tmp_path / "coins").iterdir())
    assert coins == ["one-back.png", "one.png", "three-back.png", "three.png"]
    assert Image.open(tmp_path / "stalls" / "goldfish.png").size == (248, 346)  # 63 x 88 mm
    assert Image.open(tmp_path / "stalls" / "back.png").size == (248, 346)
    coin = Image.open(tmp_path / "coins" / "one.png")
    assert coin.size == (98, 98) and coin.mode == "RGBA"
    assert coin.getpixel((0, 0))[3] == 0 and coin.getpixel((49, 49))[3] == 255  # round
    # a pHYs chunk tells print tools the size: 100 dpi
    assert Image.open(tmp_path / "stalls" / "goldfish.png").info["dpi"] == \
        pytest.approx((100, 100), abs=0.01)


def test_png_with_bleed_and_byte_identical_reruns(tmp_path):
    for name in ("a", "b"):
        result = run("export", "png", "lantern-fair", "--project", EXAMPLE, "--out",
                     tmp_path / name, "--dpi", "100", "--with-bleed", "--deck", "stalls")
        assert result.exit_code == 0, result.output
    first, second = ({p.relative_to(tmp_path / n): p.read_bytes()
                      for p in (tmp_path / n).rglob("*.png")} for n in ("a", "b"))
    assert first == second and len(first) == 7
    assert Image.open(tmp_path / "a" / "stalls" / "fireworks.png").size == (272, 370)  # +3 mm


def test_png_of_a_builtin_game(tmp_path):
    result = run("export", "png", "deity", "--out", tmp_path, "--dpi", "60", "--deck", "nations")
    assert result.exit_code == 0, result.output
    names = {p.name for p in (tmp_path / "nations").iterdir()}
    assert names == {"river.png", "steppe.png", "hills.png", "coast.png", "forest.png",
                     "back.png"}
    assert Image.open(tmp_path / "nations" / "river.png").size == (149, 208)


def test_the_cli_offers_every_deck_list_format():
    from printshop.cli import DECKLIST_FORMATS
    from printshop.export.decklist import FORMATS

    assert sorted(DECKLIST_FORMATS) == sorted(FORMATS)


# Around the exports: --out -, --quiet, the progress bar

@pytest.mark.parametrize("command", [["png"], ["tts"], ["pod", "--shop", "tgc"]])
def test_out_dash_is_refused_where_an_export_writes_a_folder(command, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = run("export", command[0], "lantern-fair", "--project", EXAMPLE, *command[1:],
                 "--out", "-")
    assert result.exit_code == 2
    assert "'-' (standard output) takes a single file, and this export writes a folder" in \
        result.output
    assert not (tmp_path / "-").exists() and not (tmp_path / "output").exists()


def test_quiet_exports_print_nothing(tmp_path):
    result = run("export", "png", "lantern-fair", "--project", EXAMPLE, "--out", tmp_path,
                 "--dpi", "30", "--deck", "coins", "--quiet")
    assert result.exit_code == 0 and result.output == ""
    assert (tmp_path / "coins" / "one.png").is_file()


class FakeTerminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_the_progress_bar_shows_on_a_terminal_after_a_second_and_is_cleared(monkeypatch):
    from printshop import cli

    err = FakeTerminal()
    monkeypatch.setattr(cli.sys, "stderr", err)
    now = [100.0]
    with cli._Progress("tgc", quiet=False) as bar:
        bar.clock, bar.start = (lambda: now[0]), now[0]
        bar(1, 4)
        assert err.getvalue() == "", "nothing in the first second"
        now[0] = 101.5
        bar(2, 4)
        assert err.getvalue() == "\rtgc [###############...............] 2/4"
    line = "\rtgc [###############...............] 2/4"
    assert err.getvalue() == line + "\r" + " " * len(line) + "\r", "cleared at the end"
    quiet = FakeTerminal()
    monkeypatch.setattr(cli.sys, "stderr", quiet)
    with cli._Progress("tgc", quiet=True) as bar:
        bar.clock, bar.start = (lambda: 1e9), 0.0
        bar(2, 4)
    assert quiet.getvalue() == ""
