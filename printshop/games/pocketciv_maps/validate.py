"""The map validator: a registry of rules, each with a stable id, run on any map.

Structural rules always apply. Setup rules (``pocketciv.map.setup-*``) apply to a fresh random
world (``setup: random``); a scenario's preset map skips them. A rule that needs another
rule's facts (the junctions need every border to name a real face) is skipped when that
rule failed, so one mistake is reported once, under its own id.

The rules live by what they look at: rules_borders.py (regions, borders, junctions, coast),
rules_icons.py, rules_outlines.py and rules_setup.py; survey.py holds what they share.
"""

from __future__ import annotations

from dataclasses import replace

from . import rules_borders, rules_icons, rules_outlines, rules_setup
from .model import WorldMap
from .survey import Flaw, MapRule, Survey

# Every map rule by id, in the order they run (a rule follows those it needs).
MAP_RULES: dict[str, MapRule] = {**rules_borders.RULES, **rules_icons.RULES,
                                 **rules_outlines.RULES, **rules_setup.RULES}


def validate_map(world: WorldMap) -> list[Flaw]:
    """Run every rule that applies to the map; return what is broken, rule by rule."""
    survey = Survey(world)
    failed: set[str] = set()
    out: list[Flaw] = []
    for rule in MAP_RULES.values():
        if rule.setup and world.setup != "random":
            continue
        if not failed.isdisjoint(rule.needs):
            failed.add(rule.id)
            continue
        found = [replace(f, rule=rule.id) for f in rule.check(survey)]
        if found:
            failed.add(rule.id)
            out.extend(found)
    return out
