"""printshop: turn tabletop-game data into print-and-play PDFs."""
