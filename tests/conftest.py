"""Shared fixtures: the built-in project, writable copies of games, PDF inspection helpers."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from printshop.load.geometry import PrintOptions
from printshop.files.project import Project, builtin_root

REPO = Path(__file__).resolve().parent.parent
EXAMPLE = REPO / "examples" / "lantern-fair"
MM = 72 / 25.4


@pytest.fixture(scope="session", autouse=True)
def load_cache(tmp_path_factory) -> Path:
    """A load cache (printshop.load.loadcache) of this test run's own, for this process and the
    commands it starts: on, as a user has it, but with nothing kept from an earlier run."""
    folder = tmp_path_factory.mktemp("load-cache")
    os.environ["PRINTSHOP_CACHE_DIR"] = str(folder)
    return folder


@pytest.fixture(scope="session")
def builtin() -> Project:
    """The built-in games."""
    return Project.open(None)


def copy_game(dest: Path, game_id: str, source: Path | None = None) -> Path:
    """Copy one game (data and templates) into a fresh project folder; return the folder."""
    root = source or builtin_root()
    shutil.copytree(root / "data" / game_id, dest / "data" / game_id)
    if (root / "templates" / game_id).is_dir():
        shutil.copytree(root / "templates" / game_id, dest / "templates" / game_id)
    return dest


@pytest.fixture
def game_copy(tmp_path):
    """Return a function copying a built-in game into tmp_path as a project."""
    def make(game_id: str, source: Path | None = None) -> Path:
        return copy_game(tmp_path / "project", game_id, source)
    return make


def edit_yaml(path: Path, change) -> None:
    """Load a YAML file, let ``change`` modify the data (or return a new mapping), write it."""
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    result = change(data)
    if isinstance(result, dict):
        data = result
    path.write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True), encoding="utf-8")


def deck_faces(game, decks) -> dict[str, dict[str, list[str]]]:
    """Draw decks in memory (no PDF): {deck: {card id: [front svg, back svg...]}}."""
    from printshop.components.deck import render_deck

    return {deck: {card_id: [side.svg for side in sides] for card_id, sides in
                   render_deck(game, game.part(deck), PrintOptions()).faces.items()}
            for deck in decks}


def pdf_to_png(pdf: Path, out_dir: Path, dpi: int = 30) -> list[Path]:
    """Render a PDF to PNG pages with pdftoppm; skip the test if poppler is missing."""
    if shutil.which("pdftoppm") is None:
        pytest.skip("pdftoppm (poppler-utils) is not installed")
    out_dir.mkdir(parents=True, exist_ok=True)
    subprocess.run(["pdftoppm", "-r", str(dpi), "-png", str(pdf), str(out_dir / "page")],
                   check=True, capture_output=True)
    return sorted(out_dir.glob("page-*.png"))


@pytest.fixture
def opts() -> PrintOptions:
    """Default print options."""
    return PrintOptions()


def pytest_terminal_summary(terminalreporter):
    """Print the fact tables' mutation scores (recorded by tests/test_facts.py)."""
    scores = sorted({value for key in ("passed", "failed")
                     for report in terminalreporter.stats.get(key, [])
                     for name, value in getattr(report, "user_properties", [])
                     if name == "mutation score"})
    if scores:
        terminalreporter.section("mutation score")
        for line in scores:
            terminalreporter.write_line(line)
