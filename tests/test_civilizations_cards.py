"""Civilizations (two standard decks): the shipped deck and table aids against the rulebook.

The expected values below are copied from the rulebook (../shared/rules/civilizations-card-game.md),
not from the game's code, so a slip in the data or in the validator shows up here.
"""

from __future__ import annotations

import re
from collections import Counter
from xml.etree import ElementTree

import pytest
from click.testing import CliRunner
from pypdf import PdfReader

from printshop.load import fonts
from printshop.build import build
from printshop.cli import main
from printshop.components.deck import render_deck
from printshop.load.geometry import PrintOptions
from printshop.load.loader import load_game
from printshop.files.project import Project
from printshop.check.rules import rule_ids, validate
from conftest import edit_yaml

GAME = "civilizations-cards"
SUITS = ["hearts", "diamonds", "clubs", "spades"]
NUMBERS = ["2", "3", "4", "5", "6", "7", "8", "9", "10"]
CITY = {"J": (11, 1), "Q": (12, 2), "K": (13, 3), "A": (20, 4), "joker": (15, 3)}
GREAT_PERSONS = {
    ("hearts", "J"): {"Laozi": "500 BCE", "Siddhartha Gautama": "500 BCE"},
    ("hearts", "Q"): {"Saint Mary Magdalene": "100 CE", "Saint Helena": "200 CE"},
    ("hearts", "K"): {"Filippo Brunelleschi": "1400", "Andrea Palladio": "1500"},
    ("diamonds", "J"): {"Colaeus": "600 BCE", "Pytheas of Massalia": "300 BCE"},
    ("diamonds", "Q"): {"Theodora": "500 CE", "Irene of Athens": "800 CE"},
    ("diamonds", "K"): {"Marco Polo": "1300", "Christopher Columbus": "1400"},
    ("clubs", "J"): {"Pythagoras": "600 BCE", "Archimedes": "200 BCE"},
    ("clubs", "Q"): {"Hypatia": "400 CE", "Hildegard of Bingen": "1100"},
    ("clubs", "K"): {"Leonardo da Vinci": "1500", "Isaac Newton": "1600"},
    ("spades", "J"): {"Sun Tzu": "500 BCE", "Alexander the Great": "300 BCE"},
    ("spades", "Q"): {"Cleopatra": "50 BCE", "Jeanne d'Arc": "1400"},
    ("spades", "K"): {"Genghis Khan": "1100", "Barbossa": "1500"},
}
WONDERS = {"clubs": "Natural Wonder", "spades": "City Castle", "diamonds": "Archaeological Site",
           "hearts": "Holy Place"}
TECHNOLOGIES = {
    "hearts": ("Architecture", [("City Walls", "8000 BCE"), ("Paved Roads", "4000 BCE"),
                                ("Wheeled Settlers", "3000 BCE"),
                                ("Public Architecture", "500 BCE")]),
    "diamonds": ("Navigation", [("Sailing", "4000 BCE"), ("Cartography", "1000 BCE"),
                                ("Advanced Navigation", "500 CE"),
                                ("Celestial Navigation", "1500 CE")]),
    "spades": ("Layout Tactics", [("Scaling Ladders", "2500 BCE"), ("Chariots", "2000 BCE"),
                                  ("Infiltration", "500 BCE"), ("Gun Powder", "1000 CE")]),
    "clubs": ("Scientific Inventions", [("Counting Systems", "5000 BCE"),
                                        ("Wheel", "3500 BCE"), ("Metallurgy", "3000 BCE"),
                                        ("Algebra", "1500 BCE"), ("Power Mills", "0 BCE"),
                                        ("Scientific Revolution", "1500 CE")]),
}
PDF_PAGES = {"double-deck": 28, "technology": 1, "reference": 3, "nation-mat": 3,
             "shared-lands-mat": 3, "city-state-mat": 1, "sea-mat": 1, "era-track": 1,
             "score-sheet": 1, "writing": 2}
SVG = "{http://www.w3.org/2000/svg}"


@pytest.fixture(scope="module")
def game():
    """The shipped game, loaded."""
    return load_game(Project.open(None).game(GAME))


@pytest.fixture(scope="module")
def cards(game):
    """Every card of the double deck, as the templates see it."""
    return [c.context() for c in game.part("double-deck").cards]


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """The game built once with default options: the output folder."""
    out = tmp_path_factory.mktemp("civilizations-cards-out")
    build(Project.open(None), [GAME], PrintOptions(), out)
    return out / GAME


