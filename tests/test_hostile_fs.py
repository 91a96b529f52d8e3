"""Hostile files beside the corpus: symbolic links, FIFOs and planted folders.

A game folder may come from a stranger and the temporary directory is shared with other
users. Each case fails with a located message, exit code 1 and no traceback; nothing outside
the project and the output folder is read, written or deleted; the output is left as it was.
"""

from __future__ import annotations

import builtins
import hashlib
import hmac
import io
import json
import os
import shutil
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from conftest import EXAMPLE
from printshop.load import fonts
from printshop.files import guard
from printshop.cli import main

GAME = "lantern-fair"
SECRET = "TOP-SECRET-5f1c"


def snapshot(folder: Path) -> dict[str, bytes | str]:
    """Every entry under folder: file bytes, link targets, folders."""
    out: dict[str, bytes | str] = {}
    for path in sorted(folder.rglob("*")):
        rel = str(path.relative_to(folder))
        if path.is_symlink():
            out[rel] = "link:" + os.readlink(path)
        elif path.is_file():
            out[rel] = path.read_bytes()
        else:
            out[rel] = "folder"
    return out


@pytest.fixture
def world(tmp_path):
    """A project, an output folder with a previous build's file, and files outside both."""
    project = tmp_path / "project"
    shutil.copytree(EXAMPLE, project)
    out = tmp_path / "out"
    (out / GAME).mkdir(parents=True)
    (out / GAME / "stalls.pdf").write_bytes(b"%PDF previous good output")
    outside = tmp_path / "outside"
    (outside / "lib").mkdir(parents=True)
    (outside / "secret.txt").write_text(SECRET)
    (outside / "lib" / "secret.svg.j2").write_text(SECRET)
    (outside / "stalls.yaml").write_text((project / "data" / GAME / "stalls.yaml").read_text())
    (outside / "cache").mkdir()
    (outside / "cache" / "precious.txt").write_text("keep me")
    (outside / "cache" / GAME).mkdir()
    (outside / "cache" / GAME / "precious.pdf").write_text("keep me too")
    (outside / "game").mkdir()
    (outside / "game" / "stalls.pdf").write_text("the victim's own file")
    shutil.copytree(project / "templates" / GAME, outside / "templates")
    shutil.copytree(project / "data" / GAME, outside / "data")
    return project, out, outside


def run_build(project: Path, out: Path, *extra: str):
    return CliRunner().invoke(main, ["build", "--quiet", "--jobs", "1", "--project", str(project),
                                     "--out", str(out), *extra])


def assert_clean_failure(result, expected: str) -> None:
    text = result.output
    assert result.exit_code == 1, text
    assert "Traceback" not in text
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert expected in text, f"expected {expected!r} in:\n{text}"
    assert text.rstrip().splitlines()[-1].endswith("nothing written")
    assert SECRET not in text


TEMPLATES = Path("templates") / GAME
COIN = TEMPLATES / "coin.svg.j2"


def link_template_file(project, outside):
    (project / TEMPLATES / "leak.svg.j2").symlink_to(outside / "secret.txt")
    (project / COIN).write_text("{% include 'leak.svg.j2' %}\n")
    return ("templates/lantern-fair/coin.svg.j2:1: while drawing card 'one' of coins: template "
            "'leak.svg.j2': the file leads outside lantern-fair/ through a symbolic link; "
            "printshop reads only files inside the project")


def link_template_folder_inside(project, outside):
    (project / TEMPLATES / "lib").symlink_to(outside / "lib")
    (project / COIN).write_text("{% import 'lib/secret.svg.j2' as secret %}\n")
    return ("template 'lib/secret.svg.j2': the file leads outside lantern-fair/ through a "
            "symbolic link")


def link_template_folder(project, outside):
    shutil.rmtree(project / TEMPLATES)
    (project / TEMPLATES).symlink_to(outside / "templates")
    return ("templates/lantern-fair/: the folder leads outside the project through a symbolic "
            "link; printshop reads only files inside the project")


def link_data_folder(project, outside):
    shutil.rmtree(project / "data" / GAME)
    (project / "data" / GAME).symlink_to(outside / "data")
    return ("data/lantern-fair/: the folder leads outside the project through a symbolic link; "
            "printshop reads only files inside the project")


