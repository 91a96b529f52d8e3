"""Watch: a saved data or template file is rebuilt; a broken save keeps the last good output."""

from __future__ import annotations

import shutil
import threading
import time
from pathlib import Path

from pypdf import PdfReader

from conftest import EXAMPLE
from printshop.load.geometry import PrintOptions
from printshop.files.project import Project
from printshop.watch import Fingerprints, Watcher, changed, watch, watched_files


def project_copy(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    shutil.copytree(EXAMPLE, root)
    return root


def wait_for(messages: list, count: int, timeout: float = 30.0) -> None:
    end = time.monotonic() + timeout
    while len(messages) < count:
        assert time.monotonic() < end, f"no rebuild reported; so far: {messages}"
        time.sleep(0.02)


def test_watch_rebuilds_after_a_save_and_keeps_the_last_good_output(tmp_path):
    root = project_copy(tmp_path)
    out = tmp_path / "out"
    stalls = root / "data" / "lantern-fair" / "stalls.yaml"
    pdf = out / "lantern-fair" / "stalls.pdf"
    messages: list[str] = []
    stop = threading.Event()
    loop = threading.Thread(target=watch, args=(Project.open(root), ["lantern-fair"],
                                                PrintOptions(), out),
                            kwargs={"interval": 0.05, "max_cycles": 2000, "stop": stop,
                                    "say": messages.append, "jobs": 1})
    loop.start()
    try:
        wait_for(messages, 1)
        assert messages[0].startswith("first build: rebuilt lantern-fair/stalls")
        assert "Noodle Cart" in PdfReader(pdf).pages[0].extract_text()

        stalls.write_text(stalls.read_text(encoding="utf-8").replace("Noodle Cart",
                                                                     "Dumpling Cart"),
                          encoding="utf-8")
        wait_for(messages, 2)
        assert messages[1].startswith("data/lantern-fair/stalls.yaml changed: rebuilt "
                                      "lantern-fair/stalls")
        assert " in " in messages[1] and messages[1].endswith(" s")
        assert "Dumpling Cart" in PdfReader(pdf).pages[0].extract_text()
        good = pdf.read_bytes()

        stalls.write_text("cards: [unclosed\n", encoding="utf-8")
        wait_for(messages, 3)
        assert "the build failed" in messages[2] and "keeps the last good output" in messages[2]
        assert "data/lantern-fair/stalls.yaml:" in messages[2]
        assert pdf.read_bytes() == good
    finally:
        stop.set()
        loop.join(timeout=30)
    assert not loop.is_alive()


def test_a_bounded_loop_stops_after_its_cycles(tmp_path):
    root = project_copy(tmp_path)
    messages: list[str] = []
    start = time.monotonic()
    cycles = watch(Project.open(root), ["lantern-fair"], PrintOptions(), tmp_path / "out",
                   interval=0.01, max_cycles=5, say=messages.append, jobs=1)
    assert cycles == 5 and len(messages) == 1 and time.monotonic() - start < 30


def test_a_save_without_a_change_rebuilds_nothing(tmp_path):
    root = project_copy(tmp_path)
    messages: list[str] = []
    watcher = Watcher(Project.open(root), ("lantern-fair",), PrintOptions(), tmp_path / "out",
                      messages.append, jobs=1)
    assert watcher.start() is True
    template = root / "templates" / "lantern-fair" / "coin.svg.j2"
    template.write_text(template.read_text())          # saved again, same content
    assert watcher.step() is None and len(messages) == 1
    template.write_text(template.read_text().replace("#e0a72e", "#d09010"))
    assert watcher.step() is True
    assert messages[1].startswith("templates/lantern-fair/coin.svg.j2 changed: rebuilt ")
    assert "lantern-fair/coins" in messages[1]


def test_watched_files_and_changes():
    files = watched_files(Project.open(EXAMPLE), ["lantern-fair"])
    names = {p.name for p in files}
    assert {"game.yaml", "stalls.yaml", "coins.yaml", "stall.svg.j2", "icons.yaml",
            "card.svg.j2"} <= names
    assert all(games == {"lantern-fair"} for games in files.values())
    a, b, c = Path("a"), Path("b"), Path("c")
    assert changed({a: "1", b: "2"}, {a: "1", b: "3", c: "4"}) == [b, c]
    assert changed({a: "1"}, {}) == [a]
    prints = Fingerprints()
    first = prints.take(files)
    assert prints.take(files) == first and set(first) == set(files)


def test_watch_reads_no_file_through_a_link_out_of_the_project(tmp_path):
    root = project_copy(tmp_path)
    outside = tmp_path / "outside.yaml"
    outside.write_text("cards: []\n")
    link = root / "data" / "lantern-fair" / "peek.yaml"
    link.symlink_to(outside)
    files = watched_files(Project.open(root), ["lantern-fair"])
    assert link in files
    digest = Fingerprints().take(files)[link]
    assert digest.startswith("refused: ") and "outside" in digest
