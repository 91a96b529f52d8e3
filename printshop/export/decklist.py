"""Deck lists: every distinct card of a game's decks with its copies and fields, as CSV,
JSON or Markdown, for sharing with playtesters.
"""

from __future__ import annotations

import csv
import io
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from ..models import Game
from ..project import Project
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


def deck_list(game: Game, deck: str | None = None) -> DeckList:
    """Return the deck list of a game, or of one of its decks."""
    decks = [ListedDeck(p.id, p.spec.name, [ListedCard(c.id, c.name, c.copies, dict(c.fields))
                                             for c in p.cards],
                        "tokens" if p.kind == "tokens" else "cards")
             for p in deck_parts(game, deck)]
    return DeckList(game.id, game.manifest.name, decks)


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
    data = {"game": dl.game,
            "decks": [{"id": d.id, "name": d.name,
                       "cards": [{"id": c.id, "name": c.name, "copies": c.copies,
                                  "fields": c.fields} for c in d.cards]} for d in dl.decks]}
    return json.dumps(data, ensure_ascii=False, indent=2) + "\n"


def to_csv(dl: DeckList) -> str:
    """Write the deck list as CSV: one row per distinct card, a column per field."""
    names = field_names(dl.decks)
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(["deck", "id", "name", "copies", *names])
    for d in dl.decks:
        for c in d.cards:
            writer.writerow([d.id, c.id, c.name, c.copies,
                             *(flat(c.fields.get(n)) for n in names)])
    return buf.getvalue()


def _md_cell(value: Any) -> str:
    return flat(value).replace("\\", "\\\\").replace("|", "\\|").replace("\n", "<br>")


def to_markdown(dl: DeckList) -> str:
    """Write the deck list as Markdown: a table per deck with its total, for an issue or forum."""
    out = [f"# {dl.name}: deck list", ""]
    for d in dl.decks:
        names = field_names([d])
        out += [f"## {d.name} (`{d.id}`): {d.total} {d.noun}, {len(d.cards)} distinct", ""]
        out.append("| " + " | ".join(["id", "name", "copies", *names]) + " |")
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
    from ..output import write_files

    text = FORMATS[fmt](deck_list(load_one(project, game_id), deck))
    if out is not None:
        out = Path(out)
        write_files(out.parent, {out.name: text.encode("utf-8")})
    return text
