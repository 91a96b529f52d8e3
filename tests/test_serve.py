"""printshop serve: every route over HTTP, its errors, traversal attempts and live refresh."""

from __future__ import annotations

import asyncio
import csv
import io
import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
import zipfile
from pathlib import Path

import pytest
from pypdf import PdfReader

from printshop.components import RENDERERS
from printshop.export.decklist import FORMATS, deck_list
from printshop.load.geometry import PrintOptions
from printshop.load.loader import load_game
from printshop.files.project import Project

from conftest import EXAMPLE

starlette = pytest.importorskip("starlette")
from starlette.testclient import TestClient  # noqa: E402

from printshop.serve import bind  # noqa: E402
from printshop.serve.app import create_app  # noqa: E402
from printshop.serve.events import Broadcaster  # noqa: E402
from printshop.serve.files import NotServed, read_project_file  # noqa: E402

GAME = "lantern-fair"
STALLS = f"data/{GAME}/stalls.yaml"


def client_for(root: Path, **kw) -> TestClient:
    app = create_app(Project.open(root), watch=False, **kw)
    return TestClient(app, base_url="http://127.0.0.1")


def studio(client: TestClient):
    return client.app.state.studio.studio


def act(client: TestClient, url: str, **headers):
    """POST an action as the studio's own page does: its token, a same-origin request."""
    token = client.app.state.studio.token
    return client.post(url, data={"token": token}, headers={
        "origin": "http://127.0.0.1", "sec-fetch-site": "same-origin", **headers})


def files_of(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file()}


@pytest.fixture
def fair(tmp_path) -> Path:
    """A writable copy of the example project."""
    import shutil
    root = tmp_path / "fair"
    shutil.copytree(EXAMPLE, root)
    return root


@pytest.fixture
def client(fair, tmp_path) -> TestClient:
    return client_for(fair, out_dir=tmp_path / "output")


@pytest.fixture(scope="module")
def builtin_client() -> TestClient:
    return TestClient(create_app(Project.open(None), watch=False), base_url="http://127.0.0.1")


def test_home_lists_every_game_with_components_cards_and_rule_status(builtin_client):
    page = builtin_client.get("/")
    assert page.status_code == 200
    for folder in Project.open(None).games():
        game = load_game(folder)
        assert f'href="/games/{game.id}"' in page.text
        assert game.manifest.name.replace("&", "&amp;") in page.text
    games = builtin_client.get("/api/games").json()
    pocketciv = next(g for g in games if g["id"] == "pocketciv")
    assert pocketciv["status"] == "ok" and pocketciv["problems"] == 0
    assert pocketciv["cards"] == sum(c["cards"] for c in pocketciv["components"])
    assert {c["kind"] for c in pocketciv["components"]} >= {"deck", "tokens", "sheet",
                                                             "booklet"}


def test_game_page_shows_every_distinct_card_of_every_deck_with_its_copies(client):
    page = client.get(f"/games/{GAME}").text
    listed = deck_list(load_game(Project.open(client.app.state.studio.studio.project.root)
                                 .game(GAME)))
    for deck in listed.decks:
        tiles = re.findall(rf'data-card="{deck.id}/([a-z0-9-]+)" data-component="{deck.id}" '
                           r'data-copies="(\d+)"', page)
        assert [t[0] for t in tiles] == [c.id for c in deck.cards]
        assert sum(int(t[1]) for t in tiles) == deck.total
    assert page.count("<svg") >= 2 * 6 + 1  # fronts, backs and the aid sheet
    assert 'id="component-aid"' in page and "How to play" in page
    assert "@font-face" in page and "/fonts/DejaVuSansCondensed.ttf" in page


def test_game_page_draws_boards_whole_and_booklets_page_by_page(builtin_client):
    gods = builtin_client.get("/api/games/playing-gods").json()
    board = next(c for c in gods["components"] if c["kind"] == "board")
    assert len(board["pages"]) == 1  # assembled, not tiled
    svg = builtin_client.get(board["pages"][0])
    assert svg.status_code == 200 and svg.headers["content-type"].startswith("image/svg+xml")
    spec = next(p for p in load_game(Project.open(None).game("playing-gods")).parts
                if p.id == board["id"]).spec
    assert f'width="{spec.size[0]:g}mm"' in svg.text
    civ = builtin_client.get("/api/games/pocketciv").json()
    booklet = next(c for c in civ["components"] if c["kind"] == "booklet")
    assert len(booklet["pages"]) > 2
    assert builtin_client.get(booklet["pages"][-1]).status_code == 200
    assert builtin_client.get(booklet["pages"][-1].replace(
        f"/{len(booklet['pages'])}.svg", f"/{len(booklet['pages']) + 1}.svg")).status_code == 404


