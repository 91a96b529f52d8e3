"""printshop serve in a real headless Chromium: cards shown, live edits, problems, screenshots."""

from __future__ import annotations

import shutil
import struct
from pathlib import Path

import pytest

from printshop.export.decklist import deck_list
from printshop.loader import load_game
from printshop.project import Project
from printshop.serve.testing import chromium, have_browser, start_in_thread

from conftest import EXAMPLE

if not have_browser():
    pytest.skip("browser tests need Debian's chromium and chromium-driver "
                "(/usr/bin/chromium, /usr/bin/chromedriver)", allow_module_level=True)
webdriver = pytest.importorskip("selenium.webdriver", reason="browser tests need selenium "
                                "(pip install -e '.[test]')")
from selenium.common.exceptions import (  # noqa: E402
    NoSuchElementException, StaleElementReferenceException)
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import Select, WebDriverWait  # noqa: E402


GAME = "lantern-fair"
STALLS = f"data/{GAME}/stalls.yaml"
WAIT = 15


@pytest.fixture(scope="module")
def studio(tmp_path_factory):
    """A studio over a writable copy of the example project, and a browser looking at it."""
    base = tmp_path_factory.mktemp("browser")
    root = base / "fair"
    shutil.copytree(EXAMPLE, root)
    url, stop = start_in_thread(root, base / "output")
    browser = chromium(base / "profile")
    browser.set_window_size(1400, 1000)
    yield url, root, browser, base
    browser.quit()
    stop()


def wait_for(browser, condition, message):
    # The page swaps a card's element when it is redrawn: an element found a moment before
    # may be gone when it is read, which only means "look again".
    return WebDriverWait(browser, WAIT, ignored_exceptions=(
        NoSuchElementException, StaleElementReferenceException)).until(
            lambda b: condition(b), message)


def visible_tiles(browser, component=None):
    tiles = browser.find_elements(By.CSS_SELECTOR, ".tile")
    return [t for t in tiles if t.is_displayed() and
            (component is None or t.get_attribute("data-component") == component)]


def png_size(path: Path) -> tuple[int, int]:
    head = path.read_bytes()[:24]
    assert head[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", head[16:24])


def test_game_page_shows_as_many_cards_as_the_deck_list(studio):
    url, root, browser, _ = studio
    browser.get(f"{url}/games/{GAME}")
    wait_for(browser, lambda b: "cards shown" in b.find_element(By.ID, "shown").text,
             "the filter bar never counted the cards")
    listed = deck_list(load_game(Project.open(root).game(GAME)))
    for deck in listed.decks:
        tiles = visible_tiles(browser, deck.id)
        assert len(tiles) == len(deck.cards)
        assert sum(int(t.get_attribute("data-copies")) for t in tiles) == deck.total
        for tile, card in zip(tiles, deck.cards):
            assert card.name in tile.text
    distinct = sum(len(d.cards) for d in listed.decks)
    total = sum(d.total for d in listed.decks)
    assert browser.find_element(By.ID, "shown").text == \
        f"{distinct} cards shown ({total} with copies)"
    fonts_ready = browser.execute_async_script(
        "const done = arguments[0]; document.fonts.ready.then(() => done("
        "document.fonts.check('12px \"Linux Libertine O\"') && "
        "document.fonts.check('12px \"DejaVu Sans Condensed\"')))")
    assert fonts_ready, "the page did not load the fonts the PDF embeds"


def test_filter_by_deck_and_search_by_name_or_id(studio):
    url, _, browser, _ = studio
    browser.get(f"{url}/games/{GAME}")
    Select(browser.find_element(By.ID, "filter-component")).select_by_value("coins")
    assert [t.get_attribute("data-card") for t in visible_tiles(browser)] == \
        ["coins/one", "coins/three"]
    Select(browser.find_element(By.ID, "filter-component")).select_by_value("")
    search = browser.find_element(By.ID, "filter-search")
    search.send_keys("toss")
    assert [t.get_attribute("data-card") for t in visible_tiles(browser)] == \
        ["stalls/ring-toss"]
    search.clear()
    search.send_keys("goldfish")
    assert [t.get_attribute("data-card") for t in visible_tiles(browser)] == \
        ["stalls/goldfish"]


def test_an_edit_redraws_the_card_in_place_and_a_broken_file_shows_its_line(studio):
    url, root, browser, _ = studio
    browser.get(f"{url}/games/{GAME}")
    wait_for(browser, lambda b: "on" in b.find_element(By.ID, "live").get_attribute("class"),
             "the page never connected to the event stream")
    browser.execute_script("window.notReloaded = true")
    stalls = root / STALLS
    good = stalls.read_text()
    try:
        stalls.write_text(good.replace("name: Ring Toss", "name: Hoop Toss"))
        wait_for(browser, lambda b: "Hoop Toss" in b.find_element(
            By.ID, "card-stalls-ring-toss").text, "the edited card was not redrawn")
        drawing = browser.find_element(By.CSS_SELECTOR, "#card-stalls-ring-toss .face.front svg")
        assert "Hoop" in drawing.get_attribute("innerHTML")  # the drawing, not only the label
        assert browser.execute_script("return window.notReloaded") is True

        stalls.write_text(good.replace('cost: 3, text: "Each', 'cost: 9, text: "Each'))
        wait_for(browser, lambda b: f"{STALLS}:5" in b.find_element(By.ID, "problems").text,
                 "the problem never appeared")
        panel = browser.find_element(By.ID, "problems").text
        assert "cards[3].cost" in panel and "got 9" in panel and "does not load" in panel
        link = browser.find_element(By.CSS_SELECTOR, "#problems a.goto")
        assert link.get_attribute("href").endswith(f"/games/{GAME}/cards/stalls/goldfish")
        assert len(visible_tiles(browser)) == 8  # the last good cards stay on screen
        assert browser.execute_script("return window.notReloaded") is True
    finally:
        stalls.write_text(good)
    wait_for(browser, lambda b: "every rule passes" in b.find_element(By.ID, "problems").text,
             "the page did not recover when the file was fixed")
    wait_for(browser, lambda b: "Ring Toss" in b.find_element(
        By.ID, "card-stalls-ring-toss").text, "the card did not come back")
    assert browser.execute_script("return window.notReloaded") is True


def test_screenshots_of_the_game_page_and_a_card_page(studio):
    url, _, browser, base = studio
    browser.get(f"{url}/games/{GAME}")
    browser.execute_async_script("document.fonts.ready.then(arguments[0])")
    game_png = base / "game-page.png"
    browser.save_screenshot(str(game_png))
    browser.get(f"{url}/games/{GAME}/cards/stalls/fireworks")
    browser.execute_async_script("document.fonts.ready.then(arguments[0])")
    assert "Fireworks Café" in browser.find_element(By.TAG_NAME, "h1").text
    assert f"{STALLS}:7" in browser.find_element(By.ID, "card-detail").text
    faces = browser.find_elements(By.CSS_SELECTOR, ".large .face svg")
    assert len(faces) == 2 and all(f.size["width"] > 200 for f in faces)
    card_png = base / "card-page.png"
    browser.save_screenshot(str(card_png))
    for png in (game_png, card_png):
        assert png_size(png) == (1400, 1000) or png_size(png)[0] >= 1000
        assert png.stat().st_size > 20_000  # drawn cards, not a blank page
