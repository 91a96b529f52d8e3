"""The print run: the print-and-play file printed whole and double-sided puts every back
behind its front, decks of one size and stock share sheets, and the counts are right."""

from __future__ import annotations

import pytest
from click.testing import CliRunner
from pypdf import PdfReader

from printshop.build import bom_plan as plan
from printshop.build import build
from printshop.cli import main
from printshop.load.geometry import PrintOptions
from printshop.layout.impose import Face, Item, Page, Placement
from printshop.write.merge import merge
from printshop.write.pdf import pages_to_pdf
from printshop.layout.printrun import MODES, identical_sides, max_players, stock_of
from printshop.files.project import Project

GAMES = ["civilizations-cards", "cvlizations", "deity", "playing-gods", "pocketciv"]


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    out = tmp_path_factory.mktemp("printrun")
    build(Project.open(None), GAMES, PrintOptions(), out, jobs=2)
    return out


@pytest.fixture(scope="module")
def boms():
    return {g: plan(Project.open(None), g) for g in GAMES}


def page_map(bom) -> dict[int, tuple[str, object]]:
    """Return what each page of the print-and-play file is: (its mode, Page or 'blank'/None)."""
    run = bom.run
    pages: dict[int, tuple[str, object]] = {1: ("cover", None), 2: ("contents", None)}
    number = 3
    if run.blank_after_contents:
        pages[3] = ("blank", "blank")
        number = 4
    for r in run.runs:
        assert r.first == number
        for source in r.sources:
            if source.blank:
                pages[number] = ("empty", "blank")
                number += 1
            elif source.pages or source.laid:   # drawn for the run, or a deck's own sheets
                for p in source.pages or source.laid:
                    pages[number] = (source.mode, p)
                    number += 1
            else:
                for _ in source.indexes:
                    pages[number] = (source.mode, None)
                    number += 1
        assert r.last == number - 1
    return pages


def behind(front: Placement, page: Page, flip: str) -> tuple[float, float]:
    """Return where a card's back must sit on the next page: the sheet turned over about
    the axis along its long (or short) edge."""
    long_edge_horizontal = page.width >= page.height
    turns_top_to_bottom = (flip == "long") == long_edge_horizontal
    if turns_top_to_bottom:
        return front.x, page.height - front.y - front.h
    return page.width - front.x - front.w, front.y


@pytest.mark.parametrize("game", GAMES)
def test_every_front_is_on_an_odd_page_with_its_back_behind_it(built, boms, game):
    reader = PdfReader(built / game / f"{game}-print-and-play.pdf")
    bom = boms[game]
    pages = page_map(bom)
    assert len(reader.pages) == len(pages) == bom.pages
    text = {n: " ".join(reader.pages[n - 1].extract_text().split()) for n in pages}
    fronts = 0
    for n, (mode, page) in pages.items():
        if page == "blank":
            assert text[n] == "", (game, n)   # an empty back: nothing printed behind
        if not isinstance(page, Page) or page.side != "front":
            continue
        # The label printed on the page says which side it is.
        assert "fronts" in text[n], (game, n)
        if not MODES[mode].two_sided:
            assert n % 2 == 1 and pages[n + 1][1] == "blank", (game, n)
            continue
        fronts += 1
        assert n % 2 == 1, f"{game}: a front on page {n}"
        _, back = pages[n + 1]
        assert isinstance(back, Page) and back.side == "back" and "backs" in text[n + 1]
        assert (back.width, back.height) == (page.width, page.height)
        box = reader.pages[n - 1].mediabox, reader.pages[n].mediabox
        assert box[0].width == box[1].width and box[0].height == box[1].height
        owed = {}
        for f in page.placements:
            owed.setdefault(f.card_id, []).append(behind(f, page, "long"))
        for b in back.placements:
            spots = owed.get(b.card_id, [])
            match = [s for s in spots if abs(s[0] - b.x) < 0.01 and abs(s[1] - b.y) < 0.01]
            assert match, f"{game} page {n + 1}: the back of {b.card_id} is not behind it"
            spots.remove(match[0])
    # Every run starts on an odd page and holds whole sheets.
    for r in bom.run.runs:
        assert r.first % 2 == 1 and r.pages % 2 == 0, (game, r.title)
    assert fronts, f"{game}: no duplex card sheets found"


