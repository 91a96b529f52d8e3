"""`build --only COMPONENT` and `watch --only`: draw and write just what you are working on."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from conftest import EXAMPLE
from printshop.load.geometry import PrintOptions
from printshop.files.project import Project
from printshop.watch import Watcher


def run(*args):
    proc = subprocess.run([sys.executable, "-m", "printshop.cli", *args], capture_output=True,
                          text=True)
    return proc.returncode, proc.stdout + proc.stderr


def test_only_draws_and_writes_one_component(tmp_path):
    out = tmp_path / "out"
    code, said = run("build", "--project", str(EXAMPLE), "--out", str(out), "--only", "coins")
    assert code == 0, said
    assert sorted(p.name for p in (out / "lantern-fair").glob("*.pdf")) == ["coins.pdf"]
    assert "print-and-play files are left as they were (--only)" in said
    # A whole build afterwards writes everything, the print-and-play file included.
    code, said = run("build", "--project", str(EXAMPLE), "--out", str(out))
    assert code == 0, said
    names = sorted(p.name for p in (out / "lantern-fair").glob("*.pdf"))
    assert names == ["aid.pdf", "coins.pdf", "lantern-fair-print-and-play.pdf", "stalls.pdf"]
    before = (out / "lantern-fair" / "lantern-fair-print-and-play.pdf").read_bytes()
    code, said = run("build", "--project", str(EXAMPLE), "--out", str(out), "--only", "aid",
                     "--only", "stalls")
    assert code == 0 and "unchanged" in said, said
    assert (out / "lantern-fair" / "lantern-fair-print-and-play.pdf").read_bytes() == before


def test_only_a_component_that_is_not_there_names_those_that_are(tmp_path):
    code, said = run("build", "--project", str(EXAMPLE), "--out", str(tmp_path), "--only",
                     "stall")
    assert code == 1
    assert ("--only stall: no component 'stall' in lantern-fair (did you mean 'stalls'?); "
            "components: stalls, coins, aid") in said
    assert not list(tmp_path.iterdir())


def test_only_still_checks_the_whole_game(tmp_path):
    root = tmp_path / "p"
    shutil.copytree(EXAMPLE, root)
    stalls = root / "data" / "lantern-fair" / "stalls.yaml"
    stalls.write_text(stalls.read_text().replace("copies: 1, ", "copies: 2, "))
    code, said = run("build", "--project", str(root), "--out", str(tmp_path / "out"), "--only",
                     "coins")
    assert code == 1 and "six-stalls" in said and not (tmp_path / "out").exists()


def test_watch_only_rebuilds_just_that_component(tmp_path):
    root = tmp_path / "p"
    shutil.copytree(EXAMPLE, root)
    messages: list[str] = []
    watcher = Watcher(Project.open(root), ("lantern-fair",), PrintOptions(), tmp_path / "out",
                      messages.append, jobs=1, only=("coins",))
    assert watcher.start() is True
    assert sorted(p.name for p in (tmp_path / "out" / "lantern-fair").glob("*.pdf")) == \
        ["coins.pdf"]
    template = root / "templates" / "lantern-fair" / "stall.svg.j2"
    template.write_text(template.read_text().replace("rx=\"2\"", "rx=\"3\""))
    assert watcher.step() is True
    assert "lantern-fair/stalls" not in messages[-1]
    assert not (tmp_path / "out" / "lantern-fair" / "stalls.pdf").exists()


def test_the_options_are_in_the_help():
    for command in ("build", "watch"):
        code, said = run(command, "--help")
        assert "--only COMPONENT" in said
