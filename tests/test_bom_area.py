"""`printshop bom` says what a board or sheet may use of a page, in mm, for the paper asked;
and what it says is true: a board of exactly one page's area prints on one page."""

from __future__ import annotations

import re

import pytest

from printshop.build import bom, bom_plan as plan
from printshop.load.geometry import PrintOptions
from printshop.files.project import Project
from printshop.scaffold import new_game


@pytest.fixture
def project(tmp_path):
    new_game("harbour", tmp_path)
    return tmp_path


def area_lines(text: str) -> dict[str, list[tuple[float, float]]]:
    found = {}
    for name in ("one page", "one board tile"):
        line = next(li for li in text.splitlines() if li.strip().startswith(name))
        found[name] = [(float(w), float(h)) for w, h in
                       re.findall(r"(\d+(?:\.\d+)?) x (\d+(?:\.\d+)?)", line)]
    return found


@pytest.mark.parametrize("paper, size, name", [("a4", (210, 297), "A4"),
                                               ("letter", (215.9, 279.4), "Letter")])
def test_bom_gives_the_printable_area_of_its_paper(project, paper, size, name):
    text = bom(Project.open(str(project)), "harbour", PrintOptions(paper=paper))
    assert f"Printable area on {name}, in mm" in text
    areas = area_lines(text)
    (pw, ph), (lw, lh) = areas["one page"]
    assert pw == pytest.approx(size[0] - 10) and lw == pytest.approx(size[1] - 10)
    assert ph < size[1] - 10 and lh < size[0] - 10       # the label band at the foot
    for (tw, th), (w, h) in zip(areas["one board tile"], areas["one page"]):
        assert tw < w and th < h


def board_pages(project, w, h):
    path = project / "data" / "harbour" / "game.yaml"
    text = path.read_text()
    path.write_text(re.sub(r"size: \[[\d., ]+\]", f"size: [{w}, {h}]", text))
    found = plan(Project.open(str(project)), "harbour", PrintOptions())
    return next(p.pages for p in found.printed if p.kind == "board")


def test_a_board_of_the_page_area_fits_one_page_and_a_millimetre_more_tiles(project):
    text = bom(Project.open(str(project)), "harbour", PrintOptions())
    (lw, lh) = area_lines(text)["one page"][1]
    assert board_pages(project, lw, lh) == 1
    assert board_pages(project, lw + 1, lh) > 1
