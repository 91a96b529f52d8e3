"""Flowing text: headed sections poured through columns and pages (printshop/draw/flow.py), a
sheet with `pages: auto`, and the scaffold's rules sheet that uses them."""

from __future__ import annotations

import re

import pytest
import yaml

from printshop.load import fonts
from printshop.components import RENDERERS
from printshop.draw.flow import KEEP, balanced, blocks, flow, pages_needed
from printshop.load.geometry import PrintOptions
from printshop.load.loader import load_game
from printshop.files.project import Project
from printshop.scaffold import new_game
from printshop.draw.text import TextError, layout
from printshop.validate import validate_game

ICONS = {"coin": '<circle cx="50" cy="50" r="40" fill="currentColor"/>'}
BODY = ("Shuffle the deck and lay five cards face up in a row: the market. Each player takes "
        "three :coin: from the bank.\nOn your turn, buy one card from the market by paying "
        "its cost in :coin:, or take :coin: from the bank. Then refill the market.\n"
        "• A **trade** card acts at once.\n• A **build** card stays in front of you.")
SECTIONS = [{"heading": f"Part {n}: {word}", "body": BODY}
            for n, word in enumerate(["Setting up", "Your turn", "Buying", "Events",
                                      "Scoring", "The end", "Variants", "Solo play",
                                      "Two players", "Teams", "Campaign", "Glossary",
                                      "Credits", "Questions"], 1)]
BOX = dict(x=10, y=12, w=190, h=250)
FAMILY = fonts.resolve_family("body")
TITLE = fonts.resolve_family("title")


def poured(sections, columns=2, first_y=None, size=10, heading_size=13, box=BOX):
    """Return (pages, column x, column width, tops, bottom) of a flow, as flow() lays it."""
    gap = 6
    width = (box["w"] - gap * (columns - 1)) / columns
    items = blocks(sections, width, size, heading_size, FAMILY, TITLE, "#000", "#a00", ICONS,
                   1.25)
    tops = [box["y"] if first_y is None else first_y, box["y"]]
    pages = balanced(items, tops, box["y"] + box["h"], columns, 1.25)
    return pages, width, tops, box["y"] + box["h"]


def line_metrics(block):
    face = fonts.face(block.family)
    return face.ascent * block.em, face.descent * block.em, 1.25 * block.em


def test_nothing_overflows_its_column():
    pages, width, tops, bottom = poured(SECTIONS, first_y=60)
    assert len(pages) >= 2
    for p, page in enumerate(pages):
        top = tops[min(p, 1)]
        for column in page:
            previous_foot = top
            for placed in column:
                ascent, descent, step = line_metrics(placed.block)
                n = placed.end - placed.start
                foot = placed.top + (n - 1) * step + ascent + descent
                assert placed.top >= previous_foot - 1e-6, "lines overlap the block above"
                assert foot <= bottom + 1e-6, f"page {p + 1}: a line runs past the box's foot"
                for line in placed.block.lines[placed.start:placed.end]:
                    assert line.width * placed.block.em <= width + 1e-6
                previous_foot = foot


def test_headings_never_end_a_column_and_paragraphs_keep_two_lines():
    pages, *_ = poured(SECTIONS, first_y=60)
    columns = [c for page in pages for c in page if c]
    for column in columns:
        assert not column[-1].block.heading, "a heading is the last thing in a column"
    # A paragraph split between columns leaves at least KEEP lines on each side, and one
    # of three lines or fewer is never split.
    for column, following in zip(columns, columns[1:]):
        last, first = column[-1], following[0]
        if last.block is first.block:
            n = len(last.block.lines)
            assert n > KEEP + 1
            assert last.end - last.start >= KEEP and first.end - first.start >= KEEP


