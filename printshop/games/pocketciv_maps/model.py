"""The PocketCiv map: Regions, Frontiers and Seas, read from and written to YAML.

A map file is what a person would write by hand: every Region with its number and the
Regions, Frontiers and Seas it borders, listed in order going round it; optionally its icons,
tribes, city and outline. docs/maps.md describes the format.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Iterator, Literal, Union

import yaml

from ...files.errors import PrintshopError, Problem
from ...load.loader import validation_problems
from ...load.source import Document, parse_yaml
from ...load.strict import Field, Record, ValidationError, validator
from .variant import variant_names

ICONS = ("mountain", "volcano", "forest", "farm", "desert", "fault-line")
SETUPS = ("random", "preset")
FORMAT_RULE = "pocketciv.map.format"

Point = tuple[float, float]
Line = tuple[Point, ...]


@dataclass(frozen=True)
class Region:
    """One numbered Region of the Empire and what lies in it."""

    id: str
    number: int
    borders: tuple[str, ...]
    icons: tuple[str, ...] = ()
    tribes: int = 0
    city: int | None = None
    outline: tuple[Line, ...] | None = None
    at: tuple = ()

    @property
    def label(self) -> str:
        """Return how a player names the region."""
        return f"region {self.number}"

    def ring(self) -> list[Point]:
        """Return the outline as one closed ring of points (its lines joined end to end)."""
        ring: list[Point] = []
        for line in self.outline or ():
            ring.extend(line[1:] if ring else line)
        return ring[:-1] if len(ring) > 1 and ring[0] == ring[-1] else ring


@dataclass(frozen=True)
class Area:
    """A Frontier or a Sea: the world outside the Empire, touching it along the coast."""

    id: str
    kind: str
    coasts: tuple[tuple[str, ...], ...]
    at: tuple = ()

    @property
    def label(self) -> str:
        """Return how a player names the area."""
        if self.kind in self.id.split("-"):
            return "the " + self.id.replace("-", " ").title()
        return f"{self.kind.capitalize()} '{self.id}'"


@dataclass(frozen=True)
class WorldMap:
    """A whole map: its variant, its Regions and the Frontiers and Seas around them."""

    variant: str
    regions: tuple[Region, ...]
    frontiers: tuple[Area, ...] = ()
    seas: tuple[Area, ...] = ()
    setup: str = "random"
    seed: str | None = None
    name: str = ""

    @property
    def areas(self) -> tuple[Area, ...]:
        """Return the Frontiers, then the Seas."""
        return self.frontiers + self.seas

    def region(self, region_id: str) -> Region:
        """Return the region with this id."""
        for r in self.regions:
            if r.id == region_id:
                return r
        raise KeyError(region_id)

    def with_regions(self, regions) -> "WorldMap":
        """Return this map with other regions."""
        return replace(self, regions=tuple(regions))


Ref = Union[int, str]


class _Strict(Record):
    """Base of the file models: unknown keys are errors."""


class RegionEntry(_Strict):
    """A region as written in a map file."""

    id: Ref | None = None
    number: int
    borders: list[Ref] = Field(min_length=1, max_length=64)
    icons: list[Literal[ICONS]] = Field(default_factory=list, max_length=12)
    tribes: int = Field(0, ge=0, le=99)
    city: int | None = Field(None, ge=1, le=10)
    outline: list[list[tuple[float, float]]] | None = Field(None, max_length=64)


class AreaEntry(_Strict):
    """A Frontier or Sea as written in a map file."""

    id: Ref
    borders: list[Ref] | list[list[Ref]] = Field(min_length=1, max_length=64)


class MapFile(_Strict):
    """The whole of a map file."""

    name: str = Field("", max_length=120)
    variant: str = "standard"
    setup: Literal[SETUPS] = "random"
    seed: str | None = Field(None, max_length=60)
    regions: list[RegionEntry] = Field(min_length=1, max_length=64)
    frontiers: list[AreaEntry] = Field(default_factory=list, max_length=8)
    seas: list[AreaEntry] = Field(default_factory=list, max_length=8)

    @validator("variant")
    def _known_variant(cls, value):
        """Accept only the variants variants.yaml defines."""
        if value not in variant_names():
            raise ValueError(f"expected one of {', '.join(variant_names())}")
        return value


def _cycles(borders) -> tuple[tuple[str, ...], ...]:
    """Return an area's borders as a tuple of cycles (one list, or a list of lists)."""
    if borders and isinstance(borders[0], list):
        return tuple(tuple(str(b) for b in cycle) for cycle in borders)
    return (tuple(str(b) for b in borders),)


def _point(p) -> Point:
    """Return a point as a pair of floats."""
    return (float(p[0]), float(p[1]))


