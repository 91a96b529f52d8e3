"""PocketCiv: the shipped cards, sheets and counters against the rulebook, the validator's
rules one by one, and the build of every PocketCiv component this module owns."""

from __future__ import annotations

import io

import pytest
from click.testing import CliRunner
from pypdf import PdfReader

from printshop.build import render_component
from printshop.cli import main
from printshop.load.geometry import PrintOptions
from printshop.load.loader import load_game
from printshop.files.project import Project
from printshop.check.rules import rule_ids, validate

from conftest import edit_yaml

# The rulebook's Events (EVENT EXPLANATIONS) and the visiting Empires of the Event cards.
RULEBOOK_EVENTS = {"Anarchy", "Bandits", "Civil War", "Corruption", "Earthquake", "Epidemic",
                   "Famine", "Flood", "Sandstorm", "Superstition", "Tribal War", "Uprising",
                   "Volcano", "Visitation"}
EXPLAINED = RULEBOOK_EVENTS | {"Attack", "Trade", "Tsunami"}

# The Advances each Event's explanation applies, in the rulebook's order.
RULEBOOK_MODIFIERS = {
    "Anarchy": ["literacy", "law", "organized-religion", "slave-labor", "machining"],
    "Attack": ["ministry", "military", "metal-working", "architecture", "equestrian"],
    "Bandits": ["law", "democracy", "equestrian", "slave-labor"],
    "Civil War": ["military", "mythology", "civil-service", "architecture", "law", "arts",
                  "theater", "meditation", "medicine"],
    "Corruption": ["government", "literacy", "law"],
    "Earthquake": ["engineering", "medicine"],
    "Epidemic": ["roadbuilding", "equestrian", "medicine", "roadbuilding"],
    "Famine": ["irrigation"],
    "Flood": ["irrigation"],
    "Sandstorm": ["irrigation"],
    "Superstition": ["astronomy", "meditation"],
    "Tribal War": ["government", "sense-of-community", "music"],
    "Uprising": ["law", "machining", "organized-religion", "slave-labor", "military"],
    "Volcano": ["engineering", "medicine"],
    "Visitation": ["diplomacy", "philosophy"],
    "Trade": ["shipping", "culture-of-thievery"],
    "Tsunami": ["engineering", "civil-service", "medicine"],
}

# Every Advance the rulebook's rules name ("If you have ..."); Meteorology is not among the
# 49 (Sails and Rigging carries its effect, see DESIGN.md).
RULEBOOK_ADVANCES = [
    "Roadbuilding", "Equestrian", "Fishing", "Navigation", "Magnetics", "Black Market",
    "Mining", "Surveying", "Cavalry", "Coinage", "Common Tongue", "Agriculture", "Machining",
    "Masonry", "Civil Service", "Slave Labor", "Basic Tools", "Simple Tools", "Engineering",
    "Metal Working", "Architecture", "Centralized Government", "Banking", "Patronage",
    "Cartage", "Culture of Thievery", "Literacy", "Law", "Organized Religion", "Ministry",
    "Military", "Democracy", "Mythology", "Arts", "Theater", "Meditation", "Medicine",
    "Government", "Irrigation", "Astronomy", "Sense of Community", "Music", "Diplomacy",
    "Philosophy", "Shipping"]

SHAPES = {"C": "circle", "S": "square", "H": "hexagon"}
MY_COMPONENTS = ["events", "event-guide", "advances", "advance-list", "tracking", "counters",
                 "cities"]


def load(path=None):
    """Load the PocketCiv game from the built-in project or a copied one."""
    return load_game(Project.open(path).game("pocketciv"))


@pytest.fixture(scope="module")
def game():
    return load()


@pytest.fixture(scope="module")
def events(game):
    return {c.fields["number"]: c for c in game.part("events").cards}


@pytest.fixture(scope="module")
def advances(game):
    return {c.id: c.fields for c in game.part("advances").cards}


def box(card, era):
    """Return the era box of a card for an Era, or None."""
    return next((b for b in card.fields["eras"] if b["era"] == era), None)


def value_of(symbols: str, drawn) -> int:
    """Add up a box's symbols with the numbers of the card drawn next (rulebook Q and A)."""
    total = 0
    for term in symbols.split("+"):
        count = int(term[:-1]) if len(term) > 1 else 1
        total += count * drawn.fields[SHAPES[term[-1]]]
    return total


def test_shipped_data_validates(game):
    assert validate(game) == []


def test_counts_the_rulebook_and_components_state(game, advances):
    assert game.part("events").card_count() == 16
    assert sorted(c.fields["number"] for c in game.part("events").cards) == list(range(1, 17))
    assert sum(1 for a in advances.values() if a["type"] == "advance") == 49
    assert sum(1 for a in advances.values() if a["type"] == "wonder") == 10
    names = [c.name for c in game.part("advances").cards]
    assert len(set(names)) == len(names)
    assert {c.name for c in game.part("event-guide").cards} == EXPLAINED
    assert game.part("event-guide").card_count() == 17