def test_served_card_svg_is_the_drawing_the_build_puts_in_the_pdf(client, fair):
    game = load_game(Project.open(fair).game(GAME))
    part = game.part("stalls")
    rendered = RENDERERS["deck"](game, part, PrintOptions())
    for card in part.cards:
        front, back = rendered.faces[card.id]
        for side, face in (("front", front), ("back", back)):
            served = client.get(f"/api/games/{GAME}/cards/stalls/{card.id}.svg",
                                params={"side": side})
            assert served.status_code == 200
            assert served.headers["content-type"].startswith("image/svg+xml")
            body = re.sub(r"^<svg[^>]*><style>[^<]*</style>", "", served.text)
            assert body == face.svg + "</svg>"
            assert 'viewBox="-3 -3 69 94"' in served.text  # poker card with 3 mm bleed
            assert "@font-face" in served.text and "/fonts/LinLibertine_R.otf" in served.text


def test_card_page_shows_the_card_its_data_file_and_line_and_its_problems(client, fair):
    coins = fair / f"data/{GAME}/coins.yaml"
    coins.write_text(coins.read_text().replace("value: 3", "value: 1"))
    studio(client).refresh(GAME)
    page = client.get(f"/games/{GAME}/cards/coins/three")
    assert page.status_code == 200
    assert f"data/{GAME}/coins.yaml:3" in page.text
    assert "one-coin-face-each" in page.text and "value 1 is used by both" in page.text
    assert page.text.count("<svg") == 2
    assert '<span class="ln">3</span>' in page.text  # the card's own lines of the data file
    fine = client.get(f"/games/{GAME}/cards/stalls/ring-toss").text
    assert "No rule names this card" in fine and f"{STALLS}:4" in fine


def test_validation_panel_links_each_problem_to_its_card_or_component(client, fair):
    coins = fair / f"data/{GAME}/coins.yaml"
    coins.write_text(coins.read_text().replace("value: 3", "value: 1"))
    stalls = fair / STALLS
    stalls.write_text(stalls.read_text().replace("stall: lights, cost: 5", "stall: food, "
                                                                             "cost: 5"))
    studio(client).refresh(GAME)
    problems = client.get(f"/api/games/{GAME}/problems").json()
    by_rule = {p["rule"]: p for p in problems}
    assert set(by_rule) == {"one-coin-face-each", "two-of-each"}
    assert by_rule["one-coin-face-each"]["where"] == f"data/{GAME}/coins.yaml:3"
    assert by_rule["one-coin-face-each"]["link"] == f"/games/{GAME}/cards/coins/three"
    assert by_rule["two-of-each"]["link"] == f"/games/{GAME}#component-stalls"
    page = client.get(f"/games/{GAME}").text
    assert f'href="/games/{GAME}/cards/coins/three"' in page
    assert "2 problems" in page
    assert client.get("/api/games").json()[0]["status"] == "problems"


def test_api_game_lists_components_cards_with_their_lines_and_problems(client):
    data = client.get(f"/api/games/{GAME}").json()
    assert [c["id"] for c in data["components"]] == ["stalls", "coins", "aid"]
    stalls = data["components"][0]
    assert stalls["cards"][0] == {
        "id": "noodle-cart", "name": "Noodle Cart", "copies": 1,
        "fields": {"stall": "food", "cost": 1,
                   "text": "Gain :coin: when a neighbour opens a **food** stall."},
        "file": STALLS, "line": 2, "key": stalls["cards"][0]["key"],
        "svg": f"/api/games/{GAME}/cards/stalls/noodle-cart.svg"}
    assert data["problems"] == []
    assert data["components"][2]["pages"] == [f"/api/games/{GAME}/components/aid/1.svg"]