def map_from_data(data, doc: Document, prefix: tuple = ()) -> WorldMap:
    """Check a map's data (found at ``prefix`` in doc) against the format; return the map."""
    if not isinstance(data, dict):
        raise PrintshopError(Problem(doc.file, "expected a map: a mapping with 'regions'",
                                     prefix, doc.line(prefix), FORMAT_RULE))
    try:
        entry = MapFile.model_validate(data)
    except ValidationError as exc:
        found = validation_problems(exc, doc, prefix)
        raise PrintshopError([Problem(p.file, p.message, p.path, p.line, FORMAT_RULE)
                              for p in found]) from None
    regions = tuple(
        Region(str(r.id) if r.id is not None else str(r.number), r.number,
               tuple(str(b) for b in r.borders), tuple(r.icons), r.tribes, r.city,
               tuple(tuple(_point(p) for p in line) for line in r.outline)
               if r.outline is not None else None, prefix + ("regions", i))
        for i, r in enumerate(entry.regions))
    frontiers = tuple(Area(str(a.id), "frontier", _cycles(a.borders), prefix + ("frontiers", i))
                      for i, a in enumerate(entry.frontiers))
    seas = tuple(Area(str(a.id), "sea", _cycles(a.borders), prefix + ("seas", i))
                 for i, a in enumerate(entry.seas))
    return WorldMap(entry.variant, regions, frontiers, seas, entry.setup, entry.seed,
                    entry.name)


def load_map(text: str, file: str) -> tuple[WorldMap, Document]:
    """Parse a map file's text; return the map and the document (for line numbers)."""
    try:
        doc = parse_yaml(text, file)
    except PrintshopError as exc:
        raise PrintshopError([Problem(p.file, p.message, p.path, p.line, FORMAT_RULE)
                              for p in exc.problems]) from None
    return map_from_data(doc.data, doc), doc


def _ref(value: str):
    """Return an id as the file writes it: a number when it is one."""
    return int(value) if value.isdigit() else value


def _area_entry(area: Area) -> dict:
    """Return a Frontier or Sea as plain data."""
    cycles = [[_ref(b) for b in c] for c in area.coasts]
    return {"id": _ref(area.id), "borders": cycles[0] if len(cycles) == 1 else cycles}


def _region_entry(region: Region) -> dict:
    """Return a region as plain data, leaving out what is default."""
    out: dict = {}
    if region.id != str(region.number):
        out["id"] = region.id
    out["number"] = region.number
    out["borders"] = [_ref(b) for b in region.borders]
    out["icons"] = list(region.icons)
    out["tribes"] = region.tribes
    if region.city is not None:
        out["city"] = region.city
    if region.outline is not None:
        out["outline"] = [[[_num(x), _num(y)] for x, y in line] for line in region.outline]
    return out


def _num(v: float):
    """Return a coordinate as an int when whole, else rounded to 2 places."""
    return int(v) if float(v).is_integer() else round(v, 2)


def map_to_data(world: WorldMap) -> dict:
    """Return the map as plain data, in the order a person would write it."""
    data: dict = {}
    if world.name:
        data["name"] = world.name
    data["variant"] = world.variant
    data["setup"] = world.setup
    if world.seed:
        data["seed"] = world.seed
    data["regions"] = [_region_entry(r) for r in world.regions]
    if world.frontiers:
        data["frontiers"] = [_area_entry(a) for a in world.frontiers]
    if world.seas:
        data["seas"] = [_area_entry(a) for a in world.seas]
    return data


class _Dumper(yaml.SafeDumper):
    """Block style for the structure, one line for each short list of values."""


class _FastDumper(getattr(yaml, "CSafeDumper", yaml.SafeDumper)):
    """The same through libyaml when PyYAML has it (about three times quicker). It writes the
    same text for text of printable characters; it escapes and folds other characters
    differently (control characters, characters beyond U+FFFF), so a map holding any is
    written by _Dumper."""


# Characters both emitters write the same way: printable ASCII, and the rest of the basic
# plane that YAML calls printable but the byte order mark and the line and paragraph
# separators.
_PLAIN = re.compile("[ -~\\xa0-\\u2027\\u202a-\\ud7ff\\ue000-\\ufefe\\uff00-\\ufffd]*")


def _represent_list(dumper, data):
    """Write short lists of values (and lists of points) on one line."""
    flat = all(not isinstance(x, (list, dict)) for x in data)
    points = all(isinstance(x, list) and all(not isinstance(y, (list, dict)) for y in x)
                 for x in data)
    return dumper.represent_sequence("tag:yaml.org,2002:seq", data,
                                     flow_style=bool(data) and (flat or points))


_Dumper.add_representer(list, _represent_list)
_FastDumper.add_representer(list, _represent_list)


def _texts(data) -> Iterator[str]:
    """Yield every string in nested lists and dicts, keys included."""
    if isinstance(data, str):
        yield data
    elif isinstance(data, dict):
        for key, value in data.items():
            yield from _texts(key)
            yield from _texts(value)
    elif isinstance(data, list):
        for value in data:
            yield from _texts(value)


def dump_map(world: WorldMap, header: str = "") -> str:
    """Return the map file's text (deterministic: same map, same bytes)."""
    data = map_to_data(world)
    plain = all(_PLAIN.fullmatch(text) for text in _texts(data))
    body = yaml.dump(data, Dumper=_FastDumper if plain else _Dumper, sort_keys=False,
                     width=100, allow_unicode=True)
    lines = [f"# {line}" if line else "#" for line in header.splitlines()]
    return ("\n".join(lines) + "\n" if lines else "") + body
