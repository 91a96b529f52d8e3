"""DriveThruCards' pre-press: each built-in game's upload measured from outside (Ghostscript's
CMYK rendering, pypdf): ink within the limit, fonts kept, no page made a picture, PDF/X keys.

Each game is exported with every SAMPLE-th distinct card of each deck, from the first, so
that every deck's kinds of card and backs are met (the whole uploads of the five games passed
the same tests on 2026-11-27, at about three times the cost); ink is rendered at INK_DPI,
which shows areas (a back, a panel, text) but not hairlines.
"""

from __future__ import annotations

import copy
import io
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
from PIL import Image
from pypdf import PdfReader
from pypdf.generic import ContentStream

from conftest import EXAMPLE
from printshop.export import drawn_cards, pod, prepress, separation
from printshop.export.flatten import flatten
from printshop.export.preflight import ink_warnings
from printshop.export.shops import shops
from printshop.layout.impose import Face
from printshop.files.project import Project

GAMES = ["deity", "pocketciv", "playing-gods", "cvlizations", "civilizations-cards"]
INK_DPI = 30
SAMPLE = 3
DTC = shops()["drivethrucards"]
LIMIT = DTC.max_ink

pytestmark = pytest.mark.skipif(shutil.which("gs") is None, reason="Ghostscript is needed")


@pytest.fixture(scope="module", params=GAMES)
def upload(request):
    game = copy.copy(pod.load_one(Project.open(Path(__file__).resolve().parent.parent),
                                  request.param))
    game.parts = [copy.copy(part) for part in game.parts]
    for part in game.parts:
        part.cards = part.cards[::SAMPLE]
    return game, pod.pod_export(game, DTC)


def total_ink(pdf: bytes, tmp_path: Path) -> np.ndarray:
    """Render every page in CMYK with Ghostscript; return each pixel's C+M+Y+K in %."""
    src = tmp_path / "in.pdf"
    src.write_bytes(pdf)
    subprocess.run(["gs", "-q", "-dSAFER", "-dBATCH", "-dNOPAUSE", "-sDEVICE=tiff32nc",
                    f"-r{INK_DPI}", f"-sOutputFile={tmp_path}/p%04d.tif", str(src)], check=True)
    totals = []
    for tif in sorted(tmp_path.glob("p*.tif")):
        with Image.open(tif) as im:
            assert im.mode == "CMYK"
            inks = np.asarray(im, dtype=np.int32).sum(axis=2).ravel()
            totals.append(np.round(inks / 2.55, 1))
            tif.unlink()
    return np.concatenate(totals)


def pdfs(export) -> dict[str, bytes]:
    return {k: v for k, v in export.files.items() if k.endswith(".pdf")}


def forms(resources, seen=None):
    seen = set() if seen is None else seen
    xobjects = resources.get("/XObject") if resources is not None else None
    for ref in (xobjects.get_object().values() if xobjects is not None else []):
        x = ref.get_object()
        if ref.idnum not in seen:
            seen.add(ref.idnum)
            yield x
            yield from forms(x.get("/Resources"), seen)


def test_total_ink_is_within_the_shops_limit(upload, tmp_path):
    game, export = upload
    for name, data in pdfs(export).items():
        ink = total_ink(data, tmp_path)
        assert np.percentile(ink, 99.9) <= LIMIT, f"{game.id}/{name}"
        assert ink.max() <= LIMIT + 1, f"{game.id}/{name}: no pixel over the limit"
    assert not [w for w in export.warnings if w.rule == "pod.ink"], \
        "the pre-flight agrees with the outside measurement"


def test_text_stays_text_in_embedded_fonts_and_no_page_is_a_picture(upload):
    game, export = upload
    for name, data in pdfs(export).items():
        reader = PdfReader(io.BytesIO(data))
        texts = [page.extract_text().strip() for page in reader.pages]
        # every card shows text on one side at least (its name, rank or rules)
        assert sum(map(bool, texts)) >= len(reader.pages) // 2, f"{game.id}/{name}"
        # the built-in games' cards hold no pictures, so any picture is a page made pixels
        for n, page in enumerate(reader.pages, start=1):
            inside = [page] + list(forms(page.get("/Resources")))
            for obj in inside:
                res = obj.get("/Resources")
                res = res.get_object() if res is not None else {}
                for x in (res.get("/XObject") or {}).values():
                    assert x.get_object().get("/Subtype") != "/Image", \
                        f"{game.id}/{name} page {n} holds a picture"
                for font in (res.get("/Font") or {}).values():
                    font = font.get_object()
                    desc = font.get("/FontDescriptor") or \
                        font["/DescendantFonts"][0].get_object()["/FontDescriptor"]
                    assert {"/FontFile", "/FontFile2", "/FontFile3"} & set(desc.get_object())
    rules = {w.rule for w in export.warnings}
    assert not rules & {"pod.fonts", "pod.vector", "pod.cmyk", "pod.transparency"}


