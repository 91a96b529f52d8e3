"""Fact tables: each rulebook fact, broken in the smallest way, fails validation by its rule.

For every row of data/GAME/facts.yaml the test copies the game, applies the row's mutation and
expects `printshop validate` to report the row's rule. The score per game (facts mutated,
mutations caught) is printed in the test summary and must match docs/rules-fidelity.md.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from conftest import REPO, copy_game
from printshop.cli import main
from printshop.files.errors import PrintshopError
from printshop.check.facts import load_facts, mutate
from printshop.load.loader import load_game
from printshop.check.printed import ALWAYS
from printshop.files.project import Project, builtin_root
from printshop.check.rules import rule_ids, validate

GAMES = ["deity", "cvlizations", "civilizations-cards", "pocketciv", "playing-gods"]
DOC = REPO / "docs" / "rules-fidelity.md"


def _facts(game_id):
    return load_facts(builtin_root() / "data" / game_id, game_id)


def _problems(root: Path, game_id: str) -> list:
    try:
        game = load_game(Project.open(root).game(game_id))
    except PrintshopError as exc:
        return list(exc.problems)
    return validate(game)


def _rules_broken(root: Path, game_id: str) -> set[str]:
    return {p.rule for p in _problems(root, game_id)}


@pytest.mark.parametrize("game_id", GAMES)
def test_every_rulebook_fact_is_enforced_by_its_rule(game_id, tmp_path, record_property):
    facts = _facts(game_id)
    assert facts, f"data/{game_id}/facts.yaml lists no facts"
    root = copy_game(tmp_path / "project", game_id)
    pristine = tmp_path / "pristine"
    shutil.copytree(root, pristine)
    assert _rules_broken(root, game_id) == set(), "the shipped data must pass first"
    missed = []
    for fact in facts:
        try:
            for op in fact.mutate:
                mutate(root, game_id, op)
            problems = _problems(root, game_id)
            broken = {p.rule for p in problems}
            if fact.rule not in broken:
                missed.append(f"{fact.id}: not caught by {fact.rule} (broke {sorted(broken)})")
            missed.extend(f"{fact.id}: {p.file}: [{p.rule}] {p.message} carries no line"
                          for p in problems if p.line is None)
        except LookupError as exc:
            missed.append(f"{fact.id}: the mutation does not apply: {exc}")
        finally:
            shutil.rmtree(root)
            shutil.copytree(pristine, root)
    caught = len(facts) - len(missed)
    record_property("mutation score", f"{game_id}: {len(facts)} facts mutated, {caught} caught")
    assert not missed, "\n".join(missed)
    line = f"| {game_id} | {len(facts)} | {caught} | {100 * caught // len(facts)}% |"
    assert line in DOC.read_text(encoding="utf-8"), f"docs/rules-fidelity.md should list {line}"


@pytest.mark.parametrize("game_id", GAMES)
def test_fact_table_names_only_rules_the_game_runs(game_id, builtin):
    game = load_game(builtin.game(game_id))
    listed = {e if isinstance(e, str) else e.id for e in rule_ids(game)} | set(ALWAYS)
    for fact in _facts(game_id):
        assert fact.rule in listed, fact.id


def test_fact_table_with_an_unknown_rule_fails_validation(game_copy):
    root = game_copy("deity")
    path = root / "data" / "deity" / "facts.yaml"
    path.write_text(path.read_text().replace("rule: deity.progression-order",
                                             "rule: deity.no-such-rule", 1))
    result = CliRunner().invoke(main, ["validate", "deity", "--project", str(root)])
    assert result.exit_code != 0
    assert "unknown rule 'deity.no-such-rule'" in result.output


def test_malformed_fact_row_is_reported_with_its_line(game_copy):
    root = game_copy("deity")
    path = root / "data" / "deity" / "facts.yaml"
    path.write_text(path.read_text().replace("    source:", "    sauce:", 1))
    result = CliRunner().invoke(main, ["validate", "deity", "--project", str(root)])
    assert result.exit_code != 0
    assert re.search(r"facts\.yaml.*unknown key\(s\) sauce", result.output)


def test_explain_prints_each_fact_with_its_rule_and_status(game_copy):
    root = game_copy("deity")
    ok = CliRunner().invoke(main, ["validate", "deity", "--explain", "--project", str(root)])
    assert ok.exit_code == 0, ok.output
    n = len(_facts("deity"))
    assert f"{n} of {n} facts hold" in ok.output
    assert "[deity.progression-order]" in ok.output
    mutate(root, "deity", {"file": "progression.yaml",
                           "swap": ["cards[id=bronze-age].name", "cards[id=iron-age].name"]})
    bad = CliRunner().invoke(main, ["validate", "deity", "--explain", "--project", str(root)])
    assert bad.exit_code != 0
    assert re.search(r"BROKEN\s+\S+\s+\[deity\.age-names\]", bad.output)


@pytest.mark.parametrize("how", ["dotdot", "link"])
def test_a_restated_file_outside_the_game_is_not_read(game_copy, tmp_path, how):
    root = game_copy("deity")
    secret = tmp_path / "secret.svg.j2"
    secret.write_text("deal 3 cards to each nation, left to right  (a file outside the project)")
    if how == "dotdot":
        name = "../" * 6 + str(secret).lstrip("/")
    else:
        name = "peek.svg.j2"
        (root / "templates" / "deity" / name).symlink_to(secret)
    path = root / "data" / "deity" / "facts.yaml"
    path.write_text(path.read_text().replace("  - file: reference.svg.j2\n",
                                             f"  - file: {name}\n", 1))
    result = CliRunner().invoke(main, ["validate", "deity", "--project", str(root)])
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert "[deity.sheet-text]" in result.output and name in result.output
    assert "outside" in result.output          # refused as a link or path out of the folder


def test_explain_names_each_facts_origin(game_copy):
    # The shipped tables name every fact's origin; one row is turned into reference data here.
    root = game_copy("deity")
    path = root / "data" / "deity" / "facts.yaml"
    text = path.read_text()
    text = text.replace("    origin: rulebook\n", "    origin: {reference: games-facts.md}\n", 1)
    path.write_text(text)
    result = CliRunner().invoke(main, ["validate", "deity", "--explain", "--project", str(root)])
    assert result.exit_code == 0, result.output
    assert "source: reference data: ../shared/reference/games-facts.md" in result.output
    assert "source: picture: Set-up, the progression stack" in result.output
    assert "source: design choice, recorded in DESIGN.md" in result.output
    assert "source: rulebook: Understanding ages & tech levels" in result.output
    assert re.search(r"sources: \d+ rulebook, 1 reference, 1 picture, 1 design", result.output)


def test_every_fact_of_the_built_in_games_names_its_origin():
    for game in ("deity", "pocketciv", "playing-gods", "cvlizations", "civilizations-cards"):
        text = (REPO / "data" / game / "facts.yaml").read_text(encoding="utf-8")
        assert text.count("  - id: ") == text.count("    origin: "), game


@pytest.mark.parametrize("origin", ["book", "reference", "{reference: ../../etc/passwd}",
                                    "{rulebook: }"])
def test_a_bad_origin_is_reported_with_its_line(game_copy, origin):
    root = game_copy("deity")
    path = root / "data" / "deity" / "facts.yaml"
    text = path.read_text().replace("    rule: deity.nation-count\n",
                                    f"    rule: deity.nation-count\n    origin: {origin}\n", 1)
    path.write_text(text)
    line = text.splitlines().index(f"    origin: {origin}") + 1
    result = CliRunner().invoke(main, ["validate", "deity", "--project", str(root)])
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert f"facts.yaml:{line}" in result.output and "origin" in result.output


def _line_with(path: Path, needle: str, start: int = 0) -> int:
    lines = path.read_text(encoding="utf-8").splitlines()
    return next(n for n, t in enumerate(lines, 1) if n > start and needle in t)


def test_a_duplicate_region_id_points_at_the_duplicate(game_copy):
    root = game_copy("playing-gods")
    world = root / "data" / "playing-gods" / "world.yaml"
    lines = world.read_text(encoding="utf-8").splitlines()
    assert "id: highpass" in lines[31]
    lines[31] = lines[31].replace("id: highpass", "id: frostmarch")
    world.write_text("\n".join(lines) + "\n", encoding="utf-8")
    result = CliRunner().invoke(main, ["validate", "playing-gods", "--project", str(root)])
    assert ("data/playing-gods/world.yaml:32: continents[1].regions[1].id: "
            "[playing-gods.four-regions-per-continent] region id 'frostmarch' is used 2 times"
            ) in result.output


def test_a_cards_field_is_located_at_its_own_line(game_copy):
    root = game_copy("deity")
    path = root / "data" / "deity" / "nations.yaml"
    line = _line_with(path, "{deal: 1, attributes: [population]}", _line_with(path, "id: river"))
    text = path.read_text(encoding="utf-8").splitlines()
    text[line - 1] = text[line - 1].replace("[population]", "[militarism]")
    path.write_text("\n".join(text) + "\n", encoding="utf-8")
    result = CliRunner().invoke(main, ["validate", "deity", "--project", str(root)])
    assert (f"data/deity/nations.yaml:{line}: cards[0].levels[1].attributes: "
            "[deity.nation-militarism]") in result.output, result.output


def test_a_deck_level_count_points_at_the_decks_data_file(game_copy):
    root = game_copy("deity")
    mutate(root, "deity", {"file": "nations.yaml", "remove": True, "path": "cards[4]"})
    result = CliRunner().invoke(main, ["validate", "deity", "--project", str(root)])
    assert re.search(r"data/deity/nations\.yaml:1: cards: \[deity\.nation-count\] expected 5 "
                     r"nation cards, found 4", result.output), result.output


def test_a_sheet_sentence_gone_points_at_its_template_line(game_copy):
    root = game_copy("deity")
    path = root / "templates" / "deity" / "reference.svg.j2"
    line = _line_with(path, "left to right")
    path.write_text(path.read_text(encoding="utf-8").replace("each nation, left to right",
                                                             "each nation, right to left", 1))
    result = CliRunner().invoke(main, ["validate", "deity", "--project", str(root)])
    assert f"templates/deity/reference.svg.j2:{line}: [deity.sheet-text]" in result.output


def test_an_unknown_rule_points_at_its_manifest_entry(game_copy):
    root = game_copy("deity")
    path = root / "data" / "deity" / "game.yaml"
    text = path.read_text(encoding="utf-8")
    path.write_text(text.rstrip("\n") + "\n  - deity.no-such-rule\n", encoding="utf-8")
    line = len(path.read_text(encoding="utf-8").splitlines())
    result = CliRunner().invoke(main, ["validate", "deity", "--project", str(root)])
    assert f"data/deity/game.yaml:{line}: rules: [deity.no-such-rule] unknown rule" in \
        result.output, result.output
