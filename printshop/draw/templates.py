"""Strict, sandboxed Jinja templates producing SVG, with printshop's drawing helpers."""

from __future__ import annotations

import base64
import ctypes
import inspect
import operator
import os
import re
import signal
import string
import threading
import time
import types
from collections import OrderedDict
from contextlib import contextmanager
from functools import lru_cache, partial
from pathlib import Path, PurePosixPath

from jinja2 import (FileSystemBytecodeCache, FileSystemLoader, StrictUndefined, TemplateError,
                    TemplateNotFound, TemplateSyntaxError)
from jinja2.compiler import CodeGenerator
from jinja2.filters import FILTERS as DEFAULT_FILTERS
from jinja2.loaders import split_template_path
from jinja2.utils import _PassArg
from jinja2.sandbox import ImmutableSandboxedEnvironment, SecurityError
from markupsafe import Markup, escape

from ..files import limits
from . import drawing
from . import flow as flowmod
from . import text as textmod
from ..files.errors import PrintshopError
from ..files.guard import read_project_file
from ..load.icons import REF as ICON_REF, IconError, set_icon, shared_icons
from .pictures import PictureError, check_picture, picture_size  # noqa: F401
from ..files.project import did_you_mean

MAX_OUTPUT_CHARS = 4_000_000
IMAGE_TYPES = {".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg"}
# Helpers that built-in game modules add for their templates (e.g. drawing a map).
EXTRA_GLOBALS: dict = {}


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


def _too_long(size: int) -> None:
    limit = limits.current().max_string_length
    if size > limit:
        raise SecurityError(limits.exceeded("max_string_length", "the template would build a "
                                            f"string of {limits.number(size)} characters",
                                            limit))


def _too_many(items: int) -> None:
    limit = limits.current().max_list_items
    if items > limit:
        raise SecurityError(limits.exceeded("max_list_items", "the template would build a "
                                            f"list of {limits.number(items)} items", limit))


def _size(value, seen=None) -> int:
    """Return about how many characters ``value`` becomes as text (lists by their items)."""
    if isinstance(value, str):
        return len(value)
    if not isinstance(value, (list, tuple, dict)):
        return 24
    seen = {} if seen is None else seen
    if id(value) not in seen:
        seen[id(value)] = 0  # a list inside itself counts once
        items = [*value.keys(), *value.values()] if isinstance(value, dict) else value
        seen[id(value)] = 2 * len(items) + sum(_size(item, seen) for item in items)
    return seen[id(value)]


_WIDTHS = re.compile(r"%(?:\([^)]*\))?[-#0 +]*(\*|\d+)?(?:\.(\*|\d+))?")


def _check_percent(template: str, args) -> None:
    """Refuse '%'-formatting whose padding would build an over-long string."""
    values = args if isinstance(args, tuple) else (args,)
    size = len(template) + sum(_size(v) for v in values)
    for width, precision in _WIDTHS.findall(template):
        for n in (width, precision):
            if n == "*":
                size += max((v for v in values if isinstance(v, int)), default=0)
            elif n:
                size += int(n)
    _too_long(size)


def _check_format(template: str, args, kwargs) -> None:
    """Refuse str.format whose padding or precision would build an over-long string."""
    size = len(template) + sum(_size(v) for v in (*args, *kwargs.values()))
    try:
        parsed = list(string.Formatter().parse(template))
    except ValueError:
        return  # str.format raises the same error itself
    for _, _, spec, _ in parsed:
        if not spec:
            continue
        size += sum(int(n) for n in re.findall(r"\d+", spec))
        if "{" in spec:  # a width taken from an argument
            size += max((v for v in (*args, *kwargs.values()) if isinstance(v, int)), default=0)
    _too_long(size)


def _width(n) -> int:
    return n if isinstance(n, int) else len(str(n))


# str methods whose result can be far longer than the string: what each would build.
_STR_METHODS = {
    "center": lambda s, width=0, *a: max(len(s), _width(width)),
    "ljust": lambda s, width=0, *a: max(len(s), _width(width)),
    "rjust": lambda s, width=0, *a: max(len(s), _width(width)),
    "zfill": lambda s, width=0: max(len(s), _width(width)),
    "expandtabs": lambda s, tabsize=8: len(s) + s.count("\t") * max(0, _width(tabsize)),
    "replace": lambda s, old="", new="", *a: len(s) + (s.count(old) if old else len(s) + 1) *
    _size(new),
    "join": lambda s, items=(): _size(items) + len(s) * len(items),
    "translate": lambda s, table={}: len(s) * max((_size(v) for v in table.values()),
                                                  default=1) if isinstance(table, dict)
    else len(s),
}


