"""Drawing failures a user caused (a template, text that does not fit, a bad shape) turned
into located problems: shared by the build, validation, the printed-text check, the exporters
and the studio, importing none of them."""

from __future__ import annotations

from contextlib import contextmanager

from ..files.errors import PrintshopError, Problem
from ..load.models import Game


def drawing_problem(game: Game, component_id: str, exc: Exception) -> Problem | None:
    """Return the located problem for a failure while drawing a component, or None."""
    from ..write.pdf import SVGRenderError
    from ..draw.templates import TemplateProblem
    from ..draw.text import TextError

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
