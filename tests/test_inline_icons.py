"""Icons drawn inside text (`:name:`) take colours as icon(..., color=) does: currentColor in
their fills and strokes becomes the text's colour, or icon_color when the template names one."""

from __future__ import annotations

import re
import tempfile
from pathlib import Path

from printshop.draw.templates import make_environment

WAVE = ('<path d="M5 60 Q20 40 35 60" fill="none" stroke="currentColor" stroke-width="9"/>'
        '<circle cx="50" cy="30" r="10" fill="currentColor"/>')


def drawn(source: str) -> str:
    tmp = Path(tempfile.gettempdir())
    env = make_environment([tmp], {"wave": WAVE})
    return env.from_string(source).render()


def icon_group(svg: str) -> str:
    found = re.search(r'<g transform="translate[^>]*>.*?</g>', svg)
    assert found, svg
    return found.group(0)


def test_inline_icon_takes_the_text_colour_for_fill_and_stroke():
    icon = icon_group(drawn("{{ text('Gain :wave: now', 0, 0, 60, 10, color='#2f6f8f') }}"))
    assert 'stroke="#2f6f8f"' in icon and 'fill="#2f6f8f"' in icon
    assert "currentColor" not in icon


def test_icon_color_overrides_the_text_colour_in_text():
    icon = icon_group(drawn("{{ text('Gain :wave:', 0, 0, 60, 10, color='#222222', "
                            "icon_color='#b5522b') }}"))
    assert 'stroke="#b5522b"' in icon and 'fill="#b5522b"' in icon
    assert "#222222" not in icon


def test_inline_icons_match_icon_helper_colouring():
    inline = icon_group(drawn("{{ text(':wave:', 0, 0, 60, 10, icon_color='#6b4f9a') }}"))
    alone = drawn("{{ icon('wave', 0, 0, 8, color='#6b4f9a') }}")
    strokes = lambda svg: re.findall(r'(?:fill|stroke)="([^"]+)"', svg)  # noqa: E731
    assert set(strokes(inline)) == set(strokes(alone)) == {"#6b4f9a", "none"}


def test_flowed_text_icons_take_the_body_colour():
    svg = drawn("{{ flow([{'heading': 'Turn', 'body': 'Take :wave: now.'}], 0, 0, 120, 100, "
                "page={'index': 0, 'count': 1}, color='#123456', heading_color='#654321') }}")
    assert 'stroke="#123456"' in icon_group(svg) and "currentColor" not in svg
