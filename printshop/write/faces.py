"""Drawings made once: a card placed many times is read, checked and drawn once per document.

A deck's pages place its faces (impose.Nested) rather than copying their SVG into the page. A
page is drawn as pieces: each placed face, then the page's own marks (crop marks, cut lines,
fold line), then its label. Each distinct piece is parsed and checked once per process (a
bounded cache, so the print-and-play file reuses what the deck's own PDF read); a piece that
a document places more than once, such as a card's copies, a shared back, or the crop marks
every full sheet repeats, is recorded once (a cairo recording surface) and painted at every
place, which cairo writes as one PDF form that every copy uses. A piece placed once is drawn
inline and costs the file nothing extra. A page with a piece render.py cannot draw goes back
to pdf.py, which checks and draws it whole, as one SVG.
"""

from __future__ import annotations

import threading
from collections import Counter, OrderedDict
from dataclasses import dataclass
from functools import lru_cache
from typing import Callable
from xml.etree import ElementTree

from ..draw import drawing, render, subset
from ..layout.impose import Face, Nested, Page, nest, svg_number

CACHED_PIECES = 2048   # parsed pieces kept between documents of one process
_MISSING = object()
_parsed: OrderedDict[tuple, object] = OrderedDict()
_lock = threading.Lock()   # the studio builds in threads

Stamp = Callable[[object], None]


@dataclass(frozen=True)
class Piece:
    """Part of a page, drawn with its top-left corner at (left, top): a placed face, or the
    page's other parts (``body``, an SVG fragment in page millimetres)."""

    face: Face | None
    body: str
    left: float
    top: float
    w: float
    h: float

    @property
    def key(self) -> Face | str:
        """What identifies the drawing, wherever it is placed."""
        return self.face if self.face is not None else self.body

    def svg(self) -> str:
        """Return the piece as a whole SVG document, ``w`` x ``h`` mm."""
        if self.face is None:
            return document(self.body, self.w, self.h)
        b = self.face.bleed
        return document(nest(self.face, b, b), self.w, self.h)


def document(body: str, w: float, h: float) -> str:
    """Return an SVG document of ``w`` x ``h`` mm around ``body``."""
    return (f'<svg xmlns="{drawing.SVG_NS}" viewBox="0 0 {svg_number(w)} {svg_number(h)}">'
            f"{body}</svg>")


def pieces(page: Page) -> list[Piece] | None:
    """Return the page's placed faces, then its other parts as one piece; None when a part
    is drawn over a face (the page is then drawn whole, in its own order)."""
    out: list[Piece] = []
    rest: list[str] = []
    for part in page.parts:
        if isinstance(part, Nested):
            if rest:
                return None
            face, b = part.face, part.face.bleed
            out.append(Piece(face, "", part.x - b, part.y - b, face.w + 2 * b, face.h + 2 * b))
        else:
            rest.append(part)
    if rest:
        out.append(Piece(None, "".join(rest), 0.0, 0.0, page.width, page.height))
    return out


def parsed(piece: Piece):
    """Return the checked tree of a piece, or None if render.py cannot draw it (or it breaks
    a rule: the whole page is then checked, and the fault reported, in pdf.py)."""
    key = (piece.key, piece.w, piece.h)
    with _lock:
        root = _parsed.get(key, _MISSING)
        if root is not _MISSING:
            _parsed.move_to_end(key)
    if root is _MISSING:
        try:
            # A face, or a page whose one part is a template's whole output (a sheet's page),
            # checked as that output: drawn from the tree the check read.
            fragment = drawing.take_tree(piece.face.svg if piece.face is not None
                                         else piece.body)
            if fragment is not None:
                root = _around(piece, fragment)            # as the template's output was read
            elif piece.face is not None and drawing.passed(piece.face.svg):
                root = drawing.parse_passed(piece.svg())   # checked as the template's output
            else:
                root = drawing.parse_page(piece.svg())
        except drawing.Fault:
            root = None
        if root is not None and not subset.drawable(root):
            root = None
        with _lock:
            _parsed[key] = root
            if len(_parsed) > CACHED_PIECES:
                _parsed.popitem(last=False)
    return root


def _around(piece: Piece, fragment):
    """Return the tree piece.svg() parses to, made of the face's (or the page body's) tree as
    the template check read it: only the document and viewport around it are parsed (once for
    a size)."""
    if piece.face is None:
        outer, outer_attrib = _document_wrapper(piece.w, piece.h)
        root = ElementTree.Element(outer, outer_attrib)
        root.text = fragment.text
        root.extend(fragment)
        return root
    (outer, outer_attrib), (inner, inner_attrib) = _wrappers(piece.w, piece.h, piece.face.w,
                                                             piece.face.h, piece.face.bleed)
    root = ElementTree.Element(outer, outer_attrib)
    viewport = ElementTree.SubElement(root, inner, inner_attrib)
    viewport.text = fragment.text
    viewport.extend(fragment)
    return root


@lru_cache(maxsize=64)
def _document_wrapper(w: float, h: float) -> tuple:
    """Return the tag and attributes of an empty document of ``w`` x ``h`` mm."""
    root = drawing.parse_passed(document("", w, h))
    return root.tag, dict(root.attrib)


@lru_cache(maxsize=64)
def _wrappers(w: float, h: float, face_w: float, face_h: float, bleed: float) -> tuple:
    """Return the tag and attributes of a piece's document and of the viewport in it."""
    root = drawing.parse_passed(Piece(Face("", face_w, face_h, bleed), "", 0.0, 0.0, w, h).svg())
    return (root.tag, dict(root.attrib)), (root[0].tag, dict(root[0].attrib))


class Stamps:
    """The pieces of one document: how often each is placed, and those recorded so far."""

    def __init__(self, pages: list[Page], reuse: bool = True):
        self.pages = pages
        # Without reuse every piece is drawn inline: an image's pixels are not points, the
        # unit a recording is painted in.
        self.uses = (Counter(p.key for page in pages for p in pieces(page) or ()) if reuse
                     else Counter())
        self.recorded: dict[Face | str, object] = {}

    def stamps(self, index: int) -> list[Stamp] | None:
        """Return what draws page ``index``'s pieces, or None if it must be drawn whole."""
        found = pieces(self.pages[index])
        if found is None:
            return None
        out = []
        for piece in found:
            root = parsed(piece)
            if root is None:
                return None
            out.append(self._stamp(piece, root))
        return out

    def _stamp(self, piece: Piece, root) -> Stamp:
        if self.uses[piece.key] < 2:
            def inline(ctx) -> None:
                ctx.save()
                ctx.translate(piece.left, piece.top)
                render.draw_tree(ctx, root)
                ctx.restore()
            return inline

        def paint(ctx) -> None:
            recording = self.recorded.get(piece.key)
            if recording is None:
                recording = self.recorded[piece.key] = render.record(root, piece.w, piece.h)
            ctx.save()
            x, y = ctx.user_to_device(piece.left, piece.top)
            ctx.identity_matrix()   # the recording is in points, the page in mm
            ctx.set_source_surface(recording, x, y)
            ctx.paint()
            ctx.restore()
        return paint
