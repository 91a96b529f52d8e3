"""The fast renderer draws what cairosvg draws: every built-in component compared in pixels."""

from __future__ import annotations

import io
import subprocess

import cairocffi as cairo
import pytest
from PIL import Image, ImageChops, ImageFilter, ImageStat

from printshop.draw import render, subset
from printshop.components import RENDERERS
from printshop.load.geometry import PrintOptions
from printshop.layout.impose import Page, page_svg
from printshop.load.loader import load_game
from printshop.write.pdf import pages_to_pdf
from printshop.files.project import Project
from printshop.draw.text import RUN_CLASS

DPI = 40


def fast_png(svg: str, page: Page) -> Image.Image:
    w, h = round(page.width / 25.4 * DPI), round(page.height / 25.4 * DPI)
    surface = cairo.ImageSurface(cairo.FORMAT_RGB24, w, h)
    ctx = cairo.Context(surface)
    ctx.set_source_rgb(1, 1, 1)
    ctx.paint()
    ctx.scale(DPI / 72, DPI / 72)
    root = subset.parse(svg)
    assert root is not None, "the page should be drawable without cairosvg"
    assert render.draw_page(ctx, root, page.width, page.height)
    return Image.frombuffer("RGBA", (w, h), bytes(surface.get_data()), "raw", "BGRA", 0, 1) \
        .convert("RGB")


def cairosvg_png(svg: str, page: Page) -> Image.Image:
    import printshop.write.pdf  # noqa: F401  (points fontconfig at the shipped fonts)
    import cairosvg

    w, h = round(page.width / 25.4 * DPI), round(page.height / 25.4 * DPI)
    data = cairosvg.svg2png(bytestring=svg.encode(), output_width=w, output_height=h,
                            background_color="white")
    return Image.open(io.BytesIO(data)).convert("RGB")


def difference(a: Image.Image, b: Image.Image) -> Image.Image:
    """Return the pixel difference, blurred so a glyph nudged by one pixel does not count."""
    # Raster output rounds each glyph's advance to pixels (hinted metrics); cairosvg sets
    # text letter by letter, printshop run by run, so glyphs may sit a pixel apart.
    blur = ImageFilter.GaussianBlur(1.5)
    return ImageChops.difference(a.filter(blur), b.filter(blur)).convert("L")


def pages_of_every_game():
    for folder in Project.open(None).games():
        game = load_game(folder)
        for part in game.parts:
            rendered = RENDERERS[part.kind](game, part, PrintOptions())
            for n, page in enumerate(rendered.pages[:2], start=1):
                yield f"{game.id}/{part.id}/{n}", page_svg(page, n, len(rendered.pages)), page


CASES = list(pages_of_every_game())


@pytest.mark.parametrize("name,svg,page", CASES, ids=[c[0] for c in CASES])
def test_fast_renderer_matches_cairosvg(name, svg, page):
    fast, reference = fast_png(svg, page), cairosvg_png(svg, page)
    assert fast.size == reference.size
    diff = difference(fast, reference)
    # Text is shaped here (kerned, ligatures: "fi" is one glyph) and filled as outlines on an
    # image; cairosvg sets it letter by letter, hinted: the strokes of small text differ.
    assert max(ImageStat.Stat(diff).mean) < 3.5, name
    differing = sum(diff.point(lambda v: 255 if v > 64 else 0).histogram()[255:])
    assert differing / (fast.size[0] * fast.size[1]) < 0.01, name


def test_unsupported_svg_is_left_to_cairosvg():
    assert subset.parse('<svg xmlns="http://www.w3.org/2000/svg"><defs><linearGradient '
                        'id="g"/></defs><rect fill="url(#g)" width="5" height="5"/></svg>') is None
    assert subset.parse('<svg xmlns="http://www.w3.org/2000/svg"><rect width="5" '
                        'height="5" style="filter: blur(2px)"/></svg>') is None
    assert subset.parse('<svg xmlns="http://www.w3.org/2000/svg"><rect width="5" '
                        'height="5"/></svg>') is not None


def test_arcs_and_curves_match_cairosvg():
    page = Page(60, 40)
    svg = ('<svg xmlns="http://www.w3.org/2000/svg" width="60mm" height="40mm" '
           'viewBox="0 0 60 40"><path d="M5 20 A 10 6 30 1 1 25 20 Q 30 5 35 20 T 45 20 '
           'C 50 10 55 30 58 20 S 50 35 40 35 Z" fill="#c33" stroke="#000" stroke-width="0.8"/>'
           '<path d="m5 5 h10 v5 h-10 z M20 5 l5 5 l5 -5 z" fill="#36c" fill-rule="evenodd"/>'
           '<g transform="rotate(20 30 20) scale(0.9)" opacity="0.6"><rect x="10" y="25" '
           'width="20" height="8" rx="2" fill="green" stroke="navy" stroke-dasharray="2 1"/>'
           '</g><text x="30" y="38" font-size="4" text-anchor="middle" '
           'font-family="DejaVu Sans Condensed">Hé ♠</text></svg>')
    fast, reference = fast_png(svg, page), cairosvg_png(svg, page)
    assert max(ImageStat.Stat(difference(fast, reference)).mean) < 2.0


