"""`printshop validate`: load -> rules -> every face and page drawn in memory -> collisions.

Nothing is written. A game's rules are run, then each component is drawn by its own renderer
(the templates, the text layout and the imposition the build uses), so a template error or
text that does not fit is found here, located as the build would locate it. Every face and
page drawn is then looked at for text that collides (collide.py); those are warnings.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .check.gather import drawing, load_games
from .draw.collide import Collision, collisions
from .files import limits
from .files.errors import PrintshopError, Problem
from .files.project import Project
from .layout.impose import Face, Nested
from .load.geometry import LABEL_BAND, PrintOptions
from .load.models import Game

SHOWN_CARDS = 4   # a warning seen on more cards than this names these and counts the rest


@dataclass(frozen=True)
class CollisionWarning:
    """Text that collides on one component: where (cards or a page) and what it hits."""

    game: str
    component: str
    template: str
    where: tuple[str, ...]
    collision: Collision

    def __str__(self) -> str:
        places = ", ".join(self.where[:SHOWN_CARDS])
        if len(self.where) > SHOWN_CARDS:
            places += f" and {len(self.where) - SHOWN_CARDS} more"
        return (f"templates/{self.game}/{self.template}: {self.component}, {places}: "
                f"{self.collision}")


@dataclass
class GameCheck:
    """What validating one game found."""

    game: Game
    rules: int
    problems: list[Problem] = field(default_factory=list)
    warnings: list[CollisionWarning] = field(default_factory=list)
    drawn: int = 0
    facts: list[str] = field(default_factory=list)

    def add(self, found) -> None:
        """Add what drawing one component found: (drawn, warnings), or its problems."""
        if isinstance(found, list):
            self.problems.extend(found)
        else:
            self.drawn += found[0]
            self.warnings.extend(found[1])

    def lines(self) -> list[str]:
        """Return what `printshop validate` prints of the game: its warnings, its closing
        line, then its fact table if asked for (its errors are reported with all others)."""
        return [f"warning: {w}" for w in self.warnings] + [self.summary()] + self.facts

    def summary(self) -> str:
        """Return the game's one closing line."""
        if self.problems:
            n = len(self.problems)
            return f"{self.game.id}: {n} error{'s' if n != 1 else ''}"
        said = f"{self.game.id}: ok ({self.rules} rules); {self.drawn} faces and pages drawn"
        if self.warnings:
            n = len(self.warnings)
            said += f", {n} warning{'s' if n != 1 else ''}"
        return said


def validate_games(project: Project, ids, explain: bool = False,
                   opts: PrintOptions | None = None, jobs: int | None = None,
                   bounds: limits.Limits | None = None) -> list[GameCheck]:
    """Load, check and draw (in memory) every selected game within the build's limits; a
    load error, or a game over a limit, is raised.

    The components are drawn and looked at on the build's workers, the rules run in this
    process meanwhile."""
    from .build import cards_within_limit
    from .run.workers import Workers, default_jobs

    with limits.applied(bounds or limits.current()):
        games = load_games(project, ids)
        cards_within_limit(games)
        opts = opts or PrintOptions()
        work = [(game.id, part.id) for game in games for part in game.parts]
        drawn: dict[tuple[str, str], object] = {}
        checks: list[GameCheck] = []
        workers = Workers((jobs or default_jobs()) if len(work) > 1 else 1)
        for key in work:
            workers.add(_draw_job, (key + (opts,),),
                        lambda found, key=key: drawn.__setitem__(key, found))
        _LOADED.update({game.id: game for game in games})
        try:
            workers.run(lambda: checks.extend(check_rules(game, explain) for game in games))
        finally:
            for game in games:
                _LOADED.pop(game.id, None)
    for check in checks:
        for part in check.game.parts:
            check.add(drawn[check.game.id, part.id])
    return checks


# The games being validated, by id: forked workers find them here (a job names its game).
_LOADED: dict[str, Game] = {}


def _draw_job(args):
    game_id, component_id, opts = args
    return draw_component(_LOADED[game_id], component_id, opts)


def validate_game(game: Game, explain: bool = False,
                  opts: PrintOptions | None = None) -> GameCheck:
    """Run a game's rules, draw each of its components and look for colliding text (all in
    this process)."""
    check = check_rules(game, explain)
    for part in game.parts:
        check.add(draw_component(game, part.id, opts or PrintOptions()))
    return check


