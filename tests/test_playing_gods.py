"""Playing Gods: the shipped game against its rulebook, every validator rule, and the build."""

from __future__ import annotations

import io
import math

import pytest
from click.testing import CliRunner
from pypdf import PdfReader

from conftest import edit_yaml
from printshop.build import build
from printshop.cli import main
from printshop.components import RENDERERS
from printshop.games.playing_gods import ring_order
from printshop.games.playing_gods_aid import conversion_result
from printshop.load.geometry import PrintOptions
from printshop.layout.impose import sheet_plan
from printshop.load.loader import load_game
from printshop.load.models import CheckSpec
from printshop.files.project import Project
from printshop.check.rules import rule_ids, validate
from printshop.layout.tiles import tile_plan

GAME = "playing-gods"

# What the rulebook states, written out here so the data is checked against the book itself.
DISASTERS = {
    "earth": {"Mudslide", "Avalanche", "Earthquake", "Quicksand"},
    "water": {"Hailstorm", "Flood", "Drought", "Tsunami"},
    "fire": {"Volcano", "Solar Flare", "Wildfire", "Heat Wave"},
    "air": {"Lightning", "Tornado", "Smog", "Blizzard"},
}
COMPATIBLE = {"earth": {"fire", "water"}, "air": {"fire", "water"},
              "fire": {"earth", "air"}, "water": {"earth", "air"}}
SPECIALS = {"Plague", "Famine", "Darkness", "Locusts"}
CONVERSION_TYPES = {"communion", "scripture", "afterlife", "prosperity", "miracles"}


@pytest.fixture(scope="module")
def game():
    return load_game(Project.open(None).game(GAME))


def copies(game, deck: str, **where) -> int:
    """Count physical cards of a deck whose fields match ``where``."""
    return sum(c.copies for c in game.part(deck).cards
               if all(c.context().get(k) == v for k, v in where.items()))


def world(game) -> dict:
    return game.part("board").data


def aid(game) -> dict:
    return game.part("aid").data


def test_shipped_game_passes_every_rule(game):
    assert validate(game) == []


def test_cli_validates_the_shipped_game():
    result = CliRunner().invoke(main, ["validate", GAME])
    assert result.exit_code == 0, result.output
    assert f"{GAME}: ok" in result.output


def test_deck_sizes_match_the_equipment_list(game):
    assert game.part("wrath").card_count() == 52
    assert game.part("conversion").card_count() == 31


def test_four_immunity_cards_one_per_element(game):
    assert copies(game, "wrath", type="immunity") == 4
    for element in DISASTERS:
        assert copies(game, "wrath", type="immunity", element=element) == 1


def test_the_four_specials_are_named_and_kill_two(game):
    specials = [c for c in game.part("wrath").cards if c.fields["type"] == "special"]
    assert {c.name for c in specials} == SPECIALS
    assert sum(c.copies for c in specials) == 4
    assert all(c.fields["kills"] == 2 for c in specials)


def test_every_element_attacks_with_the_disasters_the_rulebook_names(game):
    for element, disasters in DISASTERS.items():
        attacks = [c for c in game.part("wrath").cards
                   if c.fields["type"] == "attack" and c.fields["element"] == element]
        assert {c.name for c in attacks} == disasters
        assert all(c.fields["kills"] == 1 for c in attacks)


def test_attack_cards_pair_only_with_compatible_elements(game):
    for card in game.part("wrath").cards:
        if card.fields["type"] == "attack":
            assert set(card.fields["combines"]) == COMPATIBLE[card.fields["element"]], card.id


def test_every_element_can_be_protected_against(game):
    for element in DISASTERS:
        assert copies(game, "wrath", type="protection", element=element) >= 1


def test_conversion_deck_has_every_type_one_godkiller_and_both_sect_cards(game):
    aspects = {c.fields["aspect"] for c in game.part("conversion").cards
               if c.fields["type"] == "conversion"}
    assert aspects == CONVERSION_TYPES
    assert copies(game, "conversion", type="godkiller") == 1
    assert copies(game, "conversion", type="gain-sect") >= 1
    assert copies(game, "conversion", type="lose-sect") >= 1


def test_twenty_chips_in_each_of_five_colours_each_with_its_own_symbol(game):
    chips = game.part("chips").cards
    assert len({c.fields["colour"] for c in chips}) == 5
    assert len({c.fields["symbol"] for c in chips}) == 5
    assert all(c.copies == 20 for c in chips)
    assert game.part("chips").card_count() == 100


