"""The build pipeline: load -> validate -> render -> impose -> write.

Everything is gathered and checked first; components are drawn in memory (on both cores when
there are several); output/ is touched only when the whole build has succeeded.
"""

from __future__ import annotations

import multiprocessing
import os
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from . import cache, limits
from .components import RENDERERS
from .errors import PrintshopError, Problem, Problems
from .geometry import PrintOptions
from .loader import load_game
from .models import Game
from .project import Project
from .rules import validate

Progress = Callable[[str], None]


@dataclass
class ComponentPDF:
    """One component's finished PDF and what the contents page says about it."""

    game: str
    component: str
    name: str
    kind: str
    pdf: bytes
    pages: int
    duplex: bool
    note: str
    stock: str
    cut: str


@dataclass
class GameBuild:
    """Everything built for one game."""

    game: Game
    components: list[ComponentPDF] = field(default_factory=list)
    combined: bytes = b""
    cache: dict[str, str] = field(default_factory=dict)

    def files(self) -> dict[str, bytes]:
        """Return the files to write, relative to the output folder."""
        out = {f"{self.game.id}/{c.component}.pdf": c.pdf for c in self.components}
        out[f"{self.game.id}/{self.game.id}-print-and-play.pdf"] = self.combined
        return out

    def cache_files(self) -> dict[str, bytes]:
        """Return the cache manifest that lets the next build skip unchanged components."""
        entries = {c.component: (self.cache[c.component], f"{self.game.id}/{c.component}.pdf",
                                 c.pdf, {k: getattr(c, k) for k in _FACTS})
                   for c in self.components}
        entries["print-and-play"] = (self.cache["print-and-play"],
                                     f"{self.game.id}/{self.game.id}-print-and-play.pdf",
                                     self.combined, {})
        return {cache.manifest_name(self.game.id): cache.manifest_bytes(entries)}


def load_games(project: Project, ids) -> list[Game]:
    """Load every selected game, gathering all problems before failing."""
    problems = Problems()
    games = []
    for folder in project.select(list(ids)):
        try:
            games.append(load_game(folder))
        except PrintshopError as exc:
            problems.extend(exc.problems)
    problems.raise_if_any()
    return games


def check_games(games: list[Game]) -> None:
    """Run every game's rules; fail with all broken rules at once."""
    problems = Problems()
    for game in games:
        problems.extend(validate(game))
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
    return None


def render_component(game: Game, component_id: str, opts: PrintOptions
                     ) -> ComponentPDF | list[Problem]:
    """Draw, impose and render one component to PDF (runs in a worker process)."""
    from .pdf import pages_to_pdf

    part = game.part(component_id)
    spec = part.spec
    try:
        limits.check_clock()
        rendered = RENDERERS[spec.kind](game, part, opts)
        pages_within_limit(game, component_id, len(rendered.pages))
        limits.check_clock()
        pdf = pages_to_pdf(rendered.pages, f"{game.manifest.name} — {spec.name}")
    except PrintshopError as exc:
        return exc.problems
    except Exception as exc:  # only the kinds drawing_problem knows are the user's doing
        problem = drawing_problem(game, component_id, exc)
        if problem is None:
            raise
        return [problem]
    return ComponentPDF(game.id, spec.id, spec.name, spec.kind, pdf, len(rendered.pages),
                        rendered.duplex, rendered.note, spec.stock, spec.cut)


def pages_within_limit(game: Game, component_id: str, pages: int, whole_build: bool = False
                       ) -> None:
    """Refuse a component (or a build) that would print more pages than max_output_pages."""
    try:
        limits.check_pages(pages, "the build" if whole_build else "the component")
    except limits.LimitExceeded as exc:
        raise PrintshopError(Problem(f"data/{game.id}/game.yaml", str(exc),
                                     ("components", component_id))) from None


def cards_within_limit(games: list[Game]) -> None:
    """Refuse a build of more cards and tokens (copies counted) than max_cards."""
    limit = limits.current().max_cards
    counts = [(p.card_count(), g, p) for g in games for p in g.parts]
    total = sum(n for n, _, _ in counts)
    if total > limit:
        n, game, part = max(counts, key=lambda c: c[0])
        raise PrintshopError(Problem(
            part.data_file or f"data/{game.id}/game.yaml", limits.exceeded(
                "max_cards", f"the build would print {limits.number(total)} cards and tokens, "
                f"copies counted ({limits.number(n)} of them in {part.id})", limit)))


def _job(args):
    return render_component(*args)


def default_jobs() -> int:
    """Return how many worker processes to use: one per core, at most two here."""
    return max(1, min(os.cpu_count() or 1, 4))


_FACTS = ("game", "component", "name", "kind", "pages", "duplex", "note", "stock", "cut")


