"""Strict, sandboxed Jinja templates producing SVG, with printshop's drawing helpers."""

from __future__ import annotations

import operator
from functools import partial
from pathlib import Path

from jinja2 import (FileSystemLoader, StrictUndefined, TemplateError, TemplateNotFound,
                    TemplateSyntaxError)
from jinja2.sandbox import ImmutableSandboxedEnvironment, SecurityError

from . import text as textmod
from .games import load_plugins
from .icons import shared_icons

MAX_OUTPUT_CHARS = 4_000_000
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


def make_environment(template_dirs: list[Path], icons: dict[str, str]) -> _Environment:
    """Build the environment for one game: its templates first, then the shared library."""
    env = _Environment(loader=FileSystemLoader([str(d) for d in template_dirs]),
                       undefined=StrictUndefined, autoescape=True, trim_blocks=True,
                       lstrip_blocks=True, auto_reload=False)
    all_icons = {**shared_icons(), **icons}
    env.globals.update(
        text=partial(textmod.text_box, icons=all_icons),
        text_width=textmod.text_width,
        icon=lambda name, x, y, size, color=None: textmod.icon_svg(all_icons[name], x, y,
                                                                   size, color),
        has_icon=lambda name: name in all_icons,
        fmt=_fmt,
        PT=textmod.PT,
    )
    load_plugins()
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
        out = template.render(context)
    except TemplateSyntaxError as exc:
        raise TemplateProblem(exc.name or name, exc.lineno, what, exc.message or str(exc)) \
            from None
    except TemplateNotFound as exc:
        raise TemplateProblem(name, None, what, f"template '{exc.name}' not found") from None
    except (TemplateError, SecurityError, textmod.TextError, KeyError, TypeError, ValueError,
            ZeroDivisionError, AttributeError, IndexError, RecursionError,
            OverflowError) as exc:
        tname, line = _template_line(exc)
        message = str(exc) if not isinstance(exc, KeyError) else f"no such key {exc}"
        if isinstance(exc, RecursionError):
            message = "templates nested too deeply (recursion)"
        raise TemplateProblem(tname or name, line, what, message) from None
    if len(out) > MAX_OUTPUT_CHARS:
        raise TemplateProblem(name, None, what, f"output is {len(out)} characters; at most "
                              f"{MAX_OUTPUT_CHARS} are allowed")
    return out

