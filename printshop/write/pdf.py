"""Draw pages into one PDF through one cairo surface: fonts embedded and subset once."""

from __future__ import annotations

import datetime as dt
import hashlib
import io
import os
import re
from functools import lru_cache
from typing import BinaryIO, Iterable, NamedTuple

from ..layout.impose import Page, page_svg
from ..load.fonts import use_shipped_fonts


use_shipped_fonts()

import cairocffi as cairo  # noqa: E402  (fontconfig must be pointed at our fonts first)

from ..draw import drawing, render, subset  # noqa: E402
from ..draw.render import PT_PER_MM  # noqa: E402
from .faces import Stamps  # noqa: E402


class SVGRenderError(Exception):
    """An SVG page that cairosvg could not parse or draw."""


@lru_cache(maxsize=1)
def _page_surface_class():
    """Return a cairosvg surface class drawing into the shared PDF surface (loaded lazily)."""
    from cairosvg.surface import PDFSurface

    class PageSurface(PDFSurface):
        """A cairosvg surface that draws into a shared, already open cairo PDF surface."""

        target = None

        def _create_surface(self, width, height):
            if hasattr(self.target, "set_size"):   # a PDF page; an image's recording has none
                self.target.set_size(width, height)
            return self.target, width, height

        def finish(self):  # the shared surface is finished once, by render_pdf
            pass

    return PageSurface