def test_six_idols_one_of_them_generic(game):
    idols = game.part("idols").cards
    assert len(idols) == 6
    assert [c.id for c in idols if c.fields["generic"]] == ["your-god"]


def test_five_continents_of_four_regions_each_with_one_holy_city(game):
    continents = world(game)["continents"]
    assert len(continents) == 5
    for c in continents:
        assert len(c["regions"]) == 4
        assert sum(1 for r in c["regions"] if r.get("holy_city")) == 1
    names = [r["name"] for c in continents for r in c["regions"]]
    assert len(set(names)) == 20


def test_ring_has_two_portals_per_continent_and_the_special_spaces(game):
    spaces = world(game)["track"]["spaces"]
    portals = [s["continent"] for s in spaces if s["kind"] == "portal"]
    assert len(portals) == 10
    assert all(portals.count(c["id"]) == 2 for c in world(game)["continents"])
    kinds = [s["kind"] for s in spaces]
    assert kinds.count("warp") >= 1
    assert kinds.count("godkiller") == 1
    assert kinds.count("gain-sect") == 1
    assert {"wrath", "conversion"} <= set(kinds)


def test_the_track_is_one_closed_ring(game):
    spaces = world(game)["track"]["spaces"]
    ring, broken = ring_order(spaces)
    assert broken == []
    assert len(ring) == len(spaces) == 40
    assert ring[-1]["next"] == ring[0]["id"]


def test_every_space_is_within_two_steps_of_a_portal(game):
    """DESIGN.md promises it: a roll of 1-6 either way usually offers a Portal."""
    ring, _ = ring_order(world(game)["track"]["spaces"])
    portals = [i for i, s in enumerate(ring) if s["kind"] == "portal"]
    n = len(ring)
    for i in range(n):
        assert min(min((i - p) % n, (p - i) % n) for p in portals) <= 2, ring[i]["id"]


def kills(game, *elements) -> int:
    """Look up what a set of elements kills in the aid's combination table."""
    for row in aid(game)["combinations"]:
        if set(row["elements"]) == set(elements):
            return row["kills"]
    raise AssertionError(f"no row for {elements}")


def test_single_elements_kill_one_and_all_four_kill_six(game):
    for element in DISASTERS:
        assert kills(game, element) == 1
    assert kills(game, *DISASTERS) == 6


def test_water_and_earth_make_a_landslide_that_kills_three(game):
    row = next(r for r in aid(game)["combinations"] if set(r["elements"]) == {"water", "earth"})
    assert row["name"] == "Landslide"
    assert row["kills"] == 3


def test_compatible_pairs_kill_three_and_opposites_are_not_in_the_table(game):
    for pair in ({"earth", "fire"}, {"earth", "water"}, {"air", "fire"}, {"air", "water"}):
        assert kills(game, *pair) == 3
    tabled = [set(r["elements"]) for r in aid(game)["combinations"]]
    assert {"fire", "water"} not in tabled and {"air", "earth"} not in tabled


def test_moses_typhoon_against_protection_from_air_still_kills_one(game):
    """Water + Air is a typhoon; blocking only the Air half leaves the Water card's 1 kill."""
    row = next(r for r in aid(game)["combinations"] if set(r["elements"]) == {"water", "air"})
    assert (row["name"], row["kills"]) == ("Typhoon", 3)
    protection = [c for c in game.part("wrath").cards
                  if c.fields["type"] == "protection" and c.fields["element"] == "air"]
    assert protection, "Thor needs a Protection from Air card"
    assert kills(game, "water") == 1


def test_specials_kill_two(game):
    assert aid(game)["specials"] == {"cards": ["Plague", "Famine", "Darkness", "Locusts"],
                                     "kills": 2}


@pytest.mark.parametrize("attacker, defender, converted", [(1, 1, 0), (2, 1, 1), (3, 1, 2)])
def test_conversion_table_from_the_rulebook(game, attacker, defender, converted):
    assert conversion_result(attacker, defender) == converted
    rows = aid(game)["conversion"]["examples"]
    assert {"attacker": attacker, "defender": defender, "converts": converted} in rows


def test_eleven_regions_is_more_than_half_the_world(game):
    regions = sum(len(c["regions"]) for c in world(game)["continents"])
    assert aid(game)["win"] == {"regions": 11, "of": regions}
    assert 11 > regions / 2 >= 10


