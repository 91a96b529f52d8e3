"""Typography: kerning as the fonts say, a text layer that reads as printed, the line-breaking
rules, and a user's game in Arabic, Hindi and Japanese set in its own fonts."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from fontTools.ttLib import TTFont
from pypdf import PdfReader
from pypdf.generic import ContentStream

from printshop.load import fonts
from printshop.draw import breaking, subset, text
from printshop.files.errors import PrintshopError

from conftest import EXAMPLE, copy_game, edit_yaml

FIXTURES = Path(__file__).resolve().parent / "fixtures"
# Free fonts from Debian packages (.ci/run installs them): what the fixture game brings.
SCRIPT_FONTS = {
    "Amiri-Regular.ttf": "/usr/share/fonts/opentype/fonts-hosny-amiri/Amiri-Regular.ttf",
    "Lohit-Devanagari.ttf": "/usr/share/fonts/truetype/lohit-devanagari/Lohit-Devanagari.ttf",
    "VL-Gothic-Regular.ttf": "/usr/share/fonts/truetype/vlgothic/VL-Gothic-Regular.ttf",
}
CLASSIC_PAIRS = ("AV", "AW", "AY", "AT", "Av", "Aw", "Ay", "LT", "LV", "LW", "LY", "PA", "Pa",
                 "TA", "Ta", "Te", "To", "Tr", "Tu", "Tw", "Ty", "VA", "Va", "Ve", "Vo", "WA",
                 "Wa", "We", "Wo", "YA", "Ya", "Ye", "Yo", "FA", "Fa", "Fo", "RT", "RV", "RW",
                 "RY", "KO", "Ko", "ky", "ry", "rv", "yo", "y.", "r.", "V.", "T.", "W.", "Y.")
ICON = {"food": '<circle cx="50" cy="50" r="40"/>'}


def build(project: Path, out: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "printshop.cli", "build", "--project",
                           str(project), "--out", str(out), "--quiet"],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr


# --- kerning ---------------------------------------------------------------------------------

def gpos_kerning(font: TTFont, left: str, right: str) -> int:
    """Return the pair adjustment (font units) GPOS's kern feature makes between two glyphs."""
    gpos = font["GPOS"].table
    lookups = {i for fr in gpos.FeatureList.FeatureRecord if fr.FeatureTag == "kern"
               for i in fr.Feature.LookupListIndex}
    for index in sorted(lookups):
        lookup = gpos.LookupList.Lookup[index]
        for sub in lookup.SubTable:
            if lookup.LookupType == 9:
                sub = sub.ExtSubTable
            if getattr(sub, "LookupType", 2) != 2 or left not in sub.Coverage.glyphs:
                continue
            if sub.Format == 1:
                pairs = sub.PairSet[sub.Coverage.glyphs.index(left)].PairValueRecord
                for pair in pairs:
                    if pair.SecondGlyph == right:
                        return getattr(pair.Value1, "XAdvance", 0) or 0
            else:
                c1 = sub.ClassDef1.classDefs.get(left, 0)
                c2 = sub.ClassDef2.classDefs.get(right, 0)
                value = sub.Class1Record[c1].Class2Record[c2].Value1
                found = getattr(value, "XAdvance", 0) or 0
                if found:
                    return found
    return 0


