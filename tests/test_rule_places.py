"""A rule failure about the whole game (not one card's data) points at the manifest line of
the rule that failed: every problem the rules report has a file and a line."""

from __future__ import annotations

import pytest

from printshop.load.loader import load_game
from printshop.files.project import Project
from printshop.check.rules import RULES, Finding, rule, validate
from printshop.scaffold import new_game


@pytest.fixture
def project(tmp_path):
    new_game("harbour", tmp_path)
    return tmp_path


def manifest(project, name="game.yaml"):
    return project / "data" / "harbour" / name


def add_rules(project, *lines: str, name="game.yaml") -> dict[str, int]:
    """Append rules entries to the manifest; return the line of each, by its text."""
    path = manifest(project, name)
    text = path.read_text()
    assert text.rstrip().splitlines()[-1].startswith("  - {id: one-face-per-value")
    base = len(text.rstrip().splitlines())
    path.write_text(text.rstrip() + "\n" + "\n".join(f"  - {line}" for line in lines) + "\n")
    return {line: base + k for k, line in enumerate(lines, 1)}


def problems(project):
    return validate(load_game(Project.open(str(project)).game("harbour")))


def by_rule(found, rule_id):
    hits = [p for p in found if p.rule == rule_id]
    assert len(hits) == 1, [str(p) for p in found]
    return hits[0]


def test_a_count_on_a_component_without_cards_points_at_its_rule(project):
    lines = add_rules(project, "{id: three-boards, check: count, component: board, equals: 3}")
    p = by_rule(problems(project), "three-boards")
    assert p.file == "data/harbour/game.yaml"
    assert p.line == lines["{id: three-boards, check: count, component: board, equals: 3}"]
    assert str(p).startswith(f"data/harbour/game.yaml:{p.line}: ")


def test_unknown_rules_and_checks_point_at_their_entries(project):
    lines = add_rules(project, "harbour.no-such-rule", "{id: odd, check: parity, component: cards}")
    found = problems(project)
    assert by_rule(found, "harbour.no-such-rule").line == lines["harbour.no-such-rule"]
    assert by_rule(found, "odd").line == lines["{id: odd, check: parity, component: cards}"]


@pytest.fixture
def whole_game_rule():
    """A rule of a game's own code that finds a fault in the game as a whole, and one whose
    fault names a component the game does not have."""
    @rule("harbour.enough-events", "The deck has an event for every round.")
    def enough(game):
        yield Finding("four rounds need four events; the deck has 3")

    @rule("harbour.gone", "A rule about a component the game no longer has.")
    def gone(game):
        yield Finding("the market row is missing", "market", path=("cards", 0))
    yield
    RULES.pop("harbour.enough-events")
    RULES.pop("harbour.gone")


def test_a_finding_about_the_whole_game_points_at_its_rule(project, whole_game_rule):
    lines = add_rules(project, "harbour.enough-events", "harbour.gone")
    found = problems(project)
    whole = by_rule(found, "harbour.enough-events")
    assert (whole.file, whole.line) == ("data/harbour/game.yaml",
                                       lines["harbour.enough-events"])
    gone = by_rule(found, "harbour.gone")
    assert (gone.file, gone.line) == ("data/harbour/game.yaml", lines["harbour.gone"])


@pytest.mark.parametrize("name", ["game.yml"])
def test_a_manifest_by_another_name_is_named_with_its_line(project, name):
    manifest(project).rename(manifest(project, name))
    lines = add_rules(project, "{id: three-boards, check: count, component: board, equals: 3}",
                      name=name)
    p = by_rule(problems(project), "three-boards")
    assert (p.file, p.line) == (f"data/harbour/{name}", lines[
        "{id: three-boards, check: count, component: board, equals: 3}"])


def test_every_rule_problem_has_a_line(project, whole_game_rule):
    add_rules(project, "{id: ten, check: count, component: cards, equals: 10}",
              "{id: three-boards, check: count, component: board, equals: 3}",
              "{id: cheap, check: range, component: cards, field: cost, min: 0, max: 2}",
              "harbour.enough-events", "harbour.gone", "harbour.nonesuch")
    found = problems(project)
    assert len(found) >= 6
    assert all(p.line for p in found), [str(p) for p in found if not p.line]
