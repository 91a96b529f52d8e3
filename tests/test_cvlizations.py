"""CVlizations: the shipped data against the rulebook (counts, named ideas, the sample round and
worked examples), every validator rule broken once in a copy, and the printed PDFs."""

from __future__ import annotations

import copy

import pytest
from click.testing import CliRunner
from pypdf import PdfReader

from printshop.build import build
from printshop.cli import main
from printshop.components.deck import render_deck
from printshop.games import cvlizations as cv
from printshop.load.geometry import PrintOptions
from printshop.load.loader import load_game
from printshop.files.project import Project
from printshop.check.rules import rule_ids, validate

from conftest import edit_yaml

GAME = "cvlizations"
COLOURS = ["red", "yellow", "green", "blue", "black"]
# The rulebook's orders and numbers; Doubling has none.
RULEBOOK_ORDERS = {"thieving": 1, "logging": 2, "hunting": 3, "quarrying": 4, "cunning": 5,
                   "slacking": 6, "trading": 7, "doubling": None}
# The ideas the rulebook names, with their numbers.
RULEBOOK_IDEAS = {1: "Optimism", 5: "Humanism", 8: "Consumerism", 9: "Fishing Rod",
                  11: "Dagger", 13: "Fortune Telling", 14: "Gunpowder", 15: "Pickaxe",
                  16: "Axe", 19: "Tower", 21: "Castle", 22: "Bazaar", 23: "Larder",
                  25: "Holidays", 26: "Law", 28: "Feline Domestication", 29: "Wheel",
                  30: "Common Language", 35: "Rationalism", 40: "Cinematography",
                  42: "Stock Exchange", 43: "Highway", 44: "Research Institute", 47: "Tourism"}
RULEBOOK_TOKENS = {"food": 20, "wood": 20, "stone": 20, "happiness": 36, "multiplier": 6,
                   "helm": 1, "crown": 1}
# Pages with the default options (A4, duplex backs): fronts and backs per sheet of cards.
PAGES = {"board": 5, "orders-red": 2, "orders-yellow": 2, "orders-green": 2,
         "orders-blue": 2, "orders-black": 2, "ideas": 12, "tokens": 4, "aids": 2}


def load(path=None):
    """Load the game from the built-in project or a copied one."""
    return load_game(Project.open(path).game(GAME))


@pytest.fixture(scope="module")
def game():
    return load()


@pytest.fixture(scope="module")
def ideas(game):
    return {c.fields["number"]: c for c in game.part("ideas").cards}


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """Build the game once for the whole module; return the output folder."""
    out = tmp_path_factory.mktemp("cvlizations-out")
    build(Project.open(None), [GAME], PrintOptions(), out)
    return out / GAME


# -- The shipped data against the rulebook ----------------------------------------------

def test_shipped_game_validates(game):
    assert validate(game) == []


def test_five_colours_of_the_eight_orders(game):
    sets = {p.id: p for p in game.parts if p.id.startswith("orders-")}
    assert sorted(sets) == sorted(f"orders-{c}" for c in COLOURS)
    for part in sets.values():
        assert part.card_count() == 8
        assert {c.id: c.fields["number"] for c in part.cards} == RULEBOOK_ORDERS


def test_idea_decks_hold_32_and_16_numbered_ideas(ideas):
    assert sorted(ideas) == list(range(1, 49))
    early = [n for n, c in ideas.items() if c.fields["age"] == "i-ii"]
    late = [n for n, c in ideas.items() if c.fields["age"] == "iii"]
    assert sorted(early) == list(range(1, 33))
    assert sorted(late) == list(range(33, 49))
    assert all(c.copies == 1 for c in ideas.values())
    assert {c.fields["type"] for c in ideas.values()} == {"building", "tool", "invention",
                                                          "ideology"}


def test_named_ideas_keep_their_numbers(ideas):
    for number, name in RULEBOOK_IDEAS.items():
        assert ideas[number].name == name
    names = {c.name for c in ideas.values()}
    assert {"Sword", "Solitude"} <= names


def test_rationalism_counts_as_an_ideology(ideas):
    assert ideas[35].fields["type"] == "ideology"


def test_larder_turns_up_to_three_food_into_happiness(ideas):
    larder = ideas[23]
    assert larder.fields["convert"] == "food"
    assert "up to 3 :food:" in larder.fields["text"]


def test_majority_ideas_give_two_for_distinct_types(ideas):
    kinds = {ideas[n].fields["majority"] for n in (43, 44, 47)}
    assert len(kinds) == 3
    assert all("+2 :happiness:" in ideas[n].fields["text"] for n in (43, 44, 47))


def test_token_counts_match_the_box(game):
    counts = {c.fields["token"]: c.copies for c in game.part("tokens").cards}
    assert counts == RULEBOOK_TOKENS


