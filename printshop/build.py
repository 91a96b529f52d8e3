"""The build pipeline: load -> validate -> render -> print run -> write.

Everything is gathered and checked first; components are drawn in memory (on both cores when
there are several); output/ is touched only when the whole build has succeeded.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Callable

from . import cache, limits
from .errors import PrintshopError, Problem, Problems
from .gather import check_games, drawing_problem, load_games
from .geometry import PrintOptions
from .models import Game
from .printrun import ComponentPDF, PrintRun, items_of
from .project import Project

__all__ = ["BuildReport", "ComponentPDF", "GameBuild", "build", "build_games", "check_games",
           "load_games", "render_all", "render_component"]

Progress = Callable[[str], None]


@dataclass
class GameBuild:
    """Everything built for one game."""

    game: Game
    components: list[ComponentPDF] = field(default_factory=list)
    combined: bytes = b""
    cache: dict[str, str] = field(default_factory=dict)
    run: PrintRun | None = None
    paper: dict = field(default_factory=dict)   # pages, and sheets by stock, of the print run

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
                                     self.combined, self.paper)
        return {cache.manifest_name(self.game.id): cache.manifest_bytes(entries)}


def render_component(game: Game, component_id: str, opts: PrintOptions,
                     share: tuple[int, int] | None = None) -> ComponentPDF | list[Problem]:
    """Draw, impose and render one component to PDF, or one share (index, shares) of a long
    deck (runs in a worker process)."""
    from .components import RENDERERS
    from .pdf import pages_to_pdf

    part = game.part(component_id)
    spec = part.spec
    try:
        limits.check_clock()
        if share is None:
            rendered = RENDERERS[spec.kind](game, part, opts)
        else:
            rendered = RENDERERS[spec.kind](game, part, opts, share)
        pages_within_limit(game, component_id, rendered.total_pages or len(rendered.pages))
        limits.check_clock()
        pdf = pages_to_pdf(rendered.pages, f"{game.manifest.name} — {spec.name}",
                           rendered.first_page, rendered.total_pages)
    except PrintshopError as exc:
        return exc.problems
    except Exception as exc:  # only the kinds drawing_problem knows are the user's doing
        problem = drawing_problem(game, component_id, exc)
        if problem is None:
            raise
        return [problem]
    return component_pdf(game, rendered, pdf)


def join_shares(game: Game, component_id: str, shares: list) -> ComponentPDF | list[Problem]:
    """Join the shares of a long deck, in order, into the deck's PDF (or gather their
    problems, each once: a card whose copies span two shares is drawn in both)."""
    if len(shares) == 1:
        return shares[0]
    problems = [p for res in shares if isinstance(res, list) for p in res]
    if problems:
        return [p for n, p in enumerate(problems) if p not in problems[:n]]
    from .merge import merge

    first = shares[0]
    pdf = merge([(first.name if n == 0 else None, res.pdf, None) for n, res in
                 enumerate(shares)], f"{game.manifest.name} — {first.name}")
    return replace(first, pdf=pdf, pages=sum(res.pages for res in shares),
                   sides=tuple(side for res in shares for side in res.sides),
                   items=[item for res in shares for item in res.items or ()])


def component_pdf(game: Game, rendered, pdf: bytes) -> ComponentPDF:
    """Return what the print run needs of a rendered component (``pdf`` may be empty)."""
    part = game.part(rendered.component)
    spec = part.spec
    items = rendered.items if rendered.items is not None else \
        items_of(part, rendered.faces) if rendered.faces else None
    return ComponentPDF(game.id, spec.id, spec.name, spec.kind, pdf, len(rendered.pages),
                        rendered.duplex, rendered.note, spec.stock, spec.cut,
                        tuple(p.side for p in rendered.pages), items)


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


_FACTS = ("game", "component", "name", "kind", "pages", "duplex", "note", "stock", "cut",
          "sides")


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
            results[i] = ComponentPDF(pdf=pdf, **{k: facts.get(k, ()) for k in _FACTS})
            results[i].sides = tuple(results[i].sides)
            if progress:
                progress(f"{game.id}/{cid} (unchanged)")
    todo = [i for i, r in enumerate(results) if r is None]
    shares: dict[int, int] = {}
    if todo:
        # Imported, and cached manifests checked, once here rather than in every worker.
        from .components import SHARES
        for i in todo:
            game, cid, _ = tasks[i]
            game.manifest
            count = SHARES.get(game.part(cid).kind)
            shares[i] = count(game, game.part(cid), opts) if count else 1
    work = [(i, tasks[i] + ((k, shares[i]),) if shares[i] > 1 else tasks[i])
            for i in todo for k in range(shares[i])]
    jobs = jobs or default_jobs()
    done: dict[int, list] = {i: [] for i in todo}
    if jobs > 1 and len(work) > 1:
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        ctx = multiprocessing.get_context("fork")
        with ProcessPoolExecutor(max_workers=min(jobs, len(work)), mp_context=ctx) as pool:
            for (i, _), res in zip(work, pool.map(_job, [job for _, job in work])):
                done[i].append(res)
                if len(done[i]) == shares[i]:
                    results[i] = join_shares(tasks[i][0], tasks[i][1], done.pop(i))
                    if progress:
                        progress(f"{tasks[i][0].id}/{tasks[i][1]}")
    else:
        for i, job in work:
            done[i].append(_job(job))
            if len(done[i]) == shares[i]:
                results[i] = join_shares(tasks[i][0], tasks[i][1], done.pop(i))
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
        if hit and hit[1].get("sheets"):
            b.combined, b.paper = hit[0], hit[1]
        else:
            b.run = plan(b, opts)
            b.combined = combine(b, opts)
            b.paper = {"pages": b.run.pages, "sheets": b.run.sheets()}
        b.cache["print-and-play"] = key
    return list(builds.values())


def plan(build: GameBuild, opts: PrintOptions) -> PrintRun:
    """Plan a game's print run, redrawing the cards of components taken from the cache."""
    from .components import RENDERERS
    from .printrun import plan_run

    for c in build.components:
        if c.kind in ("deck", "tokens") and c.items is None:
            part = build.game.part(c.component)
            rendered = RENDERERS[c.kind](build.game, part, opts)
            c.items = items_of(part, rendered.faces)
    return plan_run(build.game, build.components, opts)