@pytest.mark.parametrize("url", [
    "/games/nope", "/games/nope/cards/a/b", f"/games/{GAME}/cards/stalls/nope",
    f"/games/{GAME}/cards/nope/one", f"/games/{GAME}/map", "/api/games/nope",
    "/api/games/nope/problems", f"/api/games/{GAME}/cards/stalls/nope.svg",
    f"/api/games/{GAME}/cards/stalls/ring-toss.svg?side=sideways",
    f"/api/games/{GAME}/cards/aid/ring-toss.svg", f"/api/games/{GAME}/components/stalls/1.svg",
    f"/api/games/{GAME}/components/aid/0.svg", f"/api/games/{GAME}/components/aid/2.svg",
    f"/games/{GAME}/download/nope.pdf", f"/games/{GAME}/download/components/nope.pdf",
    f"/games/{GAME}/download/decklist.xml", f"/fragments/{GAME}/nope",
    f"/fragments/{GAME}/card/stalls/nope", "/static/nope.css", "/static/studio.py",
    "/fonts/nope.ttf", "/fonts/metrics", "/nope",
])
def test_unknown_things_are_404_with_a_message(client, url):
    response = client.get(url)
    assert response.status_code == 404
    if url.startswith("/api/"):
        assert response.json()["error"]
    else:
        assert "<h1>Not found</h1>" in response.text


SECRET = "top-secret-outside-the-project"


@pytest.mark.parametrize("url", [
    "/static/../../../pyproject.toml", "/static/..%2f..%2f..%2fpyproject.toml",
    "/static/%2e%2e/app.py", "/fonts/..%2f..%2fcli.py", "/fonts/%2e%2e%2fcli.py",
    "/static/..%5c..%5cpyproject.toml", "/static/%00studio.css",
    f"/api/games/{GAME}/cards/stalls/..%2f..%2f..%2fsecret.svg",
    f"/api/games/..%2f..%2f{GAME}/problems", f"/games/{GAME}/cards/stalls/..%2fgame.yaml",
    f"/games/{GAME}/download/..%2f..%2fsecret.txt", f"/games/{GAME}/download/../secret.txt",
    f"/fragments/{GAME}/card/stalls/..%2f..%2f..%2fsecret", "/games/..%2f..%2fsecret.txt",
    "/static/link.css",
])
def test_traversal_attempts_get_404_and_never_a_file(client, fair, url):
    (fair.parent / "secret.txt").write_text(SECRET)
    (fair.parent / "secret.svg").write_text(SECRET)
    response = client.get(url)
    assert response.status_code in (404, 400)
    assert SECRET not in response.text
    assert "[project]" not in response.text and "import " not in response.text


def test_a_symlink_out_of_the_project_is_never_followed(fair, tmp_path):
    outside = tmp_path / "outside.yaml"
    outside.write_text(f"cards:\n  - {{id: leak, name: {SECRET}, value: 1}}\n")
    coins = fair / f"data/{GAME}/coins.yaml"
    coins.unlink()
    coins.symlink_to(outside)
    client = client_for(fair)
    page = client.get(f"/games/{GAME}").text
    assert SECRET not in page and SECRET not in client.get(f"/api/games/{GAME}").text
    assert "points outside" in page
    assert client.get(f"/api/games/{GAME}/cards/coins/leak.svg").status_code == 404


def test_read_project_file_refuses_escapes_links_odd_files_and_big_files(tmp_path):
    root = tmp_path / "root"
    (root / "sub").mkdir(parents=True)
    (root / "sub" / "ok.txt").write_text("fine")
    (tmp_path / "outside.txt").write_text(SECRET)
    (root / "link.txt").symlink_to(tmp_path / "outside.txt")
    (root / "inner-link.txt").symlink_to(root / "sub" / "ok.txt")
    (root / "dirlink").symlink_to(tmp_path)
    os.mkfifo(root / "pipe")
    (root / "big.txt").write_bytes(b"x" * 2048)
    assert read_project_file(root, "sub/ok.txt") == b"fine"
    # A link that stays inside is read, as the build reads it: one guarded path for both.
    assert read_project_file(root, "inner-link.txt") == b"fine"
    for rel in ("../outside.txt", "/etc/passwd", "link.txt",
                "dirlink/outside.txt", "sub", "pipe", "missing.txt", "", "sub\\ok.txt",
                "sub/../sub/ok.txt", "a\0b"):
        with pytest.raises(NotServed):
            read_project_file(root, rel)
    with pytest.raises(NotServed):
        read_project_file(root, "big.txt", max_bytes=1024)


