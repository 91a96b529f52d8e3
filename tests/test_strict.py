"""printshop.load.strict: the typed records that check manifests, map files, scenarios and shops."""

from __future__ import annotations

from typing import Annotated, Any, Literal, Union

import pytest

from printshop.load.specs import DeckComponent, FieldSpec, Manifest
from printshop.load.strict import Field, Record, ValidationError, validator


class Size(Record):
    w: Annotated[float, Field(ge=1, le=500)]
    h: Annotated[float, Field(ge=1, le=500)]


class Card(Record):
    kind: Literal["card"]
    name: str = Field(min_length=1, max_length=10)
    size: str | tuple[Annotated[float, Field(ge=1)], Annotated[float, Field(ge=1)]] = "poker"
    tags: list[str] = Field(default_factory=list, max_length=3)
    copies: int = Field(1, ge=1, le=9)
    radius: float = 0
    extra: Any = None


class Tile(Record):
    kind: Literal["tile"]
    side: Size


class Box(Record):
    id: str = Field(pattern=r"^[a-z]+$", means="a lowercase word")
    parts: list[Annotated[Union[Card, Tile], Field(discriminator="kind")]]
    notes: dict[str, int] = Field(default_factory=dict)

    @validator("parts")
    def _two_at_most(cls, parts):
        if len(parts) > 2:
            raise ValueError("a box holds two parts at most")
        return parts


def problems(model, data) -> list[tuple[tuple, str]]:
    with pytest.raises(ValidationError) as info:
        model.model_validate(data)
    return info.value.found


def test_a_good_record_is_typed_defaulted_and_frozen():
    box = Box.model_validate({"id": "deck", "parts": [
        {"kind": "card", "name": "Ace", "size": [63, 88]},
        {"kind": "tile", "side": {"w": 50, "h": 50.5}}]})
    card, tile = box.parts
    assert isinstance(card, Card) and isinstance(tile, Tile)
    assert card.size == (63.0, 88.0) and type(card.size[0]) is float   # whole numbers -> floats
    assert card.tags == [] and card.copies == 1 and card.extra is None
    assert type(card.radius) is float          # a float key's default is a float too
    assert tile.side == Size(w=50, h=50.5)
    with pytest.raises(AttributeError):
        card.name = "King"
    assert box.model_dump(mode="json")["parts"][0]["size"] == [63.0, 88.0]
    assert box.model_dump()["parts"][0]["size"] == (63.0, 88.0)
    assert Box.model_validate(box.model_dump(mode="json")) == box


def test_every_problem_is_named_with_its_key_path_at_once():
    found = problems(Box, {"id": "Deck!", "colour": "red", "notes": {"a": "1"}, "parts": [
        {"kind": "card", "name": "", "copies": 12, "tags": ["a", "b", "c", "d"]},
        {"kind": "tile", "side": {"w": 0}},
        {"kind": "poster"},
        {"name": "no kind"}]})
    assert found == [
        (("colour",), "unknown key 'colour'; accepted keys: id, parts, notes"),
        (("id",), "expected a lowercase word, got 'Deck!'"),
        (("parts", 0, "name"), "expected some text, got an empty value"),
        (("parts", 0, "tags"), "expected at most 3 item(s), got 4"),
        (("parts", 0, "copies"), "expected a number of at most 9, got 12"),
        (("parts", 1, "side", "w"), "expected a number of at least 1, got 0"),
        (("parts", 1, "side", "h"), "missing required key 'h'"),
        (("parts", 2, "kind"), "expected one of 'card', 'tile', got 'poster'"),
        (("parts", 3, "kind"), "missing required key 'kind'; one of 'card', 'tile'"),
        (("notes", "a"), "expected a whole number, got '1'"),
    ]


@pytest.mark.parametrize("value, message", [
    ("3", "expected a whole number, got '3'"),          # text is not a number
    (True, "expected a whole number, got True"),        # nor is true
    (2.5, "expected a whole number, got 2.5"),
])
def test_nothing_is_coerced_into_a_whole_number(value, message):
    assert problems(Card, {"kind": "card", "name": "A", "copies": value}) == \
        [(("copies",), message)]