def test_a_gods_setup_fits_in_its_twenty_chips(game):
    """One sect on each home region and a second on the Holy City."""
    setup = 4 + 1
    assert setup <= min(c.copies for c in game.part("chips").cards)


def _card(data, card_id):
    return next(c for c in data["cards"] if c["id"] == card_id)


def _space(data, space_id):
    return next(s for s in data["track"]["spaces"] if s["id"] == space_id)


def _continent(data, continent_id):
    return next(c for c in data["continents"] if c["id"] == continent_id)


def _set(target, **values):
    target.update(values)


def _move_region(data):
    region = _continent(data, "borealis")["regions"].pop(0)
    _continent(data, "montara")["regions"].append(region)


def _second_godkiller(data):
    _set(_card(data, "godkiller"), copies=2)
    _set(_card(data, "gain-one-sect"), copies=5)


def _no_gain_cards(data):
    data["cards"].remove(_card(data, "gain-one-sect"))
    _set(_card(data, "communion"), copies=10)


def _no_lose_cards(data):
    data["cards"] = [c for c in data["cards"] if c["type"] != "lose-sect"]
    _set(_card(data, "gain-one-sect"), copies=10)


def _seventh_idol(data):
    data["cards"].append({**_card(data, "thunderer"), "id": "thunderer-2"})


def _skip_a_space(data):
    _set(_space(data, "s20"), next="s22")


def _no_warp(data):
    for sid in ("s04", "s20"):
        _set(_space(data, sid), kind="conversion")


def _lone_communion(data):
    _set(_card(data, "communion"), copies=1)
    _set(_card(data, "gain-one-sect"), copies=9)


def _demote_portal(data):
    space = _space(data, "s07")
    space.pop("continent")
    space["kind"] = "wrath"


def _second_air_immunity(data):
    _set(_card(data, "air-immunity"), copies=2)
    _set(_card(data, "air-protection"), copies=2)


def _no_fire_protection(data):
    data["cards"].remove(_card(data, "fire-protection"))
    _set(_card(data, "earth-protection"), copies=6)


def _drop_tie_example(data):
    del data["conversion"]["examples"][0]


def _drop_attack_line(data):
    del data["attack"][1]


BREAKS = {
    # declarative checks in game.yaml
    "wrath-card-count": ("wrath.yaml", lambda d: _set(_card(d, "earth-mudslide"), copies=3)),
    "conversion-card-count": ("conversion.yaml",
                              lambda d: _set(_card(d, "gain-one-sect"), copies=7)),
    "one-godkiller-card": ("conversion.yaml", _second_godkiller),
    "gain-sect-cards": ("conversion.yaml", _no_gain_cards),
    "lose-sect-cards": ("conversion.yaml", _no_lose_cards),
    "attack-kills-one": ("wrath.yaml", lambda d: _set(_card(d, "earth-mudslide"), kills=2)),
    "special-kills-two": ("wrath.yaml", lambda d: _set(_card(d, "plague"), kills=3)),
    "wrath-art-distinct": ("wrath.yaml", lambda d: _set(_card(d, "air-lightning"),
                                                        art="game-icons:tornado")),
    "conversion-art-distinct": ("conversion.yaml", lambda d: _set(_card(d, "schism"),
                                                                  art="game-icons:newspaper")),
    "sect-colours-distinct": ("chips.yaml", lambda d: _set(_card(d, "orange"),
                                                           colour="sect-blue")),
    "sect-symbols-distinct": ("chips.yaml", lambda d: _set(_card(d, "orange"),
                                                           symbol="sect-square")),
    "six-idols": ("idols.yaml", _seventh_idol),
    "one-generic-idol": ("idols.yaml", lambda d: _set(_card(d, "thunderer"), generic=True)),
    # rules in printshop/games/playing_gods.py
    "playing-gods.card-fields-by-type": ("wrath.yaml",
                                         lambda d: _card(d, "earth-mudslide").pop("kills")),
    "playing-gods.disasters-match-elements": ("wrath.yaml", lambda d: _set(
        _card(d, "earth-quicksand"), name="Sinkhole")),
    "playing-gods.no-opposite-elements": ("wrath.yaml", lambda d: _set(
        _card(d, "fire-volcano"), combines=["earth", "water"])),
    "playing-gods.immunity-one-per-element": ("wrath.yaml", _second_air_immunity),
    "playing-gods.special-wrath-cards": ("wrath.yaml",
                                         lambda d: _set(_card(d, "darkness"), name="Eclipse")),
    "playing-gods.conversion-aspects": ("conversion.yaml", _lone_communion),
    "playing-gods.twenty-chips-per-colour": ("chips.yaml",
                                             lambda d: _set(_card(d, "blue"), copies=19)),
    "playing-gods.world-file": ("world.yaml", lambda d: _set(
        _continent(d, "borealis")["regions"][0], capital=True)),
    "playing-gods.five-continents": ("world.yaml", lambda d: _set(
        _continent(d, "thalassa"), id="solaria")),
    "playing-gods.four-regions-per-continent": ("world.yaml", _move_region),
    "playing-gods.one-holy-city-per-continent": ("world.yaml", lambda d: _set(
        _continent(d, "borealis")["regions"][0], holy_city=True)),
    "playing-gods.two-portals-per-continent": ("world.yaml", _demote_portal),
    "playing-gods.track-closed-ring": ("world.yaml", _skip_a_space),
    "playing-gods.warp-portal-present": ("world.yaml", _no_warp),
    "playing-gods.one-godkiller-space": ("world.yaml",
                                         lambda d: _set(_space(d, "s27"), kind="godkiller")),
    "playing-gods.one-gain-sect-space": ("world.yaml",
                                         lambda d: _set(_space(d, "s12"), kind="conversion")),
    "playing-gods.element-combinations": ("aid.yaml",
                                          lambda d: _set(d["combinations"][5], kills=4)),
    "playing-gods.conversion-arithmetic": ("aid.yaml", lambda d: _set(
        d["conversion"]["examples"][3], converts=1)),
    "playing-gods.element-partners": ("wrath.yaml", lambda d: _set(
        _card(d, "air-tornado"), combines=["water"])),
    "playing-gods.combination-names": ("aid.yaml", lambda d: _set(d["combinations"][6],
                                                                   name="Monsoon")),
    "playing-gods.rulebook-examples": ("aid.yaml", _drop_tie_example),
    "playing-gods.card-names": ("conversion.yaml", lambda d: _set(_card(d, "afterlife"),
                                                                  name="Paradise")),
    "playing-gods.sheet-text": ("aid.yaml", _drop_attack_line),
    "playing-gods.protection-per-element": ("wrath.yaml", _no_fire_protection),
    "playing-gods.majority-to-win": ("aid.yaml", lambda d: _set(d["win"], regions=10)),
}