def check_rules(game: Game, explain: bool = False) -> GameCheck:
    """Run a game's rules (and read its fact table when asked to explain it)."""
    from .check.facts import describe, explain as explain_facts, load_facts
    from .check.rules import rule_ids, validate as run_rules

    check = GameCheck(game, len(rule_ids(game)))
    check.problems.extend(run_rules(game))
    if explain:
        try:
            facts = load_facts(game.data_dir, game.id)
        except PrintshopError as exc:
            check.problems.extend(exc.problems)
        else:
            check.facts = [f"{game.id}: fact table, {len(facts)} facts",
                           *describe(explain_facts(facts, check.problems))]
    return check


def draw_component(game: Game, component_id: str, opts: PrintOptions
                   ) -> tuple[int, list[CollisionWarning]] | list[Problem]:
    """Draw a component in memory; return (faces and pages drawn, warnings), or the problems
    that stopped it."""
    from .build import pages_within_limit
    from .components import RENDERERS
    from .draw.render import DrawError

    part = game.part(component_id)
    try:
        with drawing(game, component_id):
            limits.check_clock()
            rendered = RENDERERS[part.kind](game, part, opts)
            pages_within_limit(game, component_id, rendered.total_pages or len(rendered.pages))
    except PrintshopError as exc:
        return exc.problems
    seen: dict[tuple[str, Collision], list[str]] = {}
    drawn = 0
    for where, template, fragment, container, clip, edge in _drawings(rendered, part.spec,
                                                                      opts):
        drawn += 1
        try:
            hits = _collisions(fragment, container, clip, edge)
        except DrawError as exc:
            return [Problem(f"data/{game.id}/game.yaml", f"{component_id}: {where}: {exc}",
                            ("components", component_id))]
        for hit in hits:
            seen.setdefault((template, hit), []).append(where)
    cards = len(rendered.faces) if part.cards else 0
    return drawn, [CollisionWarning(game.id, component_id, template, _every(places, cards), hit)
                   for (template, hit), places in seen.items()]


_FOUND: dict[tuple, tuple[Collision, ...]] = {}
KEPT = 4096   # drawings whose collisions are kept (a deck's identical backs, copies)


def _collisions(fragment: str, container, clip, edge: str) -> tuple[Collision, ...]:
    key = (fragment, container, clip)
    if key not in _FOUND:
        if len(_FOUND) >= KEPT:
            _FOUND.clear()
        _FOUND[key] = tuple(collisions(fragment, container, clip, edge))
    return _FOUND[key]


def _drawings(rendered, spec, opts: PrintOptions):
    """Yield each face or page a component drew: (where, its template, SVG, container, clip,
    the container's name)."""
    if rendered.faces:
        for key, faces in rendered.faces.items():
            for n, face in enumerate(faces):
                yield (_place(key, n, len(faces)), _template(spec, key, n), face.svg,
                       (0.0, 0.0, face.w, face.h), _bleed_box(face), _edge(key))
        return
    for n, page in enumerate(rendered.pages, 1):
        body = "".join(part for part in page.parts if not isinstance(part, Nested))
        if not body:
            continue
        m = opts.margin
        area = (m, m, page.width - 2 * m, page.height - 2 * m - LABEL_BAND)
        yield (f"page {n}", spec.template, body, area, (0.0, 0.0, page.width, page.height),
               "the page's printable area")


def _place(key: str, n: int, count: int) -> str:
    if key == "board":
        return "the board"
    if key == "pages":
        return f"page {n + 1}"
    return f"card '{key}'" + (" (back)" if n == 1 else " (front)" if count > 1 else "")


def _every(places: list[str], cards: int) -> tuple[str, ...]:
    """Return the places of a warning, or "every card's back" (front) when it is on all."""
    if cards > 1 and len(places) == cards:
        for side in ("back", "front"):
            if all(p.endswith(f"({side})") for p in places):
                return (f"every card's {side} ({cards} cards)",)
    return tuple(places)


def _template(spec, key: str, n: int) -> str:
    """Return the template that drew face ``n`` of ``key`` (a card's, the board, pages)."""
    if key == "pages":
        return spec.cover if n == 0 and spec.cover else spec.template
    if key == "board":
        return spec.template
    return spec.back if n == 1 else spec.front


def _edge(key: str) -> str:
    return {"board": "the board", "pages": "the page"}.get(key, "the card's trim")


def _bleed_box(face: Face) -> tuple[float, float, float, float]:
    b = face.bleed
    return (-b, -b, face.w + 2 * b, face.h + 2 * b)
