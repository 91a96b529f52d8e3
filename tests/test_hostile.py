"""The hostile-input corpus: each case breaks the example game one way and names the message.

A case is a folder under tests/hostile/ holding files that replace the example project's
files, and expect.txt: lines that must all appear in what printshop prints. Every case must
fail cleanly: exit code 1, no traceback, and the output folder left exactly as it was.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from printshop.cli import main

from conftest import EXAMPLE

CASES = sorted(p for p in (Path(__file__).parent / "hostile").iterdir() if p.is_dir())


def snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file()}


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_hostile_input_fails_cleanly(case: Path, tmp_path: Path):
    project = tmp_path / "project"
    shutil.copytree(EXAMPLE, project)
    for src in case.rglob("*"):
        if src.is_file() and src.name not in ("expect.txt", "command.txt"):
            dst = project / src.relative_to(case)
            dst.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(src, dst)
    out = tmp_path / "out"
    (out / "lantern-fair").mkdir(parents=True)
    (out / "lantern-fair" / "stalls.pdf").write_bytes(b"%PDF previous good output")
    before = snapshot(out)
    command = (case / "command.txt").read_text().split() if (case / "command.txt").exists() \
        else ["build", "--quiet", "--out", str(out)]
    result = CliRunner().invoke(main, command + ["--project", str(project)])
    text = result.output
    assert result.exit_code == 1, text
    assert "Traceback" not in text
    assert result.exception is None or isinstance(result.exception, SystemExit)
    for line in (case / "expect.txt").read_text(encoding="utf-8").splitlines():
        if line.strip():
            assert line.strip() in text, f"expected {line!r} in:\n{text}"
    assert text.rstrip().splitlines()[-1].endswith(("nothing written", "validation failed"))
    assert snapshot(out) == before


def test_corpus_has_at_least_forty_cases():
    assert len(CASES) >= 40
