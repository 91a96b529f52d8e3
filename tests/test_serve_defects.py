"""The studio's defects of issue 32, each checked over HTTP (browser ones: test_serve_browser)."""

from __future__ import annotations

import asyncio
import re
import shutil
from pathlib import Path

import pytest

from printshop.files.project import Project

from conftest import EXAMPLE

pytest.importorskip("starlette")
from starlette.testclient import TestClient  # noqa: E402

from printshop.serve.app import create_app  # noqa: E402

GAME = "lantern-fair"
STALLS = f"data/{GAME}/stalls.yaml"


@pytest.fixture
def fair(tmp_path) -> Path:
    root = tmp_path / "fair"
    shutil.copytree(EXAMPLE, root)
    return root


def make(root: Path, **kw) -> TestClient:
    return TestClient(create_app(Project.open(root), watch=False, **kw),
                      base_url="http://127.0.0.1")


def refresh(client: TestClient) -> None:
    client.app.state.studio.studio.refresh(GAME)


def test_1_the_header_and_the_tab_title_carry_the_problems(fair):
    client = make(fair)
    page = client.get(f"/games/{GAME}").text
    assert 'id="badge"' in page and "all rules pass" in page
    assert "<title>Lantern Fair</title>" in page
    stalls = fair / STALLS
    stalls.write_text(stalls.read_text().replace('cost: 3, text: "Each', 'cost: 9, text: "Each'))
    refresh(client)
    bar = client.get(f"/fragments/{GAME}/bar").text
    assert 'class="badge error"' in bar and 'data-title="(does not load) Lantern Fair"' in bar
    card_bar = client.get(f"/fragments/{GAME}/bar?card=stalls/goldfish").text
    assert "(does not load) Goldfish Scoop · Lantern Fair" in card_bar


def test_2_title_breadcrumb_heading_and_counts_follow_the_data(fair):
    client = make(fair)
    stalls = fair / STALLS
    stalls.write_text(stalls.read_text().replace("name: Ring Toss", "name: Hoop Toss")
                      + "  - {id: tea, name: Tea House, stall: food, cost: 1, text: Calm.}\n")
    manifest = fair / f"data/{GAME}/game.yaml"
    manifest.write_text(re.sub(r"(?m)^name: .*$", "name: Lantern Night", manifest.read_text(),
                               count=1))
    refresh(client)
    bar = client.get(f"/fragments/{GAME}/bar?card=stalls/ring-toss").text
    assert "Hoop Toss · Lantern Night" in bar and ">Hoop Toss</span>" in bar
    assert ">Lantern Night</a>" in bar
    head = client.get(f"/fragments/{GAME}/head").text
    assert "<h1>Lantern Night</h1>" in head and "25 cards and tokens" in head
    assert 'data-watch="any problems"' in head


def test_3_the_event_stream_says_which_studio_and_versions_a_page_talks_to(fair):
    app = create_app(Project.open(fair), watch=False)
    studio = app.state.studio

    async def first_two():
        stream = studio.events.stream(None, {"type": "hello", "instance": studio.instance})
        out = [await stream.__anext__(), await stream.__anext__()]
        await stream.aclose()
        return out
    retry, hello = asyncio.run(first_two())
    assert hello.startswith("event: hello") and studio.instance in hello
    page = make(fair).get(f"/games/{GAME}").text
    assert re.search(r'data-instance="[0-9a-f]{16}"', page)


def test_5_a_renamed_card_says_so_and_links_the_card_now_at_its_line(fair):
    client = make(fair)
    detail = client.get(f"/fragments/{GAME}/card-detail/stalls/goldfish?line=5").text
    assert "Goldfish Scoop" in detail
    stalls = fair / STALLS
    stalls.write_text(stalls.read_text().replace("id: goldfish,", "id: goldfish-scoop,"))
    refresh(client)
    gone = client.get(f"/fragments/{GAME}/card-detail/stalls/goldfish?line=5")
    assert gone.status_code == 200 and "no card <code>goldfish</code>" in gone.text
    assert f'href="/games/{GAME}/cards/stalls/goldfish-scoop"' in gone.text
    assert 'data-watch="any"' in gone.text    # renamed back, the card comes back


def test_9_a_yaml_error_links_the_card_of_the_file_as_it_is_now(fair):
    client = make(fair)
    stalls = fair / STALLS
    lines = stalls.read_text().splitlines()
    new = ["  - {id: tea, name: Tea House, stall: food, cost: 1, text: Calm.}",
           "  - {id: pie, name: Pie Stand, stall: food, cost: 2, text: Sweet.}"]
    lines[1:1] = new                           # every card moves down two lines
    lines = [ln.replace("cost: 3, text:", "cost: [3, text:") if "goldfish" in ln else ln
             for ln in lines]
    stalls.write_text("\n".join(lines) + "\n")
    refresh(client)
    problems = client.get(f"/api/games/{GAME}/problems").json()
    assert [(p["where"], p["card"]) for p in problems] == [(f"{STALLS}:7", "goldfish")]
    # (the last good version has fireworks at line 7)


