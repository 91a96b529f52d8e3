"""The printshop command line: parse options, make one library call, report errors.

Every command is here, each its options and one call into the library, below the options
several commands share: the module runs past 600 lines only by the commands' options and help
text (eleven commands, four exports), which a reader finds in one place. What a command's
result says is the library's (a build's summary is BuildReport.summary, build.py).
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

import click

from .files.errors import PrintshopError, printable


def _echo(text="", **kwargs) -> None:
    """Print to the terminal: a game's text may hold ESC or OSC sequences, shown escaped."""
    click.echo(printable(str(text)), **kwargs)


def _fail(exc: PrintshopError) -> None:
    _echo(exc.report(), err=True)
    sys.exit(1)


def _offset(value: str) -> tuple[float, float]:
    try:
        x, y = (float(v) for v in value.split(","))
    except ValueError:
        raise click.BadParameter("expected X,Y in millimetres, e.g. 1.5,-0.5") from None
    if not (math.isfinite(x) and math.isfinite(y)):
        raise click.BadParameter(f"expected X,Y in millimetres, e.g. 1.5,-0.5, got {value!r}")
    if abs(x) > 20 or abs(y) > 20:
        raise click.BadParameter("an offset of more than 20 mm is not a printer's drift")
    return x, y


project_option = click.option("--project", "project_dir", type=click.Path(file_okay=False),
                              default=None, help="A folder with data/<game>/ and "
                              "templates/<game>/ (default: the built-in games).")


paper_option = click.option("--paper", type=click.Choice(["a4", "letter"]), default="a4",
                            show_default=True, help="The paper your printer takes.")
backs_option = click.option("--backs", type=click.Choice(["none", "duplex", "fold"]),
                            default="duplex", show_default=True,
                            help="Card backs: printed double-sided, beside the fronts to "
                                 "fold, or left out.")
bleed_option = click.option("--bleed", type=click.FloatRange(0, 10), default=None,
                            help="Bleed in mm around each card (default 3 for cards, 1.5 for "
                                 "tokens).")
crop_marks_option = click.option("--crop-marks/--no-crop-marks", default=True,
                                 show_default=True,
                                 help="Marks in the margins showing where to cut.")
flip_option = click.option("--flip", type=click.Choice(["long", "short"]), default="long",
                           show_default=True,
                           help="Which edge your printer flips on when printing duplex.")
layout_option = click.option("--layout", type=click.Choice(["sheet", "single"]),
                             default="sheet", show_default=True,
                             help="single: one card per page, for print shops.")
limit_option = click.option("--limit", "limit_items", multiple=True, metavar="NAME=VALUE",
                            help="Raise one of the limits on purpose, e.g. max_cards=50000 "
                                 "(repeatable; names and defaults in docs/trust.md).")
only_option = click.option("--only", multiple=True, metavar="COMPONENT",
                           help="Draw and write only this component (its id; repeatable): "
                                "the game is still checked whole, the print-and-play file "
                                "is left as it was.")
out_option = click.option("--out", "out_dir", type=click.Path(file_okay=False),
                          default="output", show_default=True, help="Where to write the PDFs.")


# -h as well as --help, and help text as wide as the terminal allows (no "..." cut-offs).
CONTEXT = {"help_option_names": ["-h", "--help"], "max_content_width": 100}


@click.group(context_settings=CONTEXT)
@click.version_option(package_name="printshop", help="Show the version and exit.")
def main() -> None:
    """Turn tabletop-game data into print-and-play PDFs."""


@main.command("list", short_help="List games, their components and card counts.")
@click.argument("games", nargs=-1)
@project_option
def list_games(games, project_dir):
    """List GAMES (default: every game), their components and card counts."""
    from .check.gather import load_games
    from .files.project import Project

    try:
        games = load_games(Project.open(project_dir), games)
    except PrintshopError as exc:
        _fail(exc)
    for game in games:  # names only: a game read back from the load cache stays unchecked
        _echo(f"{game.id}: {game.name}")
        for part in game.parts:
            noun = "tokens" if part.kind == "tokens" else "cards"
            count = f"{part.card_count()} {noun}, {len(part.cards)} distinct" if part.cards \
                else part.kind
            _echo(f"  {part.id:<24} {part.name} ({count})")


