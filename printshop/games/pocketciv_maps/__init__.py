"""PocketCiv maps: a seeded generator, a validator with stable rule ids, drawing, scenarios.

The scenario book's rules and the ``pocketciv_map`` template helper register when
printshop/games/pocketciv_scenarios.py is loaded with the other game modules; importing this
package alone (the CLI reading the variant names) loads nothing heavy.
"""