def test_every_line_is_set_once_in_order():
    pages, *_ = poured(SECTIONS, first_y=60)
    placed = [p for page in pages for column in page for p in column]
    items = []
    for p in placed:
        if items and items[-1][0] is p.block:
            assert items[-1][2] == p.start        # the rest of a split paragraph, in order
            items[-1][2] = p.end
        else:
            assert p.start == 0
            items.append([p.block, 0, p.end])
    assert all(end == len(block.lines) for block, _, end in items)
    assert sum(1 for b, _, _ in items if b.heading) == len(SECTIONS)


def test_long_text_flows_onto_more_pages_and_short_text_keeps_one():
    assert len(poured(SECTIONS[:2])[0]) == 1
    assert len(poured(SECTIONS)[0]) >= 2
    page = {"index": 0, "count": None}
    svg = flow(SECTIONS, page=page, icons=ICONS, **BOX)
    total = pages_needed(str(svg))
    assert total == len(poured(SECTIONS)[0])
    second = flow(SECTIONS, page={"index": 1, "count": total}, icons=ICONS, **BOX)
    assert "Part" in str(second) and str(second) != str(svg)


def test_last_page_is_balanced():
    pages, _, tops, bottom = poured(SECTIONS[:3])
    feet = []
    for column in pages[-1]:
        last = column[-1]
        ascent, descent, step = line_metrics(last.block)
        feet.append(last.top + (last.end - last.start - 1) * step + ascent + descent)
    assert len(feet) == 2 and all(pages[-1])
    assert abs(feet[0] - feet[1]) < 20          # two similar columns, not one full one
    assert max(feet) < bottom - 40


def test_flow_is_deterministic():
    page = {"index": 1, "count": None}
    first = str(flow(SECTIONS, page=page, icons=ICONS, first_y=40, **BOX))
    assert first == str(flow([dict(s) for s in SECTIONS], page=dict(page), icons=ICONS,
                             first_y=40, **BOX))


def test_text_too_long_for_the_pages_given_says_so():
    with pytest.raises(TextError, match=r"need \d+ pages .*pages: 1 \(write pages: auto"):
        flow(SECTIONS, page={"index": 0, "count": 1}, icons=ICONS, **BOX)


@pytest.mark.parametrize("sections, said", [
    ("rules", "sections must be a list"),
    ([{"heading": "A", "text": "b"}], r"sections\[0\] has no key 'text'"),
    ([{"heading": "A", "body": ["b"]}], r"sections\[0\].body must be text"),
    ([{}], r"sections\[0\] has neither heading nor body"),
])
def test_sections_of_the_wrong_shape_are_refused_by_name(sections, said):
    with pytest.raises(TextError, match=said):
        flow(sections, page={"index": 0, "count": None}, **BOX)


def test_a_heading_taller_than_a_column_is_an_error_not_a_loop():
    with pytest.raises(TextError, match="taller than a column"):
        flow([{"heading": "Rules", "body": BODY}], page={"index": 0, "count": None}, x=10,
             y=10, w=100, h=12)


def test_a_word_wider_than_a_column_is_an_error_naming_it():
    with pytest.raises(TextError, match=r"a word of 'Harbourmasterpieceworkshopkeeper.*"
                                        r"wider than a column \(17\.0 mm\) at 10pt"):
        flow([{"body": "Harbourmasterpieceworkshopkeeper"}], 0, 0, 40, 100,
             page={"index": 0, "count": 1})


def test_body_text_is_set_at_its_size_never_shrunk():
    pages, *_ = poured(SECTIONS)
    sizes = {round(p.block.em, 6) for page in pages for c in page for p in c
             if not p.block.heading}
    assert sizes == {round(layout("x", 50, 10, 10, 10, FAMILY, {})[3], 6)}


# --- a sheet with pages: auto, from `printshop new` ---

@pytest.fixture
def scaffold(tmp_path):
    new_game("harbour", tmp_path)
    return tmp_path


def sheet_pages(root):
    game = load_game(Project.open(str(root)).game("harbour"))
    part = game.part("rules")
    return RENDERERS["sheet"](game, part, PrintOptions()).pages