def link_data_file(project, outside):
    (project / "data" / GAME / "stalls.yaml").unlink()
    (project / "data" / GAME / "stalls.yaml").symlink_to(outside / "stalls.yaml")
    return ("data/lantern-fair/game.yaml:19: components[0].data: 'stalls.yaml' points outside "
            "data/lantern-fair/")


def link_cache_folder(project, outside, out):
    (out / ".printshop-cache").symlink_to(outside / "cache")
    return (f"{out}/.printshop-cache: is a symbolic link; printshop never writes or deletes "
            "through a link in the output folder (remove the link or choose another --out)")


def link_output_game_folder(project, outside, out):
    shutil.rmtree(out / GAME)
    (out / GAME).symlink_to(outside / "game")
    return (f"{out}/{GAME}: is a symbolic link; printshop never writes or deletes through a "
            "link in the output folder (remove the link or choose another --out)")


PROJECT_LINKS = [link_template_file, link_template_folder_inside, link_template_folder,
                 link_data_folder, link_data_file]
OUTPUT_LINKS = [link_cache_folder, link_output_game_folder]


class OpenLog:
    """Records every path the build opens or lists, in this process."""

    def __init__(self, monkeypatch):
        self.paths: list[str] = []
        for module, name in ((builtins, "open"), (io, "open"), (os, "open"), (os, "listdir"),
                             (os, "scandir")):
            monkeypatch.setattr(module, name, self.wrap(getattr(module, name)))

    def wrap(self, fn):
        def logged(path=".", *args, **kwargs):
            if isinstance(path, (str, bytes, os.PathLike)):
                self.paths.append(os.path.realpath(os.fsdecode(path)))
            return fn(path, *args, **kwargs)
        return logged

    def under(self, folder: Path) -> list[str]:
        real = os.path.realpath(folder)
        return [p for p in self.paths if p == real or p.startswith(real + os.sep)]


@pytest.mark.parametrize("plant", PROJECT_LINKS + OUTPUT_LINKS,
                         ids=[f.__name__ for f in PROJECT_LINKS + OUTPUT_LINKS])
def test_a_link_out_of_the_project_or_output_is_refused(world, plant, monkeypatch):
    project, out, outside = world
    expected = plant(project, outside, out) if plant in OUTPUT_LINKS else plant(project, outside)
    before_out, before_outside = snapshot(out), snapshot(outside)
    log = OpenLog(monkeypatch)
    result = run_build(project, out)
    monkeypatch.undo()
    assert_clean_failure(result, expected)
    assert log.under(outside) == []          # nothing outside was opened or listed
    assert snapshot(outside) == before_outside  # nor written or deleted
    assert snapshot(out) == before_out


def test_a_game_folder_full_of_links_reads_and_writes_nothing_outside(world, monkeypatch):
    project, out, outside = world
    for plant in (link_template_file, link_template_folder_inside, link_data_file):
        plant(project, outside)
    (project / "data" / GAME / "icons.yaml").symlink_to(outside / "secret.txt")
    link_cache_folder(project, outside, out)
    (out / GAME / "coins.pdf").symlink_to(outside / "game" / "stalls.pdf")
    before_out, before_outside = snapshot(out), snapshot(outside)
    log = OpenLog(monkeypatch)
    first = run_build(project, out)
    # Mend the project: the links in the output folder are still refused.
    (project / "data" / GAME / "stalls.yaml").unlink()
    shutil.copy(EXAMPLE / "data" / GAME / "stalls.yaml", project / "data" / GAME / "stalls.yaml")
    shutil.copy(EXAMPLE / COIN, project / COIN)
    second = run_build(project, out)
    monkeypatch.undo()
    assert_clean_failure(first, "'stalls.yaml' points outside data/lantern-fair/")
    assert_clean_failure(second, f"{out}/.printshop-cache: is a symbolic link")
    assert_clean_failure(second, f"{out}/{GAME}/coins.pdf: is a symbolic link")
    assert log.under(outside) == []
    assert snapshot(outside) == before_outside
    assert snapshot(out) == before_out


@pytest.fixture
def fifo(tmp_path):
    if not hasattr(os, "mkfifo"):
        pytest.skip("no FIFOs on this system")

    def make(path: Path) -> Path:
        path.unlink(missing_ok=True)
        os.mkfifo(path)
        return path
    return make


