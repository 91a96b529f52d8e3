"""A deck list brought back: the CSV that `export decklist --format csv` writes, edited in a
spreadsheet, applied to the game's YAML data files (each card's copies, name and fields).

read the CSV -> find each row's card -> list the changes -> edit the data files' text -> load
the edited files again -> write. A spreadsheet saves with a byte-order mark and CRLF line
ends, and keeps the quote printshop put before a cell that looked like a formula: all three
are read as the export wrote them. The data files are edited in place, value by value, so
their comments, order and layout stay as written; a key a card did not have is added to its
mapping. Nothing is written unless every change is valid and the edited files load cleanly.
"""

from __future__ import annotations

import csv
import io
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from ..files import limits
from ..files.errors import PrintshopError, Problem, Problems
from ..files.guard import read_project_file
from ..files.project import Project
from ..load.models import Game, Part
from . import deck_parts, load_one
from .decklist import FIELD_PREFIX, _FORMULA_START, flat

MAX_CSV_BYTES = 20_000_000
FIXED = ("deck", "id", "name", "copies")


@dataclass
class Change:
    """One value to set in a data file: where, the old and the new value."""

    part: Part
    index: int              # the card's place in its deck's data
    key: str                # the key in the data file (a field's data column)
    old: Any
    new: Any

    def __str__(self) -> str:
        card = self.part.cards[self.index]
        return (f"{self.part.data_file}: {self.part.id}/{card.id}: {self.key}: "
                f"{flat(self.old) if self.old is not None else '(none)'} -> {flat(self.new)}")


def read_rows(path: Path) -> tuple[list[str], list[tuple[int, dict[str, str]]]]:
    """Return a deck-list CSV's header and its rows with their line numbers, read as a
    spreadsheet saves it (UTF-8 with or without a BOM, CRLF or LF)."""
    data = path.read_bytes()[:MAX_CSV_BYTES + 1]
    if len(data) > MAX_CSV_BYTES:
        raise PrintshopError(Problem(str(path), f"larger than {MAX_CSV_BYTES:,} bytes"))
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise PrintshopError(Problem(str(path), f"not UTF-8 text (byte {exc.start}); save "
                                     "the sheet as CSV UTF-8")) from None
    reader = csv.reader(io.StringIO(text, newline=""))
    rows = list(reader)
    if not rows:
        raise PrintshopError(Problem(str(path), "empty: expected a header row"))
    header = [_cell(h) for h in rows[0]]
    missing = [k for k in ("id", "copies") if k not in header]
    if missing:
        raise PrintshopError(Problem(str(path), f"no column '{missing[0]}' in the header; "
                                     "expected the columns export decklist --format csv "
                                     "writes", (), 1))
    out = []
    for n, row in enumerate(rows[1:], start=2):
        if any(c.strip() for c in row):
            out.append((n, dict(zip(header, (_cell(c) for c in row)))))
    return header, out


def _cell(text: str) -> str:
    """Return a cell as the export meant it: without the quote that kept a formula inert."""
    if text.startswith("'") and text[1:].startswith(_FORMULA_START):
        return text[1:]
    return text


def _value(text: str, old: Any) -> Any:
    """Return a cell's text as a value of the old value's kind (lists as 'a; b')."""
    if isinstance(old, bool):
        if text.lower() in ("true", "false"):
            return text.lower() == "true"
        raise ValueError("expected true or false")
    if isinstance(old, int):
        return int(text)
    if isinstance(old, float):
        return float(text)
    if isinstance(old, list) and all(not isinstance(v, (list, dict)) for v in old):
        kinds = {type(v) for v in old}
        items = [t.strip() for t in text.split(";")] if text.strip() else []
        return [int(v) if kinds == {int} else v for v in items]
    if isinstance(old, (list, dict)):
        raise ValueError("a nested value: edit it in the data file")
    return text


def changes(game: Game, header: list[str], rows, file: str) -> list[Change]:
    """Return every change the rows make to the game's cards; raise every problem, located."""
    parts = deck_parts(game)
    problems = Problems()
    found: list[Change] = []
    columns = [h for h in header if h not in FIXED]
    for line, row in rows:
        where = (file, line)
        part, index = _find(parts, row, problems, where)
        if part is None:
            continue
        card = part.cards[index]
        data_key = {v: k for k, v in part.spec.columns.items()}
        wanted: list[tuple[str, Any, str]] = [("copies", card.copies, row.get("copies", ""))]
        if "name" in row:
            wanted.append(("name", card.name, row["name"]))
        for column in columns:
            name = column.removeprefix(FIELD_PREFIX) if column.startswith(FIELD_PREFIX) \
                else column
            if name not in part.spec.fields:
                continue
            wanted.append((name, card.fields.get(name), row.get(column, "")))
        for name, old, text in wanted:
            if flat(old) == text or (old is None and text == ""):
                continue
            try:
                new = _value(text.strip(), old if old is not None else "")
            except ValueError as exc:
                problems.add(file, f"column '{name}' of card '{card.id}': {text!r}: {exc}",
                             (), line)
                continue
            if text == "" and old is not None:
                problems.add(file, f"column '{name}' of card '{card.id}' is empty: remove the "
                             "field in the data file itself", (), line)
                continue
            found.append(Change(part, index, data_key.get(name, name), old, new))
    problems.raise_if_any()
    return found