def build_date() -> str:
    """Return the date stamped into PDFs: SOURCE_DATE_EPOCH if set, else a fixed date."""
    epoch = os.environ.get("SOURCE_DATE_EPOCH", "").strip()
    seconds = int(epoch) if epoch.isdigit() else 946684800  # 2000-01-01
    return dt.datetime.fromtimestamp(seconds, dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S")


def render_pdf(pages: Iterable[Page], out: BinaryIO, title: str, total: int,
               first: int = 1) -> int:
    """Render pages into ``out`` as one PDF document, labelled from page ``first`` of
    ``total``; return the page count."""
    surface = cairo.PDFSurface(out, 595.0, 842.0)
    surface.set_metadata(cairo.PDF_METADATA_TITLE, title)
    surface.set_metadata(cairo.PDF_METADATA_CREATOR, "printshop")
    surface.set_metadata(cairo.PDF_METADATA_CREATE_DATE, build_date())
    surface.set_metadata(cairo.PDF_METADATA_MOD_DATE, build_date())
    pages = list(pages)
    stamps = Stamps(pages)
    count = 0
    try:
        for index, page in enumerate(pages):
            draw_page(surface, page, first + index, total, stamps.stamps(index))
            surface.show_page()
            count += 1
    finally:
        surface.finish()
    return count


class PagePlan(NamedTuple):
    """How a page is drawn: render.py's tree after the pieces ``stamps`` draw, or, when
    ``root`` is None, the whole page ``svg`` through cairosvg."""

    root: object
    stamps: tuple
    svg: str


def page_plan(page: Page, number: int, total: int, stamps) -> PagePlan:
    """Return how page ``number`` is drawn: its pieces through ``stamps`` (faces.py) and then
    its label, else, when stamps is None, the whole page as one SVG (through cairosvg if
    render.py cannot). Shared by the PDF and the images (raster.py)."""
    if stamps is not None:
        try:
            root = drawing.parse_page(page_svg(page, number, total, []))
        except drawing.Fault:
            root = None   # checked whole below, so that the fault is reported as the page's
        if root is not None and subset.drawable(root):
            return PagePlan(root, stamps, "")
    svg = page_svg(page, number, total)
    try:
        root = drawing.parse_page(svg)
    except drawing.Fault as exc:
        raise SVGRenderError(f"page {number}: {exc}") from None
    if subset.drawable(root):
        return PagePlan(root, (), svg)
    return PagePlan(None, (), svg)


def draw_page(surface, page: Page, number: int, total: int, stamps) -> None:
    """Draw one page onto the PDF surface as page_plan() says."""
    plan = page_plan(page, number, total, stamps)
    if plan.root is None:
        draw_with_cairosvg(plan.svg, number, surface)
        return
    surface.set_size(page.width * PT_PER_MM, page.height * PT_PER_MM)
    draw_planned(cairo.Context(surface), page, number, plan)


def draw_planned(ctx, page: Page, number: int, plan: PagePlan) -> None:
    """Draw a page that render.py can draw onto a context whose user units are points."""
    try:
        render.draw_page(ctx, plan.root, page.width, page.height, plan.stamps)
    except render.DrawError as exc:
        raise SVGRenderError(f"page {number}: {exc}") from None


def draw_with_cairosvg(svg: str, number: int, target) -> None:
    """Draw a page that uses SVG beyond render.py's subset, through cairosvg."""
    from cairosvg.parser import Tree

    try:
        tree = Tree(bytestring=svg.encode("utf-8"), unsafe=False)
    except Exception as exc:  # cairosvg raises parser errors of several kinds
        raise SVGRenderError(f"page {number}: the SVG is not well-formed ({exc})") from None
    surface_class = _page_surface_class()
    surface_class.target = target
    try:
        surface_class(tree, None, 96)
    except cairo.CairoError as exc:
        raise SVGRenderError(f"page {number}: cairo could not draw it "
                             f"({render.cairo_reason(exc)})") from None
    except RecursionError:
        raise SVGRenderError(f"page {number}: it nests elements too deeply to draw") from None
    except (ValueError, TypeError, IndexError, KeyError, ZeroDivisionError, OverflowError,
            AttributeError) as exc:  # cairosvg's own errors on SVG it cannot follow
        raise SVGRenderError(f"page {number}: cairosvg could not draw it "
                             f"({type(exc).__name__}: {exc})") from None
    finally:
        surface_class.target = None


def set_boxes(pdf: bytes, pages: list[Page]) -> bytes:
    """Return the PDF with TrimBox and BleedBox set on pages that define them."""
    from pypdf import PdfReader, PdfWriter
    from pypdf.generic import ArrayObject, ByteStringObject, FloatObject, NameObject

    reader = PdfReader(io.BytesIO(pdf))
    writer = PdfWriter(clone_from=reader)
    for page, spec in zip(writer.pages, pages):
        for name, box in (("/TrimBox", spec.trim_box), ("/BleedBox", spec.bleed_box)):
            if box is None:
                continue
            x, y, w, h = box
            left, top = x * PT_PER_MM, (spec.height - y) * PT_PER_MM
            right, bottom = (x + w) * PT_PER_MM, (spec.height - y - h) * PT_PER_MM
            page[NameObject(name)] = ArrayObject([FloatObject(round(v, 3)) for v in
                                                  (left, bottom, right, top)])
    ident = ByteStringObject(hashlib.md5(pdf).digest())
    writer._ID = ArrayObject([ident, ident])
    buf = io.BytesIO()
    writer.write(buf)
    return buf.getvalue()


_XOBJECTS = re.compile(rb"/XObject\s*<<([^<>]*)>>")
_REFERENCE = re.compile(rb"/[^\s/<>\[\]()]+\s+\d+\s+\d+\s+R")


def unique_xobjects(pdf: bytes) -> bytes:
    """Return cairo's PDF with each page's and form's /XObject dictionary listing a name once.

    cairo lists a form again each time a page paints it (the same name, the same object), and
    a dictionary may not repeat a key: strict preflight tools refuse it. The repeats are
    blanked with spaces, so every byte offset, and so the cross-reference table, stays right.
    """
    def once(found) -> bytes:
        seen: set[bytes] = set()

        def entry(ref) -> bytes:
            if ref.group() in seen:
                return b" " * len(ref.group())
            seen.add(ref.group())
            return ref.group()

        start, end = found.span(1)
        whole = found.group()
        body = _REFERENCE.sub(entry, found.group(1))
        return whole[:start - found.start()] + body + whole[end - found.start():]

    return _XOBJECTS.sub(once, pdf)


def pages_to_pdf(pages: list[Page], title: str, first: int = 1, total: int | None = None
                 ) -> bytes:
    """Render a list of pages to PDF bytes, with print boxes where pages set them (labelled
    from page ``first`` of ``total``: a part of a longer document)."""
    buf = io.BytesIO()
    render_pdf(pages, buf, title, total or len(pages), first)
    data = unique_xobjects(buf.getvalue())
    if any(p.trim_box for p in pages):
        data = set_boxes(data, pages)
    return data
