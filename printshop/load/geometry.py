"""Sizes and print options: card and paper sizes by name, and how a build lays out pages."""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Literal

import yaml

FORMATS_FILE = Path(__file__).resolve().parent / "formats.yaml"


@lru_cache(maxsize=1)
def formats() -> dict:
    """Return the named card and paper sizes (printshop's own file: libyaml reads it, when
    PyYAML has it, in a seventh of the time)."""
    return yaml.load(FORMATS_FILE.read_text(),
                     Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))


def card_size(size) -> tuple[float, float]:
    """Return (width, height) in mm for a size name or a [w, h] pair."""
    if isinstance(size, str):
        table = formats()["cards"]
        if size not in table:
            raise KeyError(f"unknown card size '{size}'; known sizes: {', '.join(table)}")
        w, h = table[size]
        return float(w), float(h)
    w, h = size
    return float(w), float(h)


def paper_size(name: str) -> tuple[float, float]:
    """Return (width, height) in mm of a paper by name, portrait."""
    w, h = formats()["papers"][name]
    return float(w), float(h)


@dataclass(frozen=True)
class PrintOptions:
    """Every choice a user makes about how pages come out."""

    paper: Literal["a4", "letter"] = "a4"
    bleed: float | None = None  # None: each component's default (3 mm for cards)
    crop_marks: bool = True
    backs: Literal["none", "duplex", "fold"] = "duplex"
    back_offset: tuple[float, float] = (0.0, 0.0)
    layout: Literal["sheet", "single"] = "sheet"
    flip: Literal["long", "short"] = "long"
    margin: float = 5.0
    low_ink: bool = False

    def __post_init__(self):
        if not all(math.isfinite(v) for v in self.back_offset):
            raise ValueError(f"back_offset must be finite millimetres, got {self.back_offset}")

    def key(self) -> str:
        """Return a stable text form of the options, for content hashes."""
        return (f"{self.paper}|{self.bleed}|{self.crop_marks}|{self.backs}|{self.back_offset}|"
                f"{self.layout}|{self.flip}|{self.margin}|{self.low_ink}")


DEFAULT_BLEED = 3.0
LABEL_BAND = 5.0  # space under the cards for the page label
