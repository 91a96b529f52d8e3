"""The studio's workbench over HTTP: the print preview with the build's options, and the
PNG, proof and print-on-demand exports made in memory behind the page's token."""

from __future__ import annotations

import io
import re
import zipfile

import pytest

pytest.importorskip("starlette")
from test_serve_safety import GAME, fair, make_client as make  # noqa: E402,F401 (fixture)

SAME = {"origin": "http://127.0.0.1", "sec-fetch-site": "same-origin"}


def mm(svg: str) -> tuple[float, float]:
    w, h = re.match(r'<svg[^>]* width="([\d.]+)mm" height="([\d.]+)mm"', svg).groups()
    return float(w), float(h)


def test_the_print_preview_shows_the_sheets_as_the_options_print_them(fair, tmp_path):
    client = make(fair, tmp_path / "out")
    page = client.get(f"/games/{GAME}/print").text
    assert 'name="paper"' in page and 'name="bleed"' in page and 'name="backs"' in page
    assert 'name="low_ink"' in page and page.count("data-lazy") == 3   # one per component
    duplex = client.get(f"/fragments/{GAME}/print/stalls?paper=a4&backs=duplex&bleed=").text
    assert "page 1 · fronts" in duplex and "page 2 · backs" in duplex and "297.0 × 210.0" in duplex
    front = client.get(f"/api/games/{GAME}/print/stalls/1.svg?paper=a4&backs=duplex")
    assert front.headers["content-type"].startswith("image/svg+xml")
    assert mm(front.text) == (297, 210) and "@font-face" in front.text
    assert "Noodle Cart" in front.text and "sheet 1 of 1 fronts" in front.text
    # six cards with 3 mm bleed: one crop mark line per card edge, outside the cards
    assert front.text.count("<line") >= 12
    fold = client.get(f"/fragments/{GAME}/print/stalls?paper=letter&backs=fold&bleed=0"
                      "&low_ink=1").text
    assert "page 1 · fold" in fold and "279.4 × 215.9" in fold and "· backs" not in fold
    letter = client.get(f"/api/games/{GAME}/print/stalls/1.svg?paper=letter&backs=fold&bleed=0"
                        "&low_ink=1").text
    assert mm(letter) == (279.4, 215.9)
    full = client.get(f"/api/games/{GAME}/print/stalls/1.svg?paper=letter&backs=fold&bleed=0"
                      "&low_ink=0").text
    assert letter != full                  # low ink draws the same sheet paler
    assert client.get(f"/api/games/{GAME}/print/stalls/9.svg").status_code == 404
    assert client.get(f"/api/games/{GAME}/print/nope/1.svg").status_code == 404
    assert not (tmp_path / "out").exists()


def test_the_print_preview_follows_a_save(fair, tmp_path):
    client = make(fair, tmp_path / "out")
    url = f"/api/games/{GAME}/print/stalls/1.svg?paper=a4&backs=duplex"
    assert "Noodle Cart" in client.get(url).text
    stalls = fair / f"data/{GAME}/stalls.yaml"
    stalls.write_text(stalls.read_text().replace("name: Noodle Cart", "name: Ramen Cart"))
    client.app.state.studio.studio.refresh(GAME)
    assert "Ramen Cart" in client.get(url).text


def post(client, what):
    token = client.app.state.studio.token
    return client.post(f"/games/{GAME}/download/{what}", data={"token": token}, headers=SAME)


def test_the_png_proof_and_print_on_demand_exports_are_made_in_memory(fair, tmp_path):
    out = tmp_path / "out"
    client = make(fair, out)
    page = client.get(f"/games/{GAME}").text
    for what in ("proof.pdf", "png.zip", "pod/thegamecrafter.zip", "pod/drivethrucards.zip"):
        assert f'action="/games/{GAME}/download/{what}"' in page
    proof = post(client, "proof.pdf")
    assert proof.status_code == 200 and proof.content.startswith(b"%PDF")
    assert f'filename="{GAME}-proof.pdf"' in proof.headers["content-disposition"]
    png = post(client, "png.zip")
    names = zipfile.ZipFile(io.BytesIO(png.content)).namelist()
    assert f"{GAME}-png/stalls/goldfish.png" in names and f"{GAME}-png/stalls/back.png" in names
    data = zipfile.ZipFile(io.BytesIO(png.content)).read(f"{GAME}-png/stalls/goldfish.png")
    assert data.startswith(b"\x89PNG")
    pod = post(client, "pod/thegamecrafter.zip")
    assert pod.status_code == 200
    files = zipfile.ZipFile(io.BytesIO(pod.content)).namelist()
    assert f"{GAME}-pod-thegamecrafter/README.txt" in files and len(files) > 6
    assert post(client, "pod/nowhere.zip").status_code == 404
    assert not out.exists() and not (fair / "output").exists()