@main.command("new", short_help="Start a game of your own: a folder that builds at once.")
@click.argument("game")
@click.option("--dir", "project_dir", type=click.Path(file_okay=False), default=".",
              show_default=True, help="The project folder to put data/GAME/ and "
              "templates/GAME/ in (made if missing).")
@click.option("--name", default=None, help="The game's name (default: from GAME).")
def new(game, project_dir, name):
    """Make GAME: a deck with icons and rule text, double-sided coins, a rules sheet, a
    board, two rules and a README saying what to change. It validates and builds at once."""
    from .scaffold import new_game

    try:
        written = new_game(game, project_dir, name)
    except PrintshopError as exc:
        _fail(exc)
    _wrote(written)
    _echo(f"next: printshop build {game} --project {project_dir}   "
          f"(then read {Path(project_dir, 'data', game, 'README.md').as_posix()})")


@main.command(short_help="Build print-and-play PDFs.")
@click.argument("games", nargs=-1)
@project_option
@out_option
@paper_option
@bleed_option
@crop_marks_option
@backs_option
@flip_option
@click.option("--back-offset", default="0,0", show_default=True,
              help="Shift backs by X,Y mm to match your printer's duplex drift.")
@layout_option
@click.option("--low-ink", is_flag=True, help="Light backgrounds, no full-bleed fills.")
@click.option("--jobs", type=click.IntRange(1, 16), default=None,
              help="Worker processes (default: one per core).")
@click.option("--quiet", is_flag=True, help="Print nothing but errors.")
@only_option
@limit_option
def build(games, project_dir, out_dir, paper, bleed, crop_marks, backs, flip, back_offset,
          layout, low_ink, jobs, quiet, only, limit_items):
    """Build print-and-play PDFs for GAMES (default: every game)."""
    from .build import build_games, load_games
    from .load.geometry import PrintOptions
    from .files.limits import Limits, applied
    from .files.project import Project

    try:
        offset = _offset(back_offset)
    except click.BadParameter as exc:
        raise click.UsageError(f"--back-offset: {exc.message}") from None
    opts = PrintOptions(paper=paper, bleed=bleed, crop_marks=crop_marks, backs=backs,
                        back_offset=offset, layout=layout, flip=flip, low_ink=low_ink)
    try:
        bounds = Limits().with_values(limit_items)
        with applied(bounds):
            loaded = load_games(Project.open(project_dir), games)
            show = not quiet and sys.stderr.isatty()
            with click.progressbar(length=sum(1 for g in loaded for p in g.parts
                                              if not only or p.id in only), label="Building",
                                   file=sys.stderr, show_pos=True) if show else _NoBar() as bar:
                report = build_games(loaded, opts, Path(out_dir),
                                     progress=lambda label: bar.update(1), jobs=jobs,
                                     bounds=bounds, only=only)
    except PrintshopError as exc:
        _fail(exc)
    if not quiet:
        for line in report.summary():
            _echo(line)


class _NoBar:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def update(self, n):
        pass


class _ValidateCommand(click.Command):
    """`validate [GAMES]`, where `validate map FILE...` checks map files instead."""

    def invoke(self, ctx):
        games = tuple(ctx.params.get("games") or ())
        if games[:1] == ("map",):
            return ctx.invoke(validate_map_files, files=games[1:])
        return super().invoke(ctx)


@main.command(cls=_ValidateCommand, short_help="Check games: schema, rules, and every face "
              "drawn in memory.",
              epilog="`printshop validate map FILE...` checks PocketCiv map files instead.")
@click.argument("games", nargs=-1)
@click.option("--explain", is_flag=True,
              help="Print each game's fact table (data/GAME/facts.yaml) with each rule's status.")