def _bounded_str_method(method):
    estimate = _STR_METHODS[method.__name__]

    def bounded(*args, **kwargs):
        if method.__name__ == "join" and args:
            args = (list(args[0]), *args[1:])  # a generator is read once: estimate and join
        _too_long(estimate(method.__self__, *args, **kwargs))
        return method(*args, **kwargs)
    return bounded


class _BoundedBuffer(list):
    """The output buffer of a macro, call or {% set %} block: refuses to outgrow the limit."""

    size = 0

    def append(self, piece):
        self.size += len(piece) if isinstance(piece, str) else 24
        _too_long(self.size)
        super().append(piece)

    def extend(self, pieces):
        for piece in pieces:
            self.append(piece)


class _BoundedCodeGenerator(CodeGenerator):
    """Jinja's compiler, with buffers and '~' joins that refuse to outgrow max_string_length."""

    def buffer(self, frame):
        frame.buffer = self.temporary_identifier()
        self.writeline(f"{frame.buffer} = environment.bounded_buffer()")

    def visit_Concat(self, node, frame):
        self.write("environment.bounded_text(")
        super().visit_Concat(node, frame)
        self.write(")")


_DICT_ATTRIBUTES = frozenset(dir(dict))
_NUMBERS = frozenset((int, float))
_ARITHMETIC = {"*": operator.mul, "+": operator.add, "%": operator.mod}


class _Environment(ImmutableSandboxedEnvironment):
    """The sandbox, with arithmetic and text bounded so a template cannot build huge values."""

    intercepted_binops = frozenset(["*", "**", "+", "%"])
    code_generator_class = _BoundedCodeGenerator
    helpers: dict[int, object] = {}   # by id: printshop's helpers (make_environment)
    helper_names: dict[int, str] = {}

    @staticmethod
    def bounded_buffer() -> list:
        """Return an output buffer that refuses to outgrow max_string_length."""
        return _BoundedBuffer()

    @staticmethod
    def bounded_text(value):
        """Return a joined string, refusing it when longer than max_string_length."""
        _too_long(len(value))
        return value

    def getattr(self, obj, attribute):
        # A dict's key, when the dict has no attribute of that name: what the sandbox's
        # getattr returns too, found without raising AttributeError first.
        if type(obj) is dict and attribute not in _DICT_ATTRIBUTES:
            try:
                return obj[attribute]
            except KeyError:
                pass
        return super().getattr(obj, attribute)

    def call(__self, __context, __obj, *args, **kwargs):  # noqa: N805 (as Jinja names them)
        # printshop's own helpers take no context and are safe to call: called straight away.
        if __self.helpers.get(id(__obj)) is __obj:
            kwargs.pop("_block_vars", None)
            kwargs.pop("_loop_vars", None)
            try:
                return __obj(*args, **kwargs)
            except TypeError as exc:
                misuse = helper_misuse(__self.helper_names.get(id(__obj)), __obj, args, kwargs)
                if misuse is None:
                    raise
                raise TypeError(misuse) from exc
            except StopIteration:
                return __self.undefined("value was undefined because a callable raised a "
                                        "StopIteration exception")
        return super().call(__context, __obj, *args, **kwargs)

    def call_binop(self, context, operator_name, left, right):
        if left.__class__ in _NUMBERS and right.__class__ in _NUMBERS and \
                operator_name != "**":
            return _ARITHMETIC[operator_name](left, right)   # numbers: nothing to bound
        if operator_name == "**":
            if isinstance(right, (int, float)) and abs(right) > 64:
                raise SecurityError("exponent too large in a template")
            return operator.pow(left, right)
        if operator_name == "*":
            for seq, n in ((left, right), (right, left)):
                if isinstance(seq, (str, list, tuple)) and isinstance(n, int) and \
                        not isinstance(n, bool):
                    if not isinstance(seq, str):
                        _too_many(len(seq) * n)
                    _too_long(_size(seq) * n)
            return operator.mul(left, right)
        if operator_name == "+":
            if isinstance(left, (str, list, tuple)) and isinstance(right, (str, list, tuple)):
                _too_long(_size(left) + _size(right))
            return operator.add(left, right)
        if isinstance(left, str):
            _check_percent(left, right)
        return operator.mod(left, right)

    def wrap_str_format(self, value):
        if isinstance(value, (types.MethodType, types.BuiltinMethodType)) and \
                isinstance(getattr(value, "__self__", None), str):
            if value.__name__ in _STR_METHODS:
                return _bounded_str_method(value)
            wrapped = super().wrap_str_format(value)
            if wrapped is not None:
                def bounded_format(*args, **kwargs):
                    if value.__name__ == "format":
                        _check_format(value.__self__, args, kwargs)
                    elif args and isinstance(args[0], dict):
                        _check_format(value.__self__, (), args[0])
                    return wrapped(*args, **kwargs)
                return bounded_format
            return None
        return super().wrap_str_format(value)