def test_10_a_template_failing_on_every_card_is_one_row_linking_the_cards(fair):
    client = make(fair)
    template = fair / f"templates/{GAME}/stall.svg.j2"
    template.write_text(template.read_text() + "\n{{ card.nope }}\n")
    refresh(client)
    client.get(f"/games/{GAME}")
    rows = client.get(f"/api/games/{GAME}/problems").json()
    assert len(rows) == 1 and len(rows[0]["cards"]) == 6
    assert rows[0]["cards"][0]["link"] == f"/games/{GAME}/cards/stalls/noodle-cart"
    panel = client.get(f"/fragments/{GAME}/problems").text
    assert "on 6 cards" in panel and panel.count('class="goto"') == 6
    assert "1 problem" in client.get(f"/fragments/{GAME}/bar").text


MANIFEST = f"data/{GAME}/game.yaml"


def test_11_a_missing_closing_quote_is_named_at_its_line_by_validate_and_the_studio(fair):
    from click.testing import CliRunner

    from printshop.cli import main

    manifest = fair / MANIFEST
    text = manifest.read_text()
    line = text.splitlines().index('players: "1-2"') + 1
    manifest.write_text(text.replace('players: "1-2"', 'players: "1-2'))
    expected = (f"{MANIFEST}:{line}: players: the quoted text opened here runs on over the "
                "keys icons, style")
    result = CliRunner().invoke(main, ["validate", "--project", str(fair)])
    assert result.exit_code == 1 and expected in result.output
    assert "1 error," in result.output     # not the icons and colours the text took
    client = make(fair)
    summary = client.get(f"/api/games/{GAME}").json()
    assert summary["status"] == "error"
    rows = client.get(f"/api/games/{GAME}/problems").json()
    assert [(r["where"], r["key"]) for r in rows] == [(f"{MANIFEST}:{line}", "players")]
    assert "closing quote missing" in rows[0]["message"]
    assert "closing quote missing" in client.get(f"/games/{GAME}").text


def test_11_a_key_word_in_a_one_line_text_is_no_missing_quote(fair):
    manifest = fair / MANIFEST    # (the manifest has no description)
    manifest.write_text(manifest.read_text().replace(
        "subtitle: A pocket example for printshop", 'subtitle: "See the description: below"'))
    assert make(fair).get(f"/api/games/{GAME}").json()["status"] == "ok"


def test_12_a_card_page_says_when_it_shows_the_last_version_that_loaded(fair):
    client = make(fair)
    stalls = fair / STALLS
    stalls.write_text(stalls.read_text().replace('cost: 3, text: "Each', 'cost: 9, text: "Each'))
    refresh(client)
    page = client.get(f"/games/{GAME}/cards/stalls/goldfish").text
    assert "The game does not load" in page and f"{STALLS}:5" in page
    assert "from the last version that did" in page


def test_14_a_refused_download_links_the_cards_and_follows_saves(fair):
    client = make(fair)
    coins = fair / f"data/{GAME}/coins.yaml"
    coins.write_text(coins.read_text().replace("value: 3", "value: 1"))
    refresh(client)
    token = client.app.state.studio.token
    refused = client.post(f"/games/{GAME}/download/{GAME}-print-and-play.pdf",
                          data={"token": token}, headers={"sec-fetch-site": "same-origin"})
    assert refused.status_code == 422
    assert f'href="/games/{GAME}/cards/coins/three"' in refused.text
    assert 'id="problems"' in refused.text and 'data-watch="problems"' in refused.text
    assert f'action="/games/{GAME}/download/{GAME}-print-and-play.pdf"' in refused.text


def test_15_pages_name_their_pictures_and_announce_changes(fair):
    page = make(fair).get(f"/games/{GAME}").text
    assert 'aria-live="polite"' in page and 'class="skip" href="#main"' in page
    assert 'role="img" aria-label="Noodle Cart, front"' in page
    assert page.count('tabindex="-1" aria-hidden="true"') == 8   # one tab stop per card
    assert 'id="live"' in page and ">offline</span>" in page    # words, not colour alone


def test_16_search_covers_field_values(fair):
    page = make(fair).get(f"/games/{GAME}").text
    tile = re.search(r'data-card="stalls/goldfish"[^>]*data-search="([^"]*)"', page).group(1)
    assert "each opponent pays you" in tile and "games" in tile


def test_17_the_terminal_says_each_reload_error_and_fix(fair):
    said: list[str] = []
    app = create_app(Project.open(fair), watch=False, say=said.append)
    studio = app.state.studio
    stalls = fair / STALLS
    good = stalls.read_text()

    def save(text):
        stalls.write_text(text)
        asyncio.run(studio.apply({stalls}))
    save(good.replace("name: Ring Toss", "name: Hoop Toss"))
    save(good.replace('cost: 3, text: "Each', 'cost: 9, text: "Each'))
    save(good)
    assert len(said) == 3, said
    assert said[0].endswith(f"{GAME}: reloaded")
    assert f"{GAME}: does not load: {STALLS}:5: " in said[1]
    assert said[2].endswith(f"{GAME}: fixed, loads again")
    assert all(re.match(r"\d\d:\d\d:\d\d ", line) for line in said)


