"""A plain (non-editable) install works from any folder: the built-in games ship in the wheel."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    pytest.importorskip("hatchling")
    out = tmp_path_factory.mktemp("dist")
    subprocess.run([sys.executable, "-m", "hatchling", "build", "-t", "wheel", "-d", str(out)],
                   cwd=REPO, check=True, capture_output=True)
    return next(out.glob("printshop-*.whl"))


def test_wheel_carries_data_templates_and_fonts(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    assert "printshop/_builtin/data/deity/game.yaml" in names
    assert "printshop/_builtin/templates/deity/nation.svg.j2" in names
    assert "printshop/fonts/DejaVuSansCondensed.ttf" in names
    assert "printshop/templates/contents.svg.j2" in names
    assert "printshop/formats.yaml" in names


def test_installed_wheel_builds_deity_from_another_folder(wheel, tmp_path):
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)],
                   check=True, capture_output=True)
    py = venv / "bin" / "python"
    subprocess.run([str(py), "-m", "pip", "install", "--no-deps", "--no-index", "-q",
                    str(wheel)], check=True, capture_output=True)
    where = tmp_path / "elsewhere"
    where.mkdir()
    located = subprocess.run([str(py), "-c", "import printshop; print(printshop.__file__)"],
                             cwd=where, check=True, capture_output=True, text=True).stdout
    assert str(venv) in located
    result = subprocess.run([str(venv / "bin" / "printshop"), "build", "deity", "--quiet"],
                            cwd=where, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert (where / "output" / "deity" / "deity-print-and-play.pdf").stat().st_size > 10_000
