"""The load cache: an unchanged game is read back, never believed when anything changed.

tests/conftest.py gives the test run a load cache of its own (PRINTSHOP_CACHE_DIR), inherited
by the commands tests start.
"""

from __future__ import annotations

import json
import os
import pickle
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from conftest import EXAMPLE
from printshop.load import cache, loadcache
from printshop.cli import main
from printshop.files.errors import PrintshopError
from printshop.load.loader import load_game
from printshop.load.models import Later
from printshop.files.project import Project


def entries(folder: Path) -> list[str]:
    """Return the games (and rules verdicts) a cache folder holds."""
    return sorted(p.name for p in folder.iterdir() if p.suffix in (".json", ".rules"))


@pytest.fixture
def store(tmp_path, monkeypatch) -> Path:
    """An empty load cache for one test."""
    folder = tmp_path / "load-cache"
    monkeypatch.setenv("PRINTSHOP_CACHE_DIR", str(folder))
    return folder


@pytest.fixture
def example(tmp_path) -> Path:
    root = tmp_path / "project"
    shutil.copytree(EXAMPLE, root)
    return root


def run(*args):
    return CliRunner().invoke(main, list(args))


def assert_same_game(hit, fresh):
    assert hit.id == fresh.id and hit.name == fresh.manifest.name
    assert [(p.id, p.kind, p.name) for p in hit.parts] == \
        [(p.id, p.kind, p.spec.name) for p in fresh.parts]
    for a, b in zip(hit.parts, fresh.parts):
        assert a.cards == b.cards
        assert repr(a.data) == repr(b.data)   # types too: 1 is not 1.0, {1: x} is not {"1": x}
        assert a.data_file == b.data_file
        assert (a.source is None) == (b.source is None)
        if b.source is not None:
            assert (a.source.file, a.source.rows) == (b.source.file, b.source.rows)
            assert all(a.source.line(path) == line for path, line in b.source.lines.items())
            assert a.source.lines == b.source.lines
    assert (hit.icons, hit.icon_file) == (fresh.icons, fresh.icon_file)
    assert list(map(str, hit.template_dirs)) == list(map(str, fresh.template_dirs))
    assert cache.manifest_text(hit) == cache.manifest_text(fresh)


@pytest.mark.parametrize("game_id", [g.id for g in Project.open(None).games()] + ["example"])
def test_a_game_read_back_is_the_game_loaded(game_id, store):
    project = Project.open(EXAMPLE if game_id == "example" else None)
    folder = project.games()[0] if game_id == "example" else project.game(game_id)
    fresh = load_game(folder)
    loadcache.load_game(folder)                     # loads and stores it
    assert len(entries(store)) == 1
    hit = loadcache.load_game(folder)               # reads it back
    assert type(hit.__dict__["_manifest"]) is Later  # pydantic not asked yet
    assert_same_game(hit, fresh)
    template = hit.template_dirs[0]
    assert cache._template_files(hit, template) == cache._hash_files(template)
    sent = pickle.loads(pickle.dumps(hit))           # as a worker process gets it
    assert sent.manifest == fresh.manifest
    assert hit.manifest == fresh.manifest           # made on first use, from the same data
    assert all(p.spec is hit.manifest.components[i] for i, p in enumerate(hit.parts))
    assert cache.manifest_text(hit) == cache.manifest_text(fresh)


def test_a_warm_list_neither_reads_yaml_nor_checks_the_manifest(example, store):
    probe = ("import sys, printshop.cli\n"
             "try:\n    printshop.cli.main()\nexcept SystemExit as exc:\n"
             "    assert not exc.code, exc.code\n"
             "print(sorted(set(sys.modules) & {'printshop.load.specs', 'yaml'}))\n")
    env = {**os.environ, "PRINTSHOP_CACHE_DIR": str(store)}
    outputs = []
    for _ in range(2):
        proc = subprocess.run([sys.executable, "-c", probe, "list", "--project", str(example)],
                              capture_output=True, text=True, env=env, timeout=120)
        assert proc.returncode == 0, proc.stderr
        outputs.append(proc.stdout.splitlines())
    assert outputs[0][-1] == "['printshop.load.specs', 'yaml']"  # the first run loads and checks
    assert outputs[1][-1] == "[]"                    # the second reads it back
    assert outputs[0][:-1] == outputs[1][:-1]


