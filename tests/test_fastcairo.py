"""cairocffi loads from printshop's serialised declarations, and draws exactly as before."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path

import pytest

from printshop.draw import fastcairo

REPO = Path(__file__).resolve().parent.parent


def _run(code: str, plain: bool, cwd: Path | None = None) -> str:
    env = {**os.environ, "PRINTSHOP_PLAIN_CAIRO": "1" if plain else "0"}
    return subprocess.run([sys.executable, "-c", code], env=env, cwd=cwd, check=True,
                          capture_output=True, text=True).stdout


def test_shipped_declarations_match_the_installed_cairocffi():
    from cairocffi import constants

    if fastcairo.headers_digest(constants._CAIRO_HEADERS) != \
            fastcairo.GENERATED.read_text().splitlines()[1].split("'")[1]:
        pytest.skip("cairocffi's declarations changed: run printshop.draw.fastcairo.write() "
                    "(until then cairocffi is imported the ordinary way)")
    assert fastcairo.GENERATED.read_text() == fastcairo.generate()


def test_the_hook_serves_the_serialised_declarations_and_the_plain_way_still_works():
    code = ("import printshop, cairocffi; "
            "print(type(cairocffi.ffi).__module__, cairocffi.cairo_version() > 0)")
    assert _run(code, plain=False).split() == ["_cffi_backend", "True"]
    assert _run(code, plain=True).split() == ["cffi.api", "True"]


def test_builds_are_byte_identical_with_and_without_the_hook(tmp_path):
    digests = []
    for plain in (False, True):
        out = tmp_path / ("plain" if plain else "fast")
        _run("from printshop.cli import main; import sys; "
             f"sys.argv = ['printshop', 'build', 'deity', '--quiet', '--out', {str(out)!r}]; "
             "main()", plain=plain, cwd=REPO)
        files = sorted((out / "deity").glob("*.pdf"))
        assert files
        digests.append({f.name: hashlib.sha256(f.read_bytes()).hexdigest() for f in files})
    assert digests[0] == digests[1]
