"""Deck lists: every distinct card of a game's decks with its copies and fields, as CSV,
JSON or Markdown, for sharing with playtesters.

The lists are read by spreadsheets and forums, so what a card's text holds must not act there:
CSV cells that a spreadsheet would take for a formula get a leading quote (OWASP's advice for
CSV injection) and Markdown cells are HTML-escaped, with image links and carriage returns
neutralised.
"""

from __future__ import annotations

import csv
import html
import io
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from ..files.project import Project
from ..load.models import Game
from . import deck_parts, load_one


@dataclass(frozen=True)
class ListedCard:
    """One distinct card: its id, name, copies and data fields."""

    id: str
    name: str
    copies: int
    fields: dict[str, Any]


@dataclass(frozen=True)
class ListedDeck:
    """One deck (or token set) and its cards in data order."""

    id: str
    name: str
    cards: list[ListedCard]
    noun: str = "cards"

    @property
    def total(self) -> int:
        """Return the number of physical cards, copies included."""
        return sum(c.copies for c in self.cards)


@dataclass(frozen=True)
class DeckList:
    """The decks of one game."""

    game: str
    name: str
    decks: list[ListedDeck]
    one_deck: bool = False      # chosen with --deck: the CSV then has no deck column


JSON_FORMAT = 2                 # 2: "format" key added; 1 had none
FIELD_PREFIX = "field:"         # a data field named like a fixed CSV column gets this prefix
# A cell a spreadsheet would read as a formula (or a control character that starts one).
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
_NUMBER = re.compile(r"^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$")


def deck_list(game: Game, deck: str | None = None) -> DeckList:
    """Return the deck list of a game, or of one of its decks."""
    decks = [ListedDeck(p.id, p.spec.name, [ListedCard(c.id, c.name, c.copies, dict(c.fields))
                                             for c in p.cards],
                        "tokens" if p.kind == "tokens" else "cards")
             for p in deck_parts(game, deck)]
    return DeckList(game.id, game.manifest.name, decks, deck is not None)


def flat(value: Any) -> str:
    """Return a field value as one cell: lists as 'a; b', mappings and nested lists as JSON."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list) and all(not isinstance(v, (list, dict)) for v in value):
        return "; ".join(flat(v) for v in value)
    if isinstance(value, (list, dict)):
        return json.dumps(value, ensure_ascii=False)
    return str(value)


def field_names(decks: list[ListedDeck]) -> list[str]:
    """Return every field name used by the decks, in the order they first appear."""
    names: dict[str, None] = {}
    for d in decks:
        for c in d.cards:
            names.update(dict.fromkeys(c.fields))
    return list(names)


def to_json(dl: DeckList) -> str:
    """Write the deck list as JSON (the layout is documented in docs/exports.md)."""
    data = {"format": JSON_FORMAT, "game": dl.game,
            "decks": [{"id": d.id, "name": d.name,
                       "cards": [{"id": c.id, "name": c.name, "copies": c.copies,
                                  "fields": c.fields} for c in d.cards]} for d in dl.decks]}
    return json.dumps(data, ensure_ascii=False, indent=2) + "\n"


def csv_cell(value: Any) -> str:
    """Return a value as a CSV cell that no spreadsheet runs as a formula."""
    # a lone CR would end the record in the middle of a cell
    text = flat(value).replace("\r\n", "\n").replace("\r", "\n")
    if text.startswith(_FORMULA_START) and not _NUMBER.match(text):
        return "'" + text
    return text


def csv_columns(dl: DeckList) -> tuple[list[str], list[str]]:
    """Return (fixed columns, field columns): a field named like a fixed one is prefixed."""
    fixed = ([] if dl.one_deck else ["deck"]) + ["id", "name", "copies"]
    fields = [f"{FIELD_PREFIX}{n}" if n in fixed else n for n in field_names(dl.decks)]
    return fixed, fields


def to_csv(dl: DeckList) -> str:
    """Write the deck list as CSV: one row per distinct card, a column per field."""
    names = field_names(dl.decks)
    fixed, columns = csv_columns(dl)
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow([csv_cell(c) for c in fixed + columns])
    for d in dl.decks:
        for c in d.cards:
            row = ([] if dl.one_deck else [d.id]) + [c.id, c.name, c.copies]
            writer.writerow([csv_cell(v) for v in row] +
                            [csv_cell(c.fields.get(n)) for n in names])
    return buf.getvalue()


def _md_text(text: str) -> str:
    """Return text safe in a Markdown table: no HTML, no images, no raw line breaks."""
    text = html.escape(text.replace("\r\n", "\n").replace("\r", "\n"), quote=False)
    text = text.replace("\\", "\\\\").replace("|", "\\|").replace("![", "!\\[")
    return text.replace("\n", "<br>")


def _md_cell(value: Any) -> str:
    return _md_text(flat(value))


def to_markdown(dl: DeckList) -> str:
    """Write the deck list as Markdown: a table per deck with its total, for an issue or forum."""
    out = [f"# {_md_text(dl.name)}: deck list", ""]
    for d in dl.decks:
        names = field_names([d])
        out += [f"## {_md_text(d.name)} (`{d.id}`): {d.total} {d.noun}, {len(d.cards)} "
                "distinct", ""]
        out.append("| " + " | ".join(["id", "name", "copies", *map(_md_text, names)]) + " |")
        out.append("|" + "---|---|--:|" + "---|" * len(names))
        for c in d.cards:
            cells = [f"`{c.id}`", _md_cell(c.name), str(c.copies),
                     *(_md_cell(c.fields.get(n)) for n in names)]
            out.append("| " + " | ".join(cells) + " |")
        out.append("| " + " | ".join(["", "**total**", f"**{d.total}**", *[""] * len(names)])
                   + " |")
        out.append("")
    total = sum(d.total for d in dl.decks)
    what = " and ".join(sorted({d.noun for d in dl.decks}))
    plural = "s" if len(dl.decks) != 1 else ""
    out.append(f"**{total} {what} in {len(dl.decks)} deck{plural}**")
    return "\n".join(out) + "\n"


FORMATS: dict[str, Callable[[DeckList], str]] = {
    "csv": to_csv,
    "json": to_json,
    "md": to_markdown,
}


def export_decklist(project: Project, game_id: str, fmt: str, deck: str | None = None,
                    out: Path | None = None) -> str:
    """Return a game's deck list in ``fmt``; also write it to ``out`` when given."""
    from ..files.output import write_files

    text = FORMATS[fmt](deck_list(load_one(project, game_id), deck))
    if out is not None:
        out = Path(out)
        write_files(out.parent, {out.name: text.encode("utf-8")})
    return text
