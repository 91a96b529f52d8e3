"""Gather a project's games and turn drawing failures into located problems.

The build, the bill of materials and the exporters all start here; it imports none of them.
Games come through the load cache (printshop.load.loadcache): an unchanged game is read back
without parsing its YAML or checking its manifest, and rules that passed on the same files are
not run again by a build.
"""

from __future__ import annotations

from ..files.errors import PrintshopError, Problems
from ..files.project import Project
from ..load import loadcache
from ..load.models import Game
from .failures import drawing, drawing_problem  # noqa: F401 - where the stages find them


def load_games(project: Project, ids) -> list[Game]:
    """Load every selected game, gathering all problems before failing."""
    problems = Problems()
    games = []
    for folder in project.select(list(ids)):
        try:
            games.append(loadcache.load_game(folder))
        except PrintshopError as exc:
            problems.extend(exc.problems)
    problems.raise_if_any()
    return games


def load_one(project: Project, game_id: str) -> Game:
    """Load and schema-check one game of the project."""
    return load_games(project, [game_id])[0]


def check_games(games: list[Game]) -> None:
    """Run every game's rules; fail with all broken rules at once.

    A game read back from the load cache whose rules passed on the same files, code and limits
    is not checked again.
    """
    problems = Problems()
    for game in games:
        if loadcache.rules_passed(game):
            continue
        from .rules import validate

        found = validate(game)
        problems.extend(found)
        if not found:
            loadcache.record_rules_passed(game)
    problems.raise_if_any()


