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
from printshop.errors import PrintshopError
from printshop.facts import load_facts, mutate
from printshop.loader import load_game
from printshop.project import Project, builtin_root
from printshop.rules import rule_ids, validate

GAMES = ["deity", "cvlizations", "civilizations-cards", "pocketciv", "playing-gods"]
DOC = REPO / "docs" / "rules-fidelity.md"


def _facts(game_id):
    return load_facts(builtin_root() / "data" / game_id, game_id)


def _rules_broken(root: Path, game_id: str) -> set[str]:
    try:
        game = load_game(Project.open(root).game(game_id))
    except PrintshopError as exc:
        return {p.rule for p in exc.problems}
    return {p.rule for p in validate(game)}


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
            broken = _rules_broken(root, game_id)
            if fact.rule not in broken:
                missed.append(f"{fact.id}: not caught by {fact.rule} (broke {sorted(broken)})")
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
    listed = {e if isinstance(e, str) else e.id for e in rule_ids(game)}
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
    root = game_copy("deity")
    path = root / "data" / "deity" / "facts.yaml"
    text = path.read_text()
    text = text.replace("    rule: deity.nation-count\n",
                        "    rule: deity.nation-count\n    origin: {reference: games-facts.md}\n", 1)
    text = text.replace("    rule: deity.progression-order\n",
                        "    rule: deity.progression-order\n    origin: picture\n", 1)
    text = text.replace("    rule: deity.devotion-cap\n",
                        "    rule: deity.devotion-cap\n    origin: {design: DESIGN.md}\n", 1)
    path.write_text(text)
    result = CliRunner().invoke(main, ["validate", "deity", "--explain", "--project", str(root)])
    assert result.exit_code == 0, result.output
    assert "source: reference data: ../shared/reference/games-facts.md" in result.output
    assert "source: picture" in result.output
    assert "source: design choice, recorded in DESIGN.md" in result.output
    assert "source: rulebook: Understanding ages & tech levels" in result.output
    assert re.search(r"sources: \d+ rulebook, 1 reference, 1 picture, 1 design", result.output)


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