def pdf_glyphs(pdf: Path) -> list[tuple[str, float, float, float]]:
    """Return every drawn glyph of a PDF's first page as (character, x, y, size in pt), read
    from its content stream: text matrices, TJ adjustments and the fonts' /Widths."""
    reader = PdfReader(pdf)
    page = reader.pages[0]
    resources = page["/Resources"]["/Font"]
    out = []
    ops = ContentStream(page.get_contents(), reader).operations
    font, size, ctm = None, 1.0, (1.0, 0.0, 0.0, 1.0, 0.0, 0.0)
    tm = [1.0, 0.0, 0.0, 1.0, 0.0, 0.0]
    for operands, op in ops:
        if op == b"cm":
            a, b, c, d, e, f = (float(v) for v in operands)
            A, B, C, D, E, F = ctm
            ctm = (a * A + b * C, a * B + b * D, c * A + d * C, c * B + d * D,
                   e * A + f * C + E, e * B + f * D + F)
        elif op == b"Tf":
            font, size = resources[operands[0]].get_object(), float(operands[1])
        elif op == b"Tm":
            tm = [float(v) for v in operands]
        elif op == b"Td":
            tm[4] += float(operands[0]) * tm[0] + float(operands[1]) * tm[2]
            tm[5] += float(operands[0]) * tm[1] + float(operands[1]) * tm[3]
        elif op in (b"TJ", b"Tj"):
            items = operands[0] if op == b"TJ" else [operands[0]]
            first, widths = int(font.get("/FirstChar", 0)), font.get("/Widths")
            if widths is None:
                continue   # a composite (CID) font: not where the body text is
            for item in items:
                if isinstance(item, (int, float)) or hasattr(item, "as_numeric"):
                    tm[4] -= float(item) / 1000 * size * tm[0]
                    continue
                for code in bytes(item.original_bytes if hasattr(item, "original_bytes")
                                  else item):
                    x = tm[4] * ctm[0] + tm[5] * ctm[2] + ctm[4]
                    y = tm[4] * ctm[1] + tm[5] * ctm[3] + ctm[5]
                    out.append((chr(code), x, y, size * abs(tm[0]) * abs(ctm[0])))
                    tm[4] += float(widths[code - first]) / 1000 * size * tm[0]
    return out


def test_kerning_in_a_built_pdf_is_the_fonts_own(tmp_path):
    """The distance between the glyphs of AV, To, Wa (and the other classic pairs) printed
    in a built PDF is the font's advance plus its GPOS kerning, within 0.01 pt."""
    project = copy_game(tmp_path / "project", "lantern-fair", EXAMPLE.parent.parent /
                        "examples" / "lantern-fair")
    words = " ".join(CLASSIC_PAIRS)
    stalls = project / "data" / "lantern-fair" / "stalls.yaml"
    edit_yaml(stalls, lambda d: d["cards"][0].update(text=words))
    # A PDF stores a glyph's place to 1/1000 em (its widths and TJ adjustments are whole
    # thousandths): at 7 pt that is 0.007 pt, inside the 0.01 pt this test asks.
    front = project / "templates" / "lantern-fair" / "stall.svg.j2"
    front.write_text(front.read_text().replace("size=10,", "size=7, min_size=7,"))
    build(project, tmp_path / "out")
    glyphs = pdf_glyphs(tmp_path / "out" / "lantern-fair" / "stalls.pdf")
    font = TTFont(fonts.FONT_DIR / "DejaVuSansCondensed.ttf")
    upem, cmap, hmtx = font["head"].unitsPerEm, font.getBestCmap(), font["hmtx"]
    kerned = checked = 0
    for pair in CLASSIC_PAIRS:
        found = [(a, b) for a, b in zip(glyphs, glyphs[1:])
                 if a[0] + b[0] == pair and abs(a[2] - b[2]) < 0.01 and a[3] == b[3]
                 and abs(a[3] - 7) < 0.01]
        assert found, f"{pair} not found in the body text"
        (left, lx, _, size), (right, rx, _, _) = found[0]
        lg, rg = cmap[ord(left)], cmap[ord(right)]
        kern = gpos_kerning(font, lg, rg)
        expected = (hmtx[lg][0] + kern) / upem * size
        assert rx - lx == pytest.approx(expected, abs=0.01), pair
        checked += 1
        kerned += kern != 0
    assert checked == len(CLASSIC_PAIRS)
    assert {"AV", "To", "Wa"} <= {p for p in CLASSIC_PAIRS
                                  if gpos_kerning(font, cmap[ord(p[0])], cmap[ord(p[1])])}
    assert kerned >= 0.8 * len(CLASSIC_PAIRS) * 0.5   # DejaVu kerns most, not all, of them


# --- the text layer --------------------------------------------------------------------------