# Breaking these cannot avoid breaking another rule that depends on the same data.
ALSO_BROKEN = {
    "sect-colours-distinct": {"playing-gods.twenty-chips-per-colour"},
    "playing-gods.five-continents": {"playing-gods.two-portals-per-continent"},
    # Pairing with the opposite means not pairing with exactly the two others.
    "playing-gods.no-opposite-elements": {"playing-gods.element-partners"},
    # The Typhoon is also one of the rulebook's worked examples.
    "playing-gods.combination-names": {"playing-gods.rulebook-examples"},
    # The four Lose One Sect cards print their band, pinned on the fact (printed.says).
    "lose-sect-cards": {"printed.says"},
}


def test_every_rule_of_the_game_has_a_breaking_test(game):
    listed = {r.id if isinstance(r, CheckSpec) else r for r in rule_ids(game)}
    assert listed == set(BREAKS)


@pytest.mark.parametrize("rule_id", sorted(BREAKS))
def test_each_broken_rule_is_reported_by_name(game_copy, rule_id):
    project = game_copy(GAME)
    file, change = BREAKS[rule_id]
    edit_yaml(project / "data" / GAME / file, change)
    broken = load_game(Project.open(project).game(GAME))
    reported = {p.rule for p in validate(broken)}
    assert rule_id in reported
    assert reported <= {rule_id} | ALSO_BROKEN.get(rule_id, set())


def test_cli_names_the_broken_rule_and_its_file(game_copy):
    project = game_copy(GAME)
    edit_yaml(project / "data" / GAME / "wrath.yaml",
              lambda d: _set(_card(d, "fire-volcano"), combines=["earth", "water"]))
    result = CliRunner().invoke(main, ["validate", GAME, "--project", str(project)])
    assert result.exit_code == 1
    assert "[playing-gods.no-opposite-elements]" in result.output
    assert "data/playing-gods/wrath.yaml" in result.output


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    out = tmp_path_factory.mktemp("playing-gods-build")
    report = build(Project.open(None), [GAME], PrintOptions(), out, jobs=1)
    return {path.name: PdfReader(io.BytesIO(path.read_bytes())) for path in report.files
            if path.suffix == ".pdf"}