def test_a_data_file_that_is_a_fifo_does_not_hang_the_build(world, fifo):
    project, out, _ = world
    fifo(project / "data" / GAME / "stalls.yaml")
    before = snapshot(out)
    start = time.monotonic()
    result = run_build(project, out)
    assert time.monotonic() - start < 60
    assert_clean_failure(result, "data/lantern-fair/stalls.yaml: expected a regular file, found "
                                 "a named pipe (FIFO)")
    assert snapshot(out) == before


def test_an_included_template_that_is_a_fifo_does_not_hang_the_build(world, fifo):
    project, out, _ = world
    fifo(project / TEMPLATES / "pipe.svg.j2")
    (project / COIN).write_text("{% include 'pipe.svg.j2' %}\n")
    before = snapshot(out)
    result = run_build(project, out)
    assert_clean_failure(result, "templates/lantern-fair/coin.svg.j2:1: while drawing card 'one' "
                                 "of coins: template 'pipe.svg.j2': expected a regular file, "
                                 "found a named pipe (FIFO)")
    assert snapshot(out) == before


def test_an_oversized_data_file_is_refused_before_it_is_read(world, monkeypatch):
    project, out, _ = world
    stalls = project / "data" / GAME / "stalls.yaml"
    with open(stalls, "r+b") as fh:
        fh.truncate(9 * 1024 ** 3)  # sparse: 9 GB that reading whole would need in memory
    before = snapshot(out)
    reads: list[int] = []
    real_read = os.read
    monkeypatch.setattr(os, "read", lambda fd, n: reads.append(n) or real_read(fd, n))
    result = run_build(project, out)
    monkeypatch.undo()
    assert_clean_failure(result, "data/lantern-fair/stalls.yaml: the file is 9,663,676,416 bytes, "
                                 "over the limit max_file_bytes = 8,388,608 (raise it on purpose "
                                 "with --limit max_file_bytes=N)")
    assert sum(reads) < 64 * 1024 ** 2
    assert snapshot(out) == before


def test_the_guard_reads_at_most_the_limit_from_a_growing_file(tmp_path):
    (tmp_path / "a.yaml").write_bytes(b"x" * 100)
    assert guard.read_project_file(tmp_path, "a.yaml", 100) == b"x" * 100
    with pytest.raises(Exception, match="the file is 101 bytes, over the limit max_file_bytes"):
        (tmp_path / "a.yaml").write_bytes(b"x" * 101)
        guard.read_project_file(tmp_path, "a.yaml", 100)


def test_a_symlink_that_stays_inside_the_project_is_followed(world):
    project, out, _ = world
    shared = project / TEMPLATES / "shared"
    shared.mkdir()
    (project / TEMPLATES / "back.svg.j2").rename(shared / "back.svg.j2")
    (project / TEMPLATES / "back.svg.j2").symlink_to(shared / "back.svg.j2")
    result = run_build(project, out)
    assert result.exit_code == 0, result.output


# The rebuild cache: keys and hashes only, PDFs verified before reuse.

def build_labels(project: Path, out: Path) -> list[str]:
    from printshop.build import build
    from printshop.load.geometry import PrintOptions
    from printshop.files.project import Project

    labels: list[str] = []
    build(Project.open(project), [], PrintOptions(), out, progress=labels.append, jobs=1)
    return labels


def test_output_holds_only_output_and_a_rebuild_reuses_verified_pdfs(world):
    project, out, _ = world
    build_labels(project, out)
    pdfs = {p.relative_to(out).as_posix(): p.read_bytes() for p in out.rglob("*.pdf")}
    assert sorted(pdfs) == [f"{GAME}/{name}.pdf" for name in
                            ("aid", "coins", f"{GAME}-print-and-play", "stalls")]
    hidden = [p for p in out.rglob("*") if p.is_file() and p.suffix != ".pdf"]
    assert [p.relative_to(out).as_posix() for p in hidden] == [f".printshop-cache/{GAME}.json"]
    assert hidden[0].stat().st_size < 8 * 1024  # keys and hashes, never a second PDF
    start = time.monotonic()
    again = build_labels(project, out)
    elapsed = time.monotonic() - start
    assert again == [f"{GAME}/{c} (unchanged)" for c in ("stalls", "coins", "aid")]
    assert {p.relative_to(out).as_posix(): p.read_bytes() for p in out.rglob("*.pdf")} == pdfs
    assert elapsed < 5, elapsed  # about 0.3 s on a quiet machine


