"""The edges of the map code: read map files, write generated maps and their pages.

Everything here touches files or the project; the generator, validator and drawing it calls
are pure functions of their inputs.
"""

from __future__ import annotations

import os

from dataclasses import dataclass, replace
from pathlib import Path

from ...draw.text import icon_svg
from ...files.errors import PrintshopError, Problem
from ...files.guard import read_project_file
from ...files.output import write_files
from ...files.project import Project
from ...load.loader import load_game
from ...load.models import Game
from ...load.source import Document
from .draw import Icon, Palette
from .generate import check_algorithm, generate
from .model import dump_map, load_map
from .page import map_page
from .scenario import BOOK, ScenarioError, scenario_map
from .seed import LARGEST, Seed, SeedError, parse_seed
from .survey import Flaw
from .validate import MAP_RULES, validate_map

GAME = "pocketciv"
MAX_FILE_BYTES = 2 * 1024 * 1024


@dataclass(frozen=True)
class Look:
    """How maps are drawn: the game's name, colours and icons."""

    name: str
    palette: Palette
    icons: dict[str, str]

    def icon(self) -> Icon:
        """Return a function drawing one of the game's icons."""
        return lambda name, x, y, size: str(icon_svg(self.icons[name], x, y, size))


def look_of(game: Game) -> Look:
    """Return how the game draws its maps."""
    return Look(game.manifest.name, Palette.from_style(game.manifest.style.colors),
                game.icons)


def game_look(project: Project) -> Look:
    """Read the PocketCiv game's style colours and icons from the project."""
    return look_of(load_game(project.game(GAME)))


def problems_from(flaws: list[Flaw], doc: Document) -> list[Problem]:
    """Place each broken map rule in the file: its key path and line."""
    return [Problem(doc.file, f.message, f.at, doc.line(f.at), f.rule) for f in flaws]


def check_map_file(path: str | Path) -> tuple[int, list[Problem]]:
    """Validate one map file; return how many rules applied and what is broken."""
    file = str(path)
    # A file named on the command line may lie anywhere; it is still read the guarded way:
    # a regular file only (a pipe would hang), its size checked before reading.
    real = Path(os.path.realpath(path))
    raw = read_project_file(real.parent, real.name, MAX_FILE_BYTES, file, None)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise PrintshopError(Problem(file, "the map file is not UTF-8 text")) from None
    world, doc = load_map(text, file)
    applied = sum(1 for r in MAP_RULES.values() if not r.setup or world.setup == "random")
    return applied, problems_from(validate_map(world), doc)


def check_map_files(paths) -> list[str]:
    """Validate map files; return a line per good file, raise every problem of the rest."""
    problems, good = [], []
    for path in paths:
        try:
            applied, found = check_map_file(path)
        except PrintshopError as exc:
            problems.extend(exc.problems)
            continue
        problems.extend(found)
        if not found:
            good.append(f"{path}: ok ({applied} rules)")
    if problems:
        raise PrintshopError(problems, "validation failed")
    return good


def _seeds(seed: str, variant: str | None, count: int) -> list[Seed]:
    """Return ``count`` seeds from the given one on, or a located error."""
    try:
        first = parse_seed(seed, variant)
        check_algorithm(first)
    except SeedError as exc:
        raise PrintshopError(Problem("--seed", str(exc))) from None
    if first.number + count - 1 > LARGEST:
        raise PrintshopError(Problem("--count", f"{count} maps from seed {first.number} on "
                                     f"pass the largest seed, {LARGEST}"))
    return [Seed(first.algorithm, first.variant, first.number + i) for i in range(count)]


def map_files(seed: Seed, look: Look, paper: str) -> dict[str, bytes]:
    """Return the YAML map file and the printable PDF page of one seed."""
    from ...write.pdf import pages_to_pdf

    world = generate(seed)
    flaws = validate_map(world)
    if flaws:
        raise PrintshopError([Problem(str(seed), f.message, f.at, None, f.rule)
                              for f in flaws], "the generator drew an illegal map (a bug)")
    header = (f"PocketCiv map {seed}, drawn by printshop.\n"
              f"Draw it again: printshop map pocketciv --seed {seed}\n"
              f"Check it: printshop validate map {seed}.yaml")
    page = map_page(world, paper, look.palette, look.icon(), look.name)
    pdf = pages_to_pdf([page], f"{look.name} — map {seed}")
    return {f"{seed}.yaml": dump_map(world, header).encode("utf-8"), f"{seed}.pdf": pdf}


def make_maps(seed: str, variant: str | None, count: int, out_dir: str | Path,
              paper: str = "a4", project_dir: str | Path | None = None) -> list[Path]:
    """Generate ``count`` maps from a seed on; write each map file and page; return paths."""
    seeds = _seeds(seed, variant, count)
    look = game_look(Project.open(project_dir))
    files: dict[str, bytes] = {}
    for s in seeds:
        files.update(map_files(s, look, paper))
    return write_files(Path(out_dir), files)


def scenario_command(scenario_id: str) -> str:
    """Return the command that prints a scenario's map full size."""
    return f"printshop map pocketciv --scenario {scenario_id}"


def scenario_files(game: Game, scenario_id: str, paper: str) -> dict[str, bytes]:
    """Return the map file and full-size page of one scenario's map, its presets set out."""
    from ...write.pdf import pages_to_pdf

    pages = (game.part(BOOK).data or {}).get("pages") or []
    found = [(i, e) for i, e in enumerate(pages) if isinstance(e, dict)
             and e.get("id") == scenario_id]
    if not found:
        known = ", ".join(str(e.get("id")) for e in pages if isinstance(e, dict))
        raise PrintshopError(Problem("--scenario", f"there is no scenario '{scenario_id}'; "
                                     f"the scenarios are {known}"))
    i, entry = found[0]
    try:
        world = replace(scenario_map(entry), name=str(entry.get("title", scenario_id)))
    except ScenarioError as exc:
        raise PrintshopError(Problem(game.part(BOOK).data_file or BOOK, str(exc),
                                     ("pages", i) + exc.path)) from None
    flaws = validate_map(world)
    if flaws:
        raise PrintshopError([Problem(game.part(BOOK).data_file or BOOK, f.message,
                                      ("pages", i, "map") + f.at, None, f.rule)
                              for f in flaws], "the scenario's map is not legal")
    look = look_of(game)
    command = scenario_command(scenario_id)
    header = (f"PocketCiv scenario map: {world.name}, as the scenario sets it out.\n"
              f"Draw it again: {command}")
    page = map_page(world, paper, look.palette, look.icon(), look.name, command)
    pdf = pages_to_pdf([page], f"{look.name} — map of {world.name}")
    return {f"{scenario_id}.yaml": dump_map(world, header).encode("utf-8"),
            f"{scenario_id}.pdf": pdf}


def make_scenario_map(scenario_id: str, out_dir: str | Path, paper: str = "a4",
                      project_dir: str | Path | None = None) -> list[Path]:
    """Write a scenario's map file and full-size page; return their paths."""
    game = load_game(Project.open(project_dir).game(GAME))
    return write_files(Path(out_dir), scenario_files(game, scenario_id, paper))
