"""Icon sets: named SVG fragments drawn in a 100 x 100 box, checked to be self-contained."""

from __future__ import annotations

import re
from pathlib import Path
from xml.etree import ElementTree

from .errors import PrintshopError, Problem
from .source import load_document

SVG_NS = "http://www.w3.org/2000/svg"
ALLOWED_TAGS = {"g", "path", "circle", "ellipse", "rect", "line", "polyline", "polygon", "text",
                "tspan", "defs", "linearGradient", "radialGradient", "stop", "clipPath"}
_NAME = re.compile(r"^[a-z0-9][a-z0-9-]*$")
_URL = re.compile(r"url\(\s*['\"]?\s*([^)'\"\s]*)")


def fragment_problem(fragment: str) -> str | None:
    """Return why an SVG fragment is unsafe or malformed, or None if it is fine."""
    try:
        root = ElementTree.fromstring(f'<g xmlns="{SVG_NS}">{fragment}</g>')
    except ElementTree.ParseError as exc:
        return f"not well-formed SVG: {exc}"
    for el in root.iter():
        tag = el.tag.split("}")[-1]
        if tag not in ALLOWED_TAGS:
            return f"element <{tag}> is not allowed in an icon (allowed: shapes, paths, text)"
        for name, value in el.attrib.items():
            local = name.split("}")[-1]
            if local == "href" or local.startswith("on"):
                return f"attribute '{local}' is not allowed in an icon"
            for url in _URL.findall(value):
                if not url.startswith("#"):
                    return f"external reference '{url}' is not allowed in an icon"
    return None


def load_icons(path: Path, label: str, root: Path | None = None) -> dict[str, str]:
    """Load an icon file (inside ``root``): a mapping of icon name to an SVG fragment."""
    doc = load_document(path, label, root)
    if not isinstance(doc.data, dict):
        raise PrintshopError(Problem(label, "expected a mapping of icon name to SVG fragment"))
    problems, icons = [], {}
    for name, fragment in doc.data.items():
        line = doc.line((name,))
        if not isinstance(name, str) or not _NAME.match(name):
            problems.append(Problem(label, "an icon name uses lowercase letters, digits and '-'",
                                    (name,), line))
            continue
        if not isinstance(fragment, str):
            problems.append(Problem(label, "expected an SVG fragment (text)", (name,), line))
            continue
        why = fragment_problem(fragment)
        if why:
            problems.append(Problem(label, why, (name,), line))
            continue
        icons[name] = fragment.strip()
    if problems:
        raise PrintshopError(problems)
    return icons


SHARED_ICON_FILE = Path(__file__).resolve().parent / "templates" / "icons.yaml"


def shared_icons() -> dict[str, str]:
    """Return the icon set every game can use (suits and other common marks)."""
    return load_icons(SHARED_ICON_FILE, "printshop/templates/icons.yaml")