def test_two_player_aids_and_two_variant_cards(game):
    layouts = [c.fields["layout"] for c in game.part("aids").cards]
    assert layouts.count("orders") == 1 and layouts.count("phases") == 1
    assert {c.name for c in game.part("aids").cards if c.fields["layout"] == "variant"} == {
        "The Cave Geeks", "Advanced duel"}


# -- The rulebook's worked examples, replayed from the order data ----------------------

def test_sample_round_comes_out_as_printed(game):
    orders = cv.orders_of(game)
    plays = [cv.Play("Ania", ("logging", "hunting")),
             cv.Play("Bartek", ("logging", "doubling")),
             cv.Play("Czarek", ("trading", "hunting"), give="food", take="wood"),
             cv.Play("Daria", ("quarrying", "hunting"))]
    outcome = cv.resolve_actions(orders, plays)
    assert outcome.sequence == ["logging", "hunting", "quarrying", "trading"]
    gains = {p.player: {k: v for k, v in outcome.total(p.player).items() if v} for p in plays}
    assert gains == {"Ania": {"wood": 3, "food": 1},
                     "Bartek": {"wood": 6},
                     "Czarek": {"wood": 3},  # 1 food hunted, then traded for 3 wood
                     "Daria": {"food": 1, "stone": 2}}
    assert outcome.taken["trading", "Czarek"] == {"food": -1, "wood": 3}


def test_thieving_example_steals_two_with_doubling(game):
    orders = cv.orders_of(game)
    plays = [cv.Play("Bartek", ("thieving", "doubling")),
             cv.Play("Daria", ("hunting", "doubling")),
             cv.Play("Ania", ("logging", "quarrying"))]
    outcome = cv.resolve_actions(orders, plays)
    assert outcome.total("Bartek")["stolen"] == 2
    alone = cv.resolve_actions(orders, [cv.Play("Bartek", ("thieving", "hunting"))])
    assert alone.total("Bartek")["stolen"] == 1


def test_pickaxe_adds_a_stone_per_quarrying_carried_out(game, ideas):
    orders = cv.orders_of(game)
    boosts = tuple(ideas[15].fields["boost"])
    base = cv.resolve_actions(orders, [cv.Play("P", ("quarrying", "doubling"))])
    owner = cv.resolve_actions(orders, [cv.Play("P", ("quarrying", "doubling"), boosts=boosts)])
    assert owner.total("P")["stone"] - base.total("P")["stone"] == 2


def test_crowded_orders_that_fail_are_the_four_feline_domestication_scores(game):
    failing = {o.id for o in cv.orders_of(game).values() if o.effect(3).fails}
    assert failing == {"thieving", "cunning", "slacking", "doubling"}


def test_trading_works_best_alone_and_quarrying_gives_two_then_three(game):
    orders = cv.orders_of(game)
    assert orders["quarrying"].effect(1).stone == 2
    assert orders["quarrying"].effect(2).stone == 3
    trades = [orders["trading"].effect(n).take for n in (1, 2, 3)]
    assert trades == sorted(trades, reverse=True) and trades[0] > trades[1]


def test_effects_print_as_the_data_says():
    assert cv.effect_markup({"wood": 3}) == "**+3** :wood:"
    assert cv.effect_markup({}) == "Nothing happens"
    assert "twice" in cv.effect_markup({"repeat": 2})
    assert "each of 2 players" in cv.effect_markup({"steal": 2})
    assert "**3**" in cv.effect_markup({"give": 1, "take": 3})
    assert cv.effect_markup({}, compact=True) == "—"


# -- Each validator rule, broken once in a copy ----------------------------------------

def _card(data, card_id):
    return next(c for c in data["cards"] if c["id"] == card_id)


def _effect(order, index, effect):
    """Set one order effect in orders.yaml and in the order aid, keeping the two equal."""
    def orders(data):
        _card(data, order)["effects"][index] = effect

    def aids(data):
        row = next(r for r in _card(data, "order-aid")["rows"] if r["order"] == order)
        row["effects"][index] = effect
    return [("orders.yaml", orders), ("aids.yaml", aids)]


def _idea(card_id, **values):
    return [("ideas.yaml", lambda data: _card(data, card_id).update(values))]


def _drop_component(component_id):
    def change(data):
        data["components"] = [c for c in data["components"] if c["id"] != component_id]
    return [("game.yaml", change)]


def _tokens(card_id, copies):
    return [("tokens.yaml", lambda data: _card(data, card_id).update(copies=copies))]


def _duplicate_aid(card_id):
    def change(data):
        data["cards"].append({**copy.deepcopy(_card(data, card_id)), "id": card_id + "-copy"})
    return [("aids.yaml", change)]


def _remove_aid(card_id):
    def change(data):
        data["cards"] = [c for c in data["cards"] if c["id"] != card_id]
    return [("aids.yaml", change)]