def test_a_poisoned_pdf_in_the_output_is_drawn_again_not_trusted(world):
    project, out, _ = world
    build_labels(project, out)
    good = (out / GAME / "stalls.pdf").read_bytes()
    (out / GAME / "stalls.pdf").write_bytes(b"%PDF-1.4 poisoned")
    labels = build_labels(project, out)
    assert f"{GAME}/stalls" in labels  # redrawn: its bytes no longer hash to the manifest's
    assert (out / GAME / "stalls.pdf").read_bytes() == good


def test_a_planted_manifest_cannot_vouch_for_a_file_outside_the_game(world):
    project, out, outside = world
    build_labels(project, out)
    manifest = out / ".printshop-cache" / f"{GAME}.json"
    text = manifest.read_text()
    (out / GAME / "stalls.pdf").write_bytes(b"%PDF poisoned")
    digest = hashlib.sha256(b"%PDF poisoned").hexdigest()
    data = json.loads(text)
    data["components"]["coins"]["file"] = "../outside/game/stalls.pdf"
    data["components"]["stalls"]["mac"] = "0" * 64
    manifest.write_text(json.dumps(data))
    labels = build_labels(project, out)
    assert {f"{GAME}/stalls", f"{GAME}/coins"} <= set(labels)
    assert hashlib.sha256((out / GAME / "stalls.pdf").read_bytes()).hexdigest() != digest
    assert (outside / "game" / "stalls.pdf").read_text() == "the victim's own file"


def test_an_old_cache_of_pdf_copies_is_removed(world):
    project, out, _ = world
    old = out / ".printshop-cache" / GAME
    old.mkdir(parents=True)
    (old / "stalls-0123.pdf").write_bytes(b"%PDF old copy")
    build_labels(project, out)
    assert not old.exists()


def test_disk_full_while_staging_the_cache_replaces_nothing(world, monkeypatch):
    project, out, _ = world
    build_labels(project, out)
    before = snapshot(out)
    (project / COIN).write_text((project / COIN).read_text().replace("#e0a72e", "#d09010"))
    real_open = builtins.open

    def full(path, mode="r", *args, **kwargs):
        if "w" in mode and ".printshop-cache" in str(path):
            raise OSError(28, "No space left on device")
        return real_open(path, mode, *args, **kwargs)
    from printshop.files import output
    monkeypatch.setattr(output, "open", full, raising=False)
    result = run_build(project, out)
    assert_clean_failure(result, f"{out}: cannot write the output: No space left on device")
    assert snapshot(out) == before  # the PDFs were not replaced either


# Shared temporary directory.

def test_a_planted_fontconfig_folder_in_the_shared_temp_is_not_used(tmp_path, monkeypatch):
    shared = tmp_path / "shared-tmp"
    shared.mkdir()
    victim = tmp_path / "victim"
    victim.mkdir()
    (victim / "fonts.conf").write_text("the victim's own file")
    key = hashlib.sha1(str(fonts.FONT_DIR).encode()).hexdigest()[:12]
    planted = shared / f"printshop-fontconfig-{key}-{os.getuid()}"
    planted.symlink_to(victim)
    monkeypatch.setattr("tempfile.tempdir", str(shared))
    monkeypatch.delenv("PRINTSHOP_FONTCONFIG_SET", raising=False)
    monkeypatch.setenv("FONTCONFIG_FILE", "")
    fonts.use_shipped_fonts()
    conf = Path(os.environ["FONTCONFIG_FILE"])
    assert (victim / "fonts.conf").read_text() == "the victim's own file"
    assert sorted(p.name for p in victim.iterdir()) == ["fonts.conf"]
    assert not conf.resolve().is_relative_to(victim.resolve())
    assert conf.parent.stat().st_mode & 0o077 == 0


def test_a_shared_temp_folder_open_to_others_is_not_used(tmp_path, monkeypatch):
    monkeypatch.setattr("tempfile.tempdir", str(tmp_path))
    open_to_all = tmp_path / f"printshop-test-{os.getuid()}"
    open_to_all.mkdir(mode=0o777)
    os.chmod(open_to_all, 0o777)
    chosen = guard.private_dir("printshop-test")
    assert chosen != open_to_all and chosen.stat().st_mode & 0o077 == 0
    os.chmod(open_to_all, 0o700)
    assert guard.private_dir("printshop-test") == open_to_all