def test_an_edit_is_seen_and_an_error_keeps_its_line(example, store):
    stalls = example / "data" / "lantern-fair" / "stalls.yaml"
    assert "(6 cards, 6 distinct)" in run("list", "--project", str(example)).output
    stalls.write_text(stalls.read_text().replace("cost: 1,", "cost: 1, copies: 2,"))
    assert "(7 cards, 6 distinct)" in run("list", "--project", str(example)).output
    stalls.write_text(stalls.read_text().replace("cost: 2", "cost: 9", 1))
    for _ in range(2):  # a failure is never stored: the same located message every time
        result = run("list", "--project", str(example))
        assert result.exit_code == 1
        assert "data/lantern-fair/stalls.yaml:3: cards[1].cost: expected a whole number " \
               "from 0 to 5, got 9" in result.output


def test_an_unchanged_build_does_not_run_the_rules_again(example, store, tmp_path,
                                                        monkeypatch):
    out = tmp_path / "out"
    first = run("build", "--project", str(example), "--out", str(out), "--quiet", "--jobs", "1")
    assert first.exit_code == 0, first.output
    assert any(name.endswith(".rules") for name in entries(store))
    from printshop.check import rules

    def refuse(game):
        raise AssertionError("rules ran again")

    monkeypatch.setattr(rules, "validate", refuse)
    again = run("build", "--project", str(example), "--out", str(out), "--jobs", "1")
    assert again.exit_code == 0, again.output
    assert "0 files written, 4 unchanged" in again.output
    # Any change to the game's files means the rules run again.
    aid = example / "templates" / "lantern-fair" / "aid.svg.j2"
    aid.write_text(aid.read_text() + "\n")
    edited = run("build", "--project", str(example), "--out", str(out), "--quiet", "--jobs", "1")
    assert edited.exit_code == 1 and "rules ran again" in repr(edited.exception)


def test_a_broken_rule_is_reported_every_time(example, store, tmp_path):
    stalls = example / "data" / "lantern-fair" / "stalls.yaml"
    stalls.write_text(stalls.read_text().replace("stall: lights, cost: 3", "stall: food, cost: 3"))
    outputs = []
    for _ in range(2):
        result = run("build", "--project", str(example), "--out", str(tmp_path / "out"),
                     "--quiet")
        assert result.exit_code == 1
        outputs.append(result.output)
    assert outputs[0] == outputs[1]
    assert "[two-of-each] expected 2 cards in stalls with stall=lights, found 1" in outputs[0]
    assert not any(name.endswith(".rules") for name in entries(store))
    assert len(entries(store)) == 1   # the load itself succeeded and is kept


def test_a_game_edited_while_it_loads_is_not_stored(example, store, monkeypatch):
    from printshop.load import loader

    manifest = example / "data" / "lantern-fair" / "game.yaml"
    real = loader.load_game

    def load_then_edit(folder):
        game = real(folder)
        manifest.write_text(manifest.read_text().replace("Lantern Fair", "Lantern Market"))
        return game

    monkeypatch.setattr(loader, "load_game", load_then_edit)
    folder = Project.open(example).games()[0]
    assert loadcache.load_game(folder).name == "Lantern Fair"
    assert entries(store) == []
    monkeypatch.setattr(loader, "load_game", real)
    assert loadcache.load_game(folder).name == "Lantern Market"


def test_a_folder_with_a_link_is_not_cached(example, store):
    data = example / "data" / "lantern-fair"
    (data / "stalls-link.yaml").symlink_to(data / "stalls.yaml")
    folder = Project.open(example).games()[0]
    assert loadcache.game_key(folder) is None
    loadcache.load_game(folder)
    assert entries(store) == []


