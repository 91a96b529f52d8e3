"""Map variants: what a legal map of each kind holds, read from variants.yaml."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import yaml

VARIANTS_FILE = Path(__file__).resolve().parent / "variants.yaml"


@dataclass(frozen=True)
class Setup:
    """What a fresh random world starts with."""

    mountains: int
    forests: int
    deserts_at_least: int
    tribes: int


@dataclass(frozen=True)
class Shape:
    """How the generator draws the land of a variant."""

    aspect: float
    wobble: float
    coast_points: int


@dataclass(frozen=True)
class Variant:
    """One kind of map: region count, numbering, outside areas, setup and shape."""

    name: str
    title: str
    regions: int
    copies: int
    land: tuple[int, int]
    frontiers: int
    seas: int
    frontier_regions: tuple[int, int]
    setup: Setup
    shape: Shape


@lru_cache(maxsize=1)
def variants() -> dict[str, Variant]:
    """Return every variant by name."""
    raw = yaml.load(VARIANTS_FILE.read_text(encoding="utf-8"),   # printshop's own file
                    Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    return {name: Variant(name, v["title"], v["regions"], v["copies"], tuple(v["land"]),
                          v["frontiers"], v["seas"], tuple(v["frontier_regions"]),
                          Setup(**v["setup"]), Shape(**v["shape"]))
            for name, v in raw.items()}


def variant(name: str) -> Variant:
    """Return the variant called ``name``."""
    return variants()[name]


def variant_names() -> tuple[str, ...]:
    """Return the variant names in the order the data file gives them."""
    return tuple(variants())