def lengthen(root, times):
    path = root / "data" / "harbour" / "rules.yaml"
    data = yaml.safe_load(path.read_text())
    data["sections"] = [dict(s, heading=f"{s['heading']} {k}") for k in range(times)
                        for s in data["sections"]]
    path.write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True))


def test_scaffold_rules_sheet_flows_onto_a_second_page_when_long(scaffold):
    assert len(sheet_pages(scaffold)) == 1
    lengthen(scaffold, 4)
    pages = sheet_pages(scaffold)
    assert len(pages) == 2
    drawn = ["".join(map(str, p.parts)) for p in pages]
    assert all(pages_needed(d) == 2 for d in drawn)
    assert "page 2 of 2" in re.sub(r"<[^>]+>", "", drawn[1])
    # every heading is printed once, on one page or the other
    text = re.sub(r"<[^>]+>", "", "".join(drawn))
    for k in range(4):
        assert text.count(f"Setting up {k}") == 1


def test_validate_finds_a_flow_too_long_for_a_fixed_page_count(scaffold):
    lengthen(scaffold, 4)
    manifest = scaffold / "data" / "harbour" / "game.yaml"
    manifest.write_text(manifest.read_text().replace("pages: auto", "pages: 1"))
    game = load_game(Project.open(str(scaffold)).game("harbour"))
    problems = validate_game(game).problems
    assert len(problems) == 1
    problem = problems[0]
    assert problem.file == "templates/harbour/rules.svg.j2" and problem.line
    assert "need 2 pages" in problem.message and "pages: 1" in problem.message


def test_the_scaffold_rules_sheet_draws_without_collisions(scaffold):
    lengthen(scaffold, 4)
    game = load_game(Project.open(str(scaffold)).game("harbour"))
    check = validate_game(game)
    assert not check.problems and not check.warnings, check.lines()


def test_an_auto_sheet_gives_its_template_a_page_count_it_can_count_with(scaffold):
    lengthen(scaffold, 4)
    template = scaffold / "templates" / "harbour" / "rules.svg.j2"
    template.write_text(template.read_text() + "\n<!-- pages after this one: "
                        "{{ page.count - page.number }} -->\n")
    drawn = ["".join(map(str, p.parts)) for p in sheet_pages(scaffold)]
    assert [re.search(r"pages after this one: (\d+)", d).group(1) for d in drawn] == ["1", "0"]


def test_a_booklet_of_sections_flows_page_after_page(scaffold):
    lengthen(scaffold, 3)
    manifest = scaffold / "data" / "harbour" / "game.yaml"
    manifest.write_text(manifest.read_text().replace("rules:\n  - {id: twelve", (
        "  - id: rulebook\n    kind: booklet\n    name: Rulebook\n    template: book.svg.j2\n"
        "    data: rules.yaml\nrules:\n  - {id: twelve")))
    (scaffold / "templates" / "harbour" / "book.svg.j2").write_text(
        "{{ flow(data.sections, 12, 12, size.w - 24, size.h - 30, page=page, columns=1, "
        "size=10) }}\n{{ text(page.number ~ ' / ' ~ page.count, 12, size.h - 14, size.w - 24,"
        " 5, size=8, align='center') }}\n")
    game = load_game(Project.open(str(scaffold)).game("harbour"))
    check = validate_game(game)
    assert not check.problems and not check.warnings, check.lines()
    faces = RENDERERS["booklet"](game, game.part("rulebook"), PrintOptions()).faces["pages"]
    assert len(faces) >= 3
    plain = [re.sub(r"<[^>]+>", "", f.svg) for f in faces]
    assert [p.strip().endswith(f"{k} / {len(faces)}") for k, p in enumerate(plain, 1)] == \
        [True] * len(faces)
    for k in range(3):
        assert "".join(plain).count(f"Setting up {k}") == 1
