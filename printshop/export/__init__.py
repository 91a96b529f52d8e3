"""Exports for playtesting: deck lists, card images and Tabletop Simulator saves.

Each export loads one game and checks its data against the schema, but not against the
game's composition rules: a deck that is still being balanced can be shared and played.
"""

from __future__ import annotations

from pathlib import Path

from ..check.gather import drawing, load_one
from ..files.errors import PrintshopError, Problem
from ..files.project import did_you_mean
from ..layout.impose import Face
from ..load.models import Card, Game, Part

DECK_KINDS = ("deck", "tokens")

__all__ = ["DECK_KINDS", "deck_parts", "default_out", "drawing", "drawn_cards",
           "load_one"]


def deck_parts(game: Game, deck: str | None = None) -> list[Part]:
    """Return the game's decks and token sets, or only the one named ``deck``."""
    parts = [p for p in game.parts if p.kind in DECK_KINDS]
    if deck is None:
        return parts
    chosen = [p for p in parts if p.id == deck]
    if not chosen:
        names = ", ".join(p.id for p in parts) or "none"
        hint = did_you_mean(deck, [p.id for p in parts])
        raise PrintshopError(Problem(f"data/{game.id}/game.yaml", f"no deck '{deck}'{hint}; "
                                     f"decks here: {names}"))
    return chosen


def default_out(game_id: str, folder: str) -> Path:
    """Return where an export goes when no --out is given: output/<game>/<folder>."""
    return Path("output") / game_id / folder


def drawn_cards(game: Game, part: Part, opts) -> list[tuple[Card, Face, Face | None]]:
    """Draw every distinct card of a deck once: (card, front Face, back Face or None)."""
    from ..components.deck import card_faces

    out = []
    with drawing(game, part.id):
        for card in part.cards:
            front, back = card_faces(game, part, opts, card)
            out.append((card, front, back))
    return out