HEAD = '<svg xmlns="http://www.w3.org/2000/svg" width="60mm" height="40mm" viewBox="0 0 60 40">'


def test_a_page_that_fails_halfway_is_an_error_not_half_a_page():
    svg = (HEAD + '<rect width="10" height="10" fill="#00f"/><g transform="scale(0)"><rect '
           'width="5" height="5"/></g><rect x="30" width="10" height="10" fill="#f00"/></svg>')
    root = subset.parse(svg)
    assert root is not None
    ctx = cairo.Context(cairo.ImageSurface(cairo.FORMAT_RGB24, 60, 40))
    with pytest.raises(render.DrawError, match=r"cairo could not draw it \(invalid matrix"):
        render.draw_page(ctx, root, 60, 40)


def pixels_of_pdf(pdf: bytes, tmp_path) -> Image.Image:
    (tmp_path / "p.pdf").write_bytes(pdf)
    subprocess.run(["pdftoppm", "-png", "-r", "40", "-singlefile", str(tmp_path / "p.pdf"),
                    str(tmp_path / "p")], check=True)
    return Image.open(tmp_path / "p.png").convert("RGB")


def test_what_the_fast_renderer_cannot_read_goes_whole_to_cairosvg(tmp_path):
    # The path data is cut short: the fast renderer used to stop there, leaving the rest of
    # the page blank; now it reads everything first and hands such a page to cairosvg.
    svg_parts = ['<path d="M 1 1 L 5" stroke="#000"/>',
                 '<rect x="30" y="10" width="20" height="20" fill="#f00"/>']
    pdf = pages_to_pdf([Page(60, 40, svg_parts)], "t")
    red = pixels_of_pdf(pdf, tmp_path).getpixel((round(40 / 25.4 * 40), round(20 / 25.4 * 40)))
    assert red[0] > 200 and red[1] < 60 and red[2] < 60


def test_a_text_run_without_a_position_goes_on_from_the_last_run():
    svg = (HEAD + f'<text class="{RUN_CLASS}" font-family="DejaVu Sans Condensed" '
           'font-size="6" fill="#000"><tspan x="2" y="20">Hello</tspan><tspan>World</tspan>'
           '</text></svg>')
    page = Page(60, 40)
    fast, reference = fast_png(svg, page), cairosvg_png(svg, page)
    assert max(ImageStat.Stat(difference(fast, reference)).mean) < 2.0
    right = fast.convert("L").point(lambda v: 255 if v < 128 else 0).getbbox()[2]
    assert right > 24 / 25.4 * DPI  # "World" follows "Hello" (which ends about 17 mm in)


def test_an_element_like_one_already_drawable_is_judged_again_when_it_differs():
    """_check remembers elements it passed by tag and attributes: a change in either, or
    a text element's children, is judged afresh."""
    svg = ('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10">'
           '<rect x="1" y="1" width="4" height="4" fill="#123456"{extra}/>'
           '<text x="1" y="9">{text}</text></svg>')
    assert subset.parse(svg.format(extra="", text="plain"))
    assert subset.parse(svg.format(extra="", text="plain"))          # remembered
    assert not subset.parse(svg.format(extra=' filter="x"', text="plain"))
    assert not subset.parse(svg.format(extra=' fill-rule="x" style="paint-order: x"',
                                       text="plain"))
    assert not subset.parse(svg.format(extra="", text="<tspan><tspan>deep</tspan></tspan>"))


def test_a_reference_is_checked_on_every_element_even_after_a_clean_one_alike():
    """drawing.check remembers the references of elements by their attributes; a style
    sheet's text is read every time, and other attributes are other elements."""
    from printshop.draw import drawing

    clean = ('<svg xmlns="http://www.w3.org/2000/svg"><style type="text/css">{css}</style>'
             '<rect id="r" width="1" height="1"/><use href="{href}"/></svg>')
    drawing.parse_page(clean.format(css="rect { fill: red }", href="#r"))
    with pytest.raises(drawing.Outside):
        drawing.parse_page(clean.format(css="rect { fill: url(http://x/y) }", href="#r"))
    with pytest.raises(drawing.Outside):
        drawing.parse_page(clean.format(css="rect { fill: red }", href="http://x/y"))
    loop = ('<svg xmlns="http://www.w3.org/2000/svg"><g id="g"><use href="#g"/></g></svg>')
    drawing.parse_page(clean.format(css="rect { fill: red }", href="#r"))
    with pytest.raises(drawing.Fault):       # the loop rule sees the remembered target
        drawing.parse_page(loop)
    with pytest.raises(drawing.Fault):
        drawing.parse_page(loop)
