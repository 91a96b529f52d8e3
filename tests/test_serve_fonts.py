"""printshop serve: the page's fonts are subsets made once for the games' characters, every
font a page names is served, and the studio's text responses are compressed."""

from __future__ import annotations

import io
import re
import shutil
import time
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from printshop.load.fonts import FAMILIES, FONT_DIR
from printshop.files.project import builtin_root

starlette = pytest.importorskip("starlette")
pytest.importorskip("fontTools")
from fontTools.ttLib import TTFont  # noqa: E402
from starlette.testclient import TestClient  # noqa: E402

from printshop.files.project import Project  # noqa: E402
from printshop.serve.app import create_app  # noqa: E402
from printshop.serve.state import DECK_KINDS  # noqa: E402
from printshop.serve.webfonts import BASE_CHARS, WebFonts, unicode_range  # noqa: E402

GAME = "pocketciv"   # its cards print characters beyond Latin-1 and punctuation (≥, ▸)
FACE = re.compile(r"@font-face\{([^}]*)\}")
SVG = "{http://www.w3.org/2000/svg}"


@pytest.fixture(scope="module")
def font_cache(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("font-cache")


def studio_over_copy(root: Path, cache: Path) -> TestClient:
    """A studio over a copy of a built-in game, its font cache a folder of its own."""
    for kind in ("data", "templates"):
        shutil.copytree(builtin_root() / kind / GAME, root / kind / GAME)
    app = create_app(Project.open(root), watch=False)
    app.state.studio.webfonts = WebFonts(cache)
    return TestClient(app, base_url="http://127.0.0.1")


@pytest.fixture(scope="module")
def served(tmp_path_factory, font_cache):
    return studio_over_copy(tmp_path_factory.mktemp("fonts-project"), font_cache)


def faces(page: str) -> list[dict]:
    """Return the page's @font-face rules as {family, weight, style, url, range}."""
    out = []
    for body in FACE.findall(page):
        rule = dict(part.split(":", 1) for part in body.split(";"))
        out.append({"family": rule["font-family"].strip('"'), "weight": rule["font-weight"],
                    "style": rule["font-style"],
                    "url": re.fullmatch(r"url\((.*)\)", rule["src"]).group(1),
                    "range": rule.get("unicode-range")})
    return out


def cmap(data: bytes) -> set[int]:
    return set(TTFont(io.BytesIO(data)).getBestCmap())


def card_text(client, game) -> set[str]:
    """Return every character printed on the game's cards, both sides, as the page draws them."""
    chars: set[str] = set()
    for part in game.parts:
        if part.kind not in DECK_KINDS:
            continue
        for card in part.cards:
            for side in ("front", "back") if part.spec.back else ("front",):
                svg = client.get(f"/api/games/{GAME}/cards/{part.id}/{card.id}.svg?side={side}")
                assert svg.status_code == 200, (part.id, card.id, svg.text[:200])
                for text in ET.fromstring(svg.text).iter(f"{SVG}text"):
                    chars.update("".join(text.itertext()))
    return chars - {"\n", "\t"}


def wait_for_subsets(client) -> str:
    studio = client.app.state.studio
    client.get(f"/games/{GAME}")            # the first page starts gathering the characters
    deadline = time.monotonic() + 120
    while studio.font_chars is None and time.monotonic() < deadline:
        time.sleep(0.05)
    assert studio.font_chars, "the games' characters were never gathered"
    made = studio.webfonts.wait(studio.font_chars)
    assert len(made) == sum(len(w) for w in FAMILIES.values()), "not every font was cut"
    return studio.font_chars


def test_before_the_subsets_are_made_the_page_names_the_whole_fonts_only(tmp_path,
                                                                         font_cache):
    client = studio_over_copy(tmp_path, font_cache)        # the cache is still empty
    rules = faces(client.get(f"/games/{GAME}").text)
    whole = {f"/fonts/{file}" for weights in FAMILIES.values() for file in weights.values()}
    assert {r["url"] for r in rules} <= whole and all(r["range"] is None for r in rules)
    for rule in rules:
        assert client.get(rule["url"]).status_code == 200


def test_the_page_gets_small_subsets_holding_every_character_its_cards_print(served):
    wait_for_subsets(served)
    page = served.get(f"/games/{GAME}").text
    rules = faces(page)
    whole = {(r["family"], r["weight"], r["style"]): r for r in rules if r["range"] is None}
    subsets = [r for r in rules if r["range"] is not None]
    # every face has its whole font first (so no character is ever missing) and a subset after
    assert len(whole) == len(subsets) == sum(len(w) for w in FAMILIES.values())
    for r in rules:                         # the page names no font the studio cannot serve
        assert served.get(r["url"]).status_code == 200, r["url"]
    game = served.app.state.studio.studio.state(GAME).game
    printed = card_text(served, game)
    assert len(printed) > 40 and printed - set(BASE_CHARS), "the game prints only base characters"
    total_whole = total_subset = 0
    for r in subsets:
        body = served.get(r["url"]).content
        original = whole[(r["family"], r["weight"], r["style"])]["url"].removeprefix("/fonts/")
        full = (FONT_DIR / original).read_bytes()
        total_whole, total_subset = total_whole + len(full), total_subset + len(body)
        assert len(body) < len(full) / 4, f"{r['url']}: {len(body)} bytes of {len(full)}"
        has, could = cmap(body), cmap(full)
        missing = sorted(c for c in printed if ord(c) in could and ord(c) not in has)
        assert not missing, f"{r['url']} lacks {missing} that the cards print"
        assert r["range"] == unicode_range(has)   # the range says what the subset holds
        name_table = TTFont(io.BytesIO(body))["name"]
        assert name_table.getDebugName(0), "the subset dropped the font's copyright notice"
    assert total_subset < total_whole / 10


def test_a_subset_is_made_once_and_kept_in_the_cache_folder(served, tmp_path):
    chars = wait_for_subsets(served)
    cache = served.app.state.studio.webfonts.store
    kept = sorted(p.name for p in Path(cache).iterdir() if p.name.startswith("font-"))
    again = WebFonts(cache)
    started = time.perf_counter()
    assert sorted(again.subsets(chars).values()) == kept     # found, not made again
    assert time.perf_counter() - started < 5
    assert served.get("/fonts/font-Symbola-0000000000000000.ttf").status_code == 404
    assert served.get("/fonts/..%2Fapp.py").status_code == 404


def test_text_responses_are_compressed(served):
    gz = {"accept-encoding": "gzip"}
    game = served.app.state.studio.studio.state(GAME).game
    deck = next(p for p in game.parts if p.kind in DECK_KINDS)
    for url in (f"/games/{GAME}", "/static/studio.js", "/static/studio.css",
                f"/api/games/{GAME}/cards/{deck.id}/{deck.cards[0].id}.svg"):
        response = served.get(url, headers=gz)
        assert response.status_code == 200 and response.headers["content-encoding"] == "gzip", url