def card_sheets(game, deck: str, opts: PrintOptions) -> int:
    """Return how many sheets a deck fills, from the card size and the core's sheet plan."""
    rendered = RENDERERS[game.part(deck).kind](game, game.part(deck), opts)
    face = rendered.faces[game.part(deck).cards[0].id][0]
    _, _, grid = sheet_plan(face, opts)
    return math.ceil(game.part(deck).card_count() / grid.count)


def test_build_writes_every_component_and_the_combined_pdf(built):
    pdfs = dict(built)
    assert set(pdfs) == {"board.pdf", "wrath.pdf", "conversion.pdf", "chips.pdf", "idols.pdf",
                         "stickers.pdf", "aid.pdf", "playing-gods-print-and-play.pdf"}
    combined = pdfs.pop("playing-gods-print-and-play.pdf")
    # A contents page, then the print run (pages grouped by stock, blanks keeping fronts odd).
    from printshop.build import bom_plan as plan
    assert len(combined.pages) == plan(Project.open(None), GAME).pages


def test_page_counts(built, game):
    pdfs = built
    opts = PrintOptions()
    # Duplex decks: a page of fronts then a page of backs for every sheet.
    assert len(pdfs["wrath.pdf"].pages) == 2 * card_sheets(game, "wrath", opts)
    assert len(pdfs["conversion.pdf"].pages) == 2 * card_sheets(game, "conversion", opts)
    assert len(pdfs["chips.pdf"].pages) == 2 * card_sheets(game, "chips", opts)
    # Six idols fit one sheet, the stickers one sheet, the aid one page.
    assert len(pdfs["idols.pdf"].pages) == 1
    assert len(pdfs["stickers.pdf"].pages) == 1
    assert len(pdfs["aid.pdf"].pages) == 1
    # The 50 cm board: six A4 tiles and the assembly diagram.
    assert len(pdfs["board.pdf"].pages) == 7


def test_every_card_and_chip_is_placed_once_front_and_back(game):
    opts = PrintOptions()
    for deck in ("wrath", "conversion", "chips"):
        part = game.part(deck)
        rendered = RENDERERS[part.kind](game, part, opts)
        for side in ("front", "back"):
            placed = [p.card_id for page in rendered.pages for p in page.placements
                      if p.side == side]
            assert len(placed) == part.card_count(), (deck, side)
            for card in part.cards:
                assert placed.count(card.id) == card.copies


def test_the_two_decks_have_one_back_each_and_they_differ(game):
    opts = PrintOptions()
    backs = {}
    for deck in ("wrath", "conversion"):
        rendered = RENDERERS["deck"](game, game.part(deck), opts)
        backs[deck] = {faces[1].svg for faces in rendered.faces.values()}
        assert len(backs[deck]) == 1
    assert backs["wrath"] != backs["conversion"]


def test_pdf_fonts_are_embedded(built):
    pdfs = built
    for name in ("wrath.pdf", "board.pdf", "aid.pdf"):
        fonts = set()
        for page in pdfs[name].pages:
            for font in (page["/Resources"].get("/Font") or {}).values():
                descriptor = font.get_object().get("/FontDescriptor")
                if descriptor is None:  # a composite font keeps it on its descendant
                    descendant = font.get_object()["/DescendantFonts"][0].get_object()
                    descriptor = descendant["/FontDescriptor"]
                descriptor = descriptor.get_object()
                assert any(k in descriptor for k in ("/FontFile", "/FontFile2", "/FontFile3"))
                fonts.add(str(descriptor["/FontName"]))
        assert fonts, name


@pytest.mark.parametrize("paper", ["a4", "letter"])
def test_board_tiles_split_the_board_with_fixed_glue_strips(game, paper):
    spec = game.part("board").spec
    w, h = spec.size
    assert (w, h) == (500, 500)
    plan = tile_plan(w, h, PrintOptions(paper=paper), spec.overlap)
    assert len(plan.tiles) == 6
    # Whatever paper is left over becomes margin: every join keeps the same glue strip.
    assert {t.glue_right for t in plan.tiles if t.col < plan.cols - 1} == {spec.overlap}
    assert {t.glue_bottom for t in plan.tiles if t.row < plan.rows - 1} == {spec.overlap}
    assert sum(t.w for t in plan.tiles if t.row == 0) == pytest.approx(w)
    assert sum(t.h for t in plan.tiles if t.col == 0) == pytest.approx(h)
