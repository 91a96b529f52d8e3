"""Strict, sandboxed Jinja templates producing SVG: one environment per game (its templates
first, then the shared library), every template read through the guarded path, and every
failure a TemplateProblem naming the template, its line and what it was drawing.

The sandbox's bounds are in sandbox.py, the helpers templates call in helpers.py, the time
limit in timeouts.py.
"""

from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path

from jinja2 import (FileSystemBytecodeCache, FileSystemLoader, StrictUndefined, TemplateError,
                    TemplateNotFound, TemplateSyntaxError)
from jinja2.loaders import split_template_path
from jinja2.utils import _PassArg
from jinja2.sandbox import SecurityError

from ..files import limits
from ..files.errors import PrintshopError
from ..files.guard import read_project_file
from . import drawing
from . import text as textmod
from .helpers import fmt, helper_globals
from .sandbox import FILTER_ESTIMATES, Environment, bounded_filter, finalize
from .timeouts import TemplateTimeout, deadline

MAX_OUTPUT_CHARS = 4_000_000


class TemplateProblem(Exception):
    """A template failed: names the template, its line, and what it was drawing."""

    def __init__(self, template: str, line: int | None, what: str, message: str):
        self.template, self.line, self.what = template, line, what
        where = f"{template}:{line}" if line else template
        super().__init__(f"{where}: while drawing {what}: {message}")


@lru_cache(maxsize=1)
def _bytecode_cache():
    """Return Jinja's per-user compiled-template cache (a private folder it checks)."""
    try:
        return FileSystemBytecodeCache()
    except RuntimeError:  # no private temporary folder could be made: compile every time
        return None


class GuardedLoader(FileSystemLoader):
    """Jinja's file loader, reading every template through guard.read_project_file.

    A template reached through a symbolic link that leaves its search folder, a FIFO or an
    oversized file is refused, whether named by a component or by {% include %} / {% import %}.
    """

    def get_source(self, environment, template):
        pieces = split_template_path(template)
        for folder in self.searchpath:
            filename = os.path.join(folder, *pieces)
            if os.path.lexists(filename):
                break
        else:
            raise TemplateNotFound(template)
        try:
            raw = read_project_file(folder, filename, limits.current().max_file_bytes, template)
        except PrintshopError as exc:
            raise SecurityError(f"template '{template}': {exc.problems[0].message}") from None
        try:
            source = raw.decode("utf-8")
        except UnicodeDecodeError:
            raise SecurityError(f"template '{template}' is not UTF-8 text") from None
        mtime = os.stat(filename).st_mtime

        def uptodate() -> bool:
            try:
                return os.stat(filename).st_mtime == mtime
            except OSError:
                return False
        return source, os.path.normpath(filename), uptodate


def make_environment(template_dirs: list[Path], icons: dict[str, str],
                     hyphenate: str | None = None,
                     game_fonts: dict[str, str] | None = None) -> Environment:
    """Build the environment for one game: its templates first, then the shared library;
    text is hyphenated in ``hyphenate``'s language and may use ``game_fonts`` (name ->
    family)."""
    env = Environment(loader=GuardedLoader([str(d) for d in template_dirs]),
                      undefined=StrictUndefined, autoescape=True, trim_blocks=True,
                      lstrip_blocks=True, auto_reload=True, bytecode_cache=_bytecode_cache(),
                      finalize=finalize)
    env.globals.pop("lipsum", None)  # lipsum(n) writes n paragraphs: a text bomb
    env.filters.update({name: bounded_filter(name, estimate)
                        for name, estimate in FILTER_ESTIMATES.items()})
    env.globals.update(helper_globals(Path(template_dirs[0]), icons, hyphenate, game_fonts))
    env.filters["fmt"] = fmt
    env.helper_names = {id(f): name for name, f in env.globals.items() if callable(f)}
    env.helpers = {id(f): f for f in env.globals.values()
                   if callable(f) and env.is_safe_callable(f) and _PassArg.from_obj(f) is None
                   and _PassArg.from_obj(getattr(f, "__call__", None)) is None}
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


def render(env: Environment, name: str, context: dict, what: str) -> str:
    """Render one template to text, turning every failure into a TemplateProblem."""
    try:
        template = env.get_template(name)
        with deadline(limits.current().render_seconds):
            pieces, size = [], 0
            for piece in template.generate(context):
                size += len(piece)
                if size > MAX_OUTPUT_CHARS:
                    raise TemplateProblem(name, None, what, f"output is over {MAX_OUTPUT_CHARS}"
                                          " characters; at most that many are allowed")
                pieces.append(piece)
            out = "".join(pieces)
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
    try:
        drawing.check_fragment(out)
    except drawing.Fault as exc:
        where, line = _line_of(env, name, getattr(exc, "needle", None))
        raise TemplateProblem(where, line, what, str(exc)) from None
    return out


def _line_of(env: Environment, name: str, needle: str | None) -> tuple[str, int | None]:
    """Return the template and line whose source holds ``needle`` (a refused attribute)."""
    if not needle:
        return name, None
    wanted = needle.lower()
    for tname in [name] + sorted(t for t in env.list_templates() if t != name):
        try:
            source = env.loader.get_source(env, tname)[0]
        except Exception:  # noqa: BLE001 - a template that does not load names no line
            continue
        for n, text in enumerate(source.splitlines(), 1):
            if wanted in text.lower():
                return tname, n
    return name, None