def test_event_boxes_only_for_eras_1_to_8_and_rulebook_events(game):
    for card in game.part("events").cards:
        eras = [b["era"] for b in card.fields["eras"]]
        assert set(eras) <= set(range(1, 9)) and len(eras) == len(set(eras))
        for b in card.fields["eras"]:
            assert b["event"] in RULEBOOK_EVENTS
            assert (b["visitor"] in {"Atlantea", "Floren", "Gilda", "Nordic"}) == \
                (b["event"] == "Visitation")


def test_header_numbers_serve_the_rules(game):
    cards = game.part("events").cards
    # The red circles pick one of the 8 Regions, each equally often.
    assert sorted(c.fields["circle"] for c in cards) == sorted(list(range(1, 9)) * 2)
    # Mining and Black Market count 1, 2 or 3 nuggets, or none.
    assert {c.fields["gold"] for c in cards} <= {0, 1, 2, 3}
    assert any(c.fields["handshake"] for c in cards)


def test_qa_bandits_era_2_card_3_with_card_16_is_12(events):
    b = box(events[3], 2)
    assert b["event"] == "Bandits"
    assert sorted(b["symbols"].split("+")) == ["H", "S"]
    assert value_of(b["symbols"], events[16]) == 12


def test_qa_epidemic_era_3_card_3_with_card_16_is_20(events):
    b = box(events[3], 3)
    assert b["event"] == "Epidemic"
    assert sorted(b["symbols"].split("+")) == ["C", "H", "S"]
    assert value_of(b["symbols"], events[16]) == 20


def test_qa_visitation_era_5_card_3_three_squares_with_card_16_is_18(events):
    b = box(events[3], 5)
    assert b["event"] == "Visitation"
    assert b["symbols"] == "3S"
    assert value_of(b["symbols"], events[16]) == 18


def test_superstition_reads_a_single_symbol(game):
    for card in game.part("events").cards:
        for b in card.fields["eras"]:
            if b["event"] == "Superstition":
                assert b["symbols"] in {"C", "S", "H"}


def test_irrigation_requires_agriculture(advances):
    # The rulebook's example: own Agriculture before you can purchase Irrigation (no OR).
    assert advances["irrigation"]["requires"] == ["agriculture"]
    assert not advances["irrigation"].get("requires_any")


def test_hint_first_city_then_cartage_needs_six_tribes_and_a_mountain(advances):
    cartage = advances["cartage"]
    city = 4
    assert city + cartage["tribes"] == 6
    assert cartage["gold"] == 0 and cartage["resources"] == ["stone"]
    assert cartage["requires"] == []


def test_hint_city_and_fishing_need_ten_tribes_and_a_forest(advances):
    fishing = advances["fishing"]
    assert 4 + fishing["tribes"] == 10
    assert fishing["gold"] == 0 and fishing["resources"] == ["wood"]
    assert fishing["requires"] == []


def test_hint_suggested_early_advances(advances):
    for name in ("agriculture", "masonry", "cartage"):
        assert advances[name]["requires"] == []
    assert set(advances["engineering"]["requires"]) <= {"agriculture", "masonry", "cartage"}


def test_qa_city_av_limit_is_the_highest_owned(advances):
    owned = ["architecture", "metal-working"]
    assert max(advances[a]["city_av_max"] for a in owned) == 4
    assert advances["engineering"]["city_av_max"] == 3
    assert advances["metal-working"]["city_av_max"] == 3


def test_qa_law_and_civil_service_offer_to_drop_black_market(advances):
    for name in ("law", "civil-service"):
        effect = advances[name]["effect"]
        assert "Black Market" in effect and "Culture of Thievery" in effect


def test_every_advance_the_rulebook_names_is_in_the_deck(game):
    names = {c.name for c in game.part("advances").cards}
    assert set(RULEBOOK_ADVANCES) <= names


def test_explanation_cards_apply_the_rulebooks_advances_in_order(game):
    for card in game.part("event-guide").cards:
        named = [a for m in card.fields["modifiers"] for a in m["advances"]]
        assert named == RULEBOOK_MODIFIERS[card.name], card.name


def test_counters_cover_a_world_of_eight_regions(game):
    counters = game.part("counters")
    per_kind = {}
    for c in counters.cards:
        per_kind[c.fields["kind"]] = per_kind.get(c.fields["kind"], 0) + c.copies
    for kind in ("mountain", "forest", "farm", "desert", "fault-line"):
        assert per_kind[kind] >= 8
    mountain = next(c for c in counters.cards if c.id == "mountain")
    assert mountain.fields["back"] == "volcano"
    cities = game.part("cities").cards
    assert {c.fields["player"] for c in cities} == {1, 2}
    assert max(c.fields["av"] for c in cities) == 10


