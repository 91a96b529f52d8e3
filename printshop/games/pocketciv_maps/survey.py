"""What the map rules look at (Survey: a map's faces, junctions, land and outlines, each
worked out once), what a rule is, and what a broken one reports (Flaw)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from functools import cached_property
from itertools import chain
from typing import Callable, Iterable

import numpy as np
import shapely

from .junction import Face, faces_of, junctions, pieces
from .model import WorldMap
from .variant import Variant, variant


@dataclass(frozen=True)
class Flaw:
    """A broken map rule: its id, what is wrong, where in the file, which region numbers."""

    rule: str
    message: str
    at: tuple = ()
    regions: tuple[int, ...] = ()


class Survey:
    """What the rules look at: the map, its variant, its faces and (once) its junctions."""

    def __init__(self, world: WorldMap):
        self.world = world
        self.variant: Variant = variant(world.variant)

    @cached_property
    def faces(self) -> dict[str, Face]:
        """Return every face by id."""
        return faces_of(self.world)

    @cached_property
    def junctions(self):
        """Return the junctions of three and the corners that fit none."""
        return junctions(self.faces)

    @cached_property
    def entries(self) -> tuple[list[str], list[str]]:
        """Return every entry of every face's borders as two columns: the face whose list
        holds it, and the neighbour it names."""
        listing: list[str] = []
        named: list[str] = []
        for face in self.faces.values():
            for cycle in face.cycles:
                listing += [face.id] * len(cycle)
                named += cycle
        return listing, named

    @cached_property
    def land(self) -> list[list[str]]:
        """Return the pieces of land: the groups of regions that border one another."""
        return pieces(self.faces, lambda f: f.region)

    @cached_property
    def rings(self) -> dict[int, list]:
        """Return the outline of each region that has one as a closed ring, by position."""
        return {n: r.ring() for n, r in enumerate(self.world.regions) if r.outline is not None}

    @cached_property
    def shapes(self):
        """Return the outlines of the regions that have one, as polygons (built once)."""
        return _shapes(list(self.rings.values()))

    @cached_property
    def _numbers(self) -> dict[str, int]:
        """Return each region id's number."""
        return {r.id: r.number for r in self.world.regions}

    @cached_property
    def _plain(self) -> set[str]:
        """Return the ids of regions a number names without doubt."""
        counts = Counter(r.number for r in self.world.regions)
        return {r.id for r in self.world.regions if r.id == str(r.number) and
                counts[r.number] == 1}

    def name(self, face_id: str) -> str:
        """Return how a player names a face: 'region 3', 'region 3 (3b)', 'the Sea'."""
        face = self.faces.get(face_id)
        if face is None:
            return f"'{face_id}'"
        if face.region and face_id not in self._plain:
            return f"region {self._numbers[face_id]} ({face_id})"
        return face.label

    def numbers(self, face_ids: Iterable[str]) -> tuple[int, ...]:
        """Return the region numbers among these faces, in order, once each."""
        return tuple(dict.fromkeys(self._numbers[f] for f in face_ids if f in self._numbers))

    def names(self, face_ids: Iterable[str]) -> str:
        """Return a readable list of faces."""
        return ", ".join(self.name(f) for f in dict.fromkeys(face_ids))


Check = Callable[[Survey], Iterable[Flaw]]


@dataclass(frozen=True)
class MapRule:
    """One rule: id, what it asks, its check, the rules it builds on, setup-only or not."""

    id: str
    text: str
    check: Check
    needs: tuple[str, ...] = ()
    setup: bool = False


def registry(rules: dict[str, MapRule]):
    """Return the decorator that registers a map rule under a stable id in ``rules``."""
    def map_rule(rule_id: str, text: str, needs: tuple[str, ...] = (), setup: bool = False):
        """Register a map rule under a stable id."""
        def register(fn: Check) -> Check:
            """Add the check to the registry."""
            rules[rule_id] = MapRule(rule_id, text, fn, needs, setup)
            return fn
        return register
    return map_rule


def flaw(message: str, at: tuple = (), regions: Iterable[int] = ()) -> Flaw:
    """Return a Flaw for the rule being run (the runner fills in the id)."""
    return Flaw("", message, tuple(at), tuple(regions))


def _shapes(rings: list[list]):
    """Return closed rings of points as polygons, built in one call."""
    if not rings:
        return []
    sizes = [len(ring) + 1 for ring in rings]
    values = chain.from_iterable(chain.from_iterable(ring + ring[:1] for ring in rings))
    coords = np.fromiter(values, dtype=float, count=2 * sum(sizes)).reshape(-1, 2)
    ring_ends = np.cumsum([0] + sizes)
    return shapely.from_ragged_array(shapely.GeometryType.POLYGON, coords,
                                     (ring_ends, np.arange(len(rings) + 1)))
