"""printshop: tabletop-game data to print-and-play PDFs."""

from .draw import fastcairo as _fastcairo

_fastcairo.install()
