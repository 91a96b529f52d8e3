"""Rules in print (issue 28): what a component prints is checked against the fact table, and
every printed number, sign, direction word and rule keyword, changed, fails validation.

The mutation test draws a fixed sample of each game's printed mutants (PRINTSHOP_PRINTED_MUTANTS:
a number per game, or `all`); its score per game is printed in the summary ("mutation score")
and must match the table in docs/rules-fidelity.md.
"""

from __future__ import annotations

import os
import re

import pytest
from click.testing import CliRunner

from conftest import REPO
from printshop.cli import main
from printshop.check.mutants import load_equivalents, mutants, run, template_mutants
from printshop.load.loader import load_game
from printshop.check.printed import rule_words, template_literals
from printshop.files.project import builtin_root

GAMES = ["deity", "cvlizations", "civilizations-cards", "pocketciv", "playing-gods"]
DOC = REPO / "docs" / "rules-fidelity.md"
SAMPLE = os.environ.get("PRINTSHOP_PRINTED_MUTANTS", "20")


def _validate(root, game_id):
    return CliRunner().invoke(main, ["validate", game_id, "--project", str(root)])


def _add_prints(root, game_id, after_rule, block):
    path = root / "data" / game_id / "facts.yaml"
    text = path.read_text(encoding="utf-8")
    assert f"    rule: {after_rule}\n" in text
    path.write_text(text.replace(f"    rule: {after_rule}\n", f"    rule: {after_rule}\n{block}",
                                 1), encoding="utf-8")


UNUSED = """    value: 2
    prints:
      - {component: interventions, says: "Unused at the end: +{value} points"}
      - {component: turn-reference, says: "deal 3 cards to each nation, left to right"}
"""


def test_prints_hold_on_the_shipped_game(game_copy):
    root = game_copy("deity")
    _add_prints(root, "deity", "deity.nation-count", UNUSED)
    result = _validate(root, "deity")
    assert result.exit_code == 0, result.output


def test_a_printed_number_changed_in_a_template_is_caught_at_its_line(game_copy):
    root = game_copy("deity")
    _add_prints(root, "deity", "deity.nation-count", UNUSED)
    path = root / "templates" / "deity" / "intervention.svg.j2"
    text = path.read_text(encoding="utf-8")
    line = next(n for n, t in enumerate(text.splitlines(), 1) if "+2 points" in t)
    path.write_text(text.replace("+2 points", "+3 points"), encoding="utf-8")
    result = _validate(root, "deity")
    assert result.exit_code == 1
    assert (f"templates/deity/intervention.svg.j2:{line}: [printed.says] fact 'nation-count': "
            "interventions (3 cards: leader, revival, smite) prints 'Unused at the end: +3 "
            "points'; the fact says 2") in result.output


def test_a_printed_direction_swapped_is_caught_even_where_the_phrase_survives(game_copy):
    root = game_copy("deity")
    _add_prints(root, "deity", "deity.nation-count", """    value: left
    prints:
      - {component: turn-reference, says: "deal 3 cards to each nation, {value} to right"}
""")
    assert _validate(root, "deity").exit_code == 0
    path = root / "templates" / "deity" / "reference.svg.j2"
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace("each nation, left to right", "each nation, right to right"),
                    encoding="utf-8")
    result = _validate(root, "deity")
    assert result.exit_code == 1
    assert re.search(r"templates/deity/reference\.svg\.j2:\d+: \[printed\.says\].*prints "
                     r"'deal 3 cards to each nation, right to right'; the fact says left",
                     result.output)


def test_a_printed_word_changed_in_data_is_caught_at_the_field(game_copy):
    root = game_copy("pocketciv")
    _add_prints(root, "pocketciv", "pocketciv.event-names", """    value: below
    prints:
      - {component: event-guide, card: anarchy, says: "its Tribes fall {value} the City AV"}
""")
    assert _validate(root, "pocketciv").exit_code == 0
    path = root / "data" / "pocketciv" / "event-guide.yaml"
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace("Tribes fall below the City AV", "Tribes fall above the City AV",
                                 1), encoding="utf-8")
    result = _validate(root, "pocketciv")
    assert result.exit_code == 1
    line = next(n for n, t in enumerate(text.splitlines(), 1) if "summary:" in t
                and n > text.splitlines().index("  - id: anarchy"))
    assert (f"data/pocketciv/event-guide.yaml:{line}: cards[0].summary: [printed.says] "
            "fact '") in result.output, result.output
    assert "prints 'its Tribes fall above the City AV'; the fact says below" in result.output