@pytest.fixture(scope="module")
def faces(game):
    """Every card's drawn front and back (no PDF needed)."""
    return render_deck(game, game.part("double-deck"), PrintOptions()).faces


def deck_of(cards, deck):
    return [c for c in cards if c["deck"] == deck]


def the(cards, deck, rank, suit=None):
    """Return the one card of a deck with this rank and suit."""
    found = [c for c in cards if c["deck"] == deck and c["rank"] == rank and c["suit"] == suit]
    assert len(found) == 1, (deck, rank, suit, found)
    return found[0]


def fully_developed(card, coins: int) -> bool:
    """A city card is fully developed with all its slots filled (a joker: with any coin)."""
    return coins >= 1 if card["rank"] == "joker" else coins == card["slots"]


# ---- the shipped data --------------------------------------------------------------------------

def test_shipped_game_validates(game):
    assert validate(game) == []


def test_cli_validate_passes():
    result = CliRunner().invoke(main, ["validate", GAME])
    assert result.exit_code == 0, result.output
    assert f"{GAME}: ok" in result.output


@pytest.mark.parametrize("deck", ["sun", "moon"])
def test_each_deck_is_a_full_standard_deck_with_three_jokers(cards, deck):
    cards = deck_of(cards, deck)
    assert len(cards) == 55
    suited = Counter((c["rank"], c["suit"]) for c in cards if c["rank"] != "joker")
    assert suited == Counter({(r, s): 1 for r in NUMBERS + ["J", "Q", "K", "A"] for s in SUITS})
    jokers = [c for c in cards if c["rank"] == "joker"]
    assert len(jokers) == 3 and all(c["suit"] is None for c in jokers)


def test_exploration_deck_is_the_city_cards_and_action_deck_the_numbers(cards):
    exploration = [c for c in cards if c["pile"] == "exploration"]
    action = [c for c in cards if c["pile"] == "action"]
    assert {c["rank"] for c in exploration} == {"J", "Q", "K", "A", "joker"}
    assert {c["rank"] for c in action} == set(NUMBERS)
    assert len(exploration) == 2 * (4 * 4 + 3)
    assert len(action) == 2 * 4 * 9


@pytest.mark.parametrize("rank", list(CITY))
def test_city_cards_have_the_rulebook_cost_and_coin_slots(cards, rank):
    cost, slots = CITY[rank]
    of_rank = [c for c in cards if c["rank"] == rank]
    assert of_rank and all((c["cost"], c["slots"]) == (cost, slots) for c in of_rank)


def test_action_cards_have_no_cost_or_slots(cards):
    assert all(c["cost"] is None and c["slots"] is None for c in cards if c["rank"] in NUMBERS)


@pytest.mark.parametrize("key", list(GREAT_PERSONS), ids=lambda k: f"{k[1]}-{k[0]}")
def test_each_face_card_carries_one_of_its_two_great_persons_per_deck(cards, key):
    suit, rank = key
    sun, moon = the(cards, "sun", rank, suit), the(cards, "moon", rank, suit)
    named = {sun["person"]["name"]: sun["person"]["era"],
             moon["person"]["name"]: moon["person"]["era"]}
    assert named == GREAT_PERSONS[key]
    assert sun["person"]["power"] == moon["person"]["power"]


def test_only_face_cards_carry_great_persons(cards):
    assert all(c["person"] is None for c in cards if c["rank"] not in ("J", "Q", "K"))


def test_six_military_leaders_the_spade_face_cards(cards):
    leaders = [c for c in cards if c["leader"]]
    assert len(leaders) == 6  # "The game starts with 6 of them."
    assert {(c["deck"], c["rank"], c["suit"]) for c in leaders} == {
        (d, r, "spades") for d in ("sun", "moon") for r in ("J", "Q", "K")}


@pytest.mark.parametrize("suit", SUITS)
def test_aces_are_the_wonders(cards, suit):
    for deck in ("sun", "moon"):
        assert the(cards, deck, "A", suit)["wonder"]["name"] == WONDERS[suit]
    assert all(c["wonder"] is None for c in cards if c["rank"] != "A")


@pytest.mark.parametrize("suit", SUITS)
def test_technology_tracks_hold_every_technology_in_order_with_its_date(game, suit):
    tracks = {t["suit"]: t for t in game.part("technology").data["tracks"]}
    name, techs = TECHNOLOGIES[suit]
    assert tracks[suit]["name"] == name
    assert [(t["name"], t["date"]) for t in tracks[suit]["techs"]] == techs


