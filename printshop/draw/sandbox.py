"""The sandbox templates run in: Jinja's immutable sandbox, with arithmetic, text, filters and
output buffers that refuse to build a value over the limits max_string_length and
max_list_items, and printshop's own helpers called straight away."""

from __future__ import annotations

import operator
import re
import string
import types

from jinja2.compiler import CodeGenerator
from jinja2.filters import FILTERS as DEFAULT_FILTERS
from jinja2.sandbox import ImmutableSandboxedEnvironment, SecurityError

from ..files import limits
from .helpers import helper_misuse


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


class Environment(ImmutableSandboxedEnvironment):
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


def finalize(value):
    """Refuse to print a value whose text would pass max_string_length."""
    if isinstance(value, (str, list, tuple, dict)):
        _too_long(_size(value))
    return value


def bounded_filter(name: str, estimate):
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
FILTER_ESTIMATES = {
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
