"""Built-in games' code: each module registers its rules (and any template helpers).

Adding a user's game never needs code here; a built-in game puts what its data alone cannot
express (rule checks, map generators) in a module of this package, found automatically.
A module belongs to the game whose id its name starts with (``playing_gods`` to
``playing-gods``, ``pocketciv_scenarios`` to ``pocketciv``) and is imported only when that
game, or a rule named after it, is used (printshop/load/plugins.py finds and imports it).
"""
