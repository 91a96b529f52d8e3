"""The printshop command line: parse options, make one library call, report errors."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from .errors import PrintshopError


def _fail(exc: PrintshopError) -> None:
    click.echo(exc.report(), err=True)
    sys.exit(1)


def _offset(value: str) -> tuple[float, float]:
    try:
        x, y = (float(v) for v in value.split(","))
    except ValueError:
        raise click.BadParameter("expected X,Y in millimetres, e.g. 1.5,-0.5") from None
    if abs(x) > 20 or abs(y) > 20:
        raise click.BadParameter("an offset of more than 20 mm is not a printer's drift")
    return x, y


project_option = click.option("--project", "project_dir", type=click.Path(file_okay=False),
                              default=None, help="A folder with data/<game>/ and "
                              "templates/<game>/ (default: the built-in games).")


paper_option = click.option("--paper", type=click.Choice(["a4", "letter"]), default="a4",
                            show_default=True)
backs_option = click.option("--backs", type=click.Choice(["none", "duplex", "fold"]),
                            default="duplex", show_default=True)
out_option = click.option("--out", "out_dir", type=click.Path(file_okay=False),
                          default="output", show_default=True, help="Where to write the PDFs.")


@click.group()
@click.version_option(package_name="printshop")
def main() -> None:
    """Turn tabletop-game data into print-and-play PDFs."""


@main.command("list")
@click.argument("games", nargs=-1)
@project_option
def list_games(games, project_dir):
    """List GAMES (default: every game), their components and card counts."""
    from .build import load_games
    from .project import Project

    try:
        games = load_games(Project.open(project_dir), games)
    except PrintshopError as exc:
        _fail(exc)
    for game in games:
        click.echo(f"{game.id}: {game.manifest.name}")
        for part in game.parts:
            noun = "tokens" if part.kind == "tokens" else "cards"
            count = f"{part.card_count()} {noun}, {len(part.cards)} distinct" if part.cards \
                else part.kind
            click.echo(f"  {part.id:<24} {part.spec.name} ({count})")


@main.command()
@click.argument("games", nargs=-1)
@project_option
@out_option
@paper_option
@click.option("--bleed", type=click.FloatRange(0, 10), default=None,
              help="Bleed in mm around each card (default 3 for cards, 1.5 for tokens).")
@click.option("--crop-marks/--no-crop-marks", default=True, show_default=True)
@backs_option
@click.option("--flip", type=click.Choice(["long", "short"]), default="long", show_default=True,
              help="Which edge your printer flips on when printing duplex.")
@click.option("--back-offset", default="0,0", show_default=True,
              help="Shift backs by X,Y mm to match your printer's duplex drift.")
@click.option("--layout", type=click.Choice(["sheet", "single"]), default="sheet",
              show_default=True, help="single: one card per page, for print shops.")
@click.option("--low-ink", is_flag=True, help="Light backgrounds, no full-bleed fills.")
@click.option("--jobs", type=click.IntRange(1, 16), default=None,
              help="Worker processes (default: one per core).")
@click.option("--quiet", is_flag=True, help="No progress bar.")
def build(games, project_dir, out_dir, paper, bleed, crop_marks, backs, flip, back_offset,
          layout, low_ink, jobs, quiet):
    """Build print-and-play PDFs for GAMES (default: every game)."""
    from .build import build_games, load_games
    from .geometry import PrintOptions
    from .project import Project

    try:
        offset = _offset(back_offset)
    except click.BadParameter as exc:
        raise click.UsageError(f"--back-offset: {exc.message}") from None
    opts = PrintOptions(paper=paper, bleed=bleed, crop_marks=crop_marks, backs=backs,
                        back_offset=offset, layout=layout, flip=flip, low_ink=low_ink)
    try:
        loaded = load_games(Project.open(project_dir), games)
        show = not quiet and sys.stderr.isatty()
        with click.progressbar(length=sum(len(g.parts) for g in loaded), label="Building",
                               file=sys.stderr, show_pos=True) if show else _NoBar() as bar:
            report = build_games(loaded, opts, Path(out_dir),
                                 progress=lambda label: bar.update(1), jobs=jobs)
    except PrintshopError as exc:
        _fail(exc)
    for path in report.files:
        click.echo(f"wrote {path}")


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


@main.command(cls=_ValidateCommand,
              epilog="`printshop validate map FILE...` checks PocketCiv map files instead.")
@click.argument("games", nargs=-1)
@click.option("--explain", is_flag=True,
              help="Print each game's fact table (data/GAME/facts.yaml) with each rule's status.")
@project_option
def validate(games, project_dir, explain):
    """Check GAMES (default: every game) against their data schema and rules."""
    from .build import load_games
    from .facts import describe, explain as explain_facts, load_facts
    from .project import Project
    from .rules import rule_ids, validate as run_rules

    try:
        loaded = load_games(Project.open(project_dir), games)
    except PrintshopError as exc:
        _fail(exc)
    problems = []
    for game in loaded:
        found = run_rules(game)
        problems.extend(found)
        if not found:
            click.echo(f"{game.id}: ok ({len(rule_ids(game))} rules)")
        if explain:
            try:
                facts = load_facts(game.data_dir, game.id)
            except PrintshopError as exc:
                _fail(exc)
            click.echo(f"{game.id}: fact table, {len(facts)} facts")
            for line in describe(explain_facts(facts, found)):
                click.echo(line)
    if problems:
        _fail(PrintshopError(problems, "validation failed"))


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
        click.echo(line)


def _variant_names():
    from .games.pocketciv_maps.variant import variant_names
    return list(variant_names())


@main.command("map")
@click.argument("game", type=click.Choice(["pocketciv"]))
@click.option("--seed", required=True,
              help="A whole number, or a printed seed such as m1-standard-42.")
@click.option("--variant", type=click.Choice(_variant_names()), default=None,
              help="The kind of map (default: standard, or the one a printed seed names).")
@click.option("--count", type=click.IntRange(1, 1000), default=1, show_default=True,
              help="How many maps, from the seed on.")
@click.option("--out", "out_dir", type=click.Path(file_okay=False), default="output/maps",
              show_default=True, help="Where to write the map files and pages.")
@paper_option
@project_option
def map_command(game, seed, variant, count, out_dir, paper, project_dir):
    """Draw seeded, legal maps for GAME: a map file (YAML) and a printable page (PDF) each."""
    from .games.pocketciv_maps.atlas import make_maps

    try:
        written = make_maps(seed, variant, count, out_dir, paper, project_dir)
    except PrintshopError as exc:
        _fail(exc)
    for path in written:
        click.echo(f"wrote {path}")


# The writers' names, listed here so that starting the CLI does not load the exporters;
# tests/test_export.py checks they match export.decklist.FORMATS.
DECKLIST_FORMATS = ("csv", "json", "md")


def _wrote(paths) -> None:
    for path in paths:
        click.echo(f"wrote {path}")


@main.group()
def export():
    """Export a game for playtesting: deck lists, Tabletop Simulator, card images."""


@export.command("decklist")
@click.argument("game")
@project_option
@click.option("--deck", default=None, help="Only this deck (its component id).")
@click.option("--format", "fmt", type=click.Choice(DECKLIST_FORMATS), default="md",
              show_default=True, help="csv for spreadsheets, json for programs, md for posts.")
@click.option("--out", type=click.Path(dir_okay=False), default=None,
              help="Write to this file instead of the terminal.")
def export_decklist(game, project_dir, deck, fmt, out):
    """Print GAME's deck list: every distinct card, its copies and fields, totals per deck."""
    from .export.decklist import export_decklist as run
    from .project import Project

    try:
        text = run(Project.open(project_dir), game, fmt, deck, Path(out) if out else None)
    except PrintshopError as exc:
        _fail(exc)
    if out:
        click.echo(f"wrote {out}")
    else:
        click.echo(text, nl=False)


