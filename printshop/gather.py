"""Gather a project's games and turn drawing failures into located problems.

The build, the bill of materials and the exporters all start here; it imports none of them.
Games come through the load cache (printshop.loadcache): an unchanged game is read back
without parsing its YAML or checking its manifest, and rules that passed on the same files are
not run again by a build.
"""

from __future__ import annotations

from contextlib import contextmanager

from . import loadcache
from .errors import PrintshopError, Problem, Problems
from .models import Game
from .project import Project


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


def drawing_problem(game: Game, component_id: str, exc: Exception) -> Problem | None:
    """Return the located problem for a failure while drawing a component, or None."""
    from .pdf import SVGRenderError
    from .templates import TemplateProblem
    from .text import TextError

    if isinstance(exc, TemplateProblem):
        return Problem(f"templates/{game.id}/{exc.template}", f"while drawing {exc.what}: "
                       f"{str(exc).split(': ', 2)[-1]}", (), exc.line)
    if isinstance(exc, (TextError, SVGRenderError, ValueError, TimeoutError)):
        return Problem(f"data/{game.id}/game.yaml", f"{component_id}: {exc}",
                       ("components", component_id))
    if type(exc).__name__ == "GEOSException":     # shapes a map's outlines cannot make
        return Problem(f"data/{game.id}/game.yaml", f"{component_id}: a map's outlines do not "
                       f"make valid shapes ({exc})", ("components", component_id))
    return None


@contextmanager
def drawing(game: Game, component: str):
    """Turn a template or text failure while drawing a component into a located error."""
    try:
        yield
    except Exception as exc:  # only the kinds drawing_problem knows are the user's doing
        problem = drawing_problem(game, component, exc)
        if problem is None:
            raise
        raise PrintshopError(problem) from None