def _finalize(value):
    """Refuse to print a value whose text would pass max_string_length."""
    if isinstance(value, (str, list, tuple, dict)):
        _too_long(_size(value))
    return value


def _bounded_filter(name: str, estimate):
    """Return Jinja's filter ``name`` checking first how long its result would be."""
    original = DEFAULT_FILTERS[name]

    def bounded(*args, **kwargs):
        if name in _ITERABLE_AT and len(args) > _ITERABLE_AT[name]:
            at = _ITERABLE_AT[name]  # a generator is read once: for the estimate and the filter
            args = (*args[:at], list(args[at]), *args[at + 1:])
        _too_long(estimate(*args, **kwargs))
        return original(*args, **kwargs)
    bounded.__name__ = name
    for attr in ("jinja_pass_arg",):
        if hasattr(original, attr):
            setattr(bounded, attr, getattr(original, attr))
    return bounded


def _count(n) -> int:
    if isinstance(n, int):
        _too_many(n)
    return 0


_ITERABLE_AT = {"join": 1, "batch": 0, "slice": 1}
# Filters whose result can be far longer than their input: what each would build.
_FILTER_ESTIMATES = {
    "center": lambda s, width=80: max(_size(str(s)), _width(width)),
    "indent": lambda s, width=4, first=False, blank=False: len(str(s)) +
    (str(s).count("\n") + 1) * _width(width),
    "format": lambda s, *a, **k: _check_percent(str(s), a or k) or 0,
    "join": lambda ctx, value, d="", attribute=None: _size(value) + len(str(d)) * len(value),
    "replace": lambda ctx, s, old, new, count=None: _STR_METHODS["replace"](str(s), str(old),
                                                                            str(new)),
    "wordwrap": lambda env, s, width=79, break_long=True, wrapstring=None, *a:
    len(str(s)) + (len(str(s)) // max(1, _width(width)) + 1) * len(wrapstring or "\n"),
    "batch": lambda value, linecount, fill_with=None: _count(linecount),
    "slice": lambda ctx, value, slices, fill_with=None: _count(slices),
}


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
        return f"{name}(): {why}; {name} takes {name}{_plain_signature(sig)}"
    return None


def _plain_signature(sig: inspect.Signature) -> str:
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


def _fmt(value) -> str:
    """Format a number for SVG: fixed decimals, no trailing zeros."""
    return textmod._fmt(float(value))


class TemplateTimeout(Exception):
    """A template ran longer than the render_seconds limit, or the build's total time ran out."""


class RenderInterrupted(TemplateTimeout):
    """Raised inside a worker thread whose render ran out of time (by the watchdog)."""

    def __str__(self) -> str:
        return _over_message(limits.current().render_seconds)


def _over_message(seconds: float) -> str:
    return (f"the template ran for more than {seconds:g} seconds, over the limit "
            "render_seconds (raise it on purpose with --limit render_seconds=N)")


class _Watchdog:
    """One thread that stops renders running too long on other threads (the studio's pool).

    A signal reaches only the main thread; elsewhere the watchdog raises RenderInterrupted in
    the rendering thread (PyThreadState_SetAsyncExc), which a template's Python code meets at
    its next step: a looping template stops, the thread goes back to serving.
    """

    def __init__(self) -> None:
        self.cond = threading.Condition()
        self.armed: dict[int, list] = {}   # id -> [deadline, thread id, fired]
        self.next_id = 0
        self.thread: threading.Thread | None = None

    def arm(self, seconds: float) -> int:
        """Start the clock of a render on this thread; return its id."""
        with self.cond:
            self.next_id += 1
            self.armed[self.next_id] = [time.monotonic() + seconds, threading.get_ident(),
                                        False]
            if self.thread is None or not self.thread.is_alive():
                self.thread = threading.Thread(target=self._run, name="render-watchdog",
                                               daemon=True)
                self.thread.start()
            self.cond.notify()
            return self.next_id

    def disarm(self, key: int) -> bool:
        """Stop a render's clock; say whether it ran out (its pending interrupt is cleared)."""
        with self.cond:
            entry = self.armed.pop(key, None)
            if entry is not None and entry[2]:
                _async_raise(entry[1], None)
            return entry is not None and entry[2]

    def _run(self) -> None:
        with self.cond:
            while True:
                now = time.monotonic()
                waiting = [e for e in self.armed.values() if not e[2]]
                for entry in waiting:
                    if entry[0] <= now:
                        entry[2] = True
                        _async_raise(entry[1], RenderInterrupted)
                pending = [e[0] - now for e in waiting if e[0] > now]
                self.cond.wait(min(pending) if pending else None)


def _async_raise(thread_id: int, exc) -> None:
    """Raise ``exc`` in another thread at its next Python step (None: cancel a pending one)."""
    ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(thread_id),
                                               ctypes.py_object(exc) if exc else None)