def big(root: Path, cards: int) -> None:
    rows = [f"  - {{id: c{n}, name: Stall {n}, stall: food, cost: 1, text: \"Card {n}.\"}}"
            for n in range(cards)]
    (root / STALLS).write_text("cards:\n" + "\n".join(rows) + "\n")


def test_a_big_deck_draws_only_its_first_cards_into_the_page(fair):
    big(fair, 120)
    client = make(fair)
    studio = client.app.state.studio
    page = client.get(f"/games/{GAME}", headers={"accept-encoding": "gzip"})
    assert page.headers["content-encoding"] == "gzip"
    assert page.text.count('class="tile lazy"') == 120 - studio.eager_tiles
    assert 'id="component-aid" data-component="aid" data-watch="component:aid" data-lazy' \
        in page.text                    # sheets too are drawn as they come into view
    assert studio.studio.drawn_count == studio.eager_tiles + 2     # and the two coins
    lazy = re.search(r'<article class="tile lazy" id="card-stalls-c119"[^>]*>', page.text).group()
    assert 'data-search="c119 stall 119 food 1 card 119."' in lazy
    assert 'data-fragment="/fragments/lantern-fair/card/stalls/c119"' in lazy
    template = fair / f"templates/{GAME}/stall.svg.j2"
    template.write_text(template.read_text() + "\n")
    change = studio.studio.load(GAME)
    assert len(change.cards) == 122 and studio.studio.drawn_count == studio.eager_tiles + 2


class Started:
    """Stand-in for subprocess.Popen: records the editor command instead of running it."""

    def __init__(self):
        self.calls = []

    def __call__(self, args, **kw):
        self.calls.append(args)


@pytest.mark.parametrize("editor, expected", [
    ("vim", ["vim", "+5", "{path}"]), ("code", ["code", "-g", "{path}:5"]),
    ("myedit --at {line} {file}", ["myedit", "--at", "5", "{path}"])])
def test_open_in_editor_runs_the_editor_at_the_line_behind_the_token(fair, editor, expected):
    client = make(fair, editor=editor)
    studio = client.app.state.studio
    started = studio.run_editor = Started()
    page = client.get(f"/games/{GAME}/cards/stalls/goldfish").text
    assert f'data-file="{STALLS}" data-line="5"' in page
    assert f'<meta name="studio-token" content="{studio.token}">' in page
    url = f"/api/open?file={STALLS}&line=5"
    assert client.post(url).status_code == 403                         # no token
    assert client.post(url, headers={"x-studio-token": studio.token,
                                     "sec-fetch-site": "cross-site"}).status_code == 403
    assert client.get(url).status_code == 405
    assert started.calls == []
    ok = client.post(url, headers={"x-studio-token": studio.token,
                                   "sec-fetch-site": "same-origin"})
    assert ok.status_code == 200 and ok.json()["opened"] == STALLS
    path = str(fair / STALLS)
    assert started.calls == [[w.replace("{path}", path) for w in expected]]
    for bad in ("../secret.txt", "/etc/passwd", "output/x.pdf", "data/nope.yaml",
                "data/%2e%2e/x"):
        refused = client.post(f"/api/open?file={bad}&line=1",
                              headers={"x-studio-token": studio.token})
        assert refused.status_code == 422
    assert len(started.calls) == 1


def test_the_card_page_links_the_previous_and_next_card(fair):
    page = make(fair).get(f"/games/{GAME}/cards/stalls/ring-toss").text
    assert f'rel="prev" href="/games/{GAME}/cards/stalls/sweet-buns"' in page
    assert f'rel="next" href="/games/{GAME}/cards/stalls/goldfish"' in page
    assert "card 3 of 6" in page


def test_card_tiles_carry_a_badge_when_problems_name_them(fair):
    client = make(fair)
    coins = fair / f"data/{GAME}/coins.yaml"
    coins.write_text(coins.read_text().replace("value: 3", "value: 1"))
    refresh(client)
    page = client.get(f"/games/{GAME}").text
    three = re.search(r'id="card-coins-three".*?</article>', page, re.S).group()
    one = re.search(r'id="card-coins-one".*?</article>', page, re.S).group()
    assert 'class="flag"' in three and 'class="flag"' not in one


def test_the_game_page_states_its_rule_status_once(fair):
    client = make(fair)
    page = client.get(f"/games/{GAME}").text
    assert page.count("all rules pass") == 1 and page.count('class="pill') == 0
    coins = fair / f"data/{GAME}/coins.yaml"
    coins.write_text(coins.read_text().replace("value: 3", "value: 1"))
    refresh(client)
    page = client.get(f"/games/{GAME}").text
    assert page.count('class="badge') == 1 and page.count('class="pill') == 0
    assert page.count(">1 problem</a>") == 1 and "all rules pass" not in page
    head = client.get(f"/fragments/{GAME}/head").text
    assert "1 problem" not in head and "rules pass" not in head