def test_a_sentence_gone_is_reported_where_it_was(game_copy):
    root = game_copy("deity")
    _add_prints(root, "deity", "deity.nation-count", UNUSED)
    path = root / "templates" / "deity" / "reference.svg.j2"
    text = path.read_text(encoding="utf-8")
    line = next(n for n, t in enumerate(text.splitlines(), 1) if "each nation, left to right" in t)
    path.write_text(text.replace("deal 3 cards to each nation", "deal 3 cards to every nation",
                                 1), encoding="utf-8")
    result = _validate(root, "deity")
    assert (f"templates/deity/reference.svg.j2:{line}: [printed.says] fact 'nation-count': "
            "turn-reference no longer prints") in result.output


@pytest.mark.parametrize("entry, message", [
    ("{component: nowhere, says: x}", "which the game lacks"),
    ("{component: interventions, card: nobody, says: x}", "which interventions lacks"),
    ("{component: interventions, said: x}", "a prints entry is"),
    ("{component: interventions, says: 'at most {value}'}", "the fact has no value"),
])
def test_a_bad_prints_entry_is_reported_with_its_line(game_copy, entry, message):
    root = game_copy("deity")
    _add_prints(root, "deity", "deity.nation-count", f"    prints:\n      - {entry}\n")
    text = (root / "data" / "deity" / "facts.yaml").read_text(encoding="utf-8")
    line = text.splitlines().index(f"      - {entry}") + 1
    result = _validate(root, "deity")
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert f"data/deity/facts.yaml:{line}" in result.output and message in result.output


def test_flavour_that_states_a_rule_fails_at_its_line(game_copy):
    root = game_copy("playing-gods")
    path = root / "data" / "playing-gods" / "wrath.yaml"
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace("The sea comes calling.", "Kills 2 more believers."),
                    encoding="utf-8")
    line = next(n for n, t in enumerate(text.splitlines(), 1) if "The sea comes calling." in t)
    result = _validate(root, "playing-gods")
    assert result.exit_code == 1
    assert re.search(rf"data/playing-gods/wrath\.yaml:{line}: cards\[\d+\]\.flavour: "
                     r"\[printed\.flavour\] flavour text states a rule \(2, more\)", result.output)


def test_a_template_flavour_line_may_state_no_rule(game_copy):
    root = game_copy("deity")
    path = root / "templates" / "deity" / "reference.svg.j2"
    lines = path.read_text(encoding="utf-8").splitlines()
    lines.append("{{ text('The gods count 3 more prayers.', 0, 0, 10, 10) }} {# flavour #}")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    result = _validate(root, "deity")
    assert (f"templates/deity/reference.svg.j2:{len(lines)}: [printed.flavour] a flavour line "
            "states a rule (3, more)") in result.output


def test_rule_words_and_template_literals():
    assert rule_words("Forty days was only an estimate.") == []
    assert rule_words("Lose 2 Tribes, then +1 to the left") == ["2", "1", "+", "Lose", "left"]
    assert rule_words("tech levels IV-V, 1-2 players") == ["1", "2"]
    line = """{{ text("Spend 1 devotion", 5, 10, align = 'left', size=9) }}<t x="3">Hi 3</t>"""
    assert [s.strip() for s in template_literals(line)] == ["Spend 1 devotion", "Hi 3"]
    assert template_literals("{{ text(card['cost'] ~ ' gold') }} {# 7 #}") == [" gold"]
    # a mapping's keys look things up; its values and a list's strings may print
    assert template_literals("{% set d = {'2': [0], 'left': 'Pass left'} %}") == ["Pass left"]
    assert template_literals("{% set c = ['Left city', 'Right city'] %}") == ["Left city",
                                                                              "Right city"]


def test_template_mutants_skip_layout_and_keyword_values(tmp_path):
    (tmp_path / "t.svg.j2").write_text(
        "<rect x=\"3\" width=\"5\"/>{{ text('Gain 2, pass left', 4, 5, align='left') }}\n"
        "{% if card.cost > 3 %}<text x=\"1\">Draw 1 {# 7 #}</text>{% endif %}\n"
        "{{ text('A quiet 3', 0, 0, 1, 1) }} {# flavour #}\n")
    ids = [m.id for m in template_mutants(tmp_path, "t.svg.j2")]
    assert ids == ["t.svg.j2:1:Gain>Lose", "t.svg.j2:1:2>3", "t.svg.j2:1:2>1", "t.svg.j2:1:2>4",
                   "t.svg.j2:1:left>right",
                   "t.svg.j2:2:Draw>Discard", "t.svg.j2:2:1>2", "t.svg.j2:2:1>0"]