def test_the_contents_page_names_each_run_with_its_pages(built, boms):
    reader = PdfReader(built / "deity" / "deity-print-and-play.pdf")
    text = " ".join(reader.pages[1].extract_text().split())
    assert "Print pages 3-20 on 300 gsm card: 9 sheets" in text
    assert "Print pages 21-24 on plain paper: 2 sheets" in text
    # Full sheets come from each deck's own PDF; the last cards of four decks share two.
    assert "Civilization deck (pages 3-14, 17-20)" in text
    assert "Nation cards (pages 17-18)" in text
    assert "Scoring pad (pages 23-24): one side printed, the back left empty" in text
    assert ("Paper and card: 9 sheets of 300 gsm card, 3 sheets of plain paper (12 in all; "
            "printed one component at a time they would take 14)") in text
    assert "Print the whole file with one setting: double-sided, flip on long edge" in text
    # A bookmark opens each run.
    titles = [o.title for o in reader.outline]
    assert titles[:2] == ["Cover", "Contents"] and titles[2] == "Pages 3-20: On 300 gsm card"


def test_booklet_and_mounted_tokens_print_apart_from_the_cards(boms):
    runs = {r.stock: r for r in boms["pocketciv"].run.runs}
    booklet = runs["80-100 gsm paper"]
    assert [(p.component, p.mode) for p in booklet.pieces] == [("scenarios", "two-sided")]
    assert booklet.first % 2 == 1
    mounted = runs["120-160 gsm paper"]
    assert {(p.component, p.mode) for p in mounted.pieces} == {("counters", "mounted"),
                                                               ("cities", "mounted")}
    assert "glue each sheet of fronts onto 1-2 mm greyboard" in " ".join(mounted.advice)
    assert not any(p.mode == "two-sided" and r.stock not in ("300 gsm card", "80-100 gsm paper")
                   for r in boms["pocketciv"].run.runs for p in r.pieces)


def test_decks_of_one_size_and_stock_share_sheets(boms):
    # Measured: sheets of every kind before (each component on its own) and after.
    assert (boms["deity"].sheets_alone, boms["deity"].sheets) == (14, 12)   # cover included
    assert dict(boms["deity"].stock())["300 gsm card"] == 9     # 72 poker cards, 8 a sheet
    assert dict(boms["pocketciv"].stock())["300 gsm card"] == 12
    assert boms["pocketciv"].sheets < boms["pocketciv"].sheets_alone
    for game, bom in boms.items():
        assert bom.sheets <= bom.sheets_alone, game
        for r in bom.run.runs:
            for source in r.sources:
                fronts = [p for p in source.pages if p.side in ("front", "fold")]
                if not fronts:
                    continue
                per_sheet = len(fronts[0].placements) if fronts[0].side == "front" else \
                    len([p for p in fronts[0].placements if p.side == "front"])
                # Every sheet but the last is full; the last is one no other deck can fill.
                for page in fronts[:-1]:
                    assert len([p for p in page.placements if p.side == "front"]) == per_sheet


def test_no_card_sheet_is_under_half_full_while_a_deck_like_it_prints_elsewhere(boms):
    for game, bom in boms.items():
        seen: dict[tuple, int] = {}
        for r in bom.run.runs:
            kinds = set()   # a run is one stock: cards of one size there are one gang
            for source in r.sources:
                fronts = [p for p in source.pages if p.side in ("front", "fold")]
                if fronts:
                    p = fronts[0].placements[0]
                    kinds.add((round(p.w, 2), round(p.h, 2), r.stock))
            for key in kinds:
                seen[key] = seen.get(key, 0) + 1
        # Cards of one size and stock would have shared: each kind is imposed once.
        assert all(n == 1 for n in seen.values()), (game, seen)


def test_stock_notes_split_into_what_to_load_and_the_advice(boms):
    deity = plan(Project.open(None), "deity")
    nations = next(p for p in deity.printed if p.component == "nations")
    assert nations.stock == "300 gsm card"
    assert nations.advice == "Sleeve each card backwards so only level I shows"
    for bom in boms.values():
        for stock, _ in bom.stock():
            assert ";" not in stock and "," not in stock and len(stock) <= 30, stock


def test_stock_of_a_component():
    from printshop.load.models import Part

    class Spec:
        kind = "tokens"
        stock = " 120 gsm paper ;  keep them dry. "
        mount = "2 mm  greyboard"

    class Bare:
        kind = "board"
        stock = ""
        mount = ""

    stock = stock_of(Part(Spec))
    assert (stock.key, stock.advice, stock.mount) == ("120 gsm paper", "Keep them dry",
                                                      "2 mm greyboard")
    assert stock_of(Part(Bare)).key == "120-160 gsm paper"