_WATCHDOG = _Watchdog()


@contextmanager
def _deadline(seconds: float):
    """Stop a render that runs too long: by a timer signal on the main thread, by the
    watchdog on any other."""
    left = limits.seconds_left()
    if left is not None and left <= 0:
        raise TemplateTimeout(limits.total_time_message())
    whole_build = left is not None and left < seconds
    message = limits.total_time_message() if whole_build else _over_message(seconds)
    if threading.current_thread() is not threading.main_thread() or \
            not hasattr(signal, "setitimer"):
        key = _WATCHDOG.arm(min(seconds, left) if whole_build else seconds)
        try:
            yield
        except TemplateTimeout:
            _WATCHDOG.disarm(key)
            raise TemplateTimeout(message) from None
        except BaseException:
            _WATCHDOG.disarm(key)
            raise
        if _WATCHDOG.disarm(key):
            raise TemplateTimeout(message)
        return

    def expire(signum, frame):
        raise TemplateTimeout(message)

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, min(seconds, left) if whole_build else seconds)
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
    return Markup(f'<image x="{_fmt(x)}" y="{_fmt(y)}" width="{_fmt(w)}" height="{_fmt(h)}" '
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


def make_environment(template_dirs: list[Path], icons: dict[str, str],
                     hyphenate: str | None = None,
                     game_fonts: dict[str, str] | None = None) -> _Environment:
    """Build the environment for one game: its templates first, then the shared library;
    text is hyphenated in ``hyphenate``'s language and may use ``game_fonts`` (name ->
    family)."""
    env = _Environment(loader=GuardedLoader([str(d) for d in template_dirs]),
                       undefined=StrictUndefined, autoescape=True, trim_blocks=True,
                       lstrip_blocks=True, auto_reload=True, bytecode_cache=_bytecode_cache(),
                       finalize=_finalize)
    env.globals.pop("lipsum", None)  # lipsum(n) writes n paragraphs: a text bomb
    env.filters.update({name: _bounded_filter(name, estimate)
                        for name, estimate in _FILTER_ESTIMATES.items()})
    all_icons = {**shared_icons(), **icons}
    env.globals.update(
        text=Remembered(partial(textmod.text_box, icons=all_icons, hyphenate=hyphenate,
                                fonts_by_name=game_fonts or None)),
        flow=partial(flowmod.flow, icons=all_icons, hyphenate=hyphenate,
                     fonts_by_name=game_fonts or None),
        text_width=partial(textmod.text_width, fonts_by_name=game_fonts or None),
        text_lines=partial(textmod.text_lines, icons=all_icons, hyphenate=hyphenate,
                           fonts_by_name=game_fonts or None),
        icon=partial(_icon, all_icons),
        has_icon=lambda name: name in all_icons or _set_icon_or_none(name) is not None,
        image=partial(_image, Path(template_dirs[0])),
        picture=partial(_picture, Path(template_dirs[0]), all_icons),
        fmt=_fmt,
        PT=textmod.PT,
    )
    env.globals.update(EXTRA_GLOBALS)
    env.filters["fmt"] = _fmt
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


def render(env: _Environment, name: str, context: dict, what: str) -> str:
    """Render one template to text, turning every failure into a TemplateProblem."""
    try:
        template = env.get_template(name)
        with _deadline(limits.current().render_seconds):
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


def _line_of(env: _Environment, name: str, needle: str | None) -> tuple[str, int | None]:
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

