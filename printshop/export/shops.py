"""Print-on-demand shops as data: shops.yaml read into typed models, with located errors."""

from __future__ import annotations

import string
from functools import lru_cache
from pathlib import Path
from typing import Annotated, Literal


from ..errors import PrintshopError, Problem
from ..models import Strict
from ..strict import Field, ValidationError, validator

SHOPS_FILE = Path(__file__).resolve().parent / "shops.yaml"
MM_PER_INCH = 25.4
MATCH_MM = 1.5          # a deck sized in mm fits a product whose trim is this close
NAME_FIELDS = {"deck", "n", "card", "copies"}

Px = Annotated[float, Field(ge=0, le=20000)]


class Product(Strict):
    """One thing a shop prints: its upload's pixel size, bleed and safe zone."""

    name: str
    fits: list[str] = Field(min_length=1)
    size: tuple[Annotated[int, Field(ge=1, le=20000)], Annotated[int, Field(ge=1, le=20000)]]
    bleed: Px
    safe: Px
    url: str = Field(pattern=r"^https://", means="an address starting https://")
    confirmed: bool = True
    note: str = ""

    @property
    def trim_px(self) -> tuple[float, float]:
        """Return the trim size in pixels (the upload less its bleed)."""
        return self.size[0] - 2 * self.bleed, self.size[1] - 2 * self.bleed


class Names(Strict):
    """How a shop wants files named: patterns with {deck}, {n}, {card}, {copies}."""

    front: str
    back: str
    card_back: str

    @validator("front", "back", "card_back")
    def _known_fields(cls, value: str) -> str:
        used = {f for _, f, _, _ in string.Formatter().parse(value) if f}
        unknown = used - NAME_FIELDS
        if unknown:
            raise ValueError(f"unknown name field {{{sorted(unknown)[0]}}}; known: "
                             + ", ".join(f"{{{f}}}" for f in sorted(NAME_FIELDS)))
        return value


class OutputIntent(Strict):
    """The printing condition a shop's PDF/X upload is made for."""

    condition: str
    identifier: str
    registry: str = Field(default="http://www.color.org", pattern=r"^https?://",
                          means="an address")


class Shop(Strict):
    """A print-on-demand shop: how its upload is made and the products it prints."""

    name: str
    url: str = Field(pattern=r"^https://", means="an address starting https://")
    upload: Literal["images", "pdf"]
    file_type: Literal["png", "pdf"]
    colour: Literal["rgb", "cmyk"]
    pdfx: Literal["", "PDF/X-1a:2003"] = ""
    max_ink: Annotated[int, Field(ge=100, le=400)] | None = None
    output_intent: OutputIntent | None = None
    dpi: Annotated[int, Field(ge=72, le=1200)]
    backs: Literal["one", "per-card"]
    order: Literal["front-back", "back-front"]
    names: Names
    copies_in_name: bool
    next_steps: str
    products: dict[str, Product] = Field(min_length=1)

    def inches_mm(self, px: float) -> float:
        """Return a length in pixels at the shop's dpi as millimetres."""
        return px / self.dpi * MM_PER_INCH

    def product_for(self, size_name: str | None, w: float, h: float) -> tuple[str, Product] | None:
        """Return the product printing a card of this size (by name, else by mm), or None."""
        for key, product in self.products.items():
            if size_name is not None and size_name in product.fits:
                return key, product
        for key, product in self.products.items():
            pw, ph = (self.inches_mm(v) for v in product.trim_px)
            if abs(pw - w) <= MATCH_MM and abs(ph - h) <= MATCH_MM:
                return key, product
        return None


class ShopBook(Strict):
    """Every shop printshop knows, by id."""

    shops: dict[str, Shop]


def parse_shops(text: str, file: str) -> dict[str, Shop]:
    """Read shop specifications from YAML text; raise every problem with its place."""
    from ..loader import validation_problems
    from ..source import parse_yaml

    doc = parse_yaml(text, file)
    try:
        return ShopBook.model_validate(doc.data).shops
    except ValidationError as exc:
        raise PrintshopError(validation_problems(exc, doc)) from None


@lru_cache(maxsize=1)
def shops() -> dict[str, Shop]:
    """Return the shops shipped with printshop."""
    return parse_shops(SHOPS_FILE.read_text(encoding="utf-8"), "printshop/export/shops.yaml")


def shop(shop_id: str) -> Shop:
    """Return one shop by id, or a located error listing the known ones."""
    known = shops()
    if shop_id not in known:
        raise PrintshopError(Problem("printshop/export/shops.yaml", f"no shop '{shop_id}'; "
                                     f"shops: {', '.join(sorted(known))}"))
    return known[shop_id]