# Each case breaks one rule once: (rule id, file, change). EXTRA lists rules that a change
# must also break by its nature.
def _event(number):
    return lambda d: next(c for c in d["cards"] if c["number"] == number)


def _card(card_id):
    return lambda d: next(c for c in d["cards"] if c["id"] == card_id)


def _set(pick, key, value):
    def change(d):
        pick(d)[key] = value
    return change


def _box(number, era, key, value):
    def change(d):
        b = next(b for b in _event(number)(d)["eras"] if b["era"] == era)
        b[key] = value
    return change


def _drop(card_id):
    def change(d):
        d["cards"] = [c for c in d["cards"] if c["id"] != card_id]
    return change


def _add_box(d):
    _event(4)(d)["eras"].append({"era": 9, "event": "Famine"})


def _duplicate_guide(d):
    d["cards"].append({"id": "flood-again", "name": "Flood", "art": "game-icons:flood",
                       "summary": "Again.", "modifiers": []})


def _unknown_guide_advance(d):
    _card("anarchy")(d)["modifiers"][0]["advances"] = ["writing"]


def _drop_palace_markers(d):
    d["cards"] = [c for c in d["cards"] if c.get("wonder") != "palace-of-the-senate"]


def _drop_first_tracking_line(d):
    del d["phases"][0]["lines"][0]


CASES = [
    ("sixteen-event-cards", "events.yaml", _set(_event(2), "copies", 2)),
    ("event-card-numbers", "events.yaml", _set(_event(15), "number", 17)),
    ("red-circle-range", "events.yaml", _set(_event(9), "circle", 9)),
    ("green-square-range", "events.yaml", _set(_event(1), "square", 9)),
    ("blue-hexagon-range", "events.yaml", _set(_event(10), "hexagon", 11)),
    ("gold-nugget-range", "events.yaml", _set(_event(12), "gold", 4)),
    ("six-handshakes", "events.yaml", _set(_event(2), "handshake", True)),
    ("forty-nine-advances", "advances.yaml", _set(_card("basic-tools"), "copies", 2)),
    ("ten-wonders", "advances.yaml", _set(_card("hanging-gardens"), "copies", 2)),
    ("unique-advance-names", "advances.yaml", _set(_card("music"), "name", "Arts")),
    ("advance-vp-range", "advances.yaml", _set(_card("civil-service"), "vp", 16)),
    ("advance-tribe-cost-range", "advances.yaml", _set(_card("machining"), "tribes", 9)),
    ("advance-gold-cost-range", "advances.yaml", _set(_card("machining"), "gold", 11)),
    ("wonder-vp-range", "advances.yaml", _set(_card("city-of-atlantis"), "vp", 51)),
    ("wonder-tribe-cost-range", "advances.yaml", _set(_card("mountain-citadel"), "tribes", 13)),
    ("wonder-gold-cost-range", "advances.yaml", _set(_card("mountain-citadel"), "gold", 31)),
    ("unique-event-guide-cards", "event-guide.yaml", _duplicate_guide),
    ("eight-mountain-counters", "counters.yaml", _set(_card("mountain"), "copies", 7)),
    ("eight-forest-counters", "counters.yaml", _set(_card("forest"), "copies", 7)),
    ("eight-farm-counters", "counters.yaml", _set(_card("farm"), "copies", 7)),
    ("eight-desert-counters", "counters.yaml", _set(_card("desert"), "copies", 7)),
    ("eight-fault-line-counters", "counters.yaml", _set(_card("fault-line"), "copies", 7)),
    ("pocketciv.era-boxes", "events.yaml", _add_box),
    ("pocketciv.event-names", "events.yaml", _box(4, 6, "event", "Drought")),
    ("pocketciv.symbol-expressions", "events.yaml", _box(1, 2, "symbols", "X2")),
    ("pocketciv.event-symbols", "events.yaml", _box(1, 1, "symbols", "H")),
    ("pocketciv.red-circle-balance", "events.yaml", _set(_event(9), "circle", 2)),
    ("pocketciv.strength-examples", "events.yaml", _set(_event(16), "square", 7)),
    ("pocketciv.advance-requirements", "advances.yaml",
     _set(_card("arts"), "requires", ["literacy", "poetry"])),
    ("pocketciv.wonder-fields", "advances.yaml",
     _set(_card("city-of-atlantis"), "partner", "Atlantis")),
    ("pocketciv.advance-effects", "advances.yaml", _set(_card("coinage"), "effect", " ")),
    ("pocketciv.advance-examples", "advances.yaml",
     _set(_card("cartage"), "resources", ["wood"])),
    ("pocketciv.guide-covers-events", "event-guide.yaml", _drop("tsunami")),
    ("pocketciv.guide-advances", "event-guide.yaml", _unknown_guide_advance),
    ("pocketciv.wonder-markers", "counters.yaml", _drop_palace_markers),
    ("pocketciv.city-counter-stacks", "cities.yaml", _set(_card("crimson-av2"), "copies", 7)),
    ("pocketciv.advance-terms", "advances.yaml",
     _set(_card("roadbuilding"), "effect", "Tribes may cross 2 borders when moving.")),
    ("pocketciv.guide-terms", "event-guide.yaml",
     _set(_card("famine"), "summary", "Draw: the Active Region loses its Farm.")),
    ("pocketciv.guide-modifiers", "event-guide.yaml",
     _set(_card("famine"), "modifiers", [])),
    ("pocketciv.sheet-text", "tracking.yaml", _drop_first_tracking_line),
    ("pocketciv.tracking-sheet", "tracking.yaml", lambda d: d["visitors"].remove("Nordic")),
    ("pocketciv.rule-examples", "advances.yaml",
     _set(_card("patronage"), "effect", "Upkeep: gain 1 Gold for each City beyond three.")),
]
EXTRA = {"red-circle-range": {"pocketciv.red-circle-balance"},
         # Coinage's effect is one the rulebook spells out, so its terms go too.
         "pocketciv.advance-effects": {"pocketciv.advance-terms"},
         "pocketciv.guide-covers-events": {"pocketciv.guide-terms"},
         "pocketciv.guide-advances": {"pocketciv.guide-modifiers"},
         # Patronage's "beyond four" is both a term of its effect and the example's number.
         "pocketciv.rule-examples": {"pocketciv.advance-terms"}}
