"""The map rules on the icons a region holds, whatever the map's setup."""

from __future__ import annotations

from collections import Counter

from .survey import MapRule, Survey, flaw, registry

RULES: dict[str, MapRule] = {}
map_rule = registry(RULES)


def icon_name(icon: str, n: int = 1) -> str:
    """Return an icon's name as the rulebook writes it, with a count."""
    name = {"fault-line": "Fault Line"}.get(icon, icon.capitalize())
    return name if n == 1 else f"{n} {name}s"


@map_rule("pocketciv.map.icons-once", "a region holds at most one of each icon")
def _icons_once(s: Survey):
    """Check that no region holds two of one icon."""
    for r in s.world.regions:
        if len(set(r.icons)) == len(r.icons):
            continue
        for icon, n in Counter(r.icons).items():
            if n > 1:
                yield flaw(f"{s.name(r.id)} has {icon_name(icon, n)}; a region holds at most "
                           f"one {icon_name(icon)}", r.at + ("icons",), (r.number,))


@map_rule("pocketciv.map.volcano-mountain", "never a Volcano and a Mountain in one region")
def _volcano_mountain(s: Survey):
    """Check that no region holds both a Volcano and a Mountain."""
    for r in s.world.regions:
        if "volcano" in r.icons and "mountain" in r.icons:
            yield flaw(f"{s.name(r.id)} has both a Volcano and a Mountain; a Volcano is a "
                       "Mountain that has woken, so a region holds one or the other",
                       r.at + ("icons",), (r.number,))

