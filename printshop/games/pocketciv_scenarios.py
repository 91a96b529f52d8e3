"""Register PocketCiv's map rules and template helpers with the game modules: the scenario
book's, and those of the full-size and blank map sheets."""

from .pocketciv_maps import printed, scenario  # noqa: F401
