"""Register PocketCiv's map rules and template helpers with the game modules: the scenario
book's, and those of the full-size and blank map sheets."""

from .pocketciv_maps import printed, scenario  # noqa: F401

# What drawing the map sheets and the scenario book needs (numpy and shapely with it, about
# 0.15 s): imported by a build before its workers fork (load_drawing), not by every command.
DRAWING = (".pocketciv_maps.draw", ".pocketciv_maps.generate", ".pocketciv_maps.page",
           ".pocketciv_maps.validate")