def test_a_data_error_shows_the_located_problem_and_recovers_when_fixed(client, fair):
    before = client.get(f"/games/{GAME}").text
    stalls = fair / STALLS
    good = stalls.read_text()
    stalls.write_text(good.replace("cost: 3, text: \"Each", "cost: 9, text: \"Each"))
    change = studio(client).refresh(GAME)
    assert change.ok is False
    problems = client.get(f"/api/games/{GAME}/problems").json()
    assert [(p["where"], p["key"]) for p in problems] == [(f"{STALLS}:5", "cards[3].cost")]
    assert "from 0 to 5, got 9" in problems[0]["message"]
    assert problems[0]["link"] == f"/games/{GAME}/cards/stalls/goldfish"
    page = client.get(f"/games/{GAME}")
    assert page.status_code == 200 and "does not load" in page.text
    assert f"{STALLS}:5" in page.text
    assert page.text.count('class="tile"') == before.count('class="tile"')  # last good cards
    assert client.get("/api/games").json()[0]["status"] == "error"
    stalls.write_text(good)
    assert studio(client).refresh(GAME).ok is True
    assert client.get(f"/api/games/{GAME}/problems").json() == []
    assert "does not load" not in client.get(f"/games/{GAME}").text


def test_a_broken_template_is_a_located_problem_on_the_card(client, fair):
    template = fair / f"templates/{GAME}/stall.svg.j2"
    template.write_text(template.read_text() + "\n{{ card.nope }}\n")
    studio(client).refresh(GAME)
    tile = client.get(f"/fragments/{GAME}/card/stalls/ring-toss").text
    assert "Not drawn" in tile and f"templates/{GAME}/stall.svg.j2" in tile
    assert client.get(f"/api/games/{GAME}/cards/stalls/ring-toss.svg").status_code == 422
    problems = client.get(f"/api/games/{GAME}/problems").json()
    assert any("stall.svg.j2" in p["where"] for p in problems)


def test_a_broken_sheet_template_is_a_located_problem_on_its_component(client, fair):
    template = fair / f"templates/{GAME}/aid.svg.j2"
    template.write_text("{{ nope.nope }}")
    studio(client).refresh(GAME)
    section = client.get(f"/fragments/{GAME}/component/aid").text
    assert "Not drawn" in section and f"templates/{GAME}/aid.svg.j2:1" in section
    assert client.get(f"/api/games/{GAME}/components/aid/1.svg").status_code == 422
    problem = client.get(f"/api/games/{GAME}/problems").json()[0]
    assert problem["where"] == f"templates/{GAME}/aid.svg.j2:1"


def test_a_game_that_never_loaded_shows_its_problems_and_nothing_else(fair):
    manifest = fair / f"data/{GAME}/game.yaml"
    manifest.write_text(manifest.read_text().replace("kind: sheet", "kind: poster"))
    client = client_for(fair)
    assert client.get("/api/games").json()[0]["status"] == "error"
    page = client.get(f"/games/{GAME}")
    assert page.status_code == 200 and "does not load" in page.text
    assert f"data/{GAME}/game.yaml:" in page.text and "poster" in page.text
    assert 'class="tile"' not in page.text
    assert client.get(f"/api/games/{GAME}/cards/stalls/goldfish.svg").status_code == 404
    assert client.get(f"/games/{GAME}/download/decklist.md").status_code == 404