def test_a_damaged_entry_is_read_as_a_miss(example, store):
    folder = Project.open(example).games()[0]
    fresh = load_game(folder)
    loadcache.load_game(folder)
    [name] = entries(store)
    for damage in (b"", b"{", b"[]", json.dumps({"version": loadcache.VERSION}).encode(),
                   b"\xff\xfe"):
        (store / name).write_bytes(damage)
        assert_same_game(loadcache.load_game(folder), fresh)


def test_off_turns_it_off(example, monkeypatch, tmp_path):
    monkeypatch.setenv("PRINTSHOP_CACHE_DIR", "off")
    folder = Project.open(example).games()[0]
    game = loadcache.load_game(folder)
    assert "load_key" not in game.memo and cache.cache_folder() is None


def test_other_limits_are_another_key(example, store):
    from printshop.files import limits

    folder = Project.open(example).games()[0]
    key = loadcache.game_key(folder)
    with limits.applied(limits.Limits().with_values(["max_cards=50000"])):
        assert loadcache.game_key(folder)[0] != key[0]
    assert loadcache.game_key(folder) == key


def test_pdfs_drawn_from_a_game_read_back_are_the_same(example, store, tmp_path, monkeypatch):
    # Warm the cache, then build with other options (every PDF drawn again, in two workers,
    # from a game read back) and compare with a build that never used the cache.
    assert run("list", "--project", str(example)).exit_code == 0
    args = ["--project", str(example), "--quiet", "--paper", "letter", "--jobs", "2"]
    warm = run("build", "--out", str(tmp_path / "warm"), *args)
    assert warm.exit_code == 0, warm.output
    monkeypatch.setenv("PRINTSHOP_CACHE_DIR", "off")
    cold = run("build", "--out", str(tmp_path / "cold"), *args)
    assert cold.exit_code == 0, cold.output
    for pdf in sorted((tmp_path / "cold" / "lantern-fair").glob("*.pdf")):
        assert (tmp_path / "warm" / "lantern-fair" / pdf.name).read_bytes() == pdf.read_bytes()


def test_a_failed_load_raises_the_same_problems(example, store):
    game = example / "data" / "lantern-fair" / "game.yaml"
    game.write_text(game.read_text().replace("kind: tokens", "kind: token"))
    folder = Project.open(example).games()[0]
    with pytest.raises(PrintshopError) as direct:
        load_game(folder)
    for _ in range(2):
        with pytest.raises(PrintshopError) as cached:
            loadcache.load_game(folder)
        assert [str(p) for p in cached.value.problems] == [str(p) for p in direct.value.problems]
    assert entries(store) == []


def test_the_code_fingerprint_follows_every_write_without_reading_the_code(tmp_path,
                                                                            monkeypatch):
    package = tmp_path / "package"
    package.mkdir()
    for name in ("a.py", "b.j2", "c.txt"):
        (package / name).write_text(f"{name} one\n")
    monkeypatch.setattr(cache, "PACKAGE_DIR", package)
    fingerprint = cache.code_fingerprint.__wrapped__
    # Just written: its times may not have moved yet when it changes again, so it is read.
    assert fingerprint() == cache._hash_files(package, cache._CODE_SUFFIXES)
    old = 1_600_000_000
    for path in package.iterdir():
        os.utime(path, (old, old))
    monkeypatch.setattr(cache, "SETTLED_NS", -10**20)  # ctime cannot be set back: pretend
    reads = []
    monkeypatch.setattr(cache.guard, "read_project_file",
                        lambda *args, **kwargs: reads.append(args) or b"")
    first = fingerprint()
    assert fingerprint() == first and reads == []      # settled: known by its stat data
    # The same size and mtime, other bytes: the ctime moves, so the fingerprint follows.
    (package / "a.py").write_text("a.py two\n")
    os.utime(package / "a.py", (old, old))
    second = fingerprint()
    assert second != first
    (package / "c.txt").write_text("not code\n")   # only code suffixes count
    assert fingerprint() == second