def render_all(games: list[Game], opts: PrintOptions, progress: Progress | None = None,
               jobs: int | None = None, out_dir: Path | None = None) -> list[GameBuild]:
    """Render every component of every game, in parallel where it pays, skipping those
    whose inputs are unchanged since the last build into ``out_dir``."""
    tasks = [(g, p.id, opts) for g in games for p in g.parts]
    keys = [cache.component_key(g, g.part(cid), opts) for g, cid, _ in tasks]
    manifests = {g.id: cache.load_manifest(out_dir, g.id) if out_dir else {} for g in games}
    results: list = [None] * len(tasks)
    for i, ((game, cid, _), key) in enumerate(zip(tasks, keys)):
        hit = cache.reuse(out_dir, manifests[game.id], cid, key, f"{game.id}/{cid}.pdf") \
            if out_dir else None
        if hit is not None:
            pdf, facts = hit
            results[i] = ComponentPDF(pdf=pdf, **{k: facts[k] for k in _FACTS})
            if progress:
                progress(f"{game.id}/{cid} (unchanged)")
    todo = [i for i, r in enumerate(results) if r is None]
    jobs = jobs or default_jobs()
    if jobs > 1 and len(todo) > 1:
        ctx = multiprocessing.get_context("fork")
        with ProcessPoolExecutor(max_workers=min(jobs, len(todo)), mp_context=ctx) as pool:
            for i, res in zip(todo, pool.map(_job, [tasks[i] for i in todo])):
                results[i] = res
                if progress:
                    progress(f"{tasks[i][0].id}/{tasks[i][1]}")
    else:
        for i in todo:
            results[i] = _job(tasks[i])
            if progress:
                progress(f"{tasks[i][0].id}/{tasks[i][1]}")
    problems = Problems()
    builds = {g.id: GameBuild(g) for g in games}
    for (game, _, _), key, res in zip(tasks, keys, results):
        if isinstance(res, list):
            problems.extend(res)
        else:
            builds[game.id].components.append(res)
            builds[game.id].cache[res.component] = key
    problems.raise_if_any()
    made = [(c.pages, b.game, c.component) for b in builds.values() for c in b.components]
    if made:
        _, game, biggest = max(made, key=lambda m: m[0])
        pages_within_limit(game, biggest, sum(m[0] for m in made), whole_build=True)
    for b in builds.values():
        key = cache.combined_key(list(b.cache.values()), opts)
        hit = cache.reuse(out_dir, manifests[b.game.id], "print-and-play", key,
                          f"{b.game.id}/{b.game.id}-print-and-play.pdf") if out_dir else None
        b.combined = hit[0] if hit else combine(b, opts)
        b.cache["print-and-play"] = key
    return list(builds.values())


def combine(build: GameBuild, opts: PrintOptions) -> bytes:
    """Return the game's print-and-play PDF: a contents page, then every component."""
    from .contents import contents_pdf
    from .merge import merge

    parts = [("Contents", contents_pdf(build, opts))]
    parts += [(c.name, c.pdf) for c in build.components]
    return merge(parts, f"{build.game.manifest.name} — print and play")


@dataclass
class BuildReport:
    """What a build wrote."""

    files: list[Path]
    games: list[GameBuild]


def build(project: Project, ids, opts: PrintOptions, out_dir: Path,
          progress: Progress | None = None, jobs: int | None = None,
          bounds: limits.Limits | None = None) -> BuildReport:
    """Build the selected games into out_dir; write nothing unless everything succeeded."""
    with limits.applied(bounds or limits.current()):
        return build_games(load_games(project, ids), opts, out_dir, progress, jobs, bounds)


def build_games(games: list[Game], opts: PrintOptions, out_dir: Path,
                progress: Progress | None = None, jobs: int | None = None,
                bounds: limits.Limits | None = None) -> BuildReport:
    """Check, render and write games already loaded; nothing is written on any failure.

    ``bounds`` are the build's limits (default: the current ones); the drawing clock for
    total_render_seconds starts here.
    """
    with limits.applied(bounds or limits.current()):
        return _check_render_write(games, opts, Path(out_dir), progress, jobs)


def _check_render_write(games: list[Game], opts: PrintOptions, out_dir: Path,
                        progress: Progress | None, jobs: int | None) -> BuildReport:
    """Run the rules and the limits, render every component, then write the output at once."""
    from .output import write_files

    check_games(games)
    cards_within_limit(games)
    builds = render_all(games, opts, progress, jobs, out_dir)
    files: dict[str, bytes] = {}
    entries: dict[str, bytes] = {}
    for b in builds:
        files.update(b.files())
        entries.update(b.cache_files())
    # The manifests go last in the same atomic write: they vouch only for PDFs already in place.
    written = write_files(out_dir, {**files, **entries})
    for b in builds:
        cache.remove_legacy(out_dir, b.game.id)
    return BuildReport([p for p in written if cache.CACHE_DIR not in p.parts], builds)
