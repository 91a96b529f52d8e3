"""Laying faces out on paper: card sheets, board tiles, the print run and its bill of materials."""
