"""The manifest's typed records: what data/<game>/game.yaml may hold, checked on load
(printshop.load.strict checks them and words the problems)."""

from __future__ import annotations

from typing import Annotated, Any, Literal, Union

from .strict import Field, Record, validator

ID_PATTERN = r"^[a-z0-9][a-z0-9-]*$"
MAX_OVERLAP = 50.0  # tiles must overlap by less than the smallest page window (195 mm)

Id = Annotated[str, Field(pattern=ID_PATTERN, max_length=64,
                          means="an id of lowercase letters, digits and '-'")]
Mm = Annotated[float, Field(ge=0, le=5000)]
# A side of a card, board or page: zero would leave nothing to draw and divide by nothing.
Side = Annotated[float, Field(ge=1, le=5000)]


class Strict(Record):
    """Base for manifest models: unknown keys are errors."""


class FieldSpec(Strict):
    """The declared type of one card field."""

    type: Literal["str", "text", "int", "number", "bool", "enum", "list", "object"]
    required: bool = True
    default: Any = None
    values: list[str] | str | None = None
    min: float | None = None
    max: float | None = None
    min_items: int | None = Field(None, ge=0)
    max_items: int | None = Field(None, ge=0)
    max_length: int = Field(2000, ge=1, le=100_000)
    items: FieldSpec | None = None
    fields: dict[str, FieldSpec] | None = None
    description: str = ""


class TypeScale(Strict):
    """A game's type sizes in points: a title with its one smaller fallback, body and label."""

    title: float = Field(12.0, ge=6, le=72)
    title_fallback: float = Field(10.5, ge=6, le=72)
    body: float = Field(8.0, ge=7, le=72)       # rules text on a card: 7 pt at least
    label: float = Field(6.5, ge=6, le=72)      # small print: 6 pt at least


class Style(Strict):
    """A game's look: fonts, named colours and the type scale its templates use."""

    title_font: str = "Linux Libertine O"
    body_font: str = "DejaVu Sans Condensed"
    colors: dict[str, str] = Field(default_factory=dict)
    type: TypeScale = Field(default_factory=TypeScale)
    # The game's own fonts, by the name templates use (font='arabic'): files in the game's data
    # folder. Each is also tried for characters the chosen font lacks.
    fonts: dict[Annotated[str, Field(pattern=ID_PATTERN, max_length=64)],
                Annotated[str, Field(min_length=1, max_length=300)]] = \
        Field(default_factory=dict)
    # The language whose hyphenation patterns may break long words ('en', 'de_DE'); '' : none.
    hyphenate: str = Field("", max_length=16)


class ComponentBase(Strict):
    """What every component shares."""

    id: Id
    name: str = Field(min_length=1, max_length=120)
    description: str = Field("", max_length=2000)
    stock: str = Field("", max_length=200)   # "300 gsm card; advice" - the paper before ';'
    cut: str = Field("", max_length=300)
    mount: str = Field("", max_length=120)   # glued onto this: both sides print single-sided
    per_player: bool = False                 # each player needs one: printed for the most
    copies: int = Field(1, ge=1, le=99)      # the most a game uses, when not one per player


class DeckComponent(ComponentBase):
    """A deck of cards (or a punch sheet of tokens): data rows through a front and back."""

    kind: Literal["deck", "tokens"]
    data: str
    front: str
    back: str | None = None
    size: str | tuple[Side, Side] = "poker"
    shape: Literal["rect", "circle"] = "rect"
    corner_radius: Mm = 0
    bleed: Mm | None = None
    fields: dict[str, FieldSpec] = Field(default_factory=dict)
    columns: dict[str, str] = Field(default_factory=dict)  # data column -> field, id, name, copies


class SheetComponent(ComponentBase):
    """Pages drawn by one template on the chosen paper (aids, pads, tracking sheets)."""

    kind: Literal["sheet"]
    template: str
    # How many pages the template draws; `auto`: as many as its flow() needs.
    pages: Annotated[int, Field(ge=1, le=200)] | Literal["auto"] = 1
    orientation: Literal["portrait", "landscape"] = "portrait"
    data: str | None = None
    duplex: bool = False
    # Settings the template reads as ``params`` (a map's seed, say) when a data file is more
    # than the sheet needs; a game module's rule may check them.
    params: dict[str, Any] = Field(default_factory=dict)


class BoardComponent(ComponentBase):
    """A drawing of a fixed size in millimetres, tiled over several pages if large."""

    kind: Literal["board"]
    template: str
    size: tuple[Side, Side]
    data: str | None = None
    overlap: float = Field(10, ge=0, le=MAX_OVERLAP)
    # [columns, rows] of pages to tile it over (default: the fewest that hold it).
    tiles: tuple[Annotated[int, Field(ge=1, le=20)], Annotated[int, Field(ge=1, le=20)]] | None \
        = None


class BookletComponent(ComponentBase):
    """Booklet pages (A5) from a data list, imposed two-up for saddle stitching."""

    kind: Literal["booklet"]
    template: str
    cover: str | None = None
    data: str
    page_size: str | tuple[Side, Side] = "a5"


Component = Annotated[Union[DeckComponent, SheetComponent, BoardComponent, BookletComponent],
                      Field(discriminator="kind")]


RuleId = Annotated[str, Field(pattern=r"^[a-z0-9][a-z0-9.-]*$", max_length=80,
                              means="a rule id of lowercase letters, digits, '.' and '-'")]


class CheckSpec(Strict):
    """A declarative rule from the manifest, run by a check from the registry."""

    id: RuleId
    check: str
    component: str | None = None
    where: dict[str, Any] = Field(default_factory=dict)
    field: str | None = None
    equals: float | None = None
    min: float | None = None
    max: float | None = None
    values: list[Any] | None = None
    message: str = ""


class Manifest(Strict):
    """The whole of data/<game>/game.yaml."""

    name: str = Field(min_length=1, max_length=120)
    subtitle: str = ""
    designer: str = ""
    players: str = ""
    description: str = ""
    style: Style = Field(default_factory=Style)
    icons: str | None = None
    enums: dict[str, list[str]] = Field(default_factory=dict)
    provide: list[str] = Field(default_factory=list)
    components: list[Component] = Field(min_length=1)
    rules: list[Union[str, CheckSpec]] = Field(default_factory=list)

    @validator("components")
    def _unique_ids(cls, components):
        seen = set()
        for c in components:
            if c.id in seen:
                raise ValueError(f"component id '{c.id}' is used twice")
            seen.add(c.id)
        return components
