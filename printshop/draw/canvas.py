"""A cairo context driven through cairo's own C functions: one call per drawing operation.

cairocffi wraps every operation in a Python method that then asks cairo for the context's
status (two more Python calls and one more C call each); drawing a deck makes hundreds of
thousands of them. A Canvas binds cairo's functions to one context instead, and reads the
status once, when the drawing is done: cairo keeps the first error a context meets and ignores
every call after it, so that one check raises the same error cairocffi would have, and
nothing after the error was drawn. The calls, and so the PDF's bytes, are the same.
"""

from __future__ import annotations

from functools import partial

import cairocffi
from cairocffi import cairo as _lib, ffi as _ffi   # the library cairocffi opened

# Operations taking only numbers (or nothing) after the context: bound as they are.
_PLAIN = ("save", "restore", "translate", "scale", "rotate", "rectangle", "clip",
          "new_path", "new_sub_path", "close_path", "move_to", "line_to", "curve_to", "arc",
          "arc_negative", "set_fill_rule", "set_source_rgba", "fill", "fill_preserve",
          "stroke", "set_line_width", "set_line_cap", "set_line_join", "set_miter_limit",
          "push_group", "pop_group_to_source", "paint_with_alpha", "set_font_size")


class Canvas:
    """cairo's drawing functions bound to one cairocffi context (check() reads its status)."""

    def __init__(self, context: cairocffi.Context):
        self.context = context
        pointer = context._pointer
        for name in _PLAIN:
            setattr(self, name, partial(getattr(_lib, "cairo_" + name), pointer))
        self._pointer = pointer
        self._extents = _ffi.new("cairo_text_extents_t *")
        # cairo 1.16 rounds glyphs to whole pixels on an image: there they are filled as
        # outlines, placed exactly (a PDF keeps real glyphs, and so its text layer).
        self._outlines = _lib.cairo_surface_get_type(_lib.cairo_get_target(pointer)) == \
            _lib.CAIRO_SURFACE_TYPE_IMAGE

    def transform(self, matrix: cairocffi.Matrix) -> None:
        """Apply a matrix after the current transformation."""
        _lib.cairo_transform(self._pointer, matrix._pointer)

    def set_dash(self, dashes: list[float], offset: float = 0.0) -> None:
        """Set the dash pattern of strokes (an empty list: solid)."""
        _lib.cairo_set_dash(self._pointer, _ffi.new("double[]", dashes) if dashes else _ffi.NULL,
                            len(dashes), offset)

    def select_font_face(self, family: str, slant: int, weight: int) -> None:
        """Select a font by family name, slant and weight (fontconfig finds it)."""
        _lib.cairo_select_font_face(self._pointer, family.encode("utf-8"), slant, weight)

    def show_text(self, text: str) -> None:
        """Draw text at the current point with the current font and source."""
        _lib.cairo_show_text(self._pointer, text.encode("utf-8"))

    def show_text_glyphs(self, utf8: bytes, glyphs: tuple, clusters: tuple,
                         backward: bool) -> None:
        """Draw placed glyphs (id, x, y) with the text they show, cluster by cluster (bytes,
        glyphs), so the PDF's text layer reads that text."""
        cglyphs = _ffi.new("cairo_glyph_t[]", len(glyphs))
        for k, (index, x, y) in enumerate(glyphs):
            cglyphs[k].index, cglyphs[k].x, cglyphs[k].y = index, x, y
        if self._outlines:
            _lib.cairo_new_path(self._pointer)
            _lib.cairo_glyph_path(self._pointer, cglyphs, len(glyphs))
            _lib.cairo_set_fill_rule(self._pointer, _lib.CAIRO_FILL_RULE_WINDING)
            _lib.cairo_fill(self._pointer)
            return
        cclusters = _ffi.new("cairo_text_cluster_t[]", len(clusters))
        for k, (num_bytes, num_glyphs) in enumerate(clusters):
            cclusters[k].num_bytes, cclusters[k].num_glyphs = num_bytes, num_glyphs
        _lib.cairo_show_text_glyphs(self._pointer, utf8, len(utf8), cglyphs, len(glyphs),
                                    cclusters, len(clusters), 1 if backward else 0)

    def x_advance(self, text: str) -> float:
        """Return how far drawing ``text`` moves the current point along x."""
        _lib.cairo_text_extents(self._pointer, text.encode("utf-8"), self._extents)
        return self._extents.x_advance

    def check(self) -> None:
        """Raise cairocffi's error if any operation failed (cairo keeps the first)."""
        self.context._check_status()
