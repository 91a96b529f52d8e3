"""The build pipeline: load -> validate -> render -> print run -> write.

Everything is gathered and checked first; components are drawn in memory (on both cores when
there are several), and a game's print-and-play file is drawn as soon as its components are
(workers.py); output/ is touched only when the whole build has succeeded.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Callable

from .check.gather import check_games, drawing, load_games, load_one
from .files import limits
from .files.errors import PrintshopError, Problem, Problems
from .files.project import Project, did_you_mean
from .layout.bom import Bom, bill_of_materials, bom_text
from .layout.printrun import ComponentPDF, PrintRun, items_of
from .load import cache
from .load.geometry import PrintOptions, paper_size
from .load.icons import notice
from .load.models import Game

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
    whole: bool = True    # every component drawn (not --only): the print-and-play file too

    def files(self) -> dict[str, bytes]:
        """Return the files to write, relative to the output folder."""
        out = {f"{self.game.id}/{c.component}.pdf": c.pdf for c in self.components}
        if self.whole:
            out[f"{self.game.id}/{self.game.id}-print-and-play.pdf"] = self.combined
        out.update({f"{self.game.id}/{name}": text for name, text in notice(self.game).items()})
        return out

    def cache_files(self) -> dict[str, bytes]:
        """Return the cache manifest that lets the next build skip unchanged components."""
        if not self.whole:
            # Left as it was: a component drawn again no longer hashes to its entry there.
            return {}
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
    from .write.pdf import pages_to_pdf

    part = game.part(component_id)
    spec = part.spec
    try:
        with drawing(game, component_id):
            limits.check_clock()
            if share is None:
                rendered = RENDERERS[spec.kind](game, part, opts)
            else:
                rendered = RENDERERS[spec.kind](game, part, opts, share)
            pages_within_limit(game, component_id,
                               rendered.total_pages or len(rendered.pages))
            limits.check_clock()
            pdf = pages_to_pdf(rendered.pages, f"{game.manifest.name} — {spec.name}",
                               rendered.first_page, rendered.total_pages)
    except PrintshopError as exc:
        return exc.problems
    return component_pdf(game, rendered, pdf)


def join_shares(game: Game, component_id: str, shares: list) -> ComponentPDF | list[Problem]:
    """Join the shares of a long deck, in order, into the deck's PDF (or gather their
    problems, each once: a card whose copies span two shares is drawn in both)."""
    if len(shares) == 1:
        return shares[0]
    problems = [p for res in shares if isinstance(res, list) for p in res]
    if problems:
        return [p for n, p in enumerate(problems) if p not in problems[:n]]
    from .write.merge import merge

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


# The games of the builds in progress, by (build, game id). Worker processes are forked with
# them, so a job names its game instead of carrying it (a deck of 10,000 cards pickles to
# 7.6 MB, and a copy comes without its compiled templates). Each build adds and removes only
# its own: the studio may run two at once, in two threads.
_LOADED: dict[tuple[int, str], Game] = {}
_BUILDS = itertools.count()
GameRef = tuple[int, str]


def _job(args):
    ref, *rest = args
    return render_component(_LOADED[ref], *rest)


def _contents_page(ref: GameRef, components: list[ComponentPDF], run: PrintRun,
                   opts: PrintOptions) -> bytes:
    from .write.contents import contents_pdf

    return contents_pdf(GameBuild(_LOADED[ref], components, run=run), opts)


def _shared_sheets(pages: list, title: str) -> bytes:
    """Draw pages of the print run (shared sheets); cairo is imported where they are drawn."""
    from .write.pdf import pages_to_pdf

    return pages_to_pdf(pages, title)


def _blank_page(ref: GameRef, opts: PrintOptions) -> bytes:
    from .write.contents import blank_pdf

    return blank_pdf(_LOADED[ref], opts)


_FACTS = ("game", "component", "name", "kind", "pages", "duplex", "note", "stock", "cut",
          "sides")


def render_all(games: list[Game], opts: PrintOptions, progress: Progress | None = None,
               jobs: int | None = None, out_dir: Path | None = None,
               meanwhile: Callable[[], None] | None = None,
               only: frozenset[str] | None = None) -> list[GameBuild]:
    """Render every component of every game, in parallel where it pays, skipping those
    whose inputs are unchanged since the last build into ``out_dir``; then each game's
    print-and-play file, its parts drawn as soon as the game's components are (workers.py).

    ``meanwhile()`` (the build's rules) runs in this process while the workers draw; an
    error it raises is the build's, whatever the drawing found. ``only`` names the components
    to draw (the others, and the print-and-play files, are left alone)."""
    from .run.workers import URGENT, Workers, default_jobs

    tasks = [(g, p.id, opts) for g in games for p in g.parts if only is None or p.id in only]
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
        # Imported, and cached manifests checked, once here rather than in every worker: the
        # components, the drawing (cairo), the contents page and the code of the games to draw
        # (their rules and template helpers, which the rules check here needs too).
        from .write import contents, pdf  # noqa: F401
        from .components import SHARES
        from .load.plugins import load_drawing
        load_drawing({tasks[i][0].id for i in todo})
        for i in todo:
            game, cid, _ = tasks[i]
            game.manifest
            count = SHARES.get(game.part(cid).kind)
            shares[i] = count(game, game.part(cid), opts) if count else 1
    work = [(i, k, tasks[i] + ((k, shares[i]),) if shares[i] > 1 else tasks[i])
            for i in todo for k in range(shares[i])]
    workers = Workers((jobs or default_jobs()) if len(work) > 1 else 1)
    builds = {g.id: GameBuild(g, whole=only is None) for g in games}
    left = {g.id: 0 for g in games}       # components of each game not drawn yet
    for i in todo:
        left[tasks[i][0].id] += 1
    failed, pages = False, 0       # a problem so far; pages of the games drawn so far
    build_id = next(_BUILDS)

    def drawn(game: Game) -> None:
        """All of a game's components are drawn: queue its print-and-play file's parts,
        unless the build will fail anyway (a problem, or too many pages in all)."""
        nonlocal failed, pages
        b = builds[game.id]
        for (g, _, _), key, res in zip(tasks, keys, results):
            if g is game and isinstance(res, list):
                failed = True
            elif g is game:
                b.components.append(res)
                b.cache[res.component] = key
        pages += sum(c.pages for c in b.components)
        if failed or pages > limits.current().max_output_pages or not b.whole:
            return
        key = cache.combined_key(list(b.cache.values()), opts)
        b.cache["print-and-play"] = key
        hit = cache.reuse(out_dir, manifests[game.id], "print-and-play", key,
                          f"{game.id}/{game.id}-print-and-play.pdf") if out_dir else None
        if hit and hit[1].get("sheets"):
            b.combined, b.paper = hit[0], hit[1]
            return
        b.run = plan(b, opts)
        b.paper = {"pages": b.run.pages, "sheets": b.run.sheets()}
        combine(b, opts, workers, URGENT, (build_id, game.id))

    def share_done(i: int, k: int, res) -> None:
        """Share k of component i is drawn; when all are, the component is (its shares
        joined in order, whichever finished first)."""
        gathered[i][k] = res
        if len(gathered[i]) < shares[i]:
            return
        game, cid, _ = tasks[i]
        results[i] = join_shares(game, cid, [gathered[i][n] for n in range(shares[i])])
        if progress:
            progress(f"{game.id}/{cid}")
        left[game.id] -= 1
        if left[game.id] == 0:
            drawn(game)

    gathered: dict[int, dict[int, object]] = {i: {} for i in todo}
    # The games with the most to draw go first: the last game's print-and-play file is drawn
    # after everything else, so it had better be a small one.
    weight = {g.id: sum(1 for i, _, _ in work if tasks[i][0] is g) for g in games}
    for i, k, job in sorted(work, key=lambda w: -weight[tasks[w[0]][0].id]):
        workers.add(_job, (((build_id, job[0].id),) + job[1:],),
                    lambda res, i=i, k=k: share_done(i, k, res))
    for g in games:
        if left[g.id] == 0:
            drawn(g)
    mine = {(build_id, g.id): g for g in games}
    _LOADED.update(mine)
    try:
        workers.run(meanwhile)
    finally:
        for ref in mine:
            _LOADED.pop(ref, None)
    problems = Problems()
    for res in results:
        if isinstance(res, list):
            problems.extend(res)
    problems.raise_if_any()
    made = [(c.pages, b.game, c.component) for b in builds.values() for c in b.components]
    if made:
        _, game, biggest = max(made, key=lambda m: m[0])
        pages_within_limit(game, biggest, sum(m[0] for m in made), whole_build=True)
    return list(builds.values())


def plan(build: GameBuild, opts: PrintOptions) -> PrintRun:
    """Plan a game's print run, redrawing the cards of components taken from the cache."""
    from .components import RENDERERS
    from .layout.printrun import plan_run

    for c in build.components:
        if c.kind in ("deck", "tokens") and c.items is None:
            part = build.game.part(c.component)
            rendered = RENDERERS[c.kind](build.game, part, opts)
            c.items = items_of(part, rendered.faces)
    return plan_run(build.game, build.components, opts)


def _labels(pages: list, title: str) -> bytes:
    from .write.pdf import pages_to_pdf

    return pages_to_pdf(pages, title)


def combine(build: GameBuild, opts: PrintOptions, workers, rank: int, ref: GameRef) -> None:
    """Queue the parts of the game's print-and-play PDF (a contents page, then every run of
    pages, then each page's label) that must be drawn; when the last is, join them all into
    ``build.combined``. The jobs name the game by ``ref`` (see _LOADED)."""
    from .layout.impose import Page, mirror_back
    from .write.merge import page_sizes
    from .draw.render import PT_PER_MM

    run = build.run
    name = build.game.manifest.name
    pdfs = {c.component: c.pdf for c in build.components}
    kinds = {c.component: c.kind for c in build.components}
    # The contents page needs what the components are, not their pages or cards (a worker
    # would be sent them all: 25 MB for a deck of 10,000 distinct cards).
    listed = [replace(c, pdf=b"", items=None) for c in build.components]
    drawings = {"contents": (_contents_page, (ref, listed, run, opts)),
                "blank": (_blank_page, (ref, opts))}
    paper = paper_size(opts.paper)
    parts: list[list] = [["Cover", "contents", [0]], ["Contents", "contents", [1]]]
    shapes: list[tuple[float, float, bool]] = [(*paper, False)] * 2   # each page: w, h, top
    sizes: dict[str, list] = {}
    if run.blank_after_contents:
        parts.append([None, "blank", None])
        shapes.append((*paper, False))
    for r in run.runs:
        title = f"Pages {r.first}-{r.last}: {r.title}"
        for source in r.sources:
            if source.blank:
                parts.append([title, "blank", None])
                shapes.append((*paper, False))
            elif source.pages:
                drawings[len(parts)] = (_shared_sheets, (source.pages, f"{name} — {r.title}"))
                parts.append([title, len(parts), None])
                shapes += [(p.width, p.height, p.label_top) for p in source.pages]
            else:
                parts.append([title, pdfs[source.component], source.indexes])
                if source.component not in sizes:
                    sizes[source.component] = [(w / PT_PER_MM, h / PT_PER_MM) for w, h in
                                               page_sizes(pdfs[source.component])]
                for k, i in enumerate(source.indexes):
                    w, h = sizes[source.component][i]
                    side = source.sides[k] if k < len(source.sides) else ""
                    # A card sheet's backs mirrored top to bottom take the label band's
                    # place: their label is at the top (impose_sheets).
                    top = source.laid[k].label_top if k < len(source.laid) else \
                        side == "back" and kinds[source.component] in ("deck", "tokens") \
                        and mirror_back(0, 0, 0, 0, w, h, opts)[1] != 0
                    shapes.append((w, h, top))
            title = None
    labels = run.labels
    drawings["labels"] = (_labels, ([Page(w, h, [], label=labels[n] or "", label_top=top)
                                     for n, (w, h, top) in enumerate(shapes)],
                                    f"{name} — labels"))
    needed = {part[1] for part in parts if not isinstance(part[1], bytes)} | {"labels"}
    made: dict = {}

    def part_done(which, pdf: bytes) -> None:
        made[which] = pdf
        if len(made) == len(needed):
            from .write.merge import merge

            build.combined = merge([(t, p if isinstance(p, bytes) else made[p], i)
                                    for t, p, i in parts], f"{name} — print and play",
                                   (made["labels"], [n if labels[n] else None
                                                     for n in range(len(labels))]))

    for which in [w for w in drawings if w in needed]:
        fn, args = drawings[which]
        workers.add(fn, args, lambda pdf, which=which: part_done(which, pdf), rank)


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

    def summary(self) -> list[str]:
        """Return what a build tells the user: each file written, then one closing line."""
        lines = [f"wrote {path}" for path in self.files]
        lines += [f"unchanged {path}" for path in self.unchanged]
        sheets = ", ".join(f"{n} of {stock}" for stock, n in self.sheets())
        total = sum(n for _, n in self.sheets())
        unchanged = f", {len(self.unchanged)} unchanged" if self.unchanged else ""
        noun = "file" if len(self.files) == 1 else "files"
        if not all(b.whole for b in self.games):
            lines.append(f"{len(self.files)} {noun} written{unchanged} in {self.out_dir}; "
                         "the print-and-play files are left as they were (--only)")
            return lines
        lines.append(f"{len(self.files)} {noun} written{unchanged} in {self.out_dir}; "
                     f"the print-and-play files hold {self.pages} pages on {total} sheets"
                     + (f" ({sheets})" if sheets else ""))
        return lines


def build(project: Project, ids, opts: PrintOptions, out_dir: Path,
          progress: Progress | None = None, jobs: int | None = None,
          bounds: limits.Limits | None = None, only=()) -> BuildReport:
    """Build the selected games (or ``only`` some components) into out_dir; write nothing
    unless everything succeeded."""
    with limits.applied(bounds or limits.current()):
        return build_games(load_games(project, ids), opts, out_dir, progress, jobs, bounds,
                           only)


def build_games(games: list[Game], opts: PrintOptions, out_dir: Path,
                progress: Progress | None = None, jobs: int | None = None,
                bounds: limits.Limits | None = None, only=()) -> BuildReport:
    """Check, render and write games already loaded; nothing is written on any failure.

    ``bounds`` are the build's limits (default: the current ones); the drawing clock for
    total_render_seconds starts here. ``only`` names components: just those are drawn and
    written (the whole game is still checked against its rules).
    """
    with limits.applied(bounds or limits.current()):
        return _check_render_write(games, opts, Path(out_dir), progress, jobs,
                                   selected_components(games, only))


def selected_components(games: list[Game], only) -> frozenset[str] | None:
    """Return the component ids ``--only`` names (None: all), each one a component of some
    game selected; an unknown one is an error naming those there are."""
    if not only:
        return None
    there = [p.id for g in games for p in g.parts]
    problems = Problems()
    for cid in only:
        if cid not in there:
            listed = ", ".join(dict.fromkeys(there))
            problems.add(f"--only {cid}", f"no component '{cid}' in "
                         f"{', '.join(g.id for g in games)}{did_you_mean(cid, there)}; "
                         f"components: {listed}")
    problems.raise_if_any()
    return frozenset(only)


def _check_render_write(games: list[Game], opts: PrintOptions, out_dir: Path,
                        progress: Progress | None, jobs: int | None,
                        only: frozenset[str] | None = None) -> BuildReport:
    """Run the rules and the limits, render every component, then write the output at once."""
    from .files.output import write_files

    cards_within_limit(games)
    # The rules run while the workers draw: a build whose rules fail writes nothing anyway.
    builds = render_all(games, opts, progress, jobs, out_dir, lambda: check_games(games),
                        only)
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


def bom_plan(project: Project, game_id: str, opts: PrintOptions | None = None) -> Bom:
    """Return a game's bill of materials, laying out its pages without writing PDFs."""
    from .components import RENDERERS

    opts = opts or PrintOptions()
    game = load_one(project, game_id)
    components = []
    for part in game.parts:
        with drawing(game, part.id):
            r = RENDERERS[part.kind](game, part, opts)
        components.append(ComponentPDF(game.id, part.id, part.spec.name, part.kind, b"",
                                       len(r.pages), r.duplex, r.note, part.spec.stock,
                                       part.spec.cut, tuple(p.side for p in r.pages),
                                       items_of(part, r.faces) if r.faces else None))
    with drawing(game, "print run"):
        return bill_of_materials(game, components, opts)


def bom(project: Project, game_id: str, opts: PrintOptions | None = None) -> str:
    """Return a game's bill of materials as text."""
    return bom_text(bom_plan(project, game_id, opts))