@export.command("tts")
@click.argument("game")
@project_option
@click.option("--out", "out_dir", type=click.Path(file_okay=False), default=None,
              help="Where to write the images and the saved object (default output/GAME/tts).")
@click.option("--base-url", default=None,
              help="Where the images will be hosted; default: file:/// paths of the written "
                   "images, for this computer only.")
@click.option("--dpi", type=click.IntRange(50, 600), default=150, show_default=True,
              help="Resolution of the sheets (lowered where TTS's 4096 px limit needs it).")
def export_tts(game, project_dir, out_dir, base_url, dpi):
    """Write GAME for Tabletop Simulator: deck sheets, boards, aids and a saved object."""
    from .export.tts import export_tts as run
    from .project import Project

    try:
        written = run(Project.open(project_dir), game, Path(out_dir) if out_dir else None,
                      base_url, dpi)
    except PrintshopError as exc:
        _fail(exc)
    _wrote(written)


@export.command("png")
@click.argument("game")
@project_option
@click.option("--out", "out_dir", type=click.Path(file_okay=False), default=None,
              help="Where to write the images (default output/GAME/png).")
@click.option("--dpi", type=click.IntRange(30, 1200), default=300, show_default=True)
@click.option("--with-bleed", is_flag=True,
              help="Keep the bleed around each card (print shops); default: cut at the trim.")