@click.option("--strict", is_flag=True,
              help="Fail (exit 1) on warnings too: text that collides with other text, a "
                   "shape or the edge of its card or page.")
@project_option
@limit_option
def validate(games, project_dir, explain, strict, limit_items):
    """Check GAMES (default: every game) against their data schema and rules, and draw every
    face and page in memory (nothing is written): template errors and text that does not fit
    are errors, text that collides is a warning."""
    from .files.limits import Limits
    from .files.project import Project
    from .validate import validate_games

    try:
        checks = validate_games(Project.open(project_dir), games, explain,
                                bounds=Limits().with_values(limit_items))
    except PrintshopError as exc:
        _fail(exc)
    for check in checks:
        for line in check.lines():
            _echo(line)
    problems = [p for check in checks for p in check.problems]
    if problems:
        _fail(PrintshopError(problems, "validation failed"))
    warned = sum(len(check.warnings) for check in checks)
    if strict and warned:
        _echo(f"{warned} warning{'s' if warned != 1 else ''}, failing under --strict", err=True)
        sys.exit(1)


def validate_map_files(files):
    """Check map files against every map rule; print one line per good file."""
    from .games.pocketciv_maps.atlas import check_map_files

    if not files:
        raise click.UsageError("validate map: name one or more map files")
    try:
        lines = check_map_files(files)
    except PrintshopError as exc:
        _fail(exc)
    for line in lines:
        _echo(line)


class _VariantChoice(click.Choice):
    """The map variants, read from variants.yaml only when `map` parses or shows its options
    (so starting the CLI loads neither the variants nor YAML)."""

    def __init__(self):
        super().__init__(())

    @property
    def choices(self):
        from .games.pocketciv_maps.variant import variant_names
        return tuple(variant_names())

    @choices.setter
    def choices(self, value):
        pass


@main.command("map", short_help="Draw seeded, legal PocketCiv maps.")
@click.argument("game", type=click.Choice(["pocketciv"]))
@click.option("--seed", default=None,
              help="A whole number (algorithm m2), or a printed seed such as "
                   "m2-standard-42 or m1-standard-42.")
@click.option("--scenario", default=None,
              help="Instead of a seed: a scenario's map with its pieces set out (its id).")
@click.option("--variant", type=_VariantChoice(), default=None,
              help="The kind of map (default: standard, or the one a printed seed names).")
@click.option("--count", type=click.IntRange(1, 1000), default=1, show_default=True,
              help="How many maps, from the seed on.")
@click.option("--out", "out_dir", type=click.Path(file_okay=False), default="output/maps",
              show_default=True, help="Where to write the map files and pages.")
@paper_option
@project_option
def map_command(game, seed, scenario, variant, count, out_dir, paper, project_dir):
    """Draw seeded, legal maps for GAME, or a scenario's map: a map file (YAML) and a
    printable page (PDF) each."""
    from .games.pocketciv_maps.atlas import make_maps, make_scenario_map

    if (seed is None) == (scenario is None):
        raise click.UsageError("map: give either --seed or --scenario")
    try:
        if scenario is not None:
            written = make_scenario_map(scenario, out_dir, paper, project_dir)
        else:
            written = make_maps(seed, variant, count, out_dir, paper, project_dir)
    except PrintshopError as exc:
        _fail(exc)
    for path in written:
        _echo(f"wrote {path}")


# The writers' names, listed here so that starting the CLI does not load the exporters;
# tests/test_export.py checks they match export.decklist.FORMATS.
DECKLIST_FORMATS = ("csv", "json", "md")
# The shops of printshop/export/shops.yaml and their short names; tests/test_pod.py checks
# they match.
POD_SHOPS = {"drivethrucards": ("dtc", "drivethru"), "makeplayingcards": ("mpc",),
             "printplaygames": ("ppg", "printplay", "admagic"),
             "thegamecrafter": ("tgc", "gamecrafter")}
STDOUT = "-"


def _wrote(paths, quiet: bool = False) -> None:
    if not quiet:
        for path in paths:
            _echo(f"wrote {path}")