def test_players_line_gives_the_most_players():
    assert [max_players(s) for s in ("2-5", "1", "1-2", "", "2 to 7 players")] == \
        [5, 1, 2, 1, 7]


def test_per_player_components_are_counted_for_every_player(boms):
    bom = boms["civilizations-cards"]
    mats = {p.component: p for p in bom.printed}
    assert mats["nation-mat"].copies == 7 and mats["sea-mat"].copies == 1
    run = next(r for r in bom.run.runs if r.copies == 7)
    assert {p.component for p in run.pieces} == {"nation-mat", "shared-lands-mat"}
    assert "7 times" in run.instruction() and "28 sheets in all" in run.sheet_count()
    tiles = sum(r.sheets * r.copies for r in bom.run.runs if r.stock == "120-160 gsm paper")
    assert tiles == 7 * 2 + 7 * 2 + 3 + 1   # three City States at most (3 players)
    text = CliRunner().invoke(main, ["bom", "civilizations-cards"]).output
    assert "x 7" in text and "City State mat: print 3 (the most a game uses)" in text
    assert "Nation mat (one per player): print 7 (one per player)" in text


def test_assembly_diagrams_are_not_board_stock(boms):
    bom = boms["playing-gods"]
    board = next(r for r in bom.run.runs if any(p.component == "board" and
                                                 not p.assembly for p in r.pieces))
    assert board.stock == "120-160 gsm paper" and board.sheets == 6   # the six tiles
    paper = next(r for r in bom.run.runs if r.stock == "plain paper")
    diagram = next(p for p in paper.pieces if p.component == "board")
    assert diagram.assembly and paper.copies == 1


def test_tokens_alike_on_both_sides_print_single_sided(boms):
    chips = next(r for r in boms["playing-gods"].run.runs
                 if any(p.component == "chips" for p in r.pieces))
    assert {p.mode for p in chips.pieces if p.component == "chips"} == {"one-sided"}
    assert all(p.side == "front" for s in chips.sources for p in s.pages)
    face = Face("<rect/>", 10, 10, 1)
    assert identical_sides([Item(face, Face("<rect/>", 10, 10, 1), "a")])
    assert not identical_sides([Item(face, Face("<circle/>", 10, 10, 1), "a")])
    assert not identical_sides([Item(face, None, "a")])


def test_tokens_glued_to_board_are_not_told_to_print_duplex(boms):
    tokens = next(r for r in boms["cvlizations"].run.runs
                  if any(p.component == "tokens" for p in r.pieces))
    assert {p.mode for p in tokens.pieces if p.component == "tokens"} == {"mounted"}
    assert "duplex" not in tokens.instruction()
    text = CliRunner().invoke(main, ["bom", "cvlizations"]).output
    assert "Tokens: glue onto 1-2 mm greyboard" in text


def test_merge_takes_chosen_pages_and_only_what_they_need():
    def pdf(label, n):
        from printshop.draw.text import text_box
        return pages_to_pdf([Page(210, 297, [str(text_box(f"{label} {i + 1}", 20, 20, 150,
                                                           20, size=14))]) for i in range(n)],
                            label)

    five, one = pdf("Five", 5), pdf("One", 1)
    joined = merge([("Chosen", five, [3, 1]), (None, one, None), ("Again", five, [0])], "t")
    import io
    reader = PdfReader(io.BytesIO(joined))
    assert [p.extract_text().strip() for p in reader.pages] == ["Five 4", "Five 2", "One 1",
                                                                "Five 1"]
    assert [o.title for o in reader.outline] == ["Chosen", "Again"]
    assert len(joined) < 2 * len(five) + len(one)


def test_sheet_counts_per_game_in_the_readme(boms):
    from pathlib import Path
    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text()
    for game, bom in boms.items():
        assert f"\n| {game} | {bom.sheets_alone} | {bom.sheets} |\n" in readme, game


POKER = """name: Poker Test
components:
  - id: deck
    kind: deck
    name: Deck
    size: poker
    data: cards.yaml
    front: card.svg.j2
    back: back.svg.j2
  - id: spare
    kind: deck
    name: Spare
    size: {spare}
    data: spare.yaml
    front: card.svg.j2
    back: back.svg.j2
"""


