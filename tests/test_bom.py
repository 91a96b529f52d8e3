"""The bill of materials agrees with what the build prints, in the terminal and on the
contents page."""

from __future__ import annotations

from click.testing import CliRunner
from pypdf import PdfReader

from conftest import EXAMPLE
from printshop.build import bom_plan as plan
from printshop.cli import main
from printshop.load.geometry import PrintOptions
from printshop.files.project import Project


def run(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def test_bom_pages_match_the_built_pdfs(tmp_path):
    result = run("build", "--project", EXAMPLE, "--out", tmp_path, "--quiet")
    assert result.exit_code == 0, result.output
    bom = plan(Project.open(EXAMPLE), "lantern-fair")
    assert [p.file for p in bom.printed] == ["stalls.pdf", "coins.pdf", "aid.pdf"]
    for p in bom.printed:
        pages = len(PdfReader(tmp_path / "lantern-fair" / p.file).pages)
        assert p.pages == pages
    assert [(p.how, p.sheets) for p in bom.printed] == [("two-sided", 1), ("one-sided", 1),
                                                         ("one-sided", 1)]
    # The coins look the same on both sides, so the print-and-play file prints them once.
    assert bom.stock() == [("250-300 gsm card", 1), ("300 gsm card", 1), ("plain paper", 2)]
    combined = PdfReader(tmp_path / "lantern-fair" / "lantern-fair-print-and-play.pdf")
    # cover, contents, stalls front and back, coins and its empty back, aid and its empty back
    assert len(combined.pages) == bom.pages == 8


def test_bom_text_lists_printing_cutting_and_what_to_get():
    result = run("bom", "lantern-fair", "--project", EXAMPLE)
    assert result.exit_code == 0, result.output
    text = result.output
    assert "Print lantern-fair-print-and-play.pdf: 8 pages on 4 sheets" in text
    assert "One printer setting for the whole file: double-sided, flip on long edge" in text
    assert "  Print pages 3-4 on 250-300 gsm card: 1 sheet\n" in text
    assert "  Print pages 5-6 on 300 gsm card: 1 sheet\n" in text
    assert "Coins (pages 5-6): one side printed, the back left empty" in text
    assert "stalls.pdf    2 pages, printed on 1 sheet         two-sided  250-300 gsm card" \
        in text
    assert "Stall cards: 6 cards, 63 x 88 mm: cut on the crop marks" in text
    assert "Coins: 18 tokens, 25 mm round: cut along the outlines" in text
    assert "Card sleeves (optional): 6 for 63 x 88 mm (poker) cards" in text
    assert "10 coins or beads per player" in text
    assert "Tools: scissors or a paper trimmer, a craft knife or a circle punch" in text


def test_bom_follows_the_print_options():
    fold = run("bom", "lantern-fair", "--project", EXAMPLE, "--backs", "fold").output
    assert "fold each sheet on the dashed line, glue it, then cut" in fold
    assert "a glue stick" in fold and "duplex" not in fold.split("Paper and card")[0]
    assert "setting for the whole file: single-sided" in fold and "160 gsm paper" in fold
    single = run("bom", "lantern-fair", "--project", EXAMPLE, "--layout", "single").output
    assert "stalls.pdf   12 pages, printed on 6 sheets        card-size" in single
    assert "Print pages 3-14 on 250-300 gsm card: 6 sheets" in single
    assert "cards one per page for a print shop" in single
    assert "trim each page to its trim box" in single


def test_bom_of_a_builtin_game():
    result = run("bom", "deity")
    assert result.exit_code == 0, result.output
    text = result.output
    # 5 nations + 52 civilization + 12 progression + 3 interventions, all poker size
    assert "Card sleeves (optional): 72 for 63 x 88 mm (poker) cards" in text
    # stock notes after ';' stay in the file list but the paper is counted once
    assert "9 sheets of 300 gsm card\n" in text and "3 sheets of plain paper" in text
    assert "24 pages on 12 sheets (each component on sheets of its own: 14 sheets)" in text
    assert "Nation cards: Sleeve each card backwards" in text
    assert "A pencil for the scoring pad" in text


def test_contents_page_carries_the_bill_of_materials(tmp_path):
    result = run("build", "--project", EXAMPLE, "--out", tmp_path, "--quiet")
    assert result.exit_code == 0, result.output
    page = PdfReader(tmp_path / "lantern-fair" / "lantern-fair-print-and-play.pdf").pages[1]
    text = " ".join(page.extract_text().split())
    bom = plan(Project.open(EXAMPLE), "lantern-fair", PrintOptions())
    assert ("Paper and card: 1 sheet of 250-300 gsm card, 1 sheet of 300 gsm card, 2 sheets of "
            "plain paper (4 in all)") in text
    assert "Print pages 3-4 on 250-300 gsm card: 1 sheet" in text
    for line in bom.get:
        assert line in text