@click.option("--deck", default=None, help="Only this deck (its component id).")
def export_png(game, project_dir, out_dir, dpi, with_bleed, deck):
    """Write one PNG per card face and back of GAME: DECK/CARD.png, DECK/back.png."""
    from .export.images import export_png as run
    from .project import Project

    try:
        written = run(Project.open(project_dir), game, Path(out_dir) if out_dir else None,
                      dpi, with_bleed, deck)
    except PrintshopError as exc:
        _fail(exc)
    click.echo(f"wrote {len(written)} images to {written[0].parent.parent}")


@main.command()
@click.argument("game")
@project_option
@click.option("--out", "out_dir", type=click.Path(file_okay=False), default=None,
              help="Where to write the proof (default output/GAME).")
@paper_option
@click.option("--low-ink", is_flag=True, help="Light backgrounds, no full-bleed fills.")
def proof(game, project_dir, out_dir, paper, low_ink):
    """Write a proof sheet of GAME: every distinct card once, labelled with id and copies."""
    from .geometry import PrintOptions
    from .project import Project
    from .proof import proof as run

    try:
        path = run(Project.open(project_dir), game, Path(out_dir) if out_dir else None,
                   PrintOptions(paper=paper, low_ink=low_ink))
    except PrintshopError as exc:
        _fail(exc)
    click.echo(f"wrote {path}")


@main.command()
@click.argument("game")
@project_option
@paper_option
@backs_option
@click.option("--layout", type=click.Choice(["sheet", "single"]), default="sheet",
              show_default=True)
def bom(game, project_dir, paper, backs, layout):
    """Print GAME's bill of materials: what to print and on what, what to cut, what to get."""
    from .bom import bom as run
    from .geometry import PrintOptions
    from .project import Project

    try:
        text = run(Project.open(project_dir), game,
                   PrintOptions(paper=paper, backs=backs, layout=layout))
    except PrintshopError as exc:
        _fail(exc)
    click.echo(text, nl=False)


@main.command()
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
def watch(games, project_dir, out_dir, paper, backs, low_ink, interval, jobs):
    """Build GAMES (default: all), then rebuild whenever a data or template file is saved."""
    from .geometry import PrintOptions
    from .project import Project
    from .watch import watch as run

    click.echo("watching for changes; press Ctrl-C to stop")
    try:
        run(Project.open(project_dir), games, PrintOptions(paper=paper, backs=backs,
                                                           low_ink=low_ink),
            Path(out_dir), interval, say=click.echo, jobs=jobs)
    except PrintshopError as exc:
        _fail(exc)
    except KeyboardInterrupt:
        click.echo("stopped")


if __name__ == "__main__":
    main()
