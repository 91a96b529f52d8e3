"""docs/reference.md is made from the code and cannot drift from it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))

import make_reference  # noqa: E402


def test_the_reference_is_up_to_date():
    done = subprocess.run([sys.executable, "tools/make_reference.py", "--check"], cwd=ROOT,
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr


def test_every_helper_check_key_and_limit_is_described():
    text = make_reference.reference()     # raises KeyError on anything undescribed
    for helper in ("image(name, x=None, y=None, w=None, h=None, fit='contain')",
                   "picture(name, x, y, w, h, color=None, fit='contain')",
                   "icon(name, x, y, size, color=None)"):
        assert f"### `{helper}`" in text
    for check in make_reference.CHECKS:
        assert f"| `{check}` |" in text
    for key in ("corner_radius", "cut", "description", "tiles", "params", "pages", "overlap"):
        assert f"| `{key}` |" in text
    assert "| `a4` | 200 x 282 | 287 x 195 | 194 x 276 | 281 x 189 |" in text
    assert "| `poker` | 63 x 88 |" in text and "| `max_cards` | 20,000 |" in text
    assert "| `printshop new` |" in text


def test_the_reference_names_nothing_the_code_lacks():
    from printshop.load import specs
    for record, keys in make_reference.KEYS.items():
        declared = set(getattr(specs, record)._compiled())
        extra = set(keys) - declared - ({"kind"} if record == "ComponentBase" else set())
        assert not extra, f"{record}: described but not in the code: {extra}"