def poker_project(root, spare: str):
    """A deck of 12 cards and a spare deck of 3, the spare in its own size or in poker size."""
    data, tpl = root / "data" / "poker", root / "templates" / "poker"
    data.mkdir(parents=True)
    tpl.mkdir(parents=True)
    (data / "game.yaml").write_text(POKER.format(spare=spare))
    (data / "cards.yaml").write_text("cards:\n" + "".join(
        f"  - {{id: c{i}, name: 'Card {i}'}}\n" for i in range(12)))
    (data / "spare.yaml").write_text("cards:\n" + "".join(
        f"  - {{id: s{i}, name: 'Spare {i}'}}\n" for i in range(3)))
    (tpl / "card.svg.j2").write_text("{{ text(card.name, 4, 4, size.w - 8, 8, size=12) }}")
    (tpl / "back.svg.j2").write_text('<rect x="0" y="0" width="{{ size.w }}" '
                                     'height="{{ size.h }}" fill="#2d1b3d"/>')
    return Project.open(root)


def body(page) -> list[str]:
    """Return a page's text without its label line."""
    return [line for line in page.extract_text().splitlines() if " · page " not in line]


def test_a_deck_printed_alone_is_copied_into_the_print_and_play_file_not_drawn_again(tmp_path):
    out = tmp_path / "out"
    report = build(poker_project(tmp_path / "p", spare="tarot"), ["poker"], PrintOptions(), out)
    run = report.games[0].run
    cards = [s for r in run.runs for s in r.sources if s.component == "deck"]
    assert cards and all(not s.pages for s in cards)     # taken from deck.pdf as drawn
    deck = PdfReader(out / "poker" / "deck.pdf")
    whole = PdfReader(out / "poker" / "poker-print-and-play.pdf")
    first = cards[0].indexes[0]
    start = next(r.first for r in run.runs if cards[0] in r.sources)
    # The same page but for its label, which gives its place in the file.
    assert body(whole.pages[start - 1]) == body(deck.pages[first])
    assert "sheet 1 of 2 fronts" in deck.pages[0].extract_text()
    assert "Poker Test · Deck · sheet 1 of 2 · fronts · page 3 of" in \
        whole.pages[start - 1].extract_text()


def test_decks_sharing_sheets_are_drawn_afresh_for_the_print_run(tmp_path):
    report = build(poker_project(tmp_path / "p", spare="poker"), ["poker"], PrintOptions(),
                   tmp_path / "out")
    gangs = [s for r in report.games[0].run.runs for s in r.sources if s.pages]
    assert gangs and all(s.component is None for s in gangs)
    labels = [p.label for s in gangs for p in s.pages]
    assert any("Deck, Spare" in label for label in labels)


def test_decks_sharing_sheets_print_their_full_sheets_as_drawn_and_share_the_rest(tmp_path):
    # 12 cards at 8 a sheet: one full sheet of the deck's own, then its last 4 cards beside
    # the spare deck's 3 on one shared sheet: 2 sheets, as sharing every card would take.
    out = tmp_path / "out"
    report = build(poker_project(tmp_path / "p", spare="poker"), ["poker"], PrintOptions(), out)
    run = next(r for r in report.games[0].run.runs if r.stock == "250-300 gsm card")
    taken, drawn = run.sources
    assert (taken.component, taken.indexes, drawn.component) == ("deck", [0, 1], None)
    front, back = drawn.pages
    assert [p.card_id for p in front.placements if p.side == "front"] == \
        ["c8", "c9", "c10", "c11", "s0", "s1", "s2"]
    assert sorted(p.card_id for p in back.placements) == sorted(
        p.card_id for p in front.placements if p.side == "front")
    assert run.sheets == 2
    deck = PdfReader(out / "poker" / "deck.pdf")
    whole = PdfReader(out / "poker" / "poker-print-and-play.pdf")
    for n in (0, 1):   # the deck's first sheet, front and back, exactly as in deck.pdf
        assert body(whole.pages[run.first - 1 + n]) == body(deck.pages[n])
    assert "Deck, Spare · shared sheet · fronts · page 5 of 6" in \
        " ".join(whole.pages[run.first + 1].extract_text().split())
    pieces = {p.component: p.spans for p in run.pieces}
    assert pieces == {"deck": [(run.first, run.first + 3)],
                      "spare": [(run.first + 2, run.first + 3)]}