@pytest.mark.parametrize("value, message", [
    (float("nan"), "expected a finite number, got nan"),
    (float("inf"), "expected a finite number, got inf"),
    ("1.5 mm", "expected a number, got '1.5 mm'"),
    ("\u0663", "expected a number, got '\u0663'"),     # an Arabic-Indic three
    ("nan", "expected a number, got 'nan'"),
    (False, "expected a number, got False"),
])
def test_a_number_is_a_finite_int_or_float(value, message):
    assert problems(Card, {"kind": "card", "name": "A", "radius": value}) == \
        [(("radius",), message)]


def test_a_number_may_be_written_as_text():
    # YAML 1.1 reads 1e3 (no dot) as text; a map's coordinates were written that way.
    card = Card.model_validate({"kind": "card", "name": "A", "radius": "1e3", "size": ["63", 88]})
    assert card.radius == 1000.0 and card.size == (63.0, 88.0)


def test_a_union_reports_against_the_member_the_value_was_meant_as():
    # A list was meant as the (w, h) pair: its own problem is reported, not "expected text".
    assert problems(Card, {"kind": "card", "name": "A", "size": [0, 88]}) == \
        [(("size", 0), "expected a number of at least 1, got 0")]
    assert problems(Card, {"kind": "card", "name": "A", "size": [63]}) == \
        [(("size",), "expected a list of 2 numbers, got 1 item(s)")]
    # A value fitting no member names them all.
    assert problems(Card, {"kind": "card", "name": "A", "size": 5}) == \
        [(("size",), "expected text or a list of 2 numbers, got 5")]


def test_a_pattern_is_matched_to_the_very_end():
    # '$' alone would let a trailing newline through.
    assert problems(Box, {"id": "deck\n", "parts": []}) == \
        [(("id",), "expected a lowercase word, got 'deck\\n'")]


def test_a_validator_runs_after_the_type_and_its_error_is_located():
    card = {"kind": "card", "name": "A"}
    assert problems(Box, {"id": "box", "parts": [card, card, card]}) == \
        [(("parts",), "a box holds two parts at most")]


def test_not_a_mapping():
    assert problems(Box, ["id"]) == [((), "expected a mapping, got ['id']")]
    assert problems(Box, {"id": "b", "parts": ["x"]}) == \
        [(("parts", 0), "expected a mapping, got 'x'")]


def test_records_made_by_keyword_are_checked_too():
    assert FieldSpec(type="str").max_length == 2000
    with pytest.raises(ValidationError):
        FieldSpec(type="money")


def test_the_manifest_models_check_recursive_fields_and_components_by_kind():
    manifest = Manifest.model_validate({"name": "G", "components": [
        {"id": "d", "kind": "deck", "name": "D", "data": "d.yaml", "front": "f.svg.j2",
         "size": [63, 88], "fields": {"levels": {"type": "list", "items": {"type": "object",
                                                 "fields": {"cost": {"type": "int"}}}}}}]})
    deck = manifest.components[0]
    assert isinstance(deck, DeckComponent) and deck.size == (63.0, 88.0)
    assert deck.fields["levels"].items.fields["cost"].type == "int"
    found = problems(Manifest, {"name": "G", "components": [
        {"id": "d", "kind": "deck", "name": "D", "data": "d.yaml", "front": "f.svg.j2",
         "fields": {"levels": {"type": "list", "items": {"type": "list",
                                                        "items": {"type": "money"}}}}}]})
    assert found == [(("components", 0, "fields", "levels", "items", "items", "type"),
                      "expected 'str', 'text', 'int', 'number', 'bool', 'enum', 'list' or "
                      "'object', got 'money'")]


@pytest.mark.parametrize("text, whole, read", [
    (" 12 ", True, 12), ("-3", True, -3), ("2.5", True, None), ("\u0663", True, None),
    ("\u00b2", True, None), ("1_000", True, None),
    ("1e3", False, 1000.0), (".5", False, 0.5), ("nan", False, None), ("\u0663", False, None),
])
def test_numbers_written_as_text_are_read_the_same_for_cards_and_manifests(text, whole, read):
    from printshop.load.models import FieldSpec
    from printshop.load.schema import check_value
    from printshop.load.strict import number_text

    assert number_text(text, whole=whole) == read
    errors: list = []
    got = check_value(text, FieldSpec(type="int" if whole else "number"), {}, ("v",), errors)
    assert (errors == []) == (read is not None)
    if read is not None:
        assert got == read
