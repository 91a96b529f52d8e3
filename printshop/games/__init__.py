"""Built-in games' code: each module registers its rules (and any template helpers).

Adding a user's game never needs code here; a built-in game puts what its data alone cannot
express (rule checks, map generators) in a module of this package, found automatically.
A module belongs to the game whose id its name starts with (``playing_gods`` to
``playing-gods``, ``pocketciv_scenarios`` to ``pocketciv``) and is imported only when that
game, or a rule named after it, is used.
"""

from __future__ import annotations

import importlib
import pkgutil
from functools import lru_cache
from typing import Iterable

_loaded: set[str] = set()
_asked: set[frozenset[str] | None] = set()  # the name sets already loaded


@lru_cache(maxsize=1)
def _modules() -> tuple[str, ...]:
    # Listed once a run: load_plugins is asked for every card drawn (0.4 ms a listing).
    return tuple(sorted(info.name for info in pkgutil.iter_modules(__path__)))


def load_plugins(names: Iterable[str] | None = None) -> None:
    """Import the modules of the named games (all of them when no names are given)."""
    wanted = None if names is None else frozenset(n.replace("_", "-") for n in names if n)
    if wanted in _asked:
        return
    for module in _modules():
        key = module.replace("_", "-")
        if module in _loaded:
            continue
        if wanted is not None and not any(key == w or key.startswith(w + "-")
                                          for w in wanted):
            continue
        _loaded.add(module)
        importlib.import_module(f"{__name__}.{module}")
    _asked.add(wanted)