def test_a_one_card_edit_redraws_only_that_card(client, fair):
    client.get(f"/games/{GAME}")
    st = studio(client)
    drawn = st.drawn_count
    stalls = fair / STALLS
    stalls.write_text(stalls.read_text().replace("name: Ring Toss", "name: Hoop Toss"))
    change = st.refresh(GAME)
    assert change.cards == ["stalls/ring-toss"] and change.components == []
    assert st.drawn_count == drawn + 1
    tile = client.get(f"/fragments/{GAME}/card/stalls/ring-toss").text
    assert "Hoop Toss" in tile
    assert st.drawn_count == drawn + 1  # the tile came from the cache
    template = fair / f"templates/{GAME}/coin.svg.j2"
    template.write_text(template.read_text() + "\n")
    change = st.refresh(GAME)
    assert len(change.cards) == 6 + 2  # a template may be shared: the game is drawn again
    # every drawing may have changed: the sheet is sent whole, the decks' tiles one by one
    assert change.components == ["aid"]


def test_adding_a_card_refreshes_its_deck_whole(client, fair):
    stalls = fair / STALLS
    stalls.write_text(stalls.read_text().replace(
        "  - {id: fireworks", "  - {id: tea-house, name: Tea House, stall: food, cost: 1, "
        "text: Calm.}\n  - {id: fireworks"))
    change = studio(client).refresh(GAME)
    assert change.cards == ["stalls/tea-house"] and change.components == ["stalls"]
    section = client.get(f"/fragments/{GAME}/component/stalls").text
    assert section.count('class="tile"') == 7 and "Tea House" in section


def test_fragments_are_the_parts_of_pages_that_live_updates_swap(client):
    bar = client.get(f"/fragments/{GAME}/bar")
    assert bar.status_code == 200 and 'id="badge"' in bar.text
    assert "all rules pass" in bar.text
    section = client.get(f"/fragments/{GAME}/component/coins").text
    assert section.startswith('<section class="component" id="component-coins"')
    assert section.count('class="tile"') == 2
    detail = client.get(f"/fragments/{GAME}/card-detail/stalls/goldfish").text
    assert 'id="card-detail"' in detail and "Goldfish Scoop" in detail
    assert f"{STALLS}:5" in detail
    problems = client.get(f"/fragments/{GAME}/problems").text
    assert 'id="problems"' in problems and "every rule passes" in problems


def test_downloads_build_through_the_library_and_write_nothing_to_the_project(client, fair,
                                                                             tmp_path):
    before = files_of(fair)
    pnp = act(client, f"/games/{GAME}/download/{GAME}-print-and-play.pdf")
    assert pnp.status_code == 200 and pnp.headers["content-type"] == "application/pdf"
    assert f'filename="{GAME}-print-and-play.pdf"' in pnp.headers["content-disposition"]
    assert len(PdfReader(io.BytesIO(pnp.content)).pages) >= 4
    stalls = act(client, f"/games/{GAME}/download/components/stalls.pdf")
    assert stalls.status_code == 200 and stalls.content.startswith(b"%PDF")
    listed = deck_list(load_game(Project.open(fair).game(GAME)))
    for fmt in FORMATS:
        got = act(client, f"/games/{GAME}/download/decklist.{fmt}")
        assert got.status_code == 200 and got.text == FORMATS[fmt](listed)
    rows = list(csv.reader(io.StringIO(act(client, f"/games/{GAME}/download/decklist.csv")
                                       .text)))
    assert len(rows) == 1 + 6 + 2
    tts = act(client, f"/games/{GAME}/download/tts.zip")
    assert tts.status_code == 200
    names = zipfile.ZipFile(io.BytesIO(tts.content)).namelist()
    assert f"{GAME}-tts/{GAME}.json" in names and any(n.endswith(".png") for n in names)
    save = json.loads(zipfile.ZipFile(io.BytesIO(tts.content)).read(f"{GAME}-tts/{GAME}.json"))
    assert save["SaveName"] == "Lantern Fair"
    assert str((tmp_path / "output" / GAME / "tts").resolve()) in \
        zipfile.ZipFile(io.BytesIO(tts.content)).read(f"{GAME}-tts/README.txt").decode()
    assert not (tmp_path / "output").exists()  # made in memory, written nowhere
    assert files_of(fair) == before


def test_a_download_the_rules_refuse_lists_the_located_problems(client, fair):
    stalls = fair / STALLS
    stalls.write_text(stalls.read_text().replace("stall: lights, cost: 5", "stall: food, "
                                                                             "cost: 5"))
    studio(client).refresh(GAME)
    refused = act(client, f"/games/{GAME}/download/{GAME}-print-and-play.pdf")
    assert refused.status_code == 422
    assert "two-of-each" in refused.text and f"data/{GAME}/game.yaml" not in refused.text


