"""Cards drawn once: copies and shared backs become one PDF form, and the pages look the same.

Playing Gods' wrath deck has cards in several copies and one back for all of them; its pages
are drawn piece by piece (faces.py) and compared with the same pages drawn whole, the way
every page was drawn before.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest
from PIL import Image, ImageChops, ImageFilter, ImageStat

from printshop.draw import drawing
from printshop.write import faces, pdf
from printshop.components import RENDERERS
from printshop.load.geometry import PrintOptions
from printshop.layout.impose import Face, Item, impose_sheets
from printshop.load.loader import load_game
from printshop.files.project import Project


@pytest.fixture(scope="module")
def wrath():
    game = load_game(Project.open(None).select(["playing-gods"])[0])
    part = game.part("wrath")
    return part, RENDERERS[part.kind](game, part, PrintOptions()).pages


def forms(data: bytes) -> int:
    return len(re.findall(rb"/Subtype\s*/Form", data))


def whole(monkeypatch):
    """Draw every page whole, as one SVG, the way pages were drawn before faces.py."""
    monkeypatch.setattr(faces, "pieces", lambda page: None)


def pngs(data: bytes, folder: Path, name: str) -> list[Image.Image]:
    path = folder / f"{name}.pdf"
    path.write_bytes(data)
    subprocess.run(["pdftoppm", "-r", "40", "-png", str(path), str(folder / name)], check=True)
    return [Image.open(p).convert("RGB") for p in sorted(folder.glob(f"{name}-*.png"))]


def test_each_distinct_face_is_one_form_however_many_copies(wrath):
    part, pages = wrath
    placed = [p for page in pages for p in page.placements]
    distinct = {(p.side, p.card_id) for p in placed}
    data = pdf.pages_to_pdf(pages, "wrath")
    copies = sum(c.copies for c in part.cards)
    assert len(placed) == 2 * copies          # a front and a back for every copy
    # One form per card drawn more than once, one for the shared back, one for the crop
    # marks every full sheet repeats: far fewer than the faces placed.
    repeated_fronts = sum(1 for c in part.cards if c.copies > 1)
    assert repeated_fronts + 1 <= forms(data) <= repeated_fronts + 3
    assert forms(data) < len(distinct) < len(placed)


def test_no_page_lists_a_form_twice_in_its_resources(wrath, tmp_path):
    """A PDF dictionary may not repeat a key; cairo lists a form once per placement, and
    pages_to_pdf blanks the repeats without moving a byte."""
    _, pages = wrath
    data = pdf.pages_to_pdf(pages, "wrath")
    dictionaries = re.findall(rb"/XObject\s*<<([^<>]*)>>", data)
    assert dictionaries
    for names in dictionaries:
        keys = re.findall(rb"/[^\s/<>]+(?=\s+\d+\s+\d+\s+R)", names)
        assert len(keys) == len(set(keys)), names
    path = tmp_path / "wrath.pdf"
    path.write_bytes(data)
    checked = subprocess.run(["pdfinfo", str(path)], capture_output=True, text=True)
    assert checked.returncode == 0 and not checked.stderr      # the xref table still holds
    assert len(pngs(data, tmp_path, "wrath")) == len(pages)


def test_pieces_look_like_the_page_drawn_whole(wrath, tmp_path, monkeypatch):
    _, pages = wrath
    stamped = pngs(pdf.pages_to_pdf(pages, "wrath"), tmp_path, "stamped")
    with monkeypatch.context() as m:
        whole(m)
        drawn = pdf.pages_to_pdf(pages, "wrath")
    assert forms(drawn) == 0
    reference = pngs(drawn, tmp_path, "whole")
    assert len(stamped) == len(reference) == len(pages)
    blur = ImageFilter.GaussianBlur(1.0)
    for n, (a, b) in enumerate(zip(stamped, reference), start=1):
        diff = ImageChops.difference(a.filter(blur), b.filter(blur)).convert("L")
        assert max(ImageStat.Stat(diff).mean) < 1.0, f"page {n}"


def test_the_stamped_file_is_smaller(wrath, monkeypatch):
    _, pages = wrath
    stamped = pdf.pages_to_pdf(pages, "wrath")
    whole(monkeypatch)
    assert len(stamped) < len(pdf.pages_to_pdf(pages, "wrath"))


def test_text_sits_where_it_sat_when_drawn_whole(wrath, tmp_path, monkeypatch):
    _, pages = wrath
    stamped = tmp_path / "stamped.pdf"
    stamped.write_bytes(pdf.pages_to_pdf(pages[:2], "wrath"))
    whole(monkeypatch)
    drawn = tmp_path / "whole.pdf"
    drawn.write_bytes(pdf.pages_to_pdf(pages[:2], "wrath"))

    def words(path):
        out = subprocess.run(["pdftotext", "-bbox", str(path), "-"], capture_output=True,
                             text=True, check=True).stdout
        found = re.findall(r'xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="([\d.]+)">'
                           r"([^<]*)<", out)
        return sorted((w[4], *(float(v) for v in w[:4])) for w in found)

    a, b = words(stamped), words(drawn)
    assert [w[0] for w in a] == [w[0] for w in b] and a
    assert max(abs(x - y) for wa, wb in zip(a, b) for x, y in zip(wa[1:], wb[1:])) < 0.05


def test_a_second_document_reads_no_face_again(wrath, monkeypatch):
    _, pages = wrath
    pdf.pages_to_pdf(pages, "wrath")       # the deck's own PDF
    parsed = []
    real = drawing.parse_page
    monkeypatch.setattr(drawing, "parse_page", lambda svg: parsed.append(svg) or real(svg))
    pdf.pages_to_pdf(pages, "wrath")       # the print-and-play file, in the same process
    assert len(parsed) == len(pages)       # each page's label, and nothing else


def test_a_face_beyond_the_fast_renderer_sends_its_page_whole_to_cairosvg(monkeypatch):
    gradient = ('<defs><linearGradient id="g"><stop offset="0" stop-color="#c00"/>'
                '<stop offset="1" stop-color="#00c"/></linearGradient></defs>'
                '<rect x="0" y="0" width="63" height="88" fill="url(#g)"/>')
    plain = '<rect x="0" y="0" width="63" height="88" fill="#0a0"/>'
    items = [Item(Face(svg, 63, 88, 3), None, str(n)) for n, svg in
             enumerate([gradient, gradient, plain])]
    pages = impose_sheets(items, PrintOptions(backs="none"), "test")
    sent = []
    real = pdf.draw_with_cairosvg
    monkeypatch.setattr(pdf, "draw_with_cairosvg",
                        lambda svg, number, target: sent.append(svg) or real(svg, number, target))
    data = pdf.pages_to_pdf(pages, "test")
    assert data.startswith(b"%PDF") and len(sent) == len(pages) == 1
    assert "linearGradient" in sent[0] and 'fill="#0a0"' in sent[0]


def test_a_face_that_breaks_a_rule_is_reported_as_its_page(monkeypatch):
    outside = '<image href="file:///etc/passwd" width="10" height="10"/>'
    items = [Item(Face(outside, 63, 88, 3), None, "a"), Item(Face(outside, 63, 88, 3), None, "b")]
    pages = impose_sheets(items, PrintOptions(backs="none"), "test")
    with pytest.raises(pdf.SVGRenderError, match=r"page 1: .*/etc/passwd"):
        pdf.pages_to_pdf(pages, "test")


def test_the_cache_of_read_faces_is_bounded(monkeypatch):
    monkeypatch.setattr(faces, "CACHED_PIECES", 5)
    monkeypatch.setattr(faces, "_parsed", type(faces._parsed)())
    items = [Item(Face(f'<rect width="{n + 1}" height="9" fill="#123"/>', 63, 88, 3), None,
                  str(n)) for n in range(12)]
    pdf.pages_to_pdf(impose_sheets(items, PrintOptions(backs="none"), "test"), "test")
    assert len(faces._parsed) == 5


# --- long decks drawn in shares ---------------------------------------------------------------

def long_deck(root: Path, cards: int, copies: int = 3, broken: str | None = None) -> Project:
    data, tpl = root / "data" / "long", root / "templates" / "long"
    data.mkdir(parents=True)
    tpl.mkdir(parents=True)
    (data / "game.yaml").write_text(
        "name: Long Deck\ncomponents:\n  - id: deck\n    kind: deck\n    name: Deck\n"
        "    size: poker\n    data: cards.yaml\n    front: card.svg.j2\n    back: back.svg.j2\n")
    (data / "cards.yaml").write_text("cards:\n" + "".join(
        f"  - {{id: c{i}, name: 'Card {i}', copies: {copies}}}\n" for i in range(cards)))
    front = "{{ text(card.name, 4, 4, size.w - 8, 8, size=12) }}"
    if broken:
        front = "{% if card.id == '" + broken + "' %}{{ card.nothing.here }}{% endif %}" + front
    (tpl / "card.svg.j2").write_text(front)
    (tpl / "back.svg.j2").write_text('<rect x="0" y="0" width="{{ size.w }}" '
                                     'height="{{ size.h }}" fill="#2d1b3d"/>')
    return Project.open(root)


def page_texts(path: Path) -> list[str]:
    out = subprocess.run(["pdftotext", "-layout", str(path), "-"], capture_output=True,
                         text=True, check=True).stdout
    return [" ".join(page.split()) for page in out.split("\f")]


def test_a_long_deck_drawn_in_shares_prints_as_if_drawn_whole(tmp_path, monkeypatch):
    from printshop.build import build
    from printshop.components import deck

    project = long_deck(tmp_path / "p", 20)          # 60 cards: 8 sheets, 16 pages
    monkeypatch.setattr(deck, "SPLIT_AT", 10 ** 6)   # drawn whole
    whole_pdf = build(project, ["long"], PrintOptions(), tmp_path / "whole", jobs=1)
    monkeypatch.setattr(deck, "SHEETS_PER_SHARE", 2)  # drawn in 4 shares
    for jobs in (1, 2):
        build(project, ["long"], PrintOptions(), tmp_path / f"shares{jobs}", jobs=jobs)
    whole = page_texts(tmp_path / "whole" / "long" / "deck.pdf")
    shared = page_texts(tmp_path / "shares1" / "long" / "deck.pdf")
    assert len(whole) == len(shared) and "sheet 8 of 8" in whole[-2]
    assert shared == whole        # every card, every label, "page n of 16", in order
    # The bytes do not depend on how many cores drew them.
    assert (tmp_path / "shares1" / "long" / "deck.pdf").read_bytes() == \
        (tmp_path / "shares2" / "long" / "deck.pdf").read_bytes()
    assert page_texts(tmp_path / "shares1" / "long" / "long-print-and-play.pdf")[1:] == \
        page_texts(tmp_path / "whole" / "long" / "long-print-and-play.pdf")[1:]
    assert whole_pdf.games[0].components[0].pages == 16


def test_a_deck_of_eight_sheets_is_drawn_in_two_halves_that_print_as_one(tmp_path,
                                                                          monkeypatch):
    from printshop.build import build
    from printshop.components import deck
    from printshop.check.gather import load_one

    eight, seven = long_deck(tmp_path / "p", 20), long_deck(tmp_path / "q", 18)
    for project, shares in ((eight, 2), (seven, 1)):    # 60 cards on 8 sheets, 54 on 7
        game = load_one(project, "long")
        assert deck.deck_shares(game, game.part("deck"), PrintOptions()) == shares
    for jobs in (1, 2):
        build(eight, ["long"], PrintOptions(), tmp_path / f"halves{jobs}", jobs=jobs)
    monkeypatch.setattr(deck, "SPLIT_AT", 10 ** 6)
    build(eight, ["long"], PrintOptions(), tmp_path / "whole", jobs=1)
    halves = tmp_path / "halves1" / "long" / "deck.pdf"
    assert page_texts(halves) == page_texts(tmp_path / "whole" / "long" / "deck.pdf")
    assert halves.read_bytes() == (tmp_path / "halves2" / "long" / "deck.pdf").read_bytes()


def test_a_broken_card_on_two_shares_is_reported_once(tmp_path, monkeypatch):
    from printshop.build import build
    from printshop.components import deck
    from printshop.files.errors import PrintshopError

    monkeypatch.setattr(deck, "SHEETS_PER_SHARE", 1)
    project = long_deck(tmp_path / "p", 6, copies=5, broken="c1")   # c1's copies: cards 6-10
    with pytest.raises(PrintshopError) as caught:
        build(project, ["long"], PrintOptions(), tmp_path / "out", jobs=1)
    assert len(caught.value.problems) == 1 and "c1" in str(caught.value)
    assert not (tmp_path / "out" / "long").exists()


def test_a_face_checked_as_the_templates_output_is_not_walked_again(wrath, monkeypatch):
    part, pages = wrath                    # drawn by the templates: every face was checked
    monkeypatch.setattr(faces, "_parsed", type(faces._parsed)())
    walked = []
    real = drawing.check
    monkeypatch.setattr(drawing, "check", lambda root: walked.append(root) or real(root))
    pdf.pages_to_pdf(pages, "wrath")
    distinct = {p.face for page in pages for p in page.parts if hasattr(p, "face")}
    assert len(distinct) > 20
    assert len(walked) <= len(pages) + 3   # each page's label and marks, no face


def test_a_face_no_template_checked_is_checked_as_a_piece(monkeypatch):
    walked = []
    real = drawing.check
    monkeypatch.setattr(drawing, "check", lambda root: walked.append(root) or real(root))
    face = Face('<rect width="7" height="9" fill="#321"/>', 63, 88, 3)
    assert not drawing.passed(face.svg)
    pdf.pages_to_pdf(impose_sheets([Item(face, None, "x")], PrintOptions(backs="none"), "t"),
                     "t")
    assert any(el.get("viewBox") == "0 0 69 94" for el in walked)   # the face's own piece


# --- trees kept from the template check -------------------------------------------------------

@pytest.fixture
def kept(monkeypatch):
    """An empty store of checked trees, and of fragments remembered as checked."""
    monkeypatch.setattr(drawing, "_trees", type(drawing._trees)())
    monkeypatch.setattr(drawing, "_tree_chars", 0)
    monkeypatch.setattr(drawing, "_passed", type(drawing._passed)())
    monkeypatch.setattr(faces, "_parsed", type(faces._parsed)())
    return drawing


def test_a_checked_face_is_drawn_from_the_tree_its_check_read(kept, monkeypatch):
    face = Face('<rect width="7" height="9" fill="#321"/><g><text x="1" y="2">a</text></g>',
                63, 88, 3)
    kept.check_fragment(face.svg)
    parsed = []
    real = drawing._parse
    monkeypatch.setattr(drawing, "_parse", lambda text: parsed.append(text) or real(text))
    piece = faces.pieces(impose_sheets([Item(face, None, "x")], PrintOptions(backs="none"),
                                       "t")[0])[0]
    root = faces.parsed(piece)
    assert not any(face.svg in text for text in parsed)      # not read a second time
    from xml.etree import ElementTree
    assert ElementTree.tostring(root) == ElementTree.tostring(drawing._parse(piece.svg()))
    assert kept.take_tree(face.svg) is None                  # given once, then let go
    assert not kept._trees and kept._tree_chars == 0


def test_a_tree_drawn_is_the_same_pdf_as_the_face_read_again(kept, wrath):
    part, pages = wrath
    game = load_game(Project.open(None).select(["playing-gods"])[0])
    fresh = RENDERERS[part.kind](game, game.part("wrath"), PrintOptions()).pages
    assert kept._trees                                       # the check kept the faces' trees
    from_trees = pdf.pages_to_pdf(fresh, "wrath")
    kept._trees.clear()
    faces._parsed.clear()
    assert pdf.pages_to_pdf(fresh, "wrath") == from_trees


def test_the_trees_kept_stay_within_their_bound(kept, monkeypatch):
    monkeypatch.setattr(drawing, "TREES_KEPT", 200)
    fragments = [f'<rect width="{n + 1}" height="9" fill="#123456"/>' for n in range(40)]
    for svg in fragments:
        kept.check_fragment(svg)
        assert kept._tree_chars == sum(map(len, kept._trees)) <= 200
    assert 0 < len(kept._trees) < len(fragments)
    assert fragments[-1] in kept._trees and fragments[0] not in kept._trees   # oldest go first
    kept.check_fragment("<g>" + "x" * 300 + "</g>")          # larger than the whole store
    assert kept._tree_chars <= 200


def test_a_changed_face_is_checked_again(kept):
    kept.check_fragment('<rect width="7" height="9" fill="#321"/>')
    with pytest.raises(drawing.Outside):
        kept.check_fragment('<rect width="7" height="9" fill="url(http://x/y)"/>')
    with pytest.raises(drawing.Fault):
        kept.check_fragment('<rect width="7" height="9" transform="scale(0)"/>')
    assert len(kept._trees) == 1


def test_a_face_with_an_xlink_prefix_is_read_again_in_its_own_document(kept):
    # The check declares the xlink prefix around a fragment, a face's own document does not:
    # such a face must be read (and refused) there, not drawn from the check's tree.
    face = Face('<rect xlink:title="r" width="7" height="9" fill="#321"/>', 63, 88, 3)
    kept.check_fragment(face.svg)
    assert kept.take_tree(face.svg) is None
    pages = impose_sheets([Item(face, None, "x")], PrintOptions(backs="none"), "t")
    with pytest.raises(pdf.SVGRenderError, match="not well-formed"):
        pdf.pages_to_pdf(pages, "t")


def test_a_sheet_page_is_drawn_from_the_tree_its_template_check_read(kept):
    # A sheet's page holds its template's whole output: the check's tree is drawn, once, and
    # the PDF is the one the page read again gives.
    game = load_game(Project.open(None).select(["deity"])[0])
    pages = RENDERERS["sheet"](game, game.part("turn-reference"), PrintOptions()).pages
    bodies = [page.parts[0] for page in pages]
    assert all(body in kept._trees for body in bodies)
    from_trees = pdf.pages_to_pdf(pages, "aid")
    assert not any(body in kept._trees for body in bodies)    # given once, then let go
    kept._passed.clear()
    faces._parsed.clear()
    assert pdf.pages_to_pdf(pages, "aid") == from_trees
