"""A plain (non-editable) install works from any folder: the built-in games ship in the wheel."""

from __future__ import annotations

import ast
import importlib.metadata
import re
import subprocess
import sys
import sysconfig
import tomllib
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
    assert "printshop/load/formats.yaml" in names


def isolated_venv(where: Path) -> Path:
    """Make a venv that sees this interpreter's installed dependencies but not its printshop.

    ``--system-site-packages`` would reach the *base* interpreter, which lacks the dependencies
    when the tests themselves run in a venv; a path file naming this environment's
    site-packages works in any environment (a plain path line does not run that folder's own
    .pth files, so an editable printshop there stays out of sight).
    """
    subprocess.run([sys.executable, "-m", "venv", str(where)], check=True, capture_output=True)
    py = where / "bin" / "python"
    inner = subprocess.run([str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                           check=True, capture_output=True, text=True).stdout.strip()
    outer = {sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]}
    Path(inner, "outer-environment.pth").write_text("\n".join(sorted(outer)) + "\n")
    return py


def test_installed_wheel_builds_deity_from_another_folder(wheel, tmp_path):
    venv = tmp_path / "venv"
    py = isolated_venv(venv)
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


def _imported_top_modules(package: Path) -> dict[str, str]:
    """Return every top-level module printshop's code imports, with one file that imports it."""
    found: dict[str, str] = {}
    for path in sorted(package.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            else:
                continue
            for name in names:
                found.setdefault(name.split(".")[0], str(path.relative_to(package.parent)))
    return found


def _declared_distributions() -> set[str]:
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    specs = list(project["dependencies"])
    for extra in project.get("optional-dependencies", {}).values():
        specs += extra
    return {canonical(re.split(r"[\s<>=!~;\[]", s, maxsplit=1)[0]) for s in specs}


def canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def test_pyproject_declares_every_module_printshop_imports():
    distributions = importlib.metadata.packages_distributions()
    declared = _declared_distributions()
    missing = []
    for module, where in _imported_top_modules(REPO / "printshop").items():
        if module in sys.stdlib_module_names or module in ("printshop", "__future__"):
            continue
        owners = {canonical(d) for d in distributions.get(module, [])}
        if not owners:
            missing.append(f"{module} (imported in {where}) is not installed by any package")
        elif not owners & declared:
            missing.append(f"{module} (imported in {where}) comes from {sorted(owners)}, "
                           "which pyproject.toml does not list")
    assert not missing, "\n".join(missing)
