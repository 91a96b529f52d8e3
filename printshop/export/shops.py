"""Print-on-demand shops as data: shops.yaml read into typed models, with located errors."""

from __future__ import annotations

import string
from functools import lru_cache
from pathlib import Path
from typing import Annotated, Literal


from ..files.errors import PrintshopError, Problem
from ..load.models import Strict
from ..load.strict import Field, ValidationError, validator

SHOPS_FILE = Path(__file__).resolve().parent / "shops.yaml"
MM_PER_INCH = 25.4
MATCH_MM = 1.5          # a deck sized in mm fits a product whose trim is this close
NAME_FIELDS = {"deck", "n", "card", "copies"}

Px = Annotated[float, Field(ge=0, le=20000)]


Kind = Literal["cards", "chits", "board", "mat", "booklet", "document"]
CARD_KINDS = ("cards", "chits")          # products a deck or token set goes on
SHEET_KINDS = ("board", "mat")           # products a board goes on
PAGE_KINDS = ("booklet", "document")     # products a booklet's or a sheet's pages go on
MIN_SCALE = 0.9         # a board or page may be printed this much smaller to fit a product
MIN_FILL = 0.5          # ... and must cover at least this share of the product's area


class Quantity(Strict):
    """How many of a product one order holds (cards, chits or pages) and the steps sold in."""

    min: Annotated[int, Field(ge=1, le=100000)] = 1
    max: Annotated[int, Field(ge=1, le=100000)] = 100000
    step: Annotated[int, Field(ge=1, le=1000)] = 1
    url: str = Field("", pattern=r"^(https://.*)?$", means="an address starting https://")
    confirmed: bool | None = None     # None: as confirmed as its product
    note: str = ""

    def ordered(self, count: int) -> int:
        """Return the count to order for ``count`` items: at least min, rounded up to a step."""
        return max(self.min, -(-count // self.step) * self.step)


class Product(Strict):
    """One thing a shop prints: its upload's pixel size, bleed, safe zone, backs, quantities."""

    name: str
    kind: Kind = "cards"
    fits: list[str] = []
    shape: Literal["rect", "circle"] = "rect"
    size: tuple[Annotated[int, Field(ge=1, le=20000)], Annotated[int, Field(ge=1, le=20000)]]
    bleed: Px
    safe: Px
    backs: Literal["one", "per-card"] | None = None   # None: the shop's
    quantity: Quantity = Quantity()
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
    short: list[str] = []
    url: str = Field(pattern=r"^https://", means="an address starting https://")
    upload: Literal["images", "pdf"]
    file_type: Literal["png", "pdf"]
    colour: Literal["rgb", "cmyk"]
    pdfx: Literal["", "PDF/X-1a:2003"] = ""
    max_ink: Annotated[int, Field(ge=100, le=400)] | None = None
    output_intent: OutputIntent | None = None
    dpi: Annotated[int, Field(ge=72, le=1200)]
    backs: Literal["one", "per-card"]
    shared_back: bool = True        # cards sharing one back get one back file
    order: Literal["front-back", "back-front"]
    names: Names
    copies_in_name: bool
    next_steps: str
    products: dict[str, Product] = Field(min_length=1)

    def inches_mm(self, px: float) -> float:
        """Return a length in pixels at the shop's dpi as millimetres."""
        return px / self.dpi * MM_PER_INCH

    def trim_mm(self, product: Product) -> tuple[float, float]:
        """Return a product's trim in millimetres."""
        w, h = product.trim_px
        return self.inches_mm(w), self.inches_mm(h)

    def backs_of(self, product: Product) -> str:
        """Return how many backs a product takes: 'one' per order or 'per-card'."""
        return product.backs or self.backs

    def product_for(self, size_name: str | None, w: float, h: float,
                    shape: str = "rect") -> tuple[str, Product] | None:
        """Return the card or chit product printing a piece of this size and shape (by size
        name, else by mm), or None."""
        fitting = [(k, p) for k, p in self.products.items() if p.kind in CARD_KINDS and
                   (p.kind == "cards" or p.shape == shape)]
        for key, product in fitting:
            if size_name is not None and size_name in product.fits:
                return key, product
        for key, product in fitting:
            pw, ph = self.trim_mm(product)
            if abs(pw - w) <= MATCH_MM and abs(ph - h) <= MATCH_MM:
                return key, product
        return None

    def sheet_for(self, kinds: tuple[str, ...], w: float, h: float
                  ) -> tuple[str, Product, float] | None:
        """Return the smallest product of ``kinds`` a w x h mm drawing fits on (turned if
        need be, at MIN_SCALE-100 % of its size, covering MIN_FILL of it) and the scale."""
        found = []
        for key, product in self.products.items():
            if product.kind not in kinds:
                continue
            pw, ph = self.trim_mm(product)
            if (w - h) * (pw - ph) < 0:
                pw, ph = ph, pw
            scale = min(1.0, pw / w, ph / h)
            if scale >= MIN_SCALE and (w * scale) * (h * scale) >= MIN_FILL * pw * ph:
                found.append((pw * ph, key, product, scale))
        if not found:
            return None
        _, key, product, scale = min(found, key=lambda f: f[0])
        return key, product, scale

    def matches(self, name: str) -> bool:
        """Say whether a name given on the command line means this shop."""
        return name.lower() in {s.lower() for s in self.short}


class ShopBook(Strict):
    """Every shop printshop knows, by id."""

    shops: dict[str, Shop]


def parse_shops(text: str, file: str) -> dict[str, Shop]:
    """Read shop specifications from YAML text; raise every problem with its place."""
    from ..load.loader import validation_problems
    from ..load.source import parse_yaml

    doc = parse_yaml(text, file)
    try:
        return ShopBook.model_validate(doc.data).shops
    except ValidationError as exc:
        raise PrintshopError(validation_problems(exc, doc)) from None


@lru_cache(maxsize=1)
def shops() -> dict[str, Shop]:
    """Return the shops shipped with printshop."""
    return parse_shops(SHOPS_FILE.read_text(encoding="utf-8"), "printshop/export/shops.yaml")


def shop_id(name: str) -> str:
    """Return the id of the shop a name means (its id or a short name), or a located error
    suggesting the nearest."""
    from ..files.project import did_you_mean

    known = shops()
    if name in known:
        return name
    for key, found in known.items():
        if found.matches(name):
            return key
    names = list(known) + [s for found in known.values() for s in found.short]
    raise PrintshopError(Problem("printshop/export/shops.yaml", f"no shop '{name}'"
                                 f"{did_you_mean(name.lower(), names)}; shops: "
                                 + ", ".join(f"{k} ({', '.join(s.short)})" if s.short else k
                                             for k, s in sorted(known.items()))))


def shop(name: str) -> Shop:
    """Return one shop by id or short name, or a located error listing the known ones."""
    return shops()[shop_id(name)]
