"""Strict, sandboxed Jinja templates producing SVG, with printshop's drawing helpers."""

from __future__ import annotations

import base64
import operator
import signal
import threading
from contextlib import contextmanager
from functools import lru_cache, partial
from pathlib import Path, PurePosixPath

from jinja2 import (FileSystemBytecodeCache, FileSystemLoader, StrictUndefined, TemplateError, TemplateNotFound,
                    TemplateSyntaxError)
from jinja2.sandbox import ImmutableSandboxedEnvironment, SecurityError

from . import drawing
from . import text as textmod
from .icons import shared_icons

MAX_OUTPUT_CHARS = 4_000_000
RENDER_SECONDS = 20          # one template render may take at most this long
MAX_IMAGE_BYTES = 10 * 1024 * 1024
IMAGE_TYPES = {".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg"}
# Helpers that built-in game modules add for their templates (e.g. drawing a map).
EXTRA_GLOBALS: dict = {}
MAX_SEQUENCE = 100_000


def template_global(name: str):
    """Register a helper function that every template can call by ``name``."""
    def register(fn):
        EXTRA_GLOBALS[name] = fn
        return fn
    return register


class TemplateProblem(Exception):
    """A template failed: names the template, its line, and what it was drawing."""

    def __init__(self, template: str, line: int | None, what: str, message: str):
        self.template, self.line, self.what = template, line, what
        where = f"{template}:{line}" if line else template
        super().__init__(f"{where}: while drawing {what}: {message}")


class _Environment(ImmutableSandboxedEnvironment):
    """The sandbox, with arithmetic bounded so a template cannot build huge values."""

    intercepted_binops = frozenset(["*", "**"])

    def call_binop(self, context, operator_name, left, right):
        if operator_name == "**" and isinstance(right, (int, float)) and abs(right) > 64:
            raise SecurityError("exponent too large in a template")
        if operator_name == "*":
            for seq, n in ((left, right), (right, left)):
                if isinstance(seq, (str, list, tuple)) and isinstance(n, int) and \
                        len(seq) * n > MAX_SEQUENCE:
                    raise SecurityError("a template may not build a value that large")
            return operator.mul(left, right)
        return operator.pow(left, right)


def _fmt(value) -> str:
    """Format a number for SVG: fixed decimals, no trailing zeros."""
    return textmod._fmt(float(value))


class TemplateTimeout(Exception):
    """A template ran longer than RENDER_SECONDS."""


@contextmanager
def _deadline(seconds: float):
    """Stop a render that runs too long (only possible on the main thread)."""
    if threading.current_thread() is not threading.main_thread() or \
            not hasattr(signal, "setitimer"):
        yield
        return

    def expire(signum, frame):
        raise TemplateTimeout(f"the template ran for more than {seconds:g} seconds")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def image_data(base: Path, name: str) -> str:
    """Return a data: URL for a picture inside ``base``; refuse anything outside it."""
    pure = PurePosixPath(str(name))
    if pure.is_absolute() or ".." in pure.parts or ":" in str(name) or "\\" in str(name):
        raise SecurityError(f"image '{name}' must be a file inside the game's template folder "
                            "(no absolute paths, '..' or URLs)")
    path = (base / pure).resolve()
    if not path.is_relative_to(base.resolve()) or not path.is_file():
        raise SecurityError(f"image '{name}' not found in the game's template folder")
    kind = IMAGE_TYPES.get(path.suffix.lower())
    if kind is None:
        raise SecurityError(f"image '{name}': expected one of {', '.join(IMAGE_TYPES)}")
    if path.stat().st_size > MAX_IMAGE_BYTES:
        raise SecurityError(f"image '{name}' is larger than {MAX_IMAGE_BYTES} bytes")
    return f"data:{kind};base64," + base64.b64encode(path.read_bytes()).decode("ascii")


@lru_cache(maxsize=1)
def _bytecode_cache():
    """Return Jinja's per-user compiled-template cache (a private folder it checks)."""
    try:
        return FileSystemBytecodeCache()
    except RuntimeError:  # no private temporary folder could be made: compile every time
        return None


def make_environment(template_dirs: list[Path], icons: dict[str, str]) -> _Environment:
    """Build the environment for one game: its templates first, then the shared library."""
    env = _Environment(loader=FileSystemLoader([str(d) for d in template_dirs]),
                       undefined=StrictUndefined, autoescape=True, trim_blocks=True,
                       lstrip_blocks=True, auto_reload=True, bytecode_cache=_bytecode_cache())
    all_icons = {**shared_icons(), **icons}
    env.globals.update(
        text=partial(textmod.text_box, icons=all_icons),
        text_width=textmod.text_width,
        icon=lambda name, x, y, size, color=None: textmod.icon_svg(all_icons[name], x, y,
                                                                   size, color),
        has_icon=lambda name: name in all_icons,
        image=lambda name: image_data(Path(template_dirs[0]), name),
        fmt=_fmt,
        PT=textmod.PT,
    )
    env.globals.update(EXTRA_GLOBALS)
    env.filters["fmt"] = _fmt
    return env


def _template_line(exc: BaseException) -> tuple[str | None, int | None]:
    tb = exc.__traceback__
    found = (None, None)
    while tb is not None:
        name = tb.tb_frame.f_code.co_filename
        if name.endswith(".j2") or name.endswith(".svg"):
            found = (Path(name).name, tb.tb_lineno)
        tb = tb.tb_next
    return found


def render(env: _Environment, name: str, context: dict, what: str) -> str:
    """Render one template to text, turning every failure into a TemplateProblem."""
    try:
        template = env.get_template(name)
        with _deadline(RENDER_SECONDS):
            out = template.render(context)
    except TemplateSyntaxError as exc:
        raise TemplateProblem(exc.name or name, exc.lineno, what, exc.message or str(exc)) \
            from None
    except TemplateNotFound as exc:
        raise TemplateProblem(name, None, what, f"template '{exc.name}' not found") from None
    except (TemplateError, SecurityError, textmod.TextError, KeyError, TypeError, ValueError,
            ZeroDivisionError, AttributeError, IndexError, RecursionError,
            OverflowError, TemplateTimeout, MemoryError) as exc:
        tname, line = _template_line(exc)
        message = str(exc) if not isinstance(exc, KeyError) else f"no such key {exc}"
        if isinstance(exc, RecursionError):
            message = "templates nested too deeply (recursion)"
        raise TemplateProblem(tname or name, line, what, message) from None
    if len(out) > MAX_OUTPUT_CHARS:
        raise TemplateProblem(name, None, what, f"output is {len(out)} characters; at most "
                              f"{MAX_OUTPUT_CHARS} are allowed")
    try:
        drawing.check_fragment(out)
    except drawing.Fault as exc:
        raise TemplateProblem(name, None, what, str(exc)) from None
    return out

