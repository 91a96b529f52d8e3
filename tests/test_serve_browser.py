"""printshop serve in a real headless Chromium: cards shown, live edits, problems, screenshots."""

from __future__ import annotations

import shutil
import struct
from pathlib import Path

import pytest

from printshop.export.decklist import deck_list
from printshop.load.loader import load_game
from printshop.files.project import Project
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


def wait_for(browser, condition, message, timeout=WAIT):
    # The page swaps a card's element when it is redrawn: an element found a moment before
    # may be gone when it is read, which only means "look again".
    return WebDriverWait(browser, timeout, ignored_exceptions=(
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
    assert len(faces) == 2 and faces[0].size["width"] > 300   # the back shows when turned
    assert not faces[1].is_displayed()
    card_png = base / "card-page.png"
    browser.save_screenshot(str(card_png))
    for png in (game_png, card_png):
        assert png_size(png) == (1400, 1000) or png_size(png)[0] >= 1000
        assert png.stat().st_size > 20_000  # drawn cards, not a blank page


# Issue 32's defects, as a designer meets them in the browser.

def live_page(browser, url):
    browser.get(url)
    wait_for(browser, lambda b: "on" in b.find_element(By.ID, "live").get_attribute("class"),
             "the page never connected to the event stream")
    browser.execute_script("window.notReloaded = true")


def test_defect_1_2_an_error_shows_in_the_header_and_tab_title_when_scrolled_down(studio):
    url, root, browser, base = studio
    live_page(browser, f"{url}/games/{GAME}")
    browser.execute_script("window.scrollTo(0, document.body.scrollHeight)")
    stalls = root / STALLS
    good = stalls.read_text()
    try:
        stalls.write_text(good.replace('cost: 3, text: "Each', 'cost: 9, text: "Each'))
        wait_for(browser, lambda b: b.title.startswith("(does not load)"),
                 "the tab title did not say the game does not load")
        badge = browser.find_element(By.ID, "badge")
        assert badge.text == "does not load" and badge.is_displayed()
        top = browser.execute_script("return arguments[0].getBoundingClientRect().top", badge)
        assert 0 <= top < 100                    # in the viewport, on the sticky bar
        browser.save_screenshot(str(base / "error-scrolled.png"))
    finally:
        stalls.write_text(good)
    wait_for(browser, lambda b: b.title == "Lantern Fair", "the title did not recover")
    stalls.write_text(good + "  - {id: tea, name: Tea House, stall: food, cost: 1, "
                      "text: Calm.}\n")
    try:
        wait_for(browser, lambda b: "25 cards and tokens" in b.find_element(
            By.ID, "game-head").text, "the heading kept the old card count")
    finally:
        stalls.write_text(good)
    wait_for(browser, lambda b: "24 cards and tokens" in b.find_element(
        By.ID, "game-head").text, "the heading did not follow the removal")
    assert browser.execute_script("return window.notReloaded") is True


def test_defect_2_5_the_card_page_follows_a_rename_and_says_when_its_id_changed(studio):
    url, root, browser, base = studio
    live_page(browser, f"{url}/games/{GAME}/cards/stalls/goldfish")
    stalls = root / STALLS
    good = stalls.read_text()
    try:
        stalls.write_text(good.replace("name: Goldfish Scoop", "name: Goldfish Pond"))
        wait_for(browser, lambda b: b.title == "Goldfish Pond · Lantern Fair",
                 "the tab title kept the old name")
        assert "Goldfish Pond" in browser.find_element(By.CSS_SELECTOR, ".crumbs").text
        assert browser.find_element(By.CSS_SELECTOR, "#card-detail h1").text == \
            "Goldfish Pond"
        stalls.write_text(good.replace("id: goldfish,", "id: goldfish-pond,"))
        wait_for(browser, lambda b: "no card" in b.find_element(By.ID, "card-detail").text,
                 "a renamed id left the page without a word")
        link = browser.find_element(By.CSS_SELECTOR, "#card-detail a[href$='/goldfish-pond']")
        assert "Goldfish Scoop" in link.text
        opacity = browser.execute_script(
            "return getComputedStyle(document.getElementById('card-detail')).opacity")
        assert float(opacity) == 1.0
        browser.save_screenshot(str(base / "renamed.png"))
    finally:
        stalls.write_text(good)
    wait_for(browser, lambda b: b.find_elements(By.CSS_SELECTOR, "#card-detail .large"),
             "the card did not come back when its id did")


def test_defect_3_a_restarted_studio_brings_the_page_up_to_date(tmp_path):
    root = tmp_path / "fair"
    shutil.copytree(EXAMPLE, root)
    url, stop = start_in_thread(root, tmp_path / "output")
    port = int(url.rsplit(":", 1)[1])
    browser = chromium(tmp_path / "profile")
    try:
        live_page(browser, f"{url}/games/{GAME}")
        first = browser.find_element(By.TAG_NAME, "body").get_attribute("data-instance")
        stop()
        stalls = root / STALLS
        stalls.write_text(stalls.read_text().replace("name: Ring Toss", "name: Hoop Toss"))
        url, stop = start_in_thread(root, tmp_path / "output", port=port)
        wait_for(browser, lambda b: b.find_element(By.TAG_NAME, "body").get_attribute(
            "data-instance") != first, "the page did not notice the restart")
        assert "Hoop Toss" in browser.find_element(By.ID, "card-stalls-ring-toss").text
    finally:
        browser.quit()
        stop()


def test_defect_6_a_link_to_a_component_lands_below_the_sticky_bars(studio):
    url, _, browser, _ = studio
    browser.get(f"{url}/games/{GAME}#component-coins")
    browser.execute_async_script("document.fonts.ready.then(arguments[0])")
    browser.execute_script("document.getElementById('component-coins').scrollIntoView()")
    heading = browser.find_element(By.CSS_SELECTOR, "#component-coins h2")
    top = browser.execute_script("return arguments[0].getBoundingClientRect().top", heading)
    bars = browser.execute_script(
        "return Math.max(document.getElementById('bar').getBoundingClientRect().bottom,"
        " document.getElementById('filters').getBoundingClientRect().bottom)")
    assert top >= bars, f"the heading is under the bars ({top} < {bars})"


def test_defect_7_13_keyboard_focus_stays_and_the_changed_card_is_highlighted(studio):
    url, root, browser, _ = studio
    live_page(browser, f"{url}/games/{GAME}")
    name = browser.find_element(By.CSS_SELECTOR, "#card-stalls-ring-toss a.name")
    browser.execute_script("arguments[0].focus()", name)
    stalls = root / STALLS
    good = stalls.read_text()
    try:
        stalls.write_text(good.replace("name: Ring Toss", "name: Hoop Toss"))
        wait_for(browser, lambda b: "Hoop Toss" in b.find_element(
            By.ID, "card-stalls-ring-toss").text, "the edited card was not redrawn")
        tile = browser.find_element(By.ID, "card-stalls-ring-toss")
        assert "flash" in tile.get_attribute("class")
        focused = browser.execute_script("return document.activeElement")
        assert focused.get_attribute("href").endswith("/cards/stalls/ring-toss")
        assert focused.text == "Hoop Toss"
    finally:
        stalls.write_text(good)
    wait_for(browser, lambda b: "Ring Toss" in b.find_element(
        By.ID, "card-stalls-ring-toss").text, "the card did not come back")


def test_defect_8_the_card_page_fits_800_pixels(studio):
    url, _, browser, base = studio
    browser.set_window_size(800, 900)
    try:
        browser.get(f"{url}/games/{GAME}/cards/stalls/fireworks")
        browser.execute_async_script("document.fonts.ready.then(arguments[0])")
        inner = browser.execute_script("return document.documentElement.clientWidth")
        wide = browser.execute_script("return document.documentElement.scrollWidth")
        assert wide <= inner, f"the page is {wide} px wide in a {inner} px window"
        facts = browser.find_element(By.CSS_SELECTOR, ".facts").size["width"]
        assert facts > 500
        browser.save_screenshot(str(base / "card-800.png"))
    finally:
        browser.set_window_size(1400, 1000)


def test_defect_16_search_covers_field_values_and_stays_in_the_url(studio):
    url, _, browser, _ = studio
    browser.get(f"{url}/games/{GAME}")
    search = browser.find_element(By.ID, "filter-search")
    search.send_keys("opponent")                      # words of a card's text
    assert [t.get_attribute("data-card") for t in visible_tiles(browser)] == \
        ["stalls/goldfish"]
    assert "q=opponent" in browser.current_url
    browser.refresh()
    assert browser.find_element(By.ID, "filter-search").get_attribute("value") == "opponent"
    assert [t.get_attribute("data-card") for t in visible_tiles(browser)] == \
        ["stalls/goldfish"]


def test_defect_15_the_live_indicator_speaks_and_cards_have_names(studio):
    url, _, browser, _ = studio
    live_page(browser, f"{url}/games/{GAME}")
    assert browser.find_element(By.ID, "live").text == "live"
    face = browser.find_element(By.CSS_SELECTOR, "#card-stalls-goldfish .face.front")
    assert face.get_attribute("role") == "img"
    assert face.get_attribute("aria-label") == "Goldfish Scoop, front"
    link = browser.find_element(By.CSS_SELECTOR, "#card-stalls-goldfish a.name")
    assert browser.execute_script("return arguments[0].textContent", link) == "Goldfish Scoop"


def test_a_big_decks_later_cards_are_drawn_as_they_come_into_view(tmp_path):
    root = tmp_path / "fair"
    shutil.copytree(EXAMPLE, root)
    rows = [f"  - {{id: c{n}, name: Stall {n}, stall: food, cost: 1, text: \"Card {n}.\"}}"
            for n in range(150)]     # two grids: GRID_CHUNK tiles and 30
    (root / STALLS).write_text("cards:\n" + "\n".join(rows) + "\n")
    url, stop = start_in_thread(root, tmp_path / "output")
    browser = chromium(tmp_path / "profile")
    try:
        browser.get(f"{url}/games/{GAME}")
        last = browser.find_element(By.ID, "card-stalls-c149")
        assert last.get_attribute("data-lazy") is not None
        browser.execute_script("arguments[0].scrollIntoView()", last)
        wait_for(browser, lambda b: b.find_element(By.ID, "card-stalls-c149")
                 .find_elements(By.CSS_SELECTOR, ".face.front svg"),
                 "the last card was never drawn")
        assert len(browser.find_elements(By.CSS_SELECTOR, "#component-stalls > .grid")) == 2
        # a template edit: the cards on screen are drawn again, in place; the first ones, far
        # above, keep their drawing until they come back into view
        template = root / f"templates/{GAME}/stall.svg.j2"
        template.write_text(template.read_text() + "\n<desc>edited-template</desc>\n")
        wait_for(browser, lambda b: "edited-template" in b.find_element(
            By.ID, "card-stalls-c149").get_attribute("innerHTML"),
                 "the last card on screen never showed the edit")
        first = browser.find_element(By.ID, "card-stalls-c0")
        assert "edited-template" not in first.get_attribute("innerHTML")
        assert first.get_attribute("data-lazy") is not None
        assert browser.execute_script("return performance.getEntriesByType('navigation')"
                                      "[0].type") == "navigate"      # not reloaded
        browser.execute_script("arguments[0].scrollIntoView()", first)
        wait_for(browser, lambda b: "edited-template" in b.find_element(
            By.ID, "card-stalls-c0").get_attribute("innerHTML"),
                 "the first card was not drawn again when it came back into view")
        search = browser.find_element(By.ID, "filter-search")
        search.send_keys("stall 14")
        # tiles drawn meanwhile replace their placeholders: read them until they hold still
        found = [f"stalls/c{n}" for n in range(150) if "14" in str(n)]   # 12, in two grids
        wait_for(browser, lambda b: [t.get_attribute("data-card") for t in visible_tiles(b)]
                 == found, "the search did not find the cards of placeholders")
        # the cards found in the deck's two grids flow as one: full rows, one short at the end
        tops = sorted({t.location["y"] for t in visible_tiles(browser)})
        per_row = [sum(1 for t in visible_tiles(browser) if t.location["y"] == y) for y in tops]
        assert len(found) == 12 and all(n == per_row[0] for n in per_row[:-1])
        assert len(tops) == -(-12 // per_row[0]) > 1
    finally:
        browser.quit()
        stop()


def test_open_in_editor_and_next_card_from_the_card_page(studio, monkeypatch):
    url, root, browser, base = studio
    monkeypatch.delenv("EDITOR", raising=False)   # the studio runs in this process: no
    monkeypatch.delenv("VISUAL", raising=False)   # editor is started by the test
    browser.get(f"{url}/games/{GAME}/cards/stalls/ring-toss")
    browser.execute_async_script("document.fonts.ready.then(arguments[0])")
    browser.save_screenshot(str(base / "card-nav.png"))
    button = browser.find_element(By.CSS_SELECTOR, ".source-ref button.open-editor")
    assert button.get_attribute("data-line") == "4"
    button.click()     # no editor in the test environment: the page reports the refusal
    wait_for(browser, lambda b: "no editor" in b.find_element(
        By.CSS_SELECTOR, ".source-ref button.open-editor").get_attribute("title"),
             "the page did not report the missing editor")
    browser.find_element(By.TAG_NAME, "body").send_keys("]")
    wait_for(browser, lambda b: b.current_url.endswith("/cards/stalls/goldfish"),
             "] did not go to the next card")


def test_zoom_makes_the_grids_cards_larger_and_stays_in_the_url(studio):
    url, _, browser, base = studio
    browser.get(f"{url}/games/{GAME}")
    before = browser.find_element(By.ID, "card-stalls-goldfish").size["width"]
    browser.execute_script("const z = document.getElementById('zoom'); z.value = 300;"
                           "z.dispatchEvent(new Event('input'))")
    after = browser.find_element(By.ID, "card-stalls-goldfish").size["width"]
    assert after >= 1.7 * before and "zoom=300" in browser.current_url
    browser.save_screenshot(str(base / "zoomed.png"))


def test_a_sheet_is_drawn_when_it_comes_into_view(studio):
    url, _, browser, _ = studio
    browser.get(f"{url}/games/{GAME}")
    browser.execute_script("document.getElementById('component-aid').scrollIntoView()")
    wait_for(browser, lambda b: b.find_elements(By.CSS_SELECTOR, "#component-aid .paper svg"),
             "the sheet was never drawn")
    assert "How to play" in browser.find_element(By.ID, "component-aid").text


def loaded_images(browser, css):
    return [i for i in browser.find_elements(By.CSS_SELECTOR, css)
            if browser.execute_script("return arguments[0].complete && "
                                      "arguments[0].naturalWidth > 0", i)]


def test_the_print_preview_shows_the_sheets_and_switches_options_in_the_page(studio):
    url, _, browser, base = studio
    browser.get(f"{url}/games/{GAME}/print")
    # (the whole game's sheets are drawn for the preview: slower than a card on a busy machine)
    wait_for(browser, lambda b: len(loaded_images(b, "#print-stalls img")) == 2,
             "the deck's two printed pages never came", 3 * WAIT)
    captions = [c.text for c in browser.find_elements(By.CSS_SELECTOR,
                                                       "#print-stalls figcaption")]
    assert captions == ["page 1 · fronts · 297.0 × 210.0 mm", "page 2 · backs · 297.0 × 210.0 mm"]
    front = browser.find_element(By.CSS_SELECTOR, "#print-stalls img")
    assert abs(front.size["width"] / front.size["height"] - 297 / 210) < 0.02  # A4 landscape
    browser.save_screenshot(str(base / "print-duplex.png"))
    Select(browser.find_element(By.NAME, "backs")).select_by_value("fold")
    wait_for(browser, lambda b: "backs=fold" in b.current_url, "choosing fold did not apply")
    Select(browser.find_element(By.NAME, "paper")).select_by_value("letter")
    wait_for(browser, lambda b: "paper=letter" in b.current_url, "choosing Letter did not apply")
    wait_for(browser, lambda b: len(loaded_images(b, "#print-stalls img")) == 2,
             "the folded pages never came", 3 * WAIT)
    captions = [c.text for c in browser.find_elements(By.CSS_SELECTOR,
                                                       "#print-stalls figcaption")]
    assert captions == ["page 1 · fold · 279.4 × 215.9 mm", "page 2 · fold · 279.4 × 215.9 mm"]
    assert Select(browser.find_element(By.NAME, "backs")).first_selected_option.text \
        == "fold (gutter)"
    browser.save_screenshot(str(base / "print-fold-letter.png"))


def test_the_card_page_turns_over_with_f_and_keeps_the_side_on_the_next_card(studio):
    url, _, browser, base = studio
    browser.get(f"{url}/games/{GAME}/cards/stalls/ring-toss")

    def shown(b):
        return [f.get_attribute("class").split()[1]
                for f in b.find_elements(By.CSS_SELECTOR, ".large .face") if f.is_displayed()]
    assert shown(browser) == ["front"]
    body = browser.find_element(By.TAG_NAME, "body")
    body.send_keys("f")
    wait_for(browser, lambda b: shown(b) == ["back"], "f did not turn the card over")
    assert browser.current_url.endswith("?side=back")
    assert browser.find_element(By.ID, "flip").get_attribute("aria-pressed") == "true"
    browser.save_screenshot(str(base / "card-back.png"))
    body.send_keys(webdriver.common.keys.Keys.ARROW_RIGHT)
    wait_for(browser, lambda b: "/cards/stalls/goldfish?side=back" in b.current_url,
             "the right arrow did not go to the next card")
    wait_for(browser, lambda b: shown(b) == ["back"], "the next card did not show its back")
    browser.find_element(By.ID, "flip").click()
    wait_for(browser, lambda b: shown(b) == ["front"], "the button did not turn it back")
    browser.find_element(By.TAG_NAME, "body").send_keys("[")
    wait_for(browser, lambda b: b.current_url.endswith("/cards/stalls/ring-toss"),
             "[ did not go to the previous card")