# The build's total drawing time.

def test_the_build_stops_when_its_total_drawing_time_is_spent(world):
    project, out, _ = world
    (project / TEMPLATES / "stall.svg.j2").write_text(
        "{% for i in range(20000) %}{% for j in range(1000) %}{% endfor %}{% endfor %}\n")
    before = snapshot(out)
    start = time.monotonic()
    result = run_build(project, out, "--limit", "total_render_seconds=0.5")
    assert time.monotonic() - start < 60
    assert_clean_failure(result, "the build has drawn for more than 0.5 seconds, over the limit "
                                 "total_render_seconds (raise it on purpose with --limit "
                                 "total_render_seconds=N)")
    assert snapshot(out) == before


def test_raising_a_limit_on_purpose_lets_the_build_through(world):
    project, out, _ = world
    coin = project / COIN
    coin.write_text('{{ ("x" * 1500000)|length }}\n' + coin.read_text())
    assert_clean_failure(run_build(project, out), "over the limit max_string_length")
    result = run_build(project, out, "--limit", "max_string_length=2000000")
    assert result.exit_code == 0, result.output


def test_an_unknown_limit_is_a_located_error(world):
    project, out, _ = world
    result = run_build(project, out, "--limit", "max_cookies=3")
    assert_clean_failure(result, "--limit: expected NAME=VALUE with NAME one of max_cards, "
                                 "max_output_pages")


def test_a_png_export_of_a_huge_card_at_high_dpi_is_refused(world):
    project, out, _ = world
    manifest = project / "data" / GAME / "game.yaml"
    manifest.write_text(manifest.read_text().replace("size: poker", "size: [400, 400]"))
    png_out = out / "png"
    command = ["export", "png", GAME, "--project", str(project), "--out", str(png_out),
               "--dpi", "1200"]
    result = CliRunner().invoke(main, command)
    assert_clean_failure(result, "data/lantern-fair/game.yaml: components.stalls: a card image of "
                                 "stalls would be 18,898 x 18,898 = 357,134,404 pixels at 1200 "
                                 "dpi, over the limit max_pixels = 50,000,000 (raise it on "
                                 "purpose with --limit max_pixels=N)")
    assert not png_out.exists()
    lowered = CliRunner().invoke(main, command[:-1] + ["60", "--limit", "max_pixels=100000"])
    assert_clean_failure(lowered, "945 x 945 = 893,025 pixels at 60 dpi, over the limit "
                                  "max_pixels = 100,000")


def test_a_component_template_that_is_a_fifo_is_named_as_such(world, fifo):
    project, out, _ = world
    fifo(project / COIN)
    before = snapshot(out)
    result = run_build(project, out)
    assert_clean_failure(result, "data/lantern-fair/game.yaml:33: components[1].front: template "
                                 "'coin.svg.j2' is not a regular file (a folder, FIFO or device) "
                                 "in templates/lantern-fair/")
    assert snapshot(out) == before


def test_a_shipped_pdf_with_a_manifest_that_hashes_it_is_drawn_again(world):
    # A downloaded game folder ships output/ with its own PDF and a manifest naming that PDF's
    # true SHA-256: only the signature of this user's secret makes a manifest vouch.
    project, out, _ = world
    build_labels(project, out)
    manifest = out / ".printshop-cache" / f"{GAME}.json"
    data = json.loads(manifest.read_text())
    planted = b"%PDF-1.4 planted by the folder's author"
    (out / GAME / "stalls.pdf").write_bytes(planted)
    entry = data["components"]["stalls"]
    entry.pop("mac")
    entry["sha256"] = hashlib.sha256(planted).hexdigest()
    data["version"] = 2
    manifest.write_text(json.dumps(data))
    labels = build_labels(project, out)
    assert f"{GAME}/stalls" in labels
    assert (out / GAME / "stalls.pdf").read_bytes() != planted
    # Signed with another user's secret: still drawn again.
    data = json.loads(manifest.read_text())
    (out / GAME / "stalls.pdf").write_bytes(planted)
    data["components"]["stalls"]["mac"] = hmac.new(b"another user's secret" * 2, planted,
                                                    hashlib.sha256).hexdigest()
    manifest.write_text(json.dumps(data))
    assert f"{GAME}/stalls" in build_labels(project, out)
    assert (out / GAME / "stalls.pdf").read_bytes() != planted
