"""The drawing helpers every template can call (text, flow, icon, image, picture, fmt, ...),
the registry built-in games add their own to (template_global), and what a helper called
with the wrong arguments says."""

from __future__ import annotations

import base64
import inspect
import threading
from collections import OrderedDict
from functools import partial
from pathlib import Path, PurePosixPath

from jinja2.sandbox import SecurityError
from markupsafe import Markup

from ..files import limits
from ..files.errors import PrintshopError
from ..files.guard import read_project_file
from ..files.project import did_you_mean
from ..load.icons import REF as ICON_REF, IconError, set_icon, shared_icons
from . import flow as flowmod
from . import text as textmod
from .pictures import PictureError, check_picture

IMAGE_TYPES = {".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg"}
# Helpers that built-in game modules add for their templates (e.g. drawing a map).
EXTRA_GLOBALS: dict = {}


def template_global(name: str):
    """Register a helper function that every template can call by ``name``."""
    def register(fn):
        EXTRA_GLOBALS[name] = fn
        return fn
    return register


class Remembered:
    """A helper whose result depends on its arguments alone, its latest results kept (within
    KEPT characters): a deck sets the same labels and rules text card after card."""

    KEPT = 1_000_000
    SIMPLE = frozenset((str, Markup, int, float, bool, type(None)))

    def __init__(self, fn):
        self.fn = fn
        self.kept: OrderedDict[tuple, str] = OrderedDict()
        self.chars = 0
        self.lock = threading.Lock()

    def __call__(self, *args, **kwargs):
        types = (*map(type, args), *map(type, kwargs.values()))
        if not self.SIMPLE.issuperset(types):
            return self.fn(*args, **kwargs)   # lists and the like: equal is not the same text
        # Types too: 1, 1.0 and True are equal keys but print differently, as do str and Markup.
        key = (args, tuple(kwargs.items()), types)
        with self.lock:
            found = self.kept.get(key)
            if found is not None:
                self.kept.move_to_end(key)
                return found
        out = self.fn(*args, **kwargs)
        if len(out) <= self.KEPT // 100:
            with self.lock:
                if key not in self.kept:
                    self.kept[key] = out
                    self.chars += len(out)
                while self.chars > self.KEPT:
                    self.chars -= len(self.kept.popitem(last=False)[1])
        return out


def helper_signature(fn) -> inspect.Signature | None:
    """Return the parameters a template passes to a helper (bound ones left out)."""
    fn = getattr(fn, "fn", fn)          # a Remembered helper: the function it remembers
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return None
    hidden = {"icons", "icon_items"}
    return sig.replace(parameters=[p for p in sig.parameters.values() if p.name not in hidden])


def helper_misuse(name: str | None, fn, args, kwargs) -> str | None:
    """Return what is wrong with a call of a template helper, in the helper's terms, or None
    when the arguments fit (the TypeError came from inside)."""
    sig = helper_signature(fn)
    if name is None or sig is None:
        return None
    try:
        sig.bind(*args, **kwargs)
    except TypeError as exc:
        why = str(exc)
        unknown = [k for k in kwargs if k not in sig.parameters]
        if unknown:
            why = f"no parameter '{unknown[0]}'{did_you_mean(unknown[0], sig.parameters)}"
        elif "too many positional" in why:
            most = sum(1 for p in sig.parameters.values()
                       if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD))
            why = f"{len(args)} values given, at most {most} expected"
        return f"{name}(): {why}; {name} takes {name}{plain_signature(sig)}"
    return None


def plain_signature(sig: inspect.Signature) -> str:
    """Return a signature as a template writer reads it: names and defaults, no types."""
    out = []
    for p in sig.parameters.values():
        if p.kind is p.VAR_POSITIONAL:
            out.append("*" + p.name)
        elif p.kind is p.VAR_KEYWORD:
            out.append("**" + p.name)
        elif p.default is p.empty:
            out.append(p.name)
        else:
            out.append(f"{p.name}={p.default!r}")
    return "(" + ", ".join(out) + ")"


def fmt(value) -> str:
    """Format a number for SVG: fixed decimals, no trailing zeros."""
    return textmod._fmt(float(value))


def image_data(base: Path, name: str) -> str:
    """Return a data: URL for a picture inside ``base``; refuse anything outside it."""
    pure = PurePosixPath(str(name))
    if pure.is_absolute() or ".." in pure.parts or ":" in str(name) or "\\" in str(name):
        raise SecurityError(f"image '{name}' must be a file inside the game's template folder "
                            "(no absolute paths, '..' or URLs)")
    kind = IMAGE_TYPES.get(pure.suffix.lower())
    if kind is None:
        raise SecurityError(f"image '{name}': expected one of {', '.join(IMAGE_TYPES)}")
    bounds = limits.current()
    try:
        raw = read_project_file(base, pure, bounds.max_image_bytes, name, "max_image_bytes")
    except PrintshopError as exc:
        raise SecurityError(f"image '{name}': {exc.problems[0].message}") from None
    try:
        check_picture(raw, kind.split("/")[1], f"image '{name}'")
    except PictureError as exc:
        raise SecurityError(str(exc)) from None
    return f"data:{kind};base64," + base64.b64encode(raw).decode("ascii")


