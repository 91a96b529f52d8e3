"""Typed models of a game: its manifest, components, card schemas and cards.

The manifest's records (Manifest, DeckComponent, FieldSpec, ...) live in printshop.load.specs and
are named here lazily, so that ``list`` and a rebuild, which need only a component's id, kind
and name, import and check none of them. ``from printshop.load.models import Manifest`` works.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

_SPECS = frozenset({"ID_PATTERN", "MAX_OVERLAP", "Strict", "FieldSpec", "Style", "ComponentBase", "DeckComponent",
                    "SheetComponent", "BoardComponent", "BookletComponent", "Component",
                    "CheckSpec", "Manifest", "Id", "Mm", "Side", "RuleId"})


def __getattr__(name: str):
    if name in _SPECS:
        from . import specs

        value = getattr(specs, name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class Later:
    """A manifest or component read back from the load cache, checked again when first
    used; what ``list`` and a rebuild need (id, kind, name) is known without it."""

    __slots__ = ("make", "args", "id", "kind", "name")

    def __init__(self, make, args: tuple, id=None, kind=None, name=None):
        self.make, self.args = make, args
        self.id, self.kind, self.name = id, kind, name

    def __call__(self):
        return self.make(*self.args)


class _Made:
    """A dataclass field that may hold a Later: the value is made on first read and kept."""

    def __set_name__(self, owner, name):
        self.slot = "_" + name

    def __get__(self, obj, owner=None):
        if obj is None:
            raise AttributeError(self.slot)  # no class-level default: the field is required
        value = obj.__dict__[self.slot]
        if type(value) is Later:
            value = obj.__dict__[self.slot] = value()
        return value

    def __set__(self, obj, value):
        obj.__dict__[self.slot] = value


@dataclass
class Card:
    """One distinct card of a deck: its id, name, copies and typed fields."""

    id: str
    name: str
    copies: int
    fields: dict[str, Any]
    line: int | None = None

    def context(self) -> dict[str, Any]:
        """Return what a template sees as ``card``."""
        return {"id": self.id, "name": self.name, "copies": self.copies, **self.fields}


@dataclass
class Part:
    """A loaded component: its manifest entry plus the data it draws."""

    spec: Any = _Made()
    cards: list[Card] = field(default_factory=list)
    data: Any = None
    data_file: str | None = None
    source: Any = None  # the parsed data file (source.Document), for line numbers

    def line(self, path: tuple) -> int | None:
        """Return the line in the data file of a key path, or of its nearest parent."""
        return self.source.line(path) if self.source is not None else None

    @property
    def id(self) -> str:
        return self.__dict__["_spec"].id

    @property
    def kind(self) -> str:
        return self.__dict__["_spec"].kind

    @property
    def name(self) -> str:
        """Return the component's name (without checking a cached manifest)."""
        return self.__dict__["_spec"].name

    def card_count(self) -> int:
        """Return the number of physical cards, copies included."""
        return sum(c.copies for c in self.cards)


@dataclass
class Game:
    """A loaded, schema-checked game, ready for its rules and the renderer."""

    id: str
    manifest: Any = _Made()   # a specs.Manifest
    parts: list[Part] = field(default_factory=list)
    data_dir: Any = None
    template_dirs: list[Any] = field(default_factory=list)
    icons: dict[str, str] = field(default_factory=dict)
    icon_file: str | None = None
    # What the load cache and the rebuild keys remember of this load (printshop.load.loadcache).
    memo: dict = field(default_factory=dict, repr=False, compare=False)

    @property
    def name(self) -> str:
        """Return the game's name (without checking a cached manifest)."""
        return self.__dict__["_manifest"].name

    def part(self, component_id: str) -> Part:
        """Return the component with this id."""
        for p in self.parts:
            if p.id == component_id:
                return p
        raise KeyError(component_id)