def test_copies_of_a_deck_repeat_its_full_sheets_and_share_its_last_cards(tmp_path):
    # Spare is one deck per player (2 players): its full sheet is taken twice, its last
    # 2 cards twice go beside the deck's last 4: 1 + 2 + 1 sheets, as sharing all 32 would.
    project = poker_project(tmp_path / "p", spare="poker")
    game = project.root / "data" / "poker" / "game.yaml"
    game.write_text(game.read_text().replace("name: Poker Test\n",
                                             "name: Poker Test\nplayers: 1-2\n")
                    .replace("    data: spare.yaml\n", "    data: spare.yaml\n    per_player: true\n"))
    (project.root / "data" / "poker" / "spare.yaml").write_text("cards:\n" + "".join(
        f"  - {{id: s{i}, name: 'Spare {i}'}}\n" for i in range(10)))
    report = build(project, ["poker"], PrintOptions(), tmp_path / "out")
    run = next(r for r in report.games[0].run.runs if r.stock == "250-300 gsm card")
    deck, spare, drawn = run.sources
    assert (deck.component, deck.indexes) == ("deck", [0, 1])
    assert (spare.component, spare.indexes) == ("spare", [0, 1, 0, 1])
    assert [p.card_id for p in drawn.pages[0].placements if p.side == "front"] == \
        ["c8", "c9", "c10", "c11", "s8", "s9", "s8", "s9"]
    assert run.sheets == 4 == -(-(12 + 2 * 10) // 8)


def test_decks_whose_last_cards_would_fill_as_many_sheets_shared_are_taken_whole(tmp_path):
    # The deck's last 4 cards and a spare deck of 6 fill two sheets either way: nothing is
    # drawn again, each deck's sheets come from its own PDF.
    project = poker_project(tmp_path / "p", spare="poker")
    (project.root / "data" / "poker" / "spare.yaml").write_text("cards:\n" + "".join(
        f"  - {{id: s{i}, name: 'Spare {i}'}}\n" for i in range(6)))
    report = build(project, ["poker"], PrintOptions(), tmp_path / "out")
    run = next(r for r in report.games[0].run.runs if r.stock == "250-300 gsm card")
    assert [(s.component, s.indexes, s.pages) for s in run.sources] == \
        [("deck", [0, 1, 2, 3], []), ("spare", [0, 1], [])]
    assert run.sheets == 3


def test_the_contents_page_writes_each_note_as_a_sentence(built):
    # The cut, the manifest's own cut note and the stock's advice: three sentences.
    text = " ".join(PdfReader(built / "pocketciv" / "pocketciv-print-and-play.pdf")
                    .pages[1].extract_text().split())
    assert "cut along the outlines. Cut along the grey lines. Glue onto 1-2 mm greyboard." in text
    assert "; Cut" not in text and ". glue" not in text


@pytest.mark.parametrize("game", ["deity", "pocketciv", "playing-gods"])
def test_the_bill_of_materials_plans_the_pages_the_build_makes(tmp_path, boms, game):
    # `printshop bom` lays the pages out without drawing them: the same runs, the same pages.
    report = build(Project.open(None), [game], PrintOptions(), tmp_path)
    built = [(r.first, r.last, [(p.component, p.spans) for p in r.pieces])
             for r in report.games[0].run.runs]
    planned = [(r.first, r.last, [(p.component, p.spans) for p in r.pieces])
               for r in boms[game].run.runs]
    assert built == planned


CHIPS = """name: Chip Test
components:
  - id: deck
    kind: deck
    name: Deck
    size: poker
    data: cards.yaml
    front: card.svg.j2
    back: back.svg.j2
    stock: 250-300 gsm card
  - id: chips
    kind: tokens
    name: Chips
    size: [22, 22]
    shape: circle
    data: chips.yaml
    front: chip.svg.j2
    back: chip.svg.j2
    stock: 300 gsm card
"""


def chips_project(root, chips: int):
    """A deck of 12 poker cards (8 a sheet: 4 places left empty) and ``chips`` round chips
    drawn alike on both sides, on a stock that overlaps the deck's."""
    project = poker_project(root, spare="poker")
    data, tpl = project.root / "data" / "poker", project.root / "templates" / "poker"
    (data / "game.yaml").write_text(CHIPS)
    (data / "chips.yaml").write_text("cards:\n" + "".join(
        f"  - {{id: k{i}, name: 'Chip {i}'}}\n" for i in range(chips)))
    (tpl / "chip.svg.j2").write_text('<circle cx="11" cy="11" r="12.5" fill="#c9a227"/>')
    return Project.open(project.root)


def test_chips_left_over_fill_the_empty_card_places_of_a_card_sheet_and_save_it(tmp_path):
    out = tmp_path / "out"
    report = build(chips_project(tmp_path / "p", chips=20), ["poker"], PrintOptions(), out)
    bom = plan(Project.open(tmp_path / "p"), "poker")
    run = report.games[0].run
    # The two card stocks print as one, their overlap: 2 sheets, not 2 + 1.
    assert [(r.stock, r.sheets) for r in run.runs] == [("300 gsm card", 2)]
    assert bom.sheets == 3 < bom.sheets_alone == 4   # the cover sheet counted
    assert [p for p in bom.printed if p.component == "deck"][0].stock == "300 gsm card"
    # The deck's last sheet: its front drawn again with the chips, its back as deck.pdf has it.
    pages = [p for s in run.runs[0].sources for p in s.pages or s.laid]
    front, back = pages[2:4]
    assert [s.component for s in run.runs[0].sources] == ["deck", None, "deck"]
    cards = [p for p in front.placements if p.card_id.startswith("c")]
    chips = [p for p in front.placements if p.card_id.startswith("k")]
    assert len(cards) == 4 and len(chips) == 20
    # Each chip lies inside one of the four empty card places (63 x 88 mm trim boxes), six
    # a place, none over a card; nothing is printed behind a chip.
    assert front.width > front.height and len({c.y for c in cards}) == 1   # 4 x 2, row 1 full
    places = {(c.x, c.y + 88 + 2 * 3) for c in cards}    # row 2, below the cards
    for chip in chips:
        inside = [(x, y) for x, y in places if x <= chip.x - 1.5 and chip.x + 23.5 <= x + 63
                  and y <= chip.y - 1.5 and chip.y + 23.5 <= y + 88]
        assert len(inside) == 1, (chip.x, chip.y)
        spot = (front.width - chip.x - chip.w, chip.y) if front.height >= front.width else \
            (chip.x, front.height - chip.y - chip.h)
        assert not [b for b in back.placements if b.x < spot[0] + chip.w and
                    spot[0] < b.x + b.w and b.y < spot[1] + chip.h and spot[1] < b.y + b.h]
    assert {p.card_id for p in back.placements} == {c.card_id for c in cards}
    # The contents page, labels and bom say where the chips are and how to cut them out.
    chips_line = next(line for r in bom.run.runs for line in
                      [piece for piece in r.pieces if piece.component == "chips"])
    assert chips_line.places == [5] and chips_line.spans == [(5, 5)]
    assert bom.run.labels[4] == "Chip Test · Deck, Chips · shared sheet · fronts"
    assert bom.run.labels[5] == "Chip Test · Deck, Chips · shared sheet · backs of page 5"
    text = CliRunner().invoke(main, ["bom", "poker", "--project", str(tmp_path / "p")]).output
    assert "Chips (page 5): one side printed, the back left empty; on page 5 in card places " \
           "the cards leave empty: cut those out on the crop marks first" in text
    whole = PdfReader(out / "poker" / "poker-print-and-play.pdf")
    assert len(whole.pages) == bom.pages == 6
    assert "Chips (page 5)" in " ".join(whole.pages[1].extract_text().split())


def test_chips_that_do_not_fit_the_empty_card_places_keep_their_sheet_and_stock(tmp_path):
    # 25 chips, 24 places (6 in each of 4 card places): sharing saves nothing, so the deck
    # keeps the stock its manifest names.
    bom = plan(chips_project(tmp_path / "p", chips=25), "poker")
    assert bom.stock() == [("250-300 gsm card", 2), ("300 gsm card", 1), ("plain paper", 1)]
    assert not any(p.places for r in bom.run.runs for p in r.pieces)


def test_overlapping_stocks_join_on_their_overlap():
    from printshop.layout.printrun import joint_stocks
    joint = joint_stocks(["250-300 gsm card", "300 gsm card", "120-160 gsm paper",
                          "80-100 gsm paper", "plain paper", "160 gsm paper", "200 gsm card"])
    assert joint == {"250-300 gsm card": "300 gsm card", "300 gsm card": "300 gsm card",
                     "120-160 gsm paper": "160 gsm paper", "160 gsm paper": "160 gsm paper",
                     "80-100 gsm paper": "80-100 gsm paper", "plain paper": "plain paper",
                     "200 gsm card": "200 gsm card"}