# ---- the rulebook's worked examples ------------------------------------------------------------

def test_developing_a_jack_of_diamonds(cards):
    jack = the(cards, "sun", "J", "diamonds")
    assert jack["cost"] == 11                          # "you need at least 11 of diamonds"
    assert 9 + 2 >= jack["cost"]                       # ♦9 + ♦2 = 11 is enough
    assert 6 + 4 + 3 >= jack["cost"] > 6 + 4           # three cards only when two fall short


def test_caravan_strength_example(cards):
    jack = the(cards, "moon", "J", "spades")
    strength = 9 + 7 - jack["cost"]                    # "9 + 7 - J = 16 - 11 = +5"
    assert strength == 5
    assert strength - 2 == 3                           # 2 defending coins leave +3


def test_technology_level_example(game, cards):
    # "♥K with 3 dev. coins and ♥J with 1 dev. coin = level 2 in architecture"
    city = [(the(cards, "sun", "K", "hearts"), 3), (the(cards, "moon", "J", "hearts"), 1)]
    level = sum(fully_developed(card, coins) for card, coins in city)
    assert level == 2
    hearts = next(t for t in game.part("technology").data["tracks"] if t["suit"] == "hearts")
    assert [t["name"] for t in hearts["techs"][:level]] == ["City Walls", "Paved Roads"]
    assert not fully_developed(the(cards, "sun", "Q", "hearts"), 1)


def test_jokers_are_fully_developed_with_one_to_three_coins(cards):
    for joker in (c for c in cards if c["rank"] == "joker"):
        assert [fully_developed(joker, n) for n in (0, 1, 2, 3)] == [False, True, True, True]


@pytest.mark.parametrize("track_id, eras, start, lands", [
    ("standard", 7, [2, 2, 2], [3, 3, 2, 2, 1, 1, 0]),
    ("shared-lands", 8, [2, 2, 2, 1], [4, 3, 3, 2, 2, 1, 1, 0])])
def test_time_coins_and_the_drying_river(game, track_id, eras, start, lands):
    track = next(t for t in game.part("era-track").data["tracks"] if t["id"] == track_id)
    assert track["stacks"] == start
    assert len(track["eras"]) == eras
    assert [e["land_cards"] for e in track["eras"]] == lands
    assert [sum(e["coins"]) for e in track["eras"]] == list(range(sum(start), -1, -1))[:eras]
    assert track["eras"][-1]["coins"] == []            # the last coin gone: the last era


def test_dice_alternative_averages_three(cards):
    # "+3 x 2 = +6 against a random card of 2 - 10 ... 1 - 5 in steps of 0.5 ... average 3.0"
    values = sorted({int(c["rank"]) / 2 for c in cards if c["pile"] == "action"})
    assert values == [1 + i / 2 for i in range(9)]
    assert sum(values) / len(values) == 3.0


def test_shipwreck_without_a_dump_card_is_even(cards):
    ranks = [int(c["rank"]) for c in cards if c["pile"] == "action"]
    assert sum(r < 6 for r in ranks) == sum(r > 6 for r in ranks)   # "6 (= 50%)"


def test_scientific_victory_is_the_top_of_the_clubs_track(game, cards):
    clubs = next(t for t in game.part("technology").data["tracks"] if t["suit"] == "clubs")
    assert len(clubs["techs"]) == 6 and clubs["techs"][-1]["name"] == "Scientific Revolution"
    club_cities = [c for c in cards if c["suit"] == "clubs" and c["pile"] == "exploration"]
    jokers = [c for c in cards if c["rank"] == "joker"]
    assert len(club_cities) + len(jokers) >= 6


def test_quick_victory_thresholds(game):
    victories = {v["name"]: (v["suit"], v["threshold"])
                 for v in game.part("reference").data["victories"]}
    assert victories == {"Military victory": ("spades", 6), "Scientific victory": ("clubs", 6),
                         "Religious victory": ("hearts", 10),
                         "Commercial victory": ("diamonds", 20),
                         "Cultural victory": ("any", 10)}