def _folder_out(ctx, param, value):
    """Refuse ``--out -`` for an export that writes a folder of files."""
    if value == STDOUT:
        raise click.BadParameter("'-' (standard output) takes a single file, and this export "
                                 "writes a folder of files; give a folder instead")
    return value


class _Progress:
    """A progress bar on standard error, shown only on a terminal, not --quiet, and only
    once the work has taken a second."""

    WIDTH = 30

    def __init__(self, label: str, quiet: bool) -> None:
        import time

        self.label, self.clock = label, time.monotonic
        self.start = self.clock()
        self.on = not quiet and sys.stderr.isatty()
        self.shown = 0

    def __call__(self, done: int, total: int) -> None:
        if not self.on or self.clock() - self.start < 1.0:
            return
        filled = self.WIDTH * done // max(total, 1)
        line = f"\r{self.label} [{'#' * filled}{'.' * (self.WIDTH - filled)}] {done}/{total}"
        sys.stderr.write(line)
        sys.stderr.flush()
        self.shown = len(line)

    def __enter__(self) -> "_Progress":
        return self

    def __exit__(self, *exc) -> None:
        if self.shown:
            sys.stderr.write("\r" + " " * self.shown + "\r")
            sys.stderr.flush()


folder_out = click.option("--out", "out_dir", type=click.Path(file_okay=False), default=None,
                          callback=_folder_out, help="Where to write the files (default "
                          "output/GAME/<export>; not '-': this export writes a folder).")
quiet_option = click.option("--quiet", is_flag=True, help="Print nothing but errors and "
                            "warnings; no progress bar.")


@main.group(short_help="Export deck lists, card images, Tabletop Simulator saves.")
def export():
    """Export a game for playtesting: deck lists, Tabletop Simulator, card images."""


@export.command("decklist", short_help="Print a deck list: cards, copies and fields.")
@click.argument("game")
@project_option
@click.option("--deck", default=None, help="Only this deck (its component id).")
@click.option("--format", "fmt", type=click.Choice(DECKLIST_FORMATS), default="md",
              show_default=True, help="csv for spreadsheets, json for programs, md for posts.")
@click.option("--out", type=click.Path(dir_okay=False, allow_dash=True), default=None,
              help="Write to this file instead of the terminal ('-': standard output).")
@quiet_option
def export_decklist(game, project_dir, deck, fmt, out, quiet):
    """Print GAME's deck list: every distinct card, its copies and fields, totals per deck."""
    from .export.decklist import export_decklist as run
    from .files.project import Project

    to_file = out not in (None, STDOUT)
    try:
        text = run(Project.open(project_dir), game, fmt, deck, Path(out) if to_file else None)
    except PrintshopError as exc:
        _fail(exc)
    if to_file:
        _wrote([out], quiet)
    else:
        click.echo(text, nl=False)


@export.command("tts", short_help="Write a Tabletop Simulator save with its images.")
@click.argument("game")
@project_option
@folder_out
@click.option("--base-url", default=None,
              help="Where the images will be hosted (https://host/folder/ or file:///folder/); "
                   "default: addresses relative to the export folder.")
@click.option("--dpi", type=click.IntRange(50, 600), default=150, show_default=True,
              help="Resolution of the sheets (lowered where TTS's 4096 px limit needs it).")
@quiet_option
def export_tts(game, project_dir, out_dir, base_url, dpi, quiet):
    """Write GAME for Tabletop Simulator: deck sheets, boards, aids and a saved object."""
    from .export.tts import export_tts as run
    from .files.project import Project

    try:
        with _Progress("tts", quiet) as bar:
            written = run(Project.open(project_dir), game, Path(out_dir) if out_dir else None,
                          base_url, dpi, bar)
    except PrintshopError as exc:
        _fail(exc)
    _wrote(written, quiet)


@export.command("png", short_help="Write one PNG per card face and back.")
@click.argument("game")
@project_option
@folder_out
@click.option("--dpi", type=click.IntRange(30, 1200), default=300, show_default=True,
              help="Resolution of the images.")
