"""Built-in games' code: each module registers its rules (and any template helpers).

Adding a user's game never needs code here; a built-in game puts what its data alone cannot
express (rule checks, map generators) in a module of this package, found automatically.
"""

from __future__ import annotations

import importlib
import pkgutil

_loaded = False


def load_plugins() -> None:
    """Import every module of this package once, so their registrations take effect."""
    global _loaded
    if _loaded:
        return
    _loaded = True
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda i: i.name):
        importlib.import_module(f"{__name__}.{info.name}")
