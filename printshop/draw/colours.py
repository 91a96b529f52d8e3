"""SVG colour values: named colours, #rgb, #rrggbb and rgb(), read into (r, g, b) from 0 to 1."""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path


@lru_cache(maxsize=1)
def named() -> dict[str, str]:
    """Return the CSS colour names as #rrggbb (from colors.json)."""
    return json.loads(Path(__file__).with_name("colors.json").read_text())


@lru_cache(maxsize=4096)
def parse(value: str | None) -> tuple[float, float, float] | None:
    """Return (r, g, b) for a plain colour, None for 'none'; ValueError for anything else."""
    if value is None:
        return None
    value = named().get(value.strip().lower(), value.strip().lower())
    if value in ("none", "transparent", ""):
        return None
    if value.startswith("#"):
        digits = value[1:]
        if len(digits) == 3 and all(c in "0123456789abcdef" for c in digits):
            return tuple(int(c, 16) / 15 for c in digits)
        if len(digits) == 6 and all(c in "0123456789abcdef" for c in digits):
            return tuple(int(digits[i:i + 2], 16) / 255 for i in (0, 2, 4))
    if value.startswith("rgb(") and value.endswith(")"):
        parts = [p.strip() for p in value[4:-1].split(",")]
        if len(parts) == 3:
            try:
                return tuple(min(1.0, float(p[:-1]) / 100 if p.endswith("%") else
                                 float(p) / 255) for p in parts)
            except ValueError:
                pass
    raise ValueError(f"not a plain colour: {value!r}")