@click.option("--with-bleed", is_flag=True,
              help="Keep the bleed around each card (print shops); default: cut at the trim.")
@click.option("--deck", default=None, help="Only this deck (its component id).")
@limit_option
@quiet_option
def export_png(game, project_dir, out_dir, dpi, with_bleed, deck, limit_items, quiet):
    """Write one PNG per card face and back of GAME: DECK/CARD.png, DECK/back.png."""
    from .export.images import export_png as run
    from .files.limits import Limits, applied
    from .files.project import Project

    try:
        with applied(Limits().with_values(limit_items)), _Progress("png", quiet) as bar:
            written = run(Project.open(project_dir), game, Path(out_dir) if out_dir else None,
                          dpi, with_bleed, deck, bar)
    except PrintshopError as exc:
        _fail(exc)
    if not quiet:
        _echo(f"wrote {len(written)} images to {written[0].parent.parent}")


def _shop_help() -> str:
    return ", ".join(f"{k} ({', '.join(v)})" for k, v in POD_SHOPS.items())


@export.command("pod", short_help="Write the upload a print-on-demand shop asks for.")
@click.argument("game")
@project_option
@click.option("--shop", required=True, metavar="SHOP",
              help=f"The print-on-demand shop, by id or short name: {_shop_help()} "
                   "(printshop/export/shops.yaml).")
@folder_out
@click.option("--check", "check_only", is_flag=True,
              help="Only run the pre-flight check; exit 1 if it warns. Nothing is written.")
@limit_option
@quiet_option
def export_pod(game, project_dir, shop, out_dir, check_only, limit_items, quiet):
    """Write GAME as SHOP's products: sized images or PDF, README.txt naming what to order."""
    from .export.pod import export_pod as run
    from .files.limits import Limits, applied
    from .files.project import Project

    try:
        with applied(Limits().with_values(limit_items)), _Progress(shop, quiet) as bar:
            written, warnings = run(Project.open(project_dir), game, shop,
                                    Path(out_dir) if out_dir else None, check_only, bar)
    except PrintshopError as exc:
        _fail(exc)
    for warning in warnings:
        _echo(f"warning: {warning}", err=True)
    if check_only:
        n = len(warnings)
        if not quiet or warnings:
            _echo(f"pre-flight for {shop}: {n} warning{'s' if n != 1 else ''}")
        sys.exit(1 if warnings else 0)
    readme = next(p for p in written if p.name == "README.txt")
    if not quiet:
        _echo(f"wrote {len(written)} files; what to order and upload: {readme}")


@main.command("import", short_help="Bring an edited deck list (CSV) back into a game's data.")
@click.argument("game")
@click.argument("csv_file", metavar="CSV", type=click.Path(dir_okay=False, exists=True))
@project_option
@click.option("--dry-run", is_flag=True, help="Show what would change; write nothing.")
@click.option("--quiet", is_flag=True, help="Print nothing but errors (a dry run still lists "
              "the changes).")
def import_decklist(game, csv_file, project_dir, dry_run, quiet):
    """Apply a deck list CSV (as `export decklist --format csv` writes it, edited in a
    spreadsheet) to GAME's data files: each card's copies and fields."""
    from .export.decklist_import import import_decklist as run
    from .files.project import Project

    try:
        changes, written = run(Project.open(project_dir), game, Path(csv_file), dry_run)
    except PrintshopError as exc:
        _fail(exc)
    if not quiet or dry_run:
        for change in changes:
            _echo(change)
        if not changes:
            _echo("no changes")
        elif dry_run:
            _echo(f"{len(changes)} change{'s' if len(changes) != 1 else ''}; nothing written "
                  "(--dry-run)")
        else:
            _wrote(written)


@main.command(short_help="Write a proof sheet: every distinct card once.")
@click.argument("game")
@project_option
@click.option("--out", "out_dir", type=click.Path(file_okay=False), default=None,
              help="Where to write the proof (default output/GAME).")