def test_perfect_civilization_points_and_caps(game):
    rows = {r["id"]: (r["points"], r["cap"]) for r in game.part("reference").data["scoring"]}
    assert rows["faith"] == (1, 9)           # 10 faith would have won already
    assert rows["gold"] == (0.5, 9.5)        # 20 gold = 10 points would have won
    assert rows["culture"] == (0.5, 9.5)     # walls and roads score 0.5
    assert rows["tech"] == (1, 15)           # 5 city cards in each of 3 cities
    assert rows["traitor-stones"][0] == -5
    assert sum(cap for points, cap in rows.values() if points > 0) == 43


def test_faith_and_gold_examples_are_on_the_sheet(game):
    data = game.part("reference").data
    assert "3 coins for 4 faith" in data["faith"]                  # "3 devs with 4 faith"
    assert "2 gold replaces a card (4 gold replaces two)" in data["gold"]


@pytest.mark.parametrize("action, cards_taken, match", [
    ("explore", [2, 3], "number"), ("build-walls", [3, 4], "number"),
    ("build-roads", [3, 4], "number"), ("build-buildings", [3, 4], "number"),
    ("develop", [2, 3], "suit"), ("prepare-caravan", [2, 2], "suit"),
    ("cancel", [0, 0], "none"), ("move-stock", [0, 0], "none")])
def test_actions_list_their_cards(game, action, cards_taken, match):
    listed = {a["id"]: a for a in game.part("reference").data["actions"]}
    assert (listed[action]["cards"], listed[action]["match"]) == (cards_taken, match)


def test_caravan_outcomes_cover_every_suit(game):
    ops = {o["suit"]: o["name"] for o in game.part("reference").data["caravans"]["operations"]}
    assert ops == {"diamonds": "Trade", "hearts": "Missionary work", "clubs": "Subversion",
                   "spades": "Military attack"}


def test_traitor_penalty(game):
    data = game.part("writing").data
    slots = {s: row["slots"] for row in data["penalty"] for s in row["stones"]}
    assert [slots[s] for s in (1, 2, 3, 4, 5, 6)] == [-1, -1, -2, -2, -3, -3]
    assert (data["stones_per_breach"], data["removed_per_era"], data["points_per_stone"]) == \
        (2, 1, -5)


# ---- the validator: every rule broken once ----------------------------------------------------

def _card(card_id, change):
    """Return a change to the deck data that edits the card with this id."""
    def apply(data):
        change(next(c for c in data["cards"] if c["id"] == card_id))
    return "double-deck.yaml", apply


def _drop(name):
    return "double-deck.yaml", lambda d: d.update(cards=[c for c in d["cards"] if c["id"] != name])


def _add_joker(d):
    d["cards"].append({"id": "sun-joker-4", "name": "Joker", "deck": "sun", "rank": "joker",
                       "pile": "exploration", "cost": 15, "slots": 3})


def _tech(suit, name, key, value):
    def apply(d):
        track = next(t for t in d["tracks"] if t["suit"] == suit)
        next(t for t in track["techs"] if t["name"] == name)[key] = value
    return "technologies.yaml", apply


def _row(key, match, field, value, file="reference.yaml", nested=()):
    def apply(d):
        rows = d
        for k in nested + (key,):
            rows = rows[k]
        next(r for r in rows if all(r.get(k) == v for k, v in match.items()))[field] = value
    return file, apply