def _set_aid_effect(order, index, effect):
    def change(data):
        row = next(r for r in _card(data, "order-aid")["rows"] if r["order"] == order)
        row["effects"][index] = effect
    return [("aids.yaml", change)]


def _add_idea(data):
    data["cards"].append({"id": "radio", "name": "Radio", "art": "game-icons:radio-tower",
                          "number": 49, "age": "iii", "type": "invention", "food": 1,
                          "wood": 2, "stone": 1, "happiness": 2, "date": 1895,
                          "text": "Gain 1 :happiness: each round."})


def _swap_types(data):
    _card(data, "rationalism")["type"] = "tool"
    _card(data, "microscope")["type"] = "ideology"


# (rule id, edits, every rule id the edit breaks): each edit breaks its rule once.
CASES = [
    ("cvlizations.order-sets", _drop_component("orders-black"), {"printed.says"}),
    ("cvlizations.orders-best-in-pairs", _effect("hunting", 0, {"food": 4}), {"printed.says"}),
    ("cvlizations.crowded-orders-fail", _effect("cunning", 2, {"any": 1}), {"printed.says"}),
    ("cvlizations.doubling-repeats", _effect("doubling", 1, {"repeat": 2, "happiness": 1}),
     {"cvlizations.order-values", "printed.says"}),
    ("cvlizations.thieving-example", _effect("thieving", 0, {"steal": 1, "food": 1}),
     {"cvlizations.order-values", "printed.says"}),
    ("cvlizations.thieving-pair-victims", _effect("thieving", 1, {"steal": 1, "any": 1}),
     {"cvlizations.order-values", "printed.says"}),
    ("cvlizations.sample-round", _effect("trading", 0, {"give": 1, "take": 4}),
     {"cvlizations.order-values", "printed.says"}),
    ("cvlizations.order-values", _effect("quarrying", 1, {"stone": 4}), {"printed.says"}),
    ("cvlizations.idea-terms", _idea("consumerism", text="At the end: +3 :happiness: if you "
                                     "have no resources left."), {"cvlizations.sheet-text"}),
    ("cvlizations.sheet-text",
     [("aids.yaml", lambda d: _card(d, "phase-aid").update(footer="Tied? Share the win."))],
     set()),
    ("cvlizations.pickaxe-example", _idea("pickaxe", boost=[]), set()),
    ("cvlizations.named-ideas", _idea("law", name="Justice"), {"printed.says"}),
    ("cvlizations.named-idea-effects", [("ideas.yaml", _swap_types)], set()),
    ("cvlizations.idea-types-balanced", _idea("pyramid", type="tool"), set()),
    ("cvlizations.idea-cost-by-age", _idea("writing", wood=3, stone=3), set()),
    ("cvlizations.idea-dates", _idea("wheel", date="4000 BC"), set()),
    ("cvlizations.idea-effect-text",
     _idea("axe", text="Each time you chop trees, take 1 more :wood:."),
     {"cvlizations.sheet-text"}),
    ("cvlizations.order-aid-matches-orders", _set_aid_effect("logging", 1, {"wood": 4}),
     {"printed.says"}),
    ("ideas-48", [("ideas.yaml", _add_idea)],
     {"ideas-age-iii-16", "idea-numbers", "idea-numbers-age-iii",
      "cvlizations.idea-types-balanced"}),
    ("ideas-ages-i-ii-32", _idea("compass", age="iii"),
     {"ideas-age-iii-16", "idea-numbers-ages-i-ii", "idea-numbers-age-iii",
      "cvlizations.idea-types-balanced", "cvlizations.idea-cost-by-age"}),
    ("ideas-age-iii-16", _idea("printing-press", age="i-ii"),
     {"ideas-ages-i-ii-32", "idea-numbers-ages-i-ii", "idea-numbers-age-iii",
      "cvlizations.idea-types-balanced"}),
    ("idea-numbers", _idea("writing", number=1), {"idea-numbers-ages-i-ii", "printed.says"}),
    ("idea-numbers-ages-i-ii", _idea("compass", number=33), {"idea-numbers", "printed.says"}),
    ("idea-numbers-age-iii", _idea("printing-press", number=32), {"idea-numbers", "printed.says"}),
    ("idea-names-unique", _idea("granary", name="Larder"), {"printed.says"}),
    ("idea-food-cost", _idea("optimism", food=4), set()),
    ("idea-wood-cost", _idea("solitude", wood=4), set()),
    ("idea-stone-cost", _idea("solitude", stone=4), set()),
    ("idea-happiness", _idea("pyramid", happiness=5), {"printed.says"}),
    ("food-tokens-20", _tokens("food", 19), set()),
    ("wood-tokens-20", _tokens("wood", 21), set()),
    ("stone-tokens-20", _tokens("stone", 10), set()),
    ("happiness-tokens-36", _tokens("happiness", 30), set()),
    ("multiplier-tokens-6", _tokens("multiplier", 5), set()),
    ("one-leader-helm", _tokens("leader-helm", 2), set()),
    ("one-crown", _tokens("crown", 2), set()),
    ("one-order-aid", _duplicate_aid("order-aid"), set()),
    ("one-phase-aid", _duplicate_aid("phase-aid"), set()),
    ("two-variant-cards", _remove_aid("advanced-variant"),
     {"cvlizations.sheet-text", "printed.says"}),
]


