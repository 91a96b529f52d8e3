"""Every built-in game builds to the same bytes twice, in separate processes."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path

from printshop.files.project import Project


def digests(out: Path) -> dict[str, str]:
    return {p.relative_to(out).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(out.rglob("*.pdf")) if ".printshop-cache" not in p.parts}


def test_every_builtin_game_builds_byte_identical(tmp_path):
    env = {**os.environ, "SOURCE_DATE_EPOCH": "1700000000"}
    runs = []
    for name in ("first", "second"):
        out = tmp_path / name
        result = subprocess.run([sys.executable, "-m", "printshop.cli", "build", "--quiet",
                                 "--out", str(out)], capture_output=True, text=True, env=env)
        assert result.returncode == 0, result.stderr
        runs.append(digests(out))
    games = {g.id for g in Project.open(None).games()}
    assert {key.split("/")[0] for key in runs[0]} == games
    for game in games:
        assert f"{game}/{game}-print-and-play.pdf" in runs[0]
    assert runs[0] == runs[1]