BREAKS = {
    "sun-deck-55-cards": _drop("sun-hearts-5"),
    "moon-deck-55-cards": _drop("moon-clubs-9"),
    "sun-deck-3-jokers": ("double-deck.yaml", _add_joker),
    "moon-deck-3-jokers": _drop("moon-joker-2"),
    "six-military-leaders": _card("sun-spades-q", lambda c: c.update(leader=False)),
    "civilizations-cards.deck-composition": _card("moon-hearts-7",
                                                  lambda c: c.update(suit="clubs")),
    "civilizations-cards.pile-by-rank": _card("sun-diamonds-q",
                                              lambda c: c.update(pile="action")),
    "civilizations-cards.development-cost": _card("moon-clubs-k", lambda c: c.update(cost=12)),
    "civilizations-cards.own-art": _card("moon-clubs-k",
                                         lambda c: c.update(art="game-icons:astrolabe")),
    "civilizations-cards.development-slots": _card("sun-hearts-a", lambda c: c.update(slots=3)),
    "civilizations-cards.great-persons": _card(
        "moon-spades-k", lambda c: c["person"].update(name="Barbarossa")),
    "civilizations-cards.military-leaders": _card("sun-hearts-k",
                                                  lambda c: c.update(leader=True)),
    "civilizations-cards.wonders": _card("moon-spades-a",
                                         lambda c: c["wonder"].update(name="Holy Place")),
    "civilizations-cards.technology-tracks": _tech("clubs", "Algebra", "date", "1500 CE"),
    "civilizations-cards.era-track": _row("eras", {"era": 2}, "land_cards", 4, "eras.yaml",
                                          ("tracks", 1)),
    "civilizations-cards.action-costs": _row("actions", {"id": "explore"}, "cards", [2, 4]),
    "civilizations-cards.caravan-operations": _row("operations", {"suit": "diamonds"}, "name",
                                                   "Barter", nested=("caravans",)),
    "civilizations-cards.victory-thresholds": _row("victories", {"name": "Religious victory"},
                                                   "threshold", 12),
    "civilizations-cards.score-caps": _row("scoring", {"id": "gold"}, "cap", 10),
    "civilizations-cards.traitor-penalty": _row("penalty", {"slots": -2}, "slots", -1,
                                                "writing.yaml"),
    "civilizations-cards.great-person-powers": _card(
        "sun-hearts-k", lambda c: c["person"].update(power="A temple here yields 3 faith.")),
    "civilizations-cards.sheet-text": _row(
        "actions", {"id": "build-walls"}, "effect",
        "Two pieces make a wall: it stops black caravans; a red one pays the owner 1 gold toll."),
}


def test_wall_text_says_red_caravans_lose_nothing(builtin):
    """The rulebook: red caravans pass and lose nothing; the owner gains 1 gold with a diamond."""
    import yaml
    data = yaml.safe_load((builtin.root / "data" / GAME / "reference.yaml").read_text())
    walls = next(a for a in data["actions"] if a["id"] == "build-walls")["effect"]
    assert "loses nothing" in walls and "toll" not in walls
    mat = (builtin.root / "templates" / GAME / "_mat.svg.j2").read_text()
    assert "pays the owner" not in mat and "loses nothing" in mat


def test_every_listed_rule_has_a_break_test(game):
    listed = {r if isinstance(r, str) else r.id for r in rule_ids(game)}
    assert listed == set(BREAKS)


@pytest.mark.parametrize("rule_id", list(BREAKS))
def test_each_rule_reports_its_break(game_copy, rule_id):
    root = game_copy(GAME)
    file, change = BREAKS[rule_id]
    edit_yaml(root / "data" / GAME / file, change)
    problems = validate(load_game(Project.open(root).game(GAME)))
    assert rule_id in {p.rule for p in problems}, [str(p) for p in problems]


def test_cli_names_a_broken_rule_and_fails(game_copy):
    root = game_copy(GAME)
    file, change = BREAKS["civilizations-cards.great-persons"]
    edit_yaml(root / "data" / GAME / file, change)
    result = CliRunner().invoke(main, ["validate", GAME, "--project", str(root)])
    assert result.exit_code == 1
    assert "[civilizations-cards.great-persons]" in result.output
    assert "Barbarossa" in result.output and "double-deck.yaml" in result.output


# ---- the printed cards -------------------------------------------------------------------------

def _parse(face) -> ElementTree.Element:
    return ElementTree.fromstring(f'<svg xmlns="http://www.w3.org/2000/svg">{face.svg}</svg>')


def _boxes(node, flip=None):
    """Yield (text, x0, y0, x1, y1) for every run of text under node (the words of a line in
    one face), in card millimetres."""
    transform = node.get("transform", "")
    turned = re.match(r"rotate\(180 ([\d.]+) ([\d.]+)\)", transform)
    if turned:
        flip = (float(turned.group(1)), float(turned.group(2)))
    if node.tag == SVG + "text":
        family, em = node.get("font-family"), float(node.get("font-size"))
        for span in node:
            fam = span.get("font-family", family)
            weight = span.get("font-weight", "normal")
            face = fonts.face(fam, weight)
            x, y = float(span.get("x")), float(span.get("y"))
            box = (x, y - face.ascent * em, x + face.width(span.text) * em,
                   y + face.descent * em)
            if flip:
                cx, cy = flip
                box = (2 * cx - box[2], 2 * cy - box[3], 2 * cx - box[0], 2 * cy - box[1])
            yield (span.text,) + box
        return
    for child in node:
        yield from _boxes(child, flip)


def _group(root, cls):
    found = [g for g in root.iter(SVG + "g") if g.get("class") == cls]
    assert len(found) == 1, cls
    return found[0]


