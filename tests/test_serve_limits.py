"""Limits that hold on every thread of the studio: render deadlines in its worker threads,
clocks on slow clients, and a quick, quiet stop (issue 30 item 2, issue 32 defect 4)."""

from __future__ import annotations

import re
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from printshop.files import limits
from printshop.draw.timeouts import TemplateTimeout, deadline

from conftest import EXAMPLE

pytest.importorskip("uvicorn")
httpx = pytest.importorskip("httpx")

from printshop.serve.server import Protocol  # noqa: E402
from printshop.serve.testing import start_in_thread  # noqa: E402

GAME = "lantern-fair"
LOOP = ("{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}"
        "{% endfor %}\n")


@pytest.fixture
def fair(tmp_path) -> Path:
    root = tmp_path / "fair"
    shutil.copytree(EXAMPLE, root)
    return root


def test_the_render_deadline_stops_a_loop_in_any_thread_and_the_thread_goes_on():
    results = []

    def work():
        started = time.monotonic()
        try:
            with deadline(0.4):
                n = 0
                while True:
                    n += 1
        except TemplateTimeout as exc:
            results.append((time.monotonic() - started, str(exc)))
        with deadline(0.2):   # a later render on the same thread is not interrupted
            sum(range(1000))
        time.sleep(0.4)
        results.append("after")

    threads = [threading.Thread(target=work) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)
    assert not any(t.is_alive() for t in threads)
    stops = [r for r in results if r != "after"]
    assert len(stops) == 3 and results.count("after") == 3
    assert all(0.35 < took < 3 and "render_seconds" in text for took, text in stops)


def test_a_looping_template_is_abandoned_reported_and_the_studio_recovers(fair, tmp_path,
                                                                          monkeypatch):
    monkeypatch.setattr(limits, "_active", limits.Limits(render_seconds=1.0))
    template = fair / f"templates/{GAME}/stall.svg.j2"
    good = template.read_text()
    template.write_text(LOOP + good)
    url, stop = start_in_thread(fair, tmp_path / "output")
    try:
        with httpx.Client(base_url=url, timeout=60) as http:
            got: dict[str, httpx.Response] = {}
            cards = [c["id"] for c in http.get(f"/api/games/{GAME}").json()["components"][0]
                     ["cards"]]

            def fetch(name, path):
                got[name] = http.get(path)
            started = time.monotonic()
            threads = [threading.Thread(target=fetch, args=("page", f"/games/{GAME}"))] + [
                threading.Thread(target=fetch, args=(c, f"/api/games/{GAME}/cards/stalls/"
                                                        f"{c}.svg")) for c in cards]
            for t in threads:
                t.start()
            time.sleep(0.2)
            quick = time.monotonic()
            assert http.get("/api/games").status_code == 200   # still serving meanwhile
            assert http.get("/static/studio.css").status_code == 200
            assert time.monotonic() - quick < 3
            for t in threads:
                t.join(60)
            took = time.monotonic() - started
            assert took < 15, f"a stuck template held the studio for {took:.1f} s"
            assert got["page"].status_code == 200 and "Not drawn" in got["page"].text
            for c in cards:
                assert got[c].status_code == 422 and "render_seconds" in got[c].text
            rows = http.get(f"/api/games/{GAME}/problems").json()
            assert len(rows) == 1 and len(rows[0]["cards"]) == len(cards)  # one row, 6 cards
            assert rows[0]["where"].startswith(f"templates/{GAME}/stall.svg.j2")
            template.write_text(good)                    # fixed: the studio comes back
            deadline = time.monotonic() + 20
            while time.monotonic() < deadline:
                if http.get(f"/api/games/{GAME}/cards/stalls/{cards[0]}.svg").status_code \
                        == 200:
                    break
                time.sleep(0.2)
            else:
                raise AssertionError("the studio did not recover when the template was fixed")
            assert http.get(f"/api/games/{GAME}/problems").json() == []
    finally:
        stop()


def raw(url: str) -> socket.socket:
    host, port = url.split("//")[1].split(":")
    return socket.create_connection((host, int(port)), timeout=10)


def closed_within(sock: socket.socket, seconds: float) -> bool:
    """Say whether the server closes the connection within ``seconds``."""
    sock.settimeout(seconds)
    try:
        while True:
            data = sock.recv(4096)
            if not data:
                return True
    except (socket.timeout, TimeoutError):
        return False
    except ConnectionResetError:
        return True


@pytest.mark.parametrize("request_bytes", [
    b"GET /api/games HTTP/1.1\r\nHost: 127.0.0.1\r\n",                 # a head never ending
    b"POST /games/x/download/tts.zip HTTP/1.1\r\nHost: 127.0.0.1\r\n"   # a body never coming
    b"Content-Length: 100\r\nContent-Type: application/x-www-form-urlencoded\r\n\r\ntok",
    b"",                                                               # nothing at all
])
def test_a_slow_client_is_cut_off(fair, tmp_path, monkeypatch, request_bytes):
    monkeypatch.setattr(Protocol, "head_seconds", 1.0)
    monkeypatch.setattr(Protocol, "body_seconds", 1.0)
    url, stop = start_in_thread(fair, tmp_path / "output")
    try:
        sock = raw(url)
        sock.sendall(request_bytes)
        for _ in range(3):          # a byte now and then does not keep the connection open
            time.sleep(0.3)
            try:
                sock.sendall(b"X" if request_bytes.endswith(b"\n") else b"")
            except OSError:
                break
        assert closed_within(sock, 5), "the slow connection is still open"
        sock.close()
        assert httpx.get(url + "/api/games", timeout=10).status_code == 200
    finally:
        stop()


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
@pytest.mark.parametrize("page_open", [True, False])
def test_ctrl_c_and_sigterm_stop_quickly_and_quietly(fair, sig, page_open):
    proc = subprocess.Popen([sys.executable, "-m", "printshop.cli", "serve", GAME, "--project",
                             str(fair), "--port", "0", "--no-open"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        line = proc.stdout.readline()
        url = re.search(r"(http://127\.0\.0\.1:\d+)", line).group(1)
        with httpx.Client(timeout=10) as http:
            if page_open:
                with http.stream("GET", url + "/api/events") as events:
                    next(events.iter_lines())
                    http.get(url + f"/games/{GAME}")
                    started = time.monotonic()
                    proc.send_signal(sig)
                    out, err = proc.communicate(timeout=15)
            else:
                started = time.monotonic()
                proc.send_signal(sig)
                out, err = proc.communicate(timeout=15)
        took = time.monotonic() - started
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0 and out.strip().endswith("stopped")
    assert err == "", err
    assert took < 1.5, f"stopping took {took:.1f} s"


def test_a_looping_sheet_template_holds_up_only_its_own_page(fair, tmp_path, monkeypatch):
    monkeypatch.setattr(limits, "_active", limits.Limits(render_seconds=2.0))
    template = fair / f"templates/{GAME}/aid.svg.j2"
    template.write_text(LOOP + template.read_text())
    url, stop = start_in_thread(fair, tmp_path / "output")
    try:
        with httpx.Client(base_url=url, timeout=60) as http:
            got = {}
            slow = threading.Thread(target=lambda: got.update(
                aid=http.get(f"/api/games/{GAME}/components/aid/1.svg")))
            slow.start()
            time.sleep(0.3)
            started = time.monotonic()
            card = http.get(f"/api/games/{GAME}/cards/stalls/goldfish.svg")
            assert card.status_code == 200 and time.monotonic() - started < 1.5
            slow.join(60)
            assert got["aid"].status_code == 422 and "render_seconds" in got["aid"].text
    finally:
        stop()