def combine(build: GameBuild, opts: PrintOptions) -> bytes:
    """Return the game's print-and-play PDF: a contents page, then every run of pages."""
    from .contents import blank_pdf, contents_pdf
    from .merge import merge
    from .pdf import pages_to_pdf

    run = build.run
    name = build.game.manifest.name
    pdfs = {c.component: c.pdf for c in build.components}
    blank = blank_pdf(build.game, opts)
    parts = [("Contents", contents_pdf(build, opts), None)]
    if run.blank_after_contents:
        parts.append((None, blank, None))
    for r in run.runs:
        title = f"Pages {r.first}-{r.last}: {r.title}"
        for source in r.sources:
            if source.blank:
                parts.append((title, blank, None))
            elif source.pages:
                parts.append((title, pages_to_pdf(source.pages, f"{name} — {r.title}"), None))
            else:
                parts.append((title, pdfs[source.component], source.indexes))
            title = None
    return merge(parts, f"{name} — print and play")


@dataclass
class BuildReport:
    """What a build wrote."""

    files: list[Path]
    games: list[GameBuild]
    unchanged: list[Path] = field(default_factory=list)
    out_dir: Path = Path("output")

    @property
    def pages(self) -> int:
        """Return the pages of the print-and-play files built."""
        return sum(b.paper.get("pages", 0) for b in self.games)

    def sheets(self) -> list[tuple[str, int]]:
        """Return (stock, sheets) to print every game built, in the order first used."""
        totals: dict[str, int] = {}
        for b in self.games:
            for stock, n in b.paper.get("sheets", ()):
                totals[stock] = totals.get(stock, 0) + n
        return list(totals.items())


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
    same: list[Path] = []
    written = write_files(out_dir, {**files, **entries}, same)
    for b in builds:
        cache.remove_legacy(out_dir, b.game.id)
    shown = [p for p in written if cache.CACHE_DIR not in p.parts]
    unchanged = [p for p in shown if p in same]
    return BuildReport([p for p in shown if p not in same], builds, unchanged, out_dir)