def test_map_page_draws_validates_and_offers_the_map_file(builtin_client):
    client = builtin_client
    from printshop.games.pocketciv_maps.atlas import game_look, map_files
    from printshop.games.pocketciv_maps.seed import parse_seed

    page = builtin_client.get("/games/pocketciv/map", params={"seed": "42",
                                                               "variant": "islands"})
    assert page.status_code == 200                         # a bare number: the default, m2
    assert "m2-islands-42" in page.text and "legal" in page.text and "<svg" in page.text
    assert 'action="/games/pocketciv/map/m2-islands-42.yaml"' in page.text
    for seed in ("m2-islands-42", "m1-islands-42"):          # seeds printed before m2 too
        got = act(client, f"/games/pocketciv/map/{seed}.yaml")
        assert got.status_code == 200
        want = map_files(parse_seed(seed), game_look(Project.open(None)), "a4")
        assert got.content == want[f"{seed}.yaml"]
        assert act(client, f"/games/pocketciv/map/{seed}.pdf").content.startswith(b"%PDF")


@pytest.mark.parametrize("query, message", [
    ({"seed": "banana"}, "is not a seed"), ({"seed": "7", "variant": "moon"}, "no variant"),
    ({"seed": "m1-moon-7"}, "no variant"), ({"seed": "m1-islands-7", "variant": "standard"},
                                             "is for the islands variant")])
def test_a_bad_seed_is_a_message_not_a_traceback(builtin_client, query, message):
    page = builtin_client.get("/games/pocketciv/map", params=query)
    assert page.status_code == 422 and message in page.text
    assert act(builtin_client, "/games/pocketciv/map/banana.yaml").status_code == 422


def test_pages_forbid_foreign_scripts_and_unknown_hosts(client):
    page = client.get(f"/games/{GAME}")
    assert "script-src 'self'" in page.headers["content-security-policy"]
    svg = client.get(f"/api/games/{GAME}/cards/stalls/ring-toss.svg")
    assert "default-src 'none'" in svg.headers["content-security-policy"]
    rebinding = client.get("/api/games", headers={"host": "attacker.example"})
    assert rebinding.status_code == 400


def test_a_template_cannot_put_script_into_the_studio(client, fair):
    template = fair / f"templates/{GAME}/stall.svg.j2"
    template.write_text(template.read_text() + '\n<script>alert(1)</script>\n')
    studio(client).refresh(GAME)
    page = client.get(f"/games/{GAME}")
    # the drawing is shown as the build sees it, but the policy lets only /static/ scripts run
    assert "script-src 'self'" in page.headers["content-security-policy"]
    assert "'unsafe-inline'" not in page.headers["content-security-policy"].split(
        "script-src")[1].split(";")[0]


def test_broadcaster_sends_each_event_to_every_listener_and_ends_on_close():
    async def run():
        hub = Broadcaster()
        streams = [hub.stream(), hub.stream()]
        firsts = [await s.__anext__() for s in streams]
        hub.publish({"type": "game", "game": "deity", "cards": ["a/b"]})
        got = [await s.__anext__() for s in streams]
        hub.close()
        ends = []
        for s in streams:
            with pytest.raises(StopAsyncIteration):
                await s.__anext__()
            ends.append(True)
        return firsts, got, ends, len(hub.queues)
    firsts, got, ends, left = asyncio.run(run())
    assert firsts == ["retry: 1000\n\n"] * 2
    assert got == ['event: game\ndata: {"type": "game", "game": "deity", "cards": ["a/b"]}\n\n'] * 2
    assert ends == [True, True] and left == 0