def _set_icon_or_none(name) -> str | None:
    """Return a shipped set's icon for a PREFIX:NAME reference, or None."""
    try:
        return set_icon(name) if isinstance(name, str) and ICON_REF.fullmatch(name) else None
    except IconError:
        return None


def _icon_fragment(icons: dict[str, str], name, helper: str = "icon") -> str:
    """Return the fragment an icon name or PREFIX:NAME reference stands for."""
    fragment = icons.get(name) if isinstance(name, str) else None
    if fragment is not None:
        return fragment
    if isinstance(name, str) and ICON_REF.fullmatch(name):
        try:
            return set_icon(name)
        except IconError as exc:
            raise textmod.TextError(f"{helper}(): {exc}") from None
    raise textmod.TextError(f"{helper}(): no icon {name!r}{did_you_mean(str(name), icons)}"
                            " in the game's icons.yaml or printshop's shared icons (or a "
                            "game-icons:NAME)")


def _icon(icons: dict[str, str], name, x: float, y: float, size: float,
          color: str | None = None) -> Markup:
    """Draw an icon of the game's set, or of a shipped set (game-icons:anvil), in a box."""
    fragment = textmod.recolour(_icon_fragment(icons, name), color)
    return textmod.icon_svg(fragment, x, y, size, color)


def _image(base: Path, name, x=None, y=None, w=None, h=None, fit: str = "contain"):
    """Return a picture's data: URL, or with a box (x, y, w, h) the whole <image> element."""
    url = image_data(base, name)
    box = (x, y, w, h)
    if all(v is None for v in box):
        return url
    if any(isinstance(v, bool) or not isinstance(v, (int, float)) for v in box):
        raise textmod.TextError(f"image({name!r}, x, y, w, h): x, y, w and h are numbers in mm, "
                                f"got {', '.join(repr(v) for v in box)}")
    if w <= 0 or h <= 0:
        raise textmod.TextError(f"image({name!r}, ...): the box must have a width and height "
                                f"above 0, got {w:g} x {h:g} mm")
    aspect = {"contain": "xMidYMid meet", "cover": "xMidYMid slice", "stretch": "none"}
    if fit not in aspect:
        raise textmod.TextError(f"image(..., fit={fit!r}): expected contain, cover or stretch")
    return Markup(f'<image x="{fmt(x)}" y="{fmt(y)}" width="{fmt(w)}" height="{fmt(h)}" '
                  f'preserveAspectRatio="{aspect[fit]}" href="{url}"/>')


def _picture(base: Path, icons: dict[str, str], name, x: float, y: float, w: float, h: float,
             color: str | None = None, fit: str = "contain") -> Markup:
    """Draw a card's picture in a box: a PNG or JPEG of the template folder, or an icon
    (a name of icons.yaml or game-icons:NAME) centred at the box's smaller side."""
    if not isinstance(name, str) or not name:
        raise textmod.TextError(f"picture(): expected a file name (harbour.png) or an icon "
                                f"(game-icons:anvil), got {name!r}")
    if PurePosixPath(name).suffix.lower() in IMAGE_TYPES:
        return _image(base, name, x, y, w, h, fit)
    side = min(w, h)
    fragment = textmod.recolour(_icon_fragment(icons, name, "picture"), color)
    return textmod.icon_svg(fragment, x + (w - side) / 2, y + (h - side) / 2, side, color)


def helper_globals(base: Path, icons: dict[str, str], hyphenate: str | None,
                   game_fonts: dict[str, str] | None) -> dict:
    """Return the helpers of one game's templates by name: pictures read from ``base``, its
    ``icons`` and the shared ones, text hyphenated in ``hyphenate``'s language and set in
    ``game_fonts`` (name -> family); then those the built-in games registered."""
    all_icons = {**shared_icons(), **icons}
    helpers = dict(
        text=Remembered(partial(textmod.text_box, icons=all_icons, hyphenate=hyphenate,
                                fonts_by_name=game_fonts or None)),
        flow=partial(flowmod.flow, icons=all_icons, hyphenate=hyphenate,
                     fonts_by_name=game_fonts or None),
        text_width=partial(textmod.text_width, fonts_by_name=game_fonts or None),
        text_lines=partial(textmod.text_lines, icons=all_icons, hyphenate=hyphenate,
                           fonts_by_name=game_fonts or None),
        icon=partial(_icon, all_icons),
        has_icon=lambda name: name in all_icons or _set_icon_or_none(name) is not None,
        image=partial(_image, base),
        picture=partial(_picture, base, all_icons),
        fmt=fmt,
        PT=textmod.PT,
    )
    helpers.update(EXTRA_GLOBALS)
    return helpers
