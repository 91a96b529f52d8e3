"""Text layout: wrapping with the real fonts, shrink to fit, the 6 pt floor, icons, Unicode."""

from __future__ import annotations

import re

import pytest

from printshop.load import fonts
from printshop.draw import text


def tspans(svg: str) -> list[tuple[float, float, str]]:
    return [(float(x), float(y), t) for x, y, t in
            re.findall(r'<tspan x="([-\d.]+)" y="([-\d.]+)"[^>]*>([^<]*)</tspan>', str(svg))]


def test_long_text_wraps_inside_its_box():
    words = "the river floods the valley and the farmers move to the hills " * 3
    svg = text.text_box(words, 10, 10, 40, 60, size=10)
    spans = tspans(svg)
    lines = sorted({y for _, y, _ in spans})
    assert len(lines) > 3
    for x, y, t in spans:
        width = text.text_width(t, 10)
        assert 10 - 1e-6 <= x and x + width <= 50 + 1e-6
        assert 10 <= y <= 70


def test_text_shrinks_to_fit_but_never_below_six_points():
    long = "word " * 60
    pt, lines, widest, em = text.layout(long, 40, 30, 12, 6, "body", {})
    assert 6 <= pt < 12
    with pytest.raises(text.TextError, match="does not fit"):
        text.layout(long * 4, 40, 30, 12, 6, "body", {})
    with pytest.raises(text.TextError, match="below the 6.0pt"):
        text.text_box("x", 0, 0, 10, 10, min_size=5)


def test_measurement_matches_the_font_advances():
    face = fonts.face("body")
    assert text.text_width("MMMM", 10) == pytest.approx(4 * face.widths[ord("M")] * 10 * text.PT)
    assert text.text_width("iiii", 10) < text.text_width("MMMM", 10)


def test_inline_icons_sit_on_the_baseline():
    icons = {"food": '<circle cx="50" cy="50" r="40"/>'}
    svg = str(text.text_box("Gain :food: now", 0, 0, 60, 10, size=10, icons=icons))
    (x, y, _), = [s for s in tspans(svg) if s[2].startswith("Gain")]
    m = re.search(r'translate\(([-\d.]+) ([-\d.]+)\) scale\(([-\d.]+)\)', svg)
    icon_x, icon_top, scale = (float(v) for v in m.groups())
    em = 10 * text.PT
    assert icon_x > x + text.text_width("Gain ", 10) - 0.1
    # The icon spans the cap height and rests just below the baseline.
    assert icon_top < y < icon_top + 100 * scale
    assert abs((icon_top + 100 * scale) - (y + 0.19 * em)) < 0.1 * em
    unknown = str(text.text_box("Gain :gold: now", 0, 0, 60, 10, icons=icons))
    assert ":gold:" in unknown


def test_bold_markup_switches_weight():
    svg = str(text.text_box("plain **strong** plain", 0, 0, 80, 10))
    assert re.search(r'font-weight="bold"[^>]*>strong<', svg)


def test_accents_and_suit_symbols_are_drawn_by_shipped_fonts():
    svg = str(text.text_box("Élodie's café ♠♥♦♣ Ærø ñ", 0, 0, 80, 10, font="title"))
    assert "♠♥♦♣" in svg and "Élodie" in svg


def test_characters_no_font_can_draw_are_an_error():
    with pytest.raises(text.TextError, match="U\\+6F22"):
        text.text_box("kanji \u6f22", 0, 0, 80, 10)


def test_markup_in_text_is_escaped():
    svg = str(text.text_box('<script>&"</script>', 0, 0, 80, 10))
    assert "<script>" not in svg and "&lt;script&gt;" in svg


def test_shipped_metrics_match_the_font_files():
    for faces in fonts.FAMILIES.values():
        for file in faces.values():
            assert fonts.metrics_file(file).is_file(), file
    for family, weight in (("body", "normal"), ("body", "bold"), ("title", "bold"),
                           ("Symbola", "normal")):
        file = fonts.FAMILIES[fonts.resolve_family(family)][weight]
        assert fonts.face(family, weight) == fonts.read_metrics(file)


def test_a_line_of_words_in_one_face_is_one_run_spaced_as_measured():
    """Words that the font's own space separates are drawn in one call; bold, an icon or a
    new line starts another run, each where the layout measured it."""
    icons = {"food": '<circle cx="50" cy="50" r="40"/>'}
    svg = str(text.text_box("the river **floods** the valley :food: at dawn", 0, 0, 200, 10,
                            size=10, icons=icons))
    spans = tspans(svg)
    assert [t for _, _, t in spans] == ["the river", "floods", "the valley", "at dawn"]
    assert spans[1][0] == pytest.approx(text.text_width("the river ", 10), abs=1e-3)
    assert spans[2][0] == pytest.approx(text.text_width("the river ", 10) + text.text_width(
        "floods", 10, weight="bold") + text.text_width(" ", 10), abs=1e-3)
    wrapped = tspans(text.text_box("one two three four five six", 0, 0, 20, 30, size=10))
    assert len({y for _, y, _ in wrapped}) == len(wrapped) > 1     # a run per line


@pytest.mark.parametrize("width", [18, 25, 33, 47])
def test_text_lines_counts_the_lines_text_sets(width):
    """A template sizes a row by text_lines(): it must break exactly as text() does, with
    bold, icons and a forced line break, or the row clips or gapes."""
    icons = {"food": '<circle cx="50" cy="50" r="40"/>'}
    sample = ("Gain 2 :food: when a **Farm** floods; each City beside the Sea loses 1 :food:."
              "\nThen refill the dock from the deck.")
    svg = str(text.text_box(sample, 0, 0, width, 200, size=8, min_size=8, icons=icons))
    set_lines = len({y for _, y, _ in tspans(svg)})
    assert text.text_lines(sample, width, size=8, icons=icons) == set_lines
    assert text.text_lines("", width) == 0