@pytest.fixture
def live(fair, tmp_path):
    """A real studio server (uvicorn, watchfiles) on a free port, over a copy of the example."""
    from printshop.serve.server import make_server

    sock = bind("127.0.0.1", 0)
    server = make_server(create_app(Project.open(fair), out_dir=tmp_path / "output"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.05)
    yield f"http://127.0.0.1:{sock.getsockname()[1]}", fair
    server.should_exit = True
    thread.join(10)
    assert not thread.is_alive()


def next_event(lines, checked=None, timeout=10.0) -> dict:
    """Return the next game event from an SSE line iterator (only a checked one if asked)."""
    deadline = time.monotonic() + timeout
    current = None
    for line in lines:
        if line.startswith("event: "):
            current = line[7:]
        elif line.startswith("data: ") and current == "game":
            event = json.loads(line[6:])
            if checked is None or event["checked"] == checked:
                return event
        if time.monotonic() > deadline:
            break
    raise AssertionError("no event")


def test_saving_a_file_sends_an_event_naming_the_changed_card(live):
    import httpx

    url, fair = live
    with httpx.Client(base_url=url, timeout=10) as http:
        http.get(f"/games/{GAME}")
        with http.stream("GET", "/api/events") as events:
            assert events.headers["content-type"].startswith("text/event-stream")
            lines = events.iter_lines()
            assert next(lines) == "retry: 1000"
            stalls = fair / STALLS
            good = stalls.read_text()
            stalls.write_text(good.replace("name: Goldfish Scoop", "name: Goldfish Pond"))
            event = next_event(lines)  # drawn again: sent before the rules have run
            assert event["game"] == GAME and event["cards"] == ["stalls/goldfish"]
            assert event["ok"] is True and event["checked"] is False
            svg = http.get(f"/api/games/{GAME}/cards/stalls/goldfish.svg").text
            assert ">Goldfish Pond</tspan>" in svg      # a line of words is one run
            event = next_event(lines)
            assert event["checked"] is True and event["cards"] == [] and event["problems"] == 0
            stalls.write_text(good.replace("cost: 3, text: \"Each", "cost: 9, text: \"Each"))
            event = next_event(lines, checked=True)
            assert event["ok"] is False and event["problems"] == 1
            stalls.write_text(good.replace("stall: lights, cost: 5", "stall: food, cost: 5"))
            event = next_event(lines, checked=True)
            assert event["ok"] is True and event["problems"] == 1  # a rule: two-of-each
            assert http.get(f"/api/games/{GAME}/problems").json()[0]["rule"] == "two-of-each"
            stalls.write_text(good)
            event = next_event(lines, checked=True)
            assert event["ok"] is True and event["problems"] == 0


def test_the_serve_command_starts_answers_and_stops_cleanly_on_ctrl_c(fair):
    proc = subprocess.Popen([sys.executable, "-m", "printshop.cli", "serve", GAME, "--project",
                             str(fair), "--port", "0", "--no-open"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        line = proc.stdout.readline()
        found = re.search(r"(http://127\.0\.0\.1:\d+)/games/lantern-fair", line)
        assert found, line
        import httpx
        assert httpx.get(found.group(1) + "/api/games").json()[0]["id"] == GAME
        with httpx.stream("GET", found.group(1) + "/api/events") as events:
            next(events.iter_lines())
            proc.send_signal(signal.SIGINT)
            out, err = proc.communicate(timeout=15)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, err
    assert "stopped" in out and "Traceback" not in err


def test_the_serve_command_reports_mistakes_without_a_traceback(fair):
    from click.testing import CliRunner
    from printshop.cli import main

    result = CliRunner().invoke(main, ["serve", "nope", "--project", str(fair), "--no-open"])
    assert result.exit_code == 1 and "no game 'nope'" in result.output
    taken = bind("127.0.0.1", 0)
    try:
        port = str(taken.getsockname()[1])
        result = CliRunner().invoke(main, ["serve", "--project", str(fair), "--port", port,
                                           "--no-open"])
    finally:
        taken.close()
    assert result.exit_code == 1 and f"--port: cannot listen on 127.0.0.1:{port}" in \
        result.output
    assert "Traceback" not in result.output


def test_the_studio_listens_locally_unless_another_host_is_given():
    from printshop.cli import serve as command
    from printshop.serve import allowed_hosts

    host = next(p for p in command.params if p.name == "host")
    assert host.default == "127.0.0.1"
    assert "attacker.example" not in allowed_hosts("127.0.0.1")
    assert "192.168.1.20" in allowed_hosts("192.168.1.20")
    assert allowed_hosts("0.0.0.0") == ["*"]
