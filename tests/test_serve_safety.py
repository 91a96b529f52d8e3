"""The studio acts only for its own pages: cross-site requests change nothing and start nothing
heavy, downloads write nothing, and a drawing cannot carry script into the page."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from printshop.files.project import Project

from conftest import EXAMPLE

pytest.importorskip("starlette")
from starlette.testclient import TestClient  # noqa: E402

from printshop.serve.app import create_app  # noqa: E402

GAME = "lantern-fair"
ACTIONS = [f"/games/{GAME}/download/tts.zip", f"/games/{GAME}/download/{GAME}-print-and-play.pdf",
           f"/games/{GAME}/download/components/stalls.pdf", f"/games/{GAME}/download/decklist.csv",
           f"/games/{GAME}/download/proof.pdf", f"/games/{GAME}/download/png.zip",
           f"/games/{GAME}/download/pod/thegamecrafter.zip"]


@pytest.fixture
def fair(tmp_path) -> Path:
    root = tmp_path / "fair"
    shutil.copytree(EXAMPLE, root)
    return root


def make_client(root: Path, out: Path) -> TestClient:
    return TestClient(create_app(Project.open(root), out_dir=out, watch=False),
                      base_url="http://127.0.0.1")


def everything(*roots: Path) -> dict[str, bytes]:
    return {str(p): p.read_bytes() for root in roots if root.exists()
            for p in sorted(root.rglob("*")) if p.is_file()}


class Counting:
    """Count calls of the download makers: a refused request must start none."""

    def __init__(self, monkeypatch):
        from printshop.serve import downloads

        self.calls = 0
        real = downloads.find

        def find(what, game):
            maker = real(what, game)
            if maker is None:
                return None

            def counted(*a):
                self.calls += 1
                return maker(*a)
            return counted
        monkeypatch.setattr(downloads, "find", find)


@pytest.mark.parametrize("url", ACTIONS)
@pytest.mark.parametrize("how", ["get", "cross-site", "origin", "null-origin", "no-token",
                                 "wrong-token", "same-site"])
def test_a_request_from_elsewhere_changes_nothing_and_starts_nothing(fair, tmp_path, url, how,
                                                                     monkeypatch):
    out = tmp_path / "output"
    client = make_client(fair, out)
    counted = Counting(monkeypatch)
    token = client.app.state.studio.token
    before = everything(fair, tmp_path)
    headers = {"origin": "http://127.0.0.1", "sec-fetch-site": "same-origin"}
    data = {"token": token}
    if how == "get":
        response = client.get(url, headers={"origin": "http://evil.example",
                                            "sec-fetch-site": "cross-site"})
        assert response.status_code == 200 and "<form" in response.text  # a button, no work
    else:
        if how == "cross-site":
            headers["sec-fetch-site"] = "cross-site"
        elif how == "same-site":
            headers["sec-fetch-site"] = "same-site"
        elif how == "origin":
            headers = {"origin": "http://evil.example"}
        elif how == "null-origin":
            headers = {"origin": "null"}
        elif how == "no-token":
            data = {}
        else:
            data = {"token": token[:-1] + ("x" if token[-1] != "x" else "y")}
        response = client.post(url, data=data, headers=headers)
        assert response.status_code == 403
    assert counted.calls == 0
    assert everything(fair, tmp_path) == before and not out.exists()


def test_the_studios_own_page_carries_the_token_in_each_download_form(fair, tmp_path):
    client = make_client(fair, tmp_path / "output")
    page = client.get(f"/games/{GAME}").text
    token = client.app.state.studio.token
    assert page.count(f'name="token" value="{token}"') >= len(ACTIONS)
    assert f'href="/games/{GAME}/download/' not in page       # no link makes anything
    for url in ACTIONS:
        assert f'action="{url}"' in page
    other = make_client(fair, tmp_path / "output").app.state.studio.token
    assert other != token                                   # one per studio session


def test_the_tts_download_never_writes_through_a_shipped_output_link(fair, tmp_path):
    """issue 30 item 1: a project that ships output/<game> as a link out of its folder."""
    victim = tmp_path / "victim"
    victim.mkdir()
    (victim / "keep.txt").write_text("mine")
    (fair / "output").mkdir()
    (fair / "output" / GAME).symlink_to(victim)
    client = make_client(fair, fair / "output")
    token = client.app.state.studio.token
    got = client.post(f"/games/{GAME}/download/tts.zip", data={"token": token},
                      headers={"origin": "http://127.0.0.1", "sec-fetch-site": "same-origin"})
    assert got.status_code == 200 and got.content[:2] == b"PK"
    assert [p.name for p in victim.iterdir()] == ["keep.txt"]


@pytest.mark.parametrize("attribute, needle", [
    ('onload="alert(1)"', "onload"), ('onClick="x()"', "onclick"),
    ('href="javascript:alert(1)"', "javascript:"), ('href=" java&#9;script:alert(1)"', "href"),
    ('xlink:href="JavaScript:x"', "javascript:"), ('fill="url(javascript:x)"', "javascript:"),
])
def test_an_event_handler_or_script_url_in_a_template_is_a_located_problem(fair, tmp_path,
                                                                            attribute, needle):
    template = fair / f"templates/{GAME}/stall.svg.j2"
    lines = template.read_text().splitlines()
    lines.insert(2, f'<rect width="1" height="1" {attribute}/>')
    template.write_text("\n".join(lines) + "\n")
    client = make_client(fair, tmp_path / "output")
    problems = client.get(f"/api/games/{GAME}/problems").json()
    assert problems == []                  # nothing drawn yet: the page draws, then reports
    page = client.get(f"/games/{GAME}").text
    assert '<rect width="1" height="1"' not in page     # never reaches the page as markup
    problems = client.get(f"/api/games/{GAME}/problems").json()
    assert problems, "the drawing check let a script through"
    first = problems[0]
    assert "not allowed in a drawing" in first["message"]
    assert first["where"] == f"templates/{GAME}/stall.svg.j2:3" or (
        needle == "href" and first["where"].startswith(f"templates/{GAME}/stall.svg.j2"))


def test_the_drawing_check_refuses_handlers_and_script_urls_but_keeps_ordinary_attributes():
    from printshop.draw import drawing

    drawing.check_fragment('<rect width="1" height="1" opacity=".5"/>')
    for bad in ('<rect onload="x"/>', '<g><a href="javascript:x"><text>t</text></a></g>',
                '<set attributeName="onclick" to="x"/>',
                '<animate attributeName="href" values="javascript:x"/>'):
        with pytest.raises(drawing.Fault):
            drawing.check_fragment(bad)