@paper_option
@click.option("--low-ink", is_flag=True, help="Light backgrounds, no full-bleed fills.")
def proof(game, project_dir, out_dir, paper, low_ink):
    """Write a proof sheet of GAME: every distinct card once, labelled with id and copies."""
    from .load.geometry import PrintOptions
    from .files.project import Project
    from .export.proof import proof as run

    try:
        path = run(Project.open(project_dir), game, Path(out_dir) if out_dir else None,
                   PrintOptions(paper=paper, low_ink=low_ink))
    except PrintshopError as exc:
        _fail(exc)
    _echo(f"wrote {path}")


@main.command(short_help="Print the bill of materials: paper, cutting, what to get.")
@click.argument("game")
@project_option
@paper_option
@bleed_option
@crop_marks_option
@backs_option
@flip_option
@layout_option
def bom(game, project_dir, paper, bleed, crop_marks, backs, flip, layout):
    """Print GAME's bill of materials: what to print and on what, what to cut, what to get
    (for the file `printshop build` makes with the same options)."""
    from .build import bom as run
    from .load.geometry import PrintOptions
    from .files.project import Project

    try:
        text = run(Project.open(project_dir), game,
                   PrintOptions(paper=paper, bleed=bleed, crop_marks=crop_marks, backs=backs,
                                flip=flip, layout=layout))
    except PrintshopError as exc:
        _fail(exc)
    _echo(text, nl=False)


@main.command(short_help="Build, then rebuild whenever a file is saved.")
@click.argument("games", nargs=-1)
@project_option
@out_option
@paper_option
@backs_option
@click.option("--low-ink", is_flag=True, help="Light backgrounds, no full-bleed fills.")
@click.option("--interval", type=click.FloatRange(0.1, 60), default=0.5, show_default=True,
              help="Seconds between looks at the files.")
@click.option("--jobs", type=click.IntRange(1, 16), default=None,
              help="Worker processes (default: one per core).")
@only_option
def watch(games, project_dir, out_dir, paper, backs, low_ink, interval, jobs, only):
    """Build GAMES (default: all), then rebuild whenever a data or template file is saved."""
    from .load.geometry import PrintOptions
    from .files.project import Project
    from .watch import watch as run

    _echo("watching for changes; press Ctrl-C to stop")
    try:
        run(Project.open(project_dir), games, PrintOptions(paper=paper, backs=backs,
                                                           low_ink=low_ink),
            Path(out_dir), interval, say=click.echo, jobs=jobs, only=only)
    except PrintshopError as exc:
        _fail(exc)
    except KeyboardInterrupt:
        _echo("stopped")


@main.command(short_help="Preview every component live in the web browser.")
@click.argument("game", required=False)
@project_option
@click.option("--port", type=click.IntRange(0, 65535), default=8000, show_default=True,
              help="The port to listen on (0: any free one).")
@click.option("--host", default="127.0.0.1", show_default=True,
              help="Where to listen; give another address only to share the studio.")
@click.option("--open/--no-open", "open_browser", default=True, show_default=True,
              help="Open the studio in the web browser.")
@click.option("--out", "out_dir", type=click.Path(file_okay=False), default="output",
              show_default=True, help="Where the TTS download's save addresses its images.")
@click.option("--editor", default=None, metavar="COMMAND",
              help="Command that opens a file at a line ({file}, {line}); default $EDITOR.")
def serve(game, project_dir, port, host, open_browser, out_dir, editor):
    """Preview GAME (default: every game) live in the browser while you edit its files."""
    from .files.project import Project
    from .serve import serve as run

    try:
        run(Project.open(project_dir), game, host, port, open_browser, Path(out_dir),
            say=click.echo, editor=editor)
    except PrintshopError as exc:
        _fail(exc)


def run() -> None:
    """The ``printshop`` command: main() in a process set up to run once and end."""
    from .run.workers import short_lived

    short_lived()
    main()


if __name__ == "__main__":
    run()
