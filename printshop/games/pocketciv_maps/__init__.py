"""PocketCiv maps: a seeded generator, a validator with stable rule ids, drawing, scenarios.

Importing the package registers the scenario book's rules and the ``pocketciv_map`` template
helper; the geometry (shapely) loads only when a map is generated, checked or drawn.
"""

from . import scenario  # noqa: F401  (registers the scenario rules and template helpers)
