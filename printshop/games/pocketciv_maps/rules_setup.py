"""The map rules of a fresh random world (``setup: random``): the variant's Mountains,
Forests, Deserts and Tribes, and nothing that only play brings; a scenario's preset map skips
them."""

from __future__ import annotations

from typing import Callable

from .model import Region
from .rules_icons import icon_name
from .survey import MapRule, Survey, flaw, registry
from .variant import Variant

RULES: dict[str, MapRule] = {}
map_rule = registry(RULES)


def _holding(s: Survey, icon: str) -> list[Region]:
    """Return the regions holding an icon."""
    return [r for r in s.world.regions if icon in r.icons]


def _count_rule(icon: str, want: Callable[[Variant], int]):
    """Return a check that a fresh world has the variant's count of an icon."""
    def check(s: Survey):
        """Check the count of one icon."""
        have, need = _holding(s, icon), want(s.variant)
        if len(have) != need:
            yield flaw(f"a fresh world has {icon_name(icon, need)} (one each in {need} "
                       f"regions); this map has {len(have)} ("
                       f"{', '.join(str(r.number) for r in have) or 'none'})", ("regions",),
                       [r.number for r in have])
    return check


map_rule("pocketciv.map.setup-mountains", "a fresh world has 5 Mountains",
         setup=True)(_count_rule("mountain", lambda v: v.setup.mountains))
map_rule("pocketciv.map.setup-forests", "a fresh world has 5 Forests",
         setup=True)(_count_rule("forest", lambda v: v.setup.forests))


@map_rule("pocketciv.map.setup-deserts", "a Desert in every region with neither Mountain nor "
          "Forest; if there is none, one Desert in a region without a Forest", setup=True)
def _setup_deserts(s: Survey):
    """Check the Deserts against the rule for a fresh world."""
    least = s.variant.setup.deserts_at_least
    bare = [r for r in s.world.regions if "mountain" not in r.icons and "forest" not in r.icons]
    deserts = _holding(s, "desert")
    for r in bare:
        if "desert" not in r.icons:
            yield flaw(f"{s.name(r.id)} has neither Mountain nor Forest, so it needs a Desert",
                       r.at + ("icons",), (r.number,))
    extra = [r for r in deserts if r not in bare]
    allowed = max(0, least - len(bare))
    fits = [r for r in extra if "forest" not in r.icons]
    for r in extra:
        if "forest" in r.icons:
            why = "it has a Forest" if allowed else \
                "only regions with neither Mountain nor Forest get one"
            yield flaw(f"{s.name(r.id)} has a Desert, but {why}", r.at + ("icons",),
                       (r.number,))
    for r in fits[allowed:]:
        yield flaw(f"{s.name(r.id)} has a Desert, but it has a Mountain and the Deserts the "
                   "rule asks for are already there", r.at + ("icons",), (r.number,))
    short = allowed - len(fits)
    if short > 0:
        yield flaw(f"a world has at least {least} Desert{'s' if least != 1 else ''}: "
                   f"{len(bare)} region{'s' if len(bare) != 1 else ''} "
                   f"{'have' if len(bare) != 1 else 'has'} neither Mountain nor Forest, so "
                   f"{short} more must go where there is no Forest", ("regions",))


@map_rule("pocketciv.map.setup-tribes", "a fresh world starts with 3 Tribes", setup=True)
def _setup_tribes(s: Survey):
    """Check the Tribes of a fresh world."""
    have = sum(r.tribes for r in s.world.regions)
    want = s.variant.setup.tribes
    if have != want:
        yield flaw(f"a fresh world starts with {want} Tribes; this map has {have}",
                   ("regions",), [r.number for r in s.world.regions if r.tribes])


@map_rule("pocketciv.map.setup-bare", "a fresh world has no Volcano, Farm, Fault Line or City",
          setup=True)
def _setup_bare(s: Survey):
    """Check that a fresh world has nothing that only play brings."""
    for r in s.world.regions:
        late = [i for i in ("volcano", "farm", "fault-line") if i in r.icons]
        if late:
            yield flaw(f"{s.name(r.id)} has {' and '.join('a ' + icon_name(i) for i in late)};"
                       " a fresh world has none (they come from play or a scenario)",
                       r.at + ("icons",), (r.number,))
        if r.city is not None:
            yield flaw(f"{s.name(r.id)} has a City; a fresh world has none (use "
                       "'setup: preset' for a scenario's map)", r.at + ("city",), (r.number,))