def test_pdfx_keys_as_iso_15930_4_writes_them(upload):
    game, export = upload
    for name, data in pdfs(export).items():
        assert data.startswith(b"%PDF-1.4"), "PDF/X-1a:2003 is PDF 1.4"
        reader = PdfReader(io.BytesIO(data))
        info = reader.metadata
        assert info["/GTS_PDFXVersion"] == "PDF/X-1:2003"
        assert info["/GTS_PDFXConformance"] == "PDF/X-1a:2003"
        assert info["/Trapped"] == "/False"
        assert info["/Title"] and info["/CreationDate"].startswith("D:")
        assert len(reader.trailer["/ID"]) == 2
        intent = reader.trailer["/Root"]["/OutputIntents"][0].get_object()
        assert intent["/S"] == "/GTS_PDFX"
        assert intent["/OutputConditionIdentifier"] == "CGATS TR 001"
        assert intent["/OutputCondition"] == "U.S. Web Coated (SWOP) v2"
        for page in reader.pages:
            assert "/TrimBox" in page and "/BleedBox" in page
            for obj in [page] + list(forms(page.get("/Resources"))):
                assert "/Group" not in obj, f"{game.id}/{name}: a transparency group"
                res = obj.get("/Resources")
                states = (res.get_object().get("/ExtGState") or {}) if res else {}
                for state in states.values():
                    state = state.get_object()
                    assert float(state.get("/ca", 1)) == 1 and float(state.get("/CA", 1)) == 1
                    assert state.get("/SMask", "/None") == "/None"


def text_colours(data: bytes) -> list[tuple[float, ...]]:
    """Return the fill colour (k operands) each piece of text is shown in."""
    reader = PdfReader(io.BytesIO(data))
    out = []
    for page in reader.pages:
        for obj in [page] + list(forms(page.get("/Resources"))):
            stream = ContentStream(obj.get_contents() if obj is page else obj, reader)
            fill, stack = None, []
            for operands, op in stream.operations:
                if op == b"k":
                    fill = tuple(float(v) for v in operands)
                elif op == b"q":
                    stack.append(fill)
                elif op == b"Q" and stack:
                    fill = stack.pop()
                elif op in (b"Tj", b"TJ") and fill is not None:
                    out.append(fill)
    return out


def test_black_text_is_black_ink_alone(upload):
    game, export = upload
    colours = [c for data in pdfs(export).values() for c in text_colours(data)]
    assert colours, "text is drawn in CMYK"
    dark = [c for c in colours if c[3] >= 0.85]
    assert dark, f"{game.id} has black text"
    assert all(c[:3] == (0.0, 0.0, 0.0) for c in dark), "no rich black text"


@pytest.mark.parametrize("game_id", ["deity", "playing-gods", "civilizations-cards"])
def test_opaque_faces_look_as_the_see_through_ones_did(game_id):
    """The games that draw see-through tints: a few faces of each deck, drawn before and
    after flattening at 4 px/mm, differ by at most 2 of 255 on 99.9% of the pixels."""
    from printshop.write import raster
    from printshop.load.geometry import PrintOptions, card_size

    game = pod.load_one(Project.open(Path(__file__).resolve().parent.parent), game_id)
    decks = [(DTC.products[key], part) for key, parts in pod.match(game, DTC).cards.items()
             for part in parts]
    checked = 0
    for product, part in decks:
        w, h = card_size(part.spec.size)
        opts = PrintOptions(bleed=pod.geometry(DTC, product, w, h).bleed)
        faces = [f for _, front, back in drawn_cards(game, part, opts)[:4]
                 for f in (front, back) if f is not None]
        for face in faces:
            flat, blends = flatten(face)
            if not blends:
                continue
            size = (round((face.w + 2 * face.bleed) * 4), round((face.h + 2 * face.bleed) * 4))
            with pod.drawing(game, part.id):
                before, after = (np.asarray(raster.face_image(f, size, (f.bleed, f.bleed))
                                            .convert("RGB"), dtype=np.int16)
                                 for f in (face, flat))
            assert np.percentile(np.abs(before - after).max(axis=2), 99.9) <= 2
            checked += 1
    assert checked, f"{game_id} draws see-through shapes"


# The parts, on small inputs