def test_template_mutants_skip_comments_and_tags_over_several_lines(tmp_path):
    (tmp_path / "t.svg.j2").write_text(
        "{# A card: 63 x 88 mm, the name at the top,\n"
        "   the cost 2 more than the left neighbour's. #}\n"
        "<rect x=\"3\"\n      width=\"5\"/>Pay 1 {# and\n never 4 #} to the left\n"
        "{% set rows = ['Gain 2',\n               'Lose 3'] %}\n")
    ids = [m.id for m in template_mutants(tmp_path, "t.svg.j2")]
    assert ids == ["t.svg.j2:4:1>2", "t.svg.j2:4:1>0", "t.svg.j2:5:left>right",
                   "t.svg.j2:6:Gain>Lose", "t.svg.j2:6:2>3", "t.svg.j2:6:2>1", "t.svg.j2:6:2>4",
                   "t.svg.j2:7:Lose>Gain", "t.svg.j2:7:3>4", "t.svg.j2:7:3>2", "t.svg.j2:7:3>6"]


def test_no_shipped_template_comment_is_mutated(builtin):
    import re as _re

    for game_id in GAMES:
        game = load_game(builtin.game(game_id))
        for m in mutants(builtin_root(), game):
            if m.path:
                continue
            text = (builtin_root() / m.file).read_text(encoding="utf-8")
            lines = text.split("\n")
            at = sum(len(line) + 1 for line in lines[:m.line - 1]) + m.start
            assert not any(c.start() <= at < c.end()
                           for c in _re.finditer(r"\{#.*?#\}", text, _re.S)), m.id


def test_mutant_ids_name_the_card_and_field(builtin):
    game = load_game(builtin.game("deity"))
    ids = {m.id for m in mutants(builtin_root(), game)}
    assert "data/deity/interventions.yaml:cards[id=revival].effect:1>2" in ids
    assert not any(":cards[" in i and ".copies:" in i for i in ids)


def test_flavour_makes_no_mutants(builtin):
    game = load_game(builtin.game("playing-gods"))
    ids = [m.id for m in mutants(builtin_root(), game)]
    assert any(i.startswith("data/playing-gods/wrath.yaml:cards[id=plague].kills:") for i in ids)
    assert not any(".flavour" in i for i in ids)


def test_equivalent_patterns_keep_brackets_literal():
    from printshop.check.mutants import matches

    mid = "data/pocketciv/scenarios.yaml:pages[2].title:1>2"
    assert matches(mid, "data/pocketciv/scenarios.yaml:pages[*].title:*")
    assert matches(mid, "data/pocketciv/scenarios.yaml:pages[?].title:1>?")
    assert not matches(mid, "data/pocketciv/scenarios.yaml:pages[3].title:*")
    assert not matches(mid, "data/pocketciv/scenarios.yaml:pages[2].title")


def test_an_equivalent_that_names_no_mutant_is_refused(game_copy, tmp_path):
    root = game_copy("deity")
    (root / "data" / "deity" / "printed-equivalents.yaml").write_text(
        "equivalents:\n  - {mutant: 'templates/deity/nowhere.svg.j2:*', why: gone}\n")
    assert load_equivalents(root / "data" / "deity")[0]["why"] == "gone"
    with pytest.raises(ValueError, match="name no mutant: templates/deity/nowhere"):
        run(root, "deity", tmp_path / "work", 1)


@pytest.mark.parametrize("game_id", GAMES)
def test_every_printed_rule_changed_fails_validation(game_id, tmp_path, record_property):
    n = None if SAMPLE == "all" else int(SAMPLE)
    score = run(builtin_root(), game_id, tmp_path, n)
    record_property("mutation score", score.line())
    assert not score.crashed, "the validator crashed instead of reporting:\n" + \
        "\n".join(score.crashed)
    if n is None:
        assert not score.survived, "\n".join(["survived:"] + score.survived)
        return
    pct = 100 * len(score.caught) // score.printed if score.printed else 100
    line = (f"| {game_id} | {score.printed} | {len(score.caught)} | {len(score.equivalent)} | "
            f"{pct}% |")
    assert line in DOC.read_text(encoding="utf-8"), (
        f"docs/rules-fidelity.md should list {line}; survivors:\n" + "\n".join(score.survived))


def test_reading_leaves_a_concurrent_drawing_alone(builtin):
    """The studio draws cards in other threads while validate reads what they print."""
    import threading

    from printshop.check import printed
    from printshop.components.deck import card_faces
    from printshop.load.geometry import PrintOptions

    game = load_game(builtin.game("deity"))
    part = game.part("interventions")
    want = card_faces(game, part, PrintOptions(), part.cards[0])[0].svg
    assert "Unused at the end" in want
    drawn = []
    thread = threading.Thread(target=lambda: drawn.extend(
        card_faces(game, part, PrintOptions(), part.cards[0])[0].svg for _ in range(20)))
    thread.start()
    for _ in range(3):
        printed._READ.clear()
        assert "Unused at the end: +2 points" in printed.read_part(game, part)["leader"]
    thread.join()
    assert drawn == [want] * 20


