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
            count = f"{part.card_count()} cards, {len(part.cards)} distinct" if part.cards \
                else part.kind
            click.echo(f"  {part.id:<24} {part.spec.name} ({count})")


@main.command()
@click.argument("games", nargs=-1)
@project_option
@click.option("--out", "out_dir", type=click.Path(file_okay=False), default="output",
              show_default=True, help="Where to write the PDFs.")
@click.option("--paper", type=click.Choice(["a4", "letter"]), default="a4", show_default=True)
@click.option("--bleed", type=click.FloatRange(0, 10), default=None,
              help="Bleed in mm around each card (default 3 for cards, 1.5 for tokens).")
@click.option("--crop-marks/--no-crop-marks", default=True, show_default=True)
@click.option("--backs", type=click.Choice(["none", "duplex", "fold"]), default="duplex",
              show_default=True)
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
    from .build import build as run_build
    from .build import load_games
    from .geometry import PrintOptions
    from .project import Project

    try:
        offset = _offset(back_offset)
    except click.BadParameter as exc:
        raise click.UsageError(f"--back-offset: {exc.message}") from None
    opts = PrintOptions(paper=paper, bleed=bleed, crop_marks=crop_marks, backs=backs,
                        back_offset=offset, layout=layout, flip=flip, low_ink=low_ink)
    try:
        project = Project.open(project_dir)
        total = sum(len(g.parts) for g in load_games(project, games))
        show = not quiet and sys.stderr.isatty()
        with click.progressbar(length=total, label="Building", file=sys.stderr,
                               show_pos=True) if show else _NoBar() as bar:
            report = run_build(project, games, opts, Path(out_dir),
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


@main.command()
@click.argument("games", nargs=-1)
@project_option
def validate(games, project_dir):
    """Check GAMES (default: every game) against their data schema and rules."""
    from .build import load_games
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
    if problems:
        _fail(PrintshopError(problems, "validation failed"))


if __name__ == "__main__":
    main()
