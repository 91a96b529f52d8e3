"""Deity: the shipped data against the rulebook, each validator rule broken once, the build."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner
from pypdf import PdfReader

from conftest import edit_yaml
from printshop.build import build
from printshop.cli import main
from printshop.games import deity
from printshop.load.geometry import PrintOptions
from printshop.load.loader import load_game
from printshop.files.project import Project
from printshop.check.rules import validate


@pytest.fixture(scope="module")
def game(builtin):
    return load_game(builtin.game("deity"))


@pytest.fixture(scope="module")
def built(tmp_path_factory, builtin):
    out = tmp_path_factory.mktemp("deity-out")
    build(builtin, ["deity"], PrintOptions(), out)
    return out / "deity"


def test_shipped_data_passes_every_rule(game):
    assert validate(game) == []


def test_component_counts_match_the_rulebook(game):
    assert game.part("nations").card_count() == 5
    assert all(len(c.fields["levels"]) == 5 for c in game.part("nations").cards)
    prog = game.part("progression").cards
    assert [c.fields["type"] for c in prog].count("age") == 6
    assert [c.fields["type"] for c in prog].count("war") == 4
    assert [c.fields["type"] for c in prog].count("leap") == 2
    assert sorted(c.name for c in game.part("interventions").cards) == \
        ["Leader", "Revival", "Smite"]
    assert all(deity.attributes(c) for c in game.part("civilization").cards)


def test_progression_stack_runs_stone_to_atomic(game):
    prog = game.part("progression").cards
    assert prog[0].id == "stone-age" and prog[-1].id == "atomic-age"
    ages = [c.fields.get("era") for c in prog if c.fields["type"] == "age"]
    assert ages == [1, 2, 3, 4, 5, None]


def test_devotions_never_exceed_five_with_one_carried(game):
    for card in game.part("progression").cards:
        if card.fields.get("devotions") is not None:
            assert card.fields["devotions"] + 1 <= 5
    assert max(c.fields.get("devotions") or 0 for c in game.part("progression").cards) == 4


def test_chain_and_set_definitions_follow_the_rulebook():
    food, pop, dis, mil = (frozenset({s}) for s in ("food", "population", "disease",
                                                     "militarism"))
    # Two disease cards then two militarism cards: two separate chains, no set.
    assert deity.chains((dis, dis, mil, mil)) == [[1, 2], [3, 4]]
    # Three disease icons in a row make a set; three broken by another card do not.
    blank = deity.Card("n", "n", 1, {"levels": [{"deal": 1, "attributes": []}] * 5})
    assert "disease" in deity.sets(deity.Nation(blank, 1, (dis, dis, dis)))
    assert "disease" not in deity.sets(deity.Nation(blank, 1, (dis, mil, dis, dis)))
    # Four anywhere make a set, nation card included.
    fed = deity.Card("n", "n", 1, {"levels": [{"deal": 1, "attributes": ["food"]}] * 5})
    assert "food" in deity.sets(deity.Nation(fed, 1, (food, pop, food, mil, food)))


def test_trades_never_split_technology_or_disease_chains():
    tech, tech_pop, pop = frozenset({"technology"}), frozenset({"technology", "population"}), \
        frozenset({"population"})
    assert deity.legal_trades((tech, tech, pop)) == [2]
    assert deity.legal_trades((pop, tech_pop, tech)) == [1, 3]


def test_militarism_on_the_nation_card_counts_double_from_level_four(game):
    forest = next(c for c in game.part("nations").cards if c.id == "forest")
    assert deity.Nation(forest, 3, ()).militarism() == 0
    assert deity.Nation(forest, 4, ()).militarism() == 2


def test_scoring_follows_columns_a_to_e():
    result = deity.score([0, 3, 1, 2, 0], [5, 3, 3, 4, 2], 1, [3, 1, 0, 1, 0])
    assert result["A"] == [3, 2, 1, 0, 0] and result["B"] == [2, 3, 3, 4, 5]
    assert (result["C"], result["D"], result["E"], result["score"]) == (15, 2, 11, 6)


def _broken(game_copy, change_file, change):
    root = game_copy("deity")
    edit_yaml(root / "data" / "deity" / change_file, change)
    return validate(load_game(Project.open(root).game("deity")))


def _set(cards, card_id, **values):
    for c in cards:
        if c["id"] == card_id:
            c.update(values)
    return cards


BREAKS = {
    "deity.nation-count": ("nations.yaml", lambda d: d["cards"].pop() and None),
    "deity.progression-count": ("progression.yaml",
                                lambda d: _set(d["cards"], "leap-2", type="war")),
    "deity.progression-order": ("progression.yaml",
                                lambda d: d["cards"].insert(0, d["cards"].pop(1))),
    "deity.devotion-cap": ("progression.yaml",
                           lambda d: _set(d["cards"], "steel-age", devotions=5)),
    "deity.age-icons": ("progression.yaml",
                        lambda d: _set(d["cards"], "iron-age", shipping=True)),
    "deity.interventions": ("interventions.yaml",
                            lambda d: _set(d["cards"], "smite", name="Smash")),
    "deity.attribute-positions": ("civilization.yaml",
                                  lambda d: _set(d["cards"], "food", left="technology")),
    "deity.civilization-attributes": ("civilization.yaml",
                                      lambda d: d["cards"][0].pop("right")),
    "deity.nation-militarism": ("nations.yaml",
                                lambda d: d["cards"][0]["levels"][0]["attributes"].append(
                                    "militarism")),
    "deity.civilization-size": ("civilization.yaml", lambda d: [c.update(copies=1)
                                                                for c in d["cards"]]),
    "deity.example-chains-and-sets": ("examples.yaml",
                                      lambda d: d["chains_and_sets"][1].update(sets=[])),
    "deity.example-trades": ("civilization.yaml",
                             lambda d: _set(d["cards"], "resources-disease", left="food")),
    "deity.example-war": ("nations.yaml",
                          lambda d: d["cards"][4]["levels"][3].update(attributes=["food"])),
    "deity.example-scoring": ("examples.yaml", lambda d: d["scoring"].update(score=7)),
    "deity.age-names": ("progression.yaml", lambda d: _set(d["cards"], "iron-age", name="Tin Age")),
    "deity.deal-counts": ("nations.yaml",
                          lambda d: d["cards"][0]["levels"][2].update(deal=3)),
    "deity.intervention-effects": ("interventions.yaml",
                                   lambda d: _set(d["cards"], "revival",
                                                  effect="Gain 2 extra :devotion: this turn.")),
}


@pytest.mark.parametrize("rule_id", sorted(BREAKS))
def test_each_rule_reports_itself_by_name(game_copy, rule_id):
    file, change = BREAKS[rule_id]
    problems = _broken(game_copy, file, change)
    assert rule_id in {p.rule for p in problems}, [str(p) for p in problems]


def test_every_registered_deity_rule_has_a_breaking_test(game):
    from printshop.check.rules import rule_ids
    ids = {r if isinstance(r, str) else r.id for r in rule_ids(game)}
    assert ids - {"deity.sheet-text"} == set(BREAKS)  # sheet text: tests/test_facts.py


def test_broken_rule_names_file_and_card(game_copy):
    problems = _broken(game_copy, "progression.yaml",
                       lambda d: _set(d["cards"], "steel-age", devotions=5))
    text = [str(p) for p in problems if p.rule == "deity.devotion-cap"][0]
    assert text.startswith("data/deity/progression.yaml:")
    assert "cards[10].devotions" in text and "exceeds the cap of 5" in text


def test_validate_command_fails_with_the_rule_named(game_copy):
    root = game_copy("deity")
    edit_yaml(root / "data" / "deity" / "progression.yaml",
              lambda d: _set(d["cards"], "steel-age", devotions=5))
    result = CliRunner().invoke(main, ["validate", "deity", "--project", str(root)])
    assert result.exit_code == 1
    assert "[deity.devotion-cap]" in result.output


def test_build_writes_every_component(built):
    names = sorted(p.name for p in built.glob("*.pdf"))
    assert names == sorted(["nations.pdf", "civilization.pdf", "progression.pdf",
                            "interventions.pdf", "turn-reference.pdf", "scoring-pad.pdf",
                            "deity-print-and-play.pdf"])


def test_decks_print_duplex_with_the_right_number_of_sheets(built):
    # Poker cards with 3 mm bleed fit 8 to an A4 sheet; each sheet is followed by its backs.
    assert len(PdfReader(built / "civilization.pdf").pages) == 2 * 7   # 52 cards
    assert len(PdfReader(built / "progression.pdf").pages) == 2 * 2    # 12 cards
    assert len(PdfReader(built / "nations.pdf").pages) == 2
    assert len(PdfReader(built / "interventions.pdf").pages) == 2


def test_print_and_play_opens_with_a_cover_and_contents(built):
    reader = PdfReader(built / "deity-print-and-play.pdf")
    cover = " ".join(reader.pages[0].extract_text().split())
    assert "Deity" in cover and "In the box" in cover and "Civilization deck: 52 cards" in cover
    assert "Game by Geoffrey Greer" in cover
    second = reader.pages[1].extract_text()
    assert "Contents" in second and "Civilization deck" in second
    assert "You will also need" in second
    # Cover, contents on its back, the 72 poker cards sharing 9 duplex sheets, two paper aids
    # each with an empty back (the whole file prints double-sided).
    assert len(reader.pages) == 1 + 1 + 2 * 9 + 2 * 2
    assert [o.title for o in reader.outline][:3] == \
        ["Cover", "Contents", "Pages 3-20: On 300 gsm card"]


def test_pages_render(built, tmp_path):
    from conftest import pdf_to_png
    pngs = pdf_to_png(built / "turn-reference.pdf", tmp_path)
    assert len(pngs) == 1 and pngs[0].stat().st_size > 10_000
