"""The built-in games' code, found and imported when a game is used.

printshop/games/ holds a module for each built-in game that needs code (rule checks, template
helpers, map generators); each registers what it adds when it is imported. This module finds
them by name and imports them: the stages that need a game's code (the rules, the drawing)
call it, so nothing below the games imports the games package itself.
A module belongs to the game whose id its name starts with (``playing_gods`` to
``playing-gods``, ``pocketciv_scenarios`` to ``pocketciv``).
"""


from __future__ import annotations

import importlib
import pkgutil
from functools import lru_cache
from pathlib import Path
from typing import Iterable

GAMES = "printshop.games"
GAMES_DIR = Path(__file__).resolve().parent.parent / "games"

_loaded: set[str] = set()
_asked: set[frozenset[str] | None] = set()  # the name sets already loaded


@lru_cache(maxsize=1)
def _modules() -> tuple[str, ...]:
    # Listed once a run: load_plugins is asked for every card drawn (0.4 ms a listing).
    return tuple(sorted(info.name for info in pkgutil.iter_modules([str(GAMES_DIR)])))


def _games_modules(wanted: frozenset[str] | None) -> list[str]:
    """Return the modules of the wanted games (all of them for None)."""
    return [m for m in _modules() if wanted is None or
            any(m.replace("_", "-") == w or m.replace("_", "-").startswith(w + "-")
                for w in wanted)]


def _wanted(names: Iterable[str] | None) -> frozenset[str] | None:
    return None if names is None else frozenset(n.replace("_", "-") for n in names if n)


def load_plugins(names: Iterable[str] | None = None) -> None:
    """Import the modules of the named games (all of them when no names are given)."""
    wanted = _wanted(names)
    if wanted in _asked:
        return
    for module in _games_modules(wanted):
        if module not in _loaded:
            _loaded.add(module)
            importlib.import_module(f"{GAMES}.{module}")
    _asked.add(wanted)


def load_drawing(names: Iterable[str] | None = None) -> None:
    """Import the modules of the named games and what their components need to be drawn: a
    module's DRAWING names modules (relative to this package) that only drawing uses, such as
    PocketCiv's map generator with numpy and shapely. A build calls this before its workers
    fork, so that they do not each import them; commands that draw nothing never do."""
    wanted = _wanted(names)
    load_plugins(wanted)
    for module in _games_modules(wanted):
        for name in getattr(importlib.import_module(f"{GAMES}.{module}"), "DRAWING", ()):
            importlib.import_module(name, GAMES)