def test_explain_shows_where_a_fact_is_printed_and_its_printed_breaks(game_copy):
    root = game_copy("deity")
    _add_prints(root, "deity", "deity.nation-count", UNUSED)
    ok = CliRunner().invoke(main, ["validate", "deity", "--explain", "--project", str(root)])
    assert ok.exit_code == 0, ok.output
    assert 'printed on interventions: "Unused at the end: +{value} points" ({value} = 2)' \
        in ok.output
    path = root / "templates" / "deity" / "intervention.svg.j2"
    path.write_text(path.read_text(encoding="utf-8").replace("+2 points", "+3 points"))
    bad = CliRunner().invoke(main, ["validate", "deity", "--explain", "--project", str(root)])
    assert re.search(r"BROKEN\s+nation-count\s+\[deity\.nation-count\]", bad.output)
    assert "! fact 'nation-count': interventions (3 cards" in bad.output


def test_a_fact_enforced_by_its_printed_text_alone(game_copy):
    root = game_copy("deity")
    path = root / "data" / "deity" / "facts.yaml"
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace("facts:\n", """facts:
  - id: unused-intervention
    fact: "An intervention not played by the end scores 2 points"
    source: "Game end & scoring"
    rule: printed.says
    value: 2
    prints: {component: interventions, card: smite, says: "Unused at the end: +{value} points"}
    mutate: {file: templates/deity/intervention.svg.j2, replace: ["+2 points", "+3 points"]}
""", 1), encoding="utf-8")
    assert _validate(root, "deity").exit_code == 0
    path = root / "templates" / "deity" / "intervention.svg.j2"
    path.write_text(path.read_text(encoding="utf-8").replace("+2 points", "+3 points"))
    result = _validate(root, "deity")
    assert "[printed.says] fact 'unused-intervention': interventions card 'smite' prints " \
        "'Unused at the end: +3 points'; the fact says 2" in result.output, result.output


def test_a_pinned_card_number_changed_points_at_its_field(game_copy):
    """PocketCiv pins each Advance's printed cost to the reference table: a Tribe cost edited
    in advances.yaml fails at the edited line, not at the template that draws it."""
    root = game_copy("pocketciv")
    path = root / "data" / "pocketciv" / "advances.yaml"
    text = path.read_text(encoding="utf-8")
    start = text.index("  - id: story-telling")
    at = text.index("tribes: 4", start)
    path.write_text(text[:at] + "tribes: 5" + text[at + len("tribes: 4"):], encoding="utf-8")
    line = text[:at].count("\n") + 1
    result = _validate(root, "pocketciv")
    assert result.exit_code == 1
    assert (f"data/pocketciv/advances.yaml:{line}: cards[") in result.output
    assert ("[printed.says] fact 'printed-advance-costs': advances card 'story-telling' no "
            "longer prints 'Story Telling 2 COST 4 NEEDS Food REQUIRES No other Advance'"
            ) in result.output


def test_a_map_outline_that_makes_no_shape_fails_validation_without_a_traceback(game_copy):
    """Reading the scenario book draws its hand-made maps: an outline whose shapes cross is a
    located problem, not a crash of the validator."""
    from printshop.check.mutants import apply

    root = game_copy("pocketciv")
    game = load_game(_game_of(root, "pocketciv"))
    mutant = next(m for m in mutants(root, game) if m.id.startswith(
        "data/pocketciv/scenarios.yaml:pages[id=brickfields].map.regions[0].outline[0][0][0]:0>1"))
    apply(root, mutant)
    result = _validate(root, "pocketciv")
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert "scenarios: a map's outlines do not make valid shapes" in result.output, result.output


def _game_of(root, game_id):
    from printshop.files.project import Project

    return Project.open(root).game(game_id)


def test_a_sheets_value_changed_in_data_is_caught_at_its_field(game_copy):
    """A scenario's deadline printed on the scenario book: changed in scenarios.yaml, the
    problem points at that scenario's deadline line, not at the template that prints it."""
    root = game_copy("pocketciv")
    path = root / "data" / "pocketciv" / "scenarios.yaml"
    text = path.read_text(encoding="utf-8")
    lines = text.splitlines()
    line = next(n for n, t in enumerate(lines, 1) if t.strip() == "deadline: 2")
    lines[line - 1] = lines[line - 1].replace("deadline: 2", "deadline: 4")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    result = _validate(root, "pocketciv")
    assert result.exit_code == 1
    assert f"data/pocketciv/scenarios.yaml:{line}: " in result.output, result.output
    assert "[printed.says]" in result.output