def test_every_face_shows_its_index_in_the_top_left_corner(cards, faces):
    for card in cards:
        front = faces[card["id"]][0]
        index = list(_boxes(_group(_parse(front), "index-top-left")))
        label = "".join(t for t, *_ in index)
        assert label == ("JOKER" if card["rank"] == "joker" else card["rank"]), card["id"]
        for _, x0, y0, x1, y1 in index:
            # the corner a fanned hand leaves showing: inside the safe margin, 13 x 22 mm
            assert 3 <= x0 and x1 <= 13 and 3 <= y0 and y1 <= 22, (card["id"], x0, y0, x1, y1)


def test_every_face_repeats_its_index_turned_in_the_bottom_right_corner(cards, faces):
    for card in cards:
        root = _parse(faces[card["id"]][0])
        top, bottom = _group(root, "index-top-left"), _group(root, "index-bottom-right")
        assert bottom.get("transform") == "rotate(180 31.5 44)"
        assert ElementTree.tostring(top[0]) == ElementTree.tostring(bottom[0])
        for _, x0, y0, x1, y1 in _boxes(bottom):
            assert 63 - 13 <= x0 and x1 <= 63 - 3 and 88 - 22 <= y0 and y1 <= 88 - 3


def test_all_card_text_stays_inside_the_safe_area(cards, faces):
    for card in cards:
        for side in faces[card["id"]]:
            for text, x0, y0, x1, y1 in _boxes(_parse(side)):
                assert x0 >= 3 - 1e-6 and x1 <= 60 + 1e-6, (card["id"], text, x0, x1)
                assert y0 >= 3 - 1e-6 and y1 <= 85 + 1e-6, (card["id"], text, y0, y1)


def test_backgrounds_reach_into_the_bleed(cards, faces):
    for card in cards:
        for side in faces[card["id"]]:
            first = _parse(side)[0]
            assert first.tag == SVG + "rect"
            assert (float(first.get("x")), float(first.get("y"))) == (-3, -3)
            assert (float(first.get("width")), float(first.get("height"))) == (69, 94)


def test_two_back_designs_one_per_deck(cards, faces):
    backs = {deck: {faces[c["id"]][1].svg for c in deck_of(cards, deck)}
             for deck in ("sun", "moon")}
    assert len(backs["sun"]) == 1 and len(backs["moon"]) == 1
    assert backs["sun"] != backs["moon"]


def test_city_cards_show_cost_and_coin_slots(cards, faces):
    for card in cards:
        if card["pile"] != "exploration":
            continue
        root = _parse(faces[card["id"]][0])
        texts = {t for t, *_ in _boxes(root)}
        assert str(card["cost"]) in texts, card["id"]
        # the slot circles sit in the top strip, one per development coin
        slots = [c for c in root.iter(SVG + "circle") if c.get("class") == "slot"]
        assert len(slots) == card["slots"], card["id"]
        words = {word for t in texts for word in t.split()}   # a line in one face is one run
        assert ({"MILITARY", "LEADER"} <= words) == card["leader"], card["id"]


def test_great_person_names_and_wonders_are_printed(cards, faces):
    for card in cards:
        named = (card["person"] or card["wonder"] or {}).get("name")
        if named:
            words = {w for t, *_ in _boxes(_parse(faces[card["id"]][0])) for w in t.split()}
            assert set(named.split()) <= words, card["id"]


# ---- the build ---------------------------------------------------------------------------------

@pytest.mark.parametrize("component, pages", list(PDF_PAGES.items()))
def test_build_writes_each_component(built, component, pages):
    assert len(PdfReader(built / f"{component}.pdf").pages) == pages


def test_build_writes_the_print_and_play_file(built):
    combined = PdfReader(built / f"{GAME}-print-and-play.pdf")
    # A contents page, then the print run (pages grouped by stock, blanks keeping fronts odd).
    from printshop.build import bom_plan as plan
    assert len(combined.pages) == plan(Project.open(None), GAME).pages


def test_deck_pdf_holds_fronts_and_backs_in_pairs(built):
    reader = PdfReader(built / "double-deck.pdf")
    text = [page.extract_text() for page in reader.pages]
    assert all("fronts" in t for t in text[0::2]) and all("backs" in t for t in text[1::2])
    assert "Laozi" in "".join(text) and "Siddhartha" in "".join(text)