MY_RULES = {rule_id for rule_id, _, _ in CASES}


def test_every_rule_on_these_components_has_a_breaking_case(game):
    # The map rules (pocketciv.map-*) and checks on other components have their own tests.
    mine = set()
    for entry in rule_ids(game):
        if isinstance(entry, str) and not entry.startswith(("pocketciv.map", "pocketciv-map", "pocketciv.scenario")):
            mine.add(entry)
        elif not isinstance(entry, str) and entry.component in MY_COMPONENTS:
            mine.add(entry.id)
    assert mine == MY_RULES


@pytest.mark.parametrize("rule_id, file, change", CASES, ids=[c[0] for c in CASES])
def test_breaking_a_rule_reports_its_id(game_copy, rule_id, file, change):
    project = game_copy("pocketciv")
    edit_yaml(project / "data" / "pocketciv" / file, change)
    reported = {p.rule for p in validate(load(project))}
    assert reported & MY_RULES == {rule_id} | EXTRA.get(rule_id, set())


def test_cli_validate_names_the_broken_rule(game_copy):
    project = game_copy("pocketciv")
    edit_yaml(project / "data" / "pocketciv" / "events.yaml", _box(3, 2, "symbols", "2H"))
    result = CliRunner().invoke(main, ["validate", "pocketciv", "--project", str(project)])
    assert result.exit_code == 1
    assert "pocketciv.strength-examples" in result.output
    assert "events.yaml" in result.output


@pytest.fixture(scope="module")
def built(game):
    """Render each PocketCiv component once on A4, and the sheets on Letter too."""
    out = {cid: render_component(game, cid, PrintOptions()) for cid in MY_COMPONENTS}
    for cid in ("advance-list", "tracking"):
        out[cid + "@letter"] = render_component(game, cid, PrintOptions(paper="letter"))
    return out


# Poker cards sit 8 to an A4 sheet, 19 mm counters 96; decks print fronts and backs.
EXPECTED_PAGES = {"events": 4, "event-guide": 6, "advances": 16, "advance-list": 2,
                  "tracking": 1, "counters": 2, "cities": 2, "advance-list@letter": 2,
                  "tracking@letter": 1}


@pytest.mark.parametrize("cid", list(EXPECTED_PAGES))
def test_build_produces_the_pdf_with_its_pages(built, cid):
    result = built[cid]
    assert not isinstance(result, list), result
    assert result.pages == EXPECTED_PAGES[cid]
    assert len(PdfReader(io.BytesIO(result.pdf)).pages) == EXPECTED_PAGES[cid]


def test_card_decks_print_duplex_backs(built):
    for cid in ("events", "event-guide", "advances", "counters", "cities"):
        assert built[cid].duplex, cid


def test_printed_list_holds_every_advance_and_wonder(built, game):
    reader = PdfReader(io.BytesIO(built["advance-list"].pdf))
    words = set(" ".join(page.extract_text() for page in reader.pages).split())
    for card in game.part("advances").cards:
        assert set(card.name.split()) <= words, card.name
        assert str(card.fields["vp"]) in words
