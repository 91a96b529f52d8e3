"""Component renderers, one module per kind, chosen from a registry by the manifest's kind."""

from __future__ import annotations

from .base import Rendered, Renderer
from .board import render_board
from .booklet import render_booklet
from .deck import deck_shares, render_deck
from .sheet import render_sheet

RENDERERS: dict[str, Renderer] = {
    "deck": render_deck,
    "tokens": render_deck,
    "sheet": render_sheet,
    "board": render_board,
    "booklet": render_booklet,
}

# Kinds that can be drawn in shares side by side: how many shares a component takes.
SHARES = {"deck": deck_shares, "tokens": deck_shares}

__all__ = ["RENDERERS", "SHARES", "Rendered"]