def test_the_text_layer_reads_multi_word_names_with_their_spaces(tmp_path):
    """pypdf and pdftotext read "Jade Valley" on the Playing Gods board, not "JadeValley"."""
    build_dir = tmp_path / "out"
    done = subprocess.run([sys.executable, "-m", "printshop.cli", "build", "playing-gods",
                           "--out", str(build_dir), "--quiet"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    board = build_dir / "playing-gods" / "board.pdf"
    read = " ".join(page.extract_text() for page in PdfReader(board).pages)
    assert "Jade Valley" in read and "JadeValley" not in read
    if shutil.which("pdftotext"):
        plain = subprocess.run(["pdftotext", str(board), "-"], capture_output=True,
                               text=True).stdout
        assert "Jade Valley" in plain


def test_every_printed_multi_word_card_name_reads_with_its_spaces(tmp_path):
    """Every card name of the five games that pypdf reads at all, it reads with its spaces
    (a name printed "JadeValley" would be found squeezed, and fails)."""
    from printshop.load.loader import load_game
    from printshop.files.project import Project

    done = subprocess.run([sys.executable, "-m", "printshop.cli", "build", "--out",
                           str(tmp_path), "--quiet"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    spaced, squeezed = 0, []
    for folder in Project.open(None).games():
        game = load_game(folder)
        for part in game.parts:
            pdf = tmp_path / game.id / f"{part.id}.pdf"
            if not part.cards or not pdf.is_file():
                continue
            read = " ".join(" ".join(page.extract_text().split())
                            for page in PdfReader(pdf).pages)
            for card in part.cards:
                name = " ".join(card.name.split())
                if " " not in name:
                    continue
                if name in read or name.upper() in read:
                    spaced += 1
                elif name.replace(" ", "") in read.replace(" ", ""):
                    squeezed.append(f"{game.id}/{part.id}: {name}")
    assert spaced > 50 and not squeezed, squeezed[:10]


def test_a_shaped_run_carries_its_text_glyphs_and_dx():
    svg = str(text.text_box("AV To", 0, 0, 80, 10, size=10))
    run = re.search(r'<tspan x="0" y="[\d.]+" dx="([^"]*)" data-glyphs="([^"]*)">AV To<', svg)
    assert run, svg
    shifts = [float(v) for v in run.group(1).split()]
    assert shifts[1] < 0 and shifts[4] < 0      # V closer to A, o closer to T
    assert len(run.group(2).split()) == 5       # one glyph per character, the space too


def test_forged_glyphs_are_left_to_cairosvg():
    head = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 50 20"><text class="ps-runs" '
    good = (head + 'font-family="DejaVu Sans Condensed" font-size="4"><tspan x="1" y="5" '
            'data-glyphs="36:1 57:1:3.5">AV</tspan></text></svg>')
    assert subset.parse(good) is not None
    for bad in (good.replace("36:1 ", "36:x:1 "), good.replace("DejaVu Sans Condensed",
                                                                "Comic Sans MS")):
        assert subset.parse(bad) is None


# --- line breaking ---------------------------------------------------------------------------

def lines_of(value: str, width: float, size: float = 10, **kw) -> list[str]:
    _, lines, _, _ = text.layout(value, width, 200, size, size, "body", ICON, **kw)
    return [" ".join(w.text for w in line.words) for line in lines]


def test_the_unicode_rules_break_at_spaces_and_after_hyphens():
    assert lines_of("one two three", 1000) == ["one two three"]
    assert breaking.break_units("well-known words") == ["well-", "known ", "words"]


@pytest.mark.parametrize("width", [w / 2 for w in range(30, 120)])
def test_an_icon_expression_never_splits(width):
    for line in lines_of("To score it pay (■ + ⬢) or (:food: + :food:) then rest.", width):
        assert line.count("(") == line.count(")"), line
        assert not line.endswith(("+", "(")) and not line.startswith(("+", ")")), line


@pytest.mark.parametrize("width", [w / 2 for w in range(30, 120)])
def test_a_number_keeps_its_unit_and_its_icon(width):
    lines = lines_of("Each turn every tribe gains 3 AV and pays 2 :food: to the bank.", width)
    assert not any(line.endswith((" 3", " 2")) or line in ("3", "2") for line in lines), lines


def test_no_lone_last_word_in_a_paragraph_of_three_lines_or_more():
    value = "When three or more players chose Hunting, take one more food each time you do it."
    for width in range(22, 40):
        lines = lines_of(value, width)
        if len(lines) >= 3:
            assert len(lines[-1].split()) >= 2, (width, lines)


def test_bullets_hang():
    svg = str(text.text_box("• Pay two food to move one tribe into a neighbouring region.",
                            0, 0, 30, 40, size=10))
    xs = [float(x) for x in re.findall(r'<tspan x="([\d.]+)"', svg)]
    bullet = text.text_width("• ", 10)
    assert xs[0] == 0 and all(abs(x - bullet) < 0.01 for x in xs[1:]) and len(xs) > 2


def test_centred_lines_are_balanced():
    value = "At the end of each age, gain one food for every city you own."
    _, lines, _, _ = text.layout(value, 40, 50, 10, 10, "body", {}, align="center")
    widths = [line.width for line in lines]
    left = text.layout(value, 40, 50, 10, 10, "body", {})[1]
    assert len(lines) == len(left)
    assert max(widths) - min(widths) < max(lw.width for lw in left) - min(
        lw.width for lw in left)


def test_hyphenation_where_the_game_asks_for_it():
    value = "The administration of these responsibilities overwhelms everyone quickly."
    broken = 0
    for width in range(25, 60, 2):
        plain = lines_of(value, width)
        hyphenated = lines_of(value, width, hyphenate="en")
        assert not any(line.endswith("-") for line in plain)
        broken += any(line.endswith("-") for line in hyphenated)
        assert len(hyphenated) <= len(plain)
        assert re.sub(r"[\s-]", "", "".join(hyphenated)) == re.sub(r"[\s-]", "", "".join(plain))
    assert broken >= 5


def test_one_title_size_or_its_fallback_never_between():
    for value in ("Sickle", "A much longer title for a card"):
        pt = text.layout(value, 25, 14, 12, 12, "title", {}, fallback=10.5)[0]
        assert pt in (12, 10.5)


# --- the built-in games ----------------------------------------------------------------------

@pytest.fixture(scope="module")
def every_paragraph():
    """Every paragraph the five games set, as its lines (lists of words' text)."""
    from printshop.components import RENDERERS
    from printshop.load.geometry import PrintOptions
    from printshop.load.loader import load_game
    from printshop.files.project import Project

    seen = []
    original = breaking._set_paragraph

    def record(words, width, indent, align, hyphenate):
        lines = original(words, width, indent, align, hyphenate)
        if width != float("inf"):
            seen.append((align, [[w.text for w in line.words] for line in lines]))
        return lines

    breaking._set_paragraph = record
    breaking._prepared.cache_clear()
    try:
        for folder in Project.open(None).games():
            game = load_game(folder)
            for part in game.parts:
                RENDERERS[part.kind](game, part, PrintOptions())
    finally:
        breaking._set_paragraph = original
    return seen


def test_built_in_games_have_no_lone_last_word(every_paragraph):
    lone = [lines for _, lines in every_paragraph
            if len(lines) >= 3 and len(lines[-1]) == 1 and lines[-1][0]
            and not breaking._is_cjk(lines[-1][0])]
    assert not lone, lone[:5]


def test_built_in_games_split_no_icon_expression(every_paragraph):
    for _, lines in every_paragraph:
        for line, after in zip(lines, lines[1:]):
            if not line or not after:
                continue
            joined = " ".join(line)
            assert line[-1] not in breaking.OPERATORS and not joined.endswith("("), lines
            assert after[0] not in breaking.OPERATORS and not after[0].startswith(")"), lines
            assert not re.search(r"(^|\s)\d+$", joined) or not (
                after[0].startswith(breaking.ICON_CHAR) or breaking.UNIT.match(after[0])), lines


# --- scripts beyond Latin --------------------------------------------------------------------

@pytest.fixture(scope="module")
def world_scripts(tmp_path_factory):
    """The fixture game, its fonts copied in from the Debian packages."""
    missing = [path for path in SCRIPT_FONTS.values() if not Path(path).is_file()]
    if missing:
        pytest.skip(f"fonts not installed: {missing} (.ci/run installs them)")
    root = tmp_path_factory.mktemp("world") / "project"
    shutil.copytree(FIXTURES / "world-scripts", root)
    font_dir = root / "data" / "world-scripts" / "fonts"
    font_dir.mkdir()
    for name, path in SCRIPT_FONTS.items():
        shutil.copy(path, font_dir / name)
    return root


def test_a_game_in_arabic_hindi_and_japanese_prints_with_its_own_fonts(world_scripts,
                                                                     tmp_path):
    build(world_scripts, tmp_path / "out")
    pdf = tmp_path / "out" / "world-scripts" / "cards.pdf"
    if shutil.which("pdftotext"):   # pypdf does not read Indic clusters back
        read = subprocess.run(["pdftotext", str(pdf), "-"], capture_output=True,
                              text=True).stdout
        for word in ("घाटी", "翡翠の谷", "क्षत्रिय", "الأخضر", "Jade"):
            assert word in read, read
    embedded = {str(f.get_object().get("/BaseFont")) for f in
                PdfReader(pdf).pages[0]["/Resources"]["/Font"].values()}
    families = {name.split("+")[-1] for name in embedded}
    assert sum(name.startswith(fonts.GAME_FONT_PREFIX) for name in families) == 3, embedded


@pytest.mark.parametrize("name,value", [
    ("arabic", "الوادي الأخضر"), ("hindi", "हरी घाटी क्षत्रिय"), ("japanese", "翡翠の谷")])
def test_scripts_are_shaped_as_harfbuzz_shapes_them(world_scripts, name, value):
    """Joined Arabic in visual order, Devanagari conjuncts and vowel signs: the glyphs of a
    line are the ones HarfBuzz gives for the same text and font."""
    import uharfbuzz as hb

    rel = {"arabic": "Amiri-Regular.ttf", "hindi": "Lohit-Devanagari.ttf",
           "japanese": "VL-Gothic-Regular.ttf"}[name]
    family = fonts.game_font(world_scripts / "data" / "world-scripts", f"fonts/{rel}", rel)
    svg = str(text.text_box(value, 0, 0, 200, 20, size=12, font=name,
                            fonts_by_name={name: family}))
    ours = [int(token.split(":")[0]) for run in re.findall(r'data-glyphs="([^"]*)"', svg)
            for token in run.split()]
    font = hb.Font(hb.Face(hb.Blob.from_file_path(SCRIPT_FONTS[rel])))
    buf = hb.Buffer()
    buf.add_str(value)
    buf.guess_segment_properties()
    hb.shape(font, buf)
    direct = [info.codepoint for info in buf.glyph_infos]
    space = font.get_nominal_glyph(32)
    assert [g for g in ours if g != space] == [g for g in direct if g != space]
    if name == "arabic":   # joined: contextual forms, not the isolated letters
        isolated = [font.get_nominal_glyph(ord(c)) for c in value if c != " "]
        assert [g for g in ours if g != space] != isolated[::-1]


def test_japanese_lines_never_start_with_closing_punctuation(world_scripts):
    family = fonts.game_font(world_scripts / "data" / "world-scripts",
                             "fonts/VL-Gothic-Regular.ttf", "jp")
    value = "新しい都市を建設したとき、山札からカードを３枚引き、そのうち１枚を手元に残す。"
    for width in range(20, 60, 3):
        _, lines, _, _ = text.layout(value, width, 200, 11, 11, family, {})
        for line in lines[1:]:
            first = "".join(w.text for w in line.words)[:1]
            assert first not in "、。」）", (width, first)


def test_a_game_font_that_is_not_a_font_is_a_located_error(tmp_path):
    (tmp_path / "fonts").mkdir()
    (tmp_path / "fonts" / "broken.ttf").write_bytes(b"not a font at all" * 10)
    with pytest.raises(PrintshopError, match="not a font printshop can read"):
        fonts.game_font(tmp_path, "fonts/broken.ttf", "style.fonts.broken")
    with pytest.raises(PrintshopError, match="outside"):
        (tmp_path / "link.ttf").symlink_to(SCRIPT_FONTS["Amiri-Regular.ttf"])
        fonts.game_font(tmp_path, "link.ttf", "style.fonts.link")