def test_separation_keeps_every_colour_within_the_limit_and_greys_in_black():
    rgbs = [(r / 4, g / 4, b / 4) for r in range(5) for g in range(5) for b in range(5)]
    for rgb in rgbs:
        ink = separation.separate(rgb, LIMIT)
        assert sum(ink) * 100 <= LIMIT + 1e-9, rgb
        if rgb[0] == rgb[1] == rgb[2]:
            assert ink[:3] == (0.0, 0.0, 0.0), "a grey is black ink alone"
    # an in-gamut colour keeps its look (CIE76 below 2); the profile alone overshoots the ink
    sand = (0.95, 0.9, 0.8)
    assert separation.difference(sand, separation.separate(sand, LIMIT)) < 2
    assert sum(separation.profile_inks((0, 0, 0))) * 100 > 280
    assert separation.separate((0, 0, 0), LIMIT) == (0.0, 0.0, 0.0, 1.0)


def test_a_tint_over_a_panel_becomes_the_opaque_colour_it_showed():
    svg = ('<rect x="-3" y="-3" width="69" height="94" fill="#204080"/>'
           '<rect x="10" y="10" width="40" height="20" fill="#ffffff" fill-opacity="0.25"/>'
           '<g opacity="0.5"><circle cx="30" cy="60" r="8" fill="#ff0000"/></g>')
    flat, blends = flatten(Face(svg, 63, 88, 3))
    assert "opacity=\"0.25\"" not in flat.svg and "opacity=\"0.5\"" not in flat.svg
    assert [b.what for b in blends] == ["rect (fill)", "circle (fill)"]
    assert all(b.varied == 0 for b in blends)
    # 0.25 white over #204080 and 0.5 red over it, mixed as a viewer mixes them
    fills = [tuple(int(f[i:i + 2], 16) for i in (0, 2, 4))
             for f in re.findall(r'fill="#([0-9a-f]{6})"', flat.svg)]
    assert np.abs(np.subtract(fills[1], (88, 112, 160))).max() <= 1
    assert np.abs(np.subtract(fills[2], (144, 32, 64))).max() <= 1
    assert np.allclose(blends[0].box, (10, 10, 50, 30), atol=0.7)


def test_a_tint_over_two_colours_is_reported_with_its_card_and_place():
    game = pod.load_one(Project.open(EXAMPLE), "lantern-fair")
    part = next(p for p in game.parts if p.id == "stalls")
    card = part.cards[1]
    svg = ('<rect x="-3" y="-3" width="69" height="94" fill="#204080"/>'
           '<rect x="-3" y="40" width="69" height="51" fill="#e0c080"/>'
           '<rect x="5" y="30" width="50" height="20" fill="#000" fill-opacity="0.3"/>')
    face = Face(svg, 63, 88, 3)
    warnings = []
    prepress.flat_faces([(card, face, face)], game, part, warnings)
    assert warnings and warnings[0].rule == "pod.transparency"
    text = str(warnings[0])
    found = re.search(rf"card '{card.id}' \(front\): a see-through rect \(fill\) at x "
                      r"([\d.]+)-([\d.]+) mm, y ([\d.]+)-([\d.]+) mm lies over more than one "
                      r"colour", text)
    assert found, text
    assert np.allclose([float(v) for v in found.groups()], (5, 55, 30, 50), atol=0.7)
    assert text.startswith("data/lantern-fair/stalls.yaml:")


def test_ink_over_the_limit_is_reported_by_card_and_area():
    game = pod.load_one(Project.open(EXAMPLE), "lantern-fair")
    files, warnings = {}, []
    key, parts = next((k, ps) for k, ps in pod.match(game, DTC).cards.items()
                      if any(p.id == "stalls" for p in ps))
    stalls = [p for p in parts if p.id == "stalls"]
    pieces, geometries = pod.draw_pieces(game, DTC, DTC.products[key], stalls, warnings)
    [order] = pod.group(DTC, key, DTC.products[key], pieces)
    deck_pages = pod.write_order(game, DTC, order, geometries, files, warnings, lambda: None,
                                 pod.FaceImages(game))
    from printshop.write.pdf import pages_to_pdf

    with pod.drawing(game, "stalls"):
        rgb = pages_to_pdf(deck_pages, "stalls")
    heavy = prepress.to_cmyk_pdfx(rgb, "stalls", 400, DTC.output_intent)   # no ink limit
    found = ink_warnings(heavy, "stalls.pdf", 200, deck_pages)
    assert found, "a 400% separation passes 200% somewhere"
    message = found[0].message
    assert re.match(r"card '[a-z-]+' \((front|back), page \d+\): total ink reaches \d+% "
                    r"\(the shop allows 200%\) over \d+% of the card.*, x -?\d+ to \d+ mm, "
                    r"y -?\d+ to \d+ mm from its top-left trim corner$", message), message
    limited = prepress.to_cmyk_pdfx(rgb, "stalls", 200, DTC.output_intent)
    assert not ink_warnings(limited, "stalls.pdf", 200, deck_pages)
    assert limited == prepress.to_cmyk_pdfx(rgb, "stalls", 200, DTC.output_intent), \
        "the same drawing gives the same bytes"