def test_every_rule_of_the_manifest_has_a_breaking_case(game):
    listed = {r if isinstance(r, str) else r.id for r in rule_ids(game)}
    assert listed == {rule_id for rule_id, _, _ in CASES}


@pytest.mark.parametrize("rule_id, edits, also", CASES, ids=[c[0] for c in CASES])
def test_breaking_a_rule_reports_it(game_copy, rule_id, edits, also):
    project = game_copy(GAME)
    for file, change in edits:
        edit_yaml(project / "data" / GAME / file, change)
    reported = {p.rule for p in validate(load(project))}
    assert reported == {rule_id} | also


def test_cli_validate_names_the_broken_rule(game_copy):
    project = game_copy(GAME)
    for file, change in _effect("logging", 1, {"wood": 2}):
        edit_yaml(project / "data" / GAME / file, change)
    result = CliRunner().invoke(main, ["validate", GAME, "--project", str(project)])
    assert result.exit_code == 1
    assert "[cvlizations.sample-round]" in result.output
    assert "Bartek's Logging gives +4 wood; the rulebook says +6 wood" in result.output


def test_cli_validate_passes_the_shipped_game():
    result = CliRunner().invoke(main, ["validate", GAME])
    assert result.exit_code == 0
    assert "cvlizations: ok" in result.output


def test_an_idea_type_outside_the_four_is_a_load_error(game_copy):
    project = game_copy(GAME)
    edit_yaml(project / "data" / GAME / "ideas.yaml",
              lambda data: _card(data, "axe").update(type="weapon"))
    with pytest.raises(Exception, match="expected one of building, tool, invention, ideology"):
        load(project)


# -- The printed components -------------------------------------------------------------

def test_build_writes_every_component_with_its_pages(built):
    for component, pages in PAGES.items():
        assert len(PdfReader(built / f"{component}.pdf").pages) == pages, component
    combined = PdfReader(built / f"{GAME}-print-and-play.pdf")
    # A contents page, then the print run (pages grouped by stock, blanks keeping fronts odd).
    from printshop.build import bom_plan as plan
    assert len(combined.pages) == plan(Project.open(None), GAME).pages


def test_each_colour_has_its_own_back_shared_by_its_eight_orders(game):
    backs = {}
    for colour in COLOURS:
        rendered = render_deck(game, game.part(f"orders-{colour}"), PrintOptions())
        colour_backs = {faces[1].svg for faces in rendered.faces.values()}
        assert len(colour_backs) == 1
        backs[colour] = colour_backs.pop()
    assert len(set(backs.values())) == len(COLOURS)


def test_ideas_have_one_back_per_age_deck(game):
    rendered = render_deck(game, game.part("ideas"), PrintOptions())
    by_age: dict[str, set] = {}
    for card in game.part("ideas").cards:
        by_age.setdefault(card.fields["age"], set()).add(rendered.faces[card.id][1].svg)
    assert all(len(backs) == 1 for backs in by_age.values())
    assert by_age["i-ii"] != by_age["iii"]


def test_board_is_tiled_with_an_assembly_page(built):
    reader = PdfReader(built / "board.pdf")
    text = reader.pages[-1].extract_text()
    assert "Assembly" in text
    assert "tile A1 of 2 x 2" in reader.pages[0].extract_text()


def test_order_cards_print_names_and_effects(built):
    text = PdfReader(built / "orders-red.pdf").pages[0].extract_text()
    for name in ("Thieving", "Logging", "Hunting", "Quarrying", "Cunning", "Slacking",
                 "Trading", "Doubling"):
        assert name in text
    assert "Nothing happens" in text and "twice" in text


def test_low_ink_faces_draw_without_full_bleed_colour(game):
    opts = PrintOptions(low_ink=True)
    allowed = {game.manifest.style.colors["paper"], "none"}
    for part in game.parts:
        if part.kind != "deck":
            continue
        for faces in render_deck(game, part, opts).faces.values():
            for face in faces:
                # The first shape of every face is its full-bleed background.
                bleed_fill = face.svg.split('fill="', 1)[1].split('"', 1)[0]
                assert bleed_fill in allowed, (part.id, bleed_fill)