def _find(parts: list[Part], row: dict, problems: Problems, where) -> tuple[Part | None, int]:
    file, line = where
    card_id, deck = row.get("id", ""), row.get("deck")
    chosen = [p for p in parts if deck is None or p.id == deck]
    if deck is not None and not chosen:
        problems.add(file, f"no deck '{deck}'; decks: {', '.join(p.id for p in parts)}", (),
                     line)
        return None, 0
    hits = [(p, i) for p in chosen for i, c in enumerate(p.cards) if c.id == card_id]
    if len(hits) != 1:
        what = "no card" if not hits else "several decks have a card"
        problems.add(file, f"{what} '{card_id}'" + ("; add a deck column" if hits else ""),
                     (), line)
        return None, 0
    return hits[0]


def _dump(value: Any) -> str:
    """Return a value as one line of YAML (a flow list for a list)."""
    text = yaml.safe_dump(value, default_flow_style=True, allow_unicode=True, width=1 << 30)
    return text.removesuffix("\n").removesuffix("\n...").strip()


def edited(text: str, edits: list[tuple[int, str, Any]]) -> str:
    """Return a data file's text with (card index, key, value) set: a value replaced where
    it stands, or the key added at the end of the card's mapping."""
    cards = _card_spans(text)
    inserts: list[tuple[int, int, str]] = []
    for index, key, value in edits:
        span = cards[index]
        if key in span.values:
            start, end = span.values[key]
            inserts.append((start, end, _dump(value)))
        elif span.flow:
            inserts.append((span.end, span.end, f", {key}: {_dump(value)}"))
        else:
            inserts.append((span.end, span.end, f"\n{' ' * span.column}{key}: {_dump(value)}"))
    for start, end, new in sorted(inserts, key=lambda x: x[0], reverse=True):
        text = text[:start] + new + text[end:]
    return text


@dataclass
class _Span:
    values: dict[str, tuple[int, int]]   # key -> (start, end) of its scalar value
    flow: bool
    end: int                             # where to add a key
    column: int                          # a block mapping's key column


def _card_spans(text: str) -> list[_Span]:
    """Return where each card mapping of a 'cards' list stands in a YAML text."""
    events = list(yaml.parse(text, Loader=yaml.SafeLoader))
    spans: list[_Span] = []
    i = 0
    # find the top-level 'cards' key, then walk its list's mappings
    depth = 0
    while i < len(events):
        ev = events[i]
        if isinstance(ev, (yaml.MappingStartEvent, yaml.SequenceStartEvent)):
            depth += 1
        elif isinstance(ev, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
            depth -= 1
        elif isinstance(ev, yaml.ScalarEvent) and depth == 1 and ev.value == "cards":
            break
        i += 1
    i += 2   # the 'cards' key, the list's start
    while i < len(events) and isinstance(events[i], yaml.MappingStartEvent):
        start = events[i]
        values: dict[str, tuple[int, int]] = {}
        i += 1
        last_end, column = start.end_mark.index, None
        while not isinstance(events[i], yaml.MappingEndEvent):
            key = events[i]
            column = key.start_mark.column if column is None else column
            i += 1
            value, nested = events[i], 0
            if isinstance(value, yaml.ScalarEvent):
                values[str(key.value)] = (value.start_mark.index, value.end_mark.index)
                last_end = value.end_mark.index
                i += 1
                continue
            while True:     # a nested list or mapping: replaced whole
                ev = events[i]
                if isinstance(ev, (yaml.MappingStartEvent, yaml.SequenceStartEvent)):
                    nested += 1
                elif isinstance(ev, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
                    nested -= 1
                i += 1
                if nested == 0:
                    last_end = _end(text, ev.end_mark.index)
                    values[str(key.value)] = (value.start_mark.index, last_end)
                    break
        end_ev = events[i]
        flow = bool(start.flow_style)
        spans.append(_Span(values, flow, end_ev.start_mark.index if flow else last_end,
                           column or 0))
        i += 1
    return spans


def _end(text: str, index: int) -> int:
    """Return where a nested value's text ends: a block one's end mark lies past the line
    break and indentation that follow it."""
    return len(text[:index].rstrip())


def import_decklist(project: Project, game_id: str, csv_path: Path, dry_run: bool = False
                    ) -> tuple[list[str], list[Path]]:
    """Apply an edited deck-list CSV to a game's data files; return the changes (as lines)
    and the files written (none on a dry run)."""
    from ..load.loader import load_cards
    from ..load.source import parse_yaml

    game = load_one(project, game_id)
    header, rows = read_rows(csv_path)
    found = changes(game, header, rows, str(csv_path))
    by_file: dict[str, list[Change]] = {}
    for change in found:
        by_file.setdefault(change.part.data_file, []).append(change)
    texts: dict[Path, str] = {}
    problems = Problems()
    for data_file, file_changes in by_file.items():
        part = file_changes[0].part
        path = project.root / data_file
        if path.suffix not in (".yaml", ".yml"):
            raise PrintshopError(Problem(data_file, "a deck list is brought back into YAML "
                                         "data only; edit this file itself"))
        raw = read_project_file(project.root, data_file, limits.current().max_file_bytes)
        text = edited(raw.decode("utf-8"), [(c.index, c.key, c.new) for c in file_changes])
        load_cards(parse_yaml(text, data_file), part.spec, game.manifest.enums, problems)
        texts[path] = text
    problems.raise_if_any()
    lines = [str(c) for c in found]
    if dry_run or not texts:
        return lines, []
    for path, text in texts.items():     # each file whole or not at all
        part_file = path.with_name(f".{path.name}.printshop-import")
        part_file.write_text(text, encoding="utf-8", newline="")
        os.replace(part_file, path)
    return lines, sorted(texts)


