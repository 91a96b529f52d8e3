"""Register PocketCiv's map rules and template helpers with the game modules: the scenario
book's, and those of the full-size and blank map sheets.

The generator, the validator and the drawing of maps (numpy and shapely with them, about
0.15 s) are imported here, with the game's code, rather than when a sheet first needs them:
a build imports the game's code once before its workers fork, so the workers that draw the
map sheet and the scenario book do not each import them again.
"""

from .pocketciv_maps import draw, generate, page, printed, scenario, validate  # noqa: F401
