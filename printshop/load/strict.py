"""Typed records read from plain data (YAML, JSON, TOML): strict, located, quick to import.

A record declares its keys as annotated class attributes, the way a dataclass does::

    class Style(Record):
        title_font: str = "Linux Libertine O"
        colors: dict[str, str] = Field(default_factory=dict)

``Style.model_validate(data)`` checks a mapping against it and returns a frozen instance, or
raises ``ValidationError`` holding every problem found, each with its key path and a message
written for whoever wrote the file: "unknown key 'colour'; accepted keys: ...".

The types understood are the ones data files hold: str, int, float, bool, Any, None,
Literal[...], list[T], dict[K, V], tuple[A, B] (or tuple[T, ...]), unions of these, other
records, and Annotated[T, Field(...)] for bounds, lengths and patterns. A union of records
given ``Field(discriminator="kind")`` is chosen by the record's ``kind``. Where a number is
asked for, a whole number or the text of a decimal number (YAML 1.1 reads ``1e3`` as text) is
accepted and becomes a float; a whole number must be one (not "3", not 2.5), and ``true`` is
neither.

printshop used pydantic for this. Importing it and building the manifest's schema took about
0.2 s at every run, more than drawing a 100-card deck; checking a manifest here takes well
under a millisecond. The names (``Field``, ``model_validate``, ``model_dump``) are pydantic's,
so the models read as before.
"""

from __future__ import annotations

import math
import re
import types
import typing
from typing import Any, Callable

MISSING = typing.cast(Any, object())
_BAD = object()           # what a check returns for a value it refused (problems recorded)
_NUMBER = (int, float)
_SIZED = (str, list, tuple, dict)


class Field:
    """A key's default and constraints, as a class attribute or inside ``Annotated``."""

    __slots__ = ("default", "default_factory", "ge", "le", "min_length", "max_length",
                 "pattern", "means", "discriminator")

    def __init__(self, default=MISSING, *, default_factory: Callable | None = None,
                 ge: float | None = None, le: float | None = None,
                 min_length: int | None = None, max_length: int | None = None,
                 pattern: str | None = None, means: str | None = None,
                 discriminator: str | None = None):
        self.default, self.default_factory = default, default_factory
        self.ge, self.le = ge, le
        self.min_length, self.max_length = min_length, max_length
        self.pattern, self.means, self.discriminator = pattern, means, discriminator


class ValidationError(ValueError):
    """Every problem found in one piece of data: ``found`` is a list of (key path, message)."""

    def __init__(self, found: list[tuple[tuple, str]]):
        self.found = found
        super().__init__("; ".join(f"{'.'.join(map(str, loc)) or '(top)'}: {msg}"
                                   for loc, msg in found))


def validator(*names: str):
    """Mark a function ``(cls, value) -> value`` that checks these keys further once their
    type passed; a ValueError it raises becomes a problem at the key."""

    def mark(fn):
        fn.__validates__ = names
        return fn
    return mark


def short(value) -> str:
    """Return a value as a message quotes it: its repr, cut to 60 characters."""
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _g(value) -> str:
    return f"{value:g}" if isinstance(value, float) else str(value)


# Checks --------------------------------------------------------------------------------------
# A check is (value, loc, out) -> the value to keep, or _BAD after appending problems to out.

class _Check:
    """A compiled check for one type: ``describe`` names what it accepts, ``fits`` says
    whether a value has the right shape to be reported against this type in a union."""

    __slots__ = ("run", "describe", "fits")

    def __init__(self, run, describe: str, fits):
        self.run, self.describe, self.fits = run, describe, fits


def _plain(kind: type | tuple, describe: str, convert=None) -> _Check:
    def run(value, loc, out):
        if type(value) in kinds:
            return value if convert is None else convert(value, loc, out)
        out.append((loc, f"expected {describe}, got {short(value)}"))
        return _BAD
    kinds = kind if isinstance(kind, tuple) else (kind,)
    return _Check(run, describe, lambda v: type(v) in kinds)


# A number written as text: YAML 1.1 reads 1e3 (no dot) as text, and so does a CSV cell.
# ASCII only: float() would also read '٣' or '²'.
_DECIMAL = re.compile(r"[-+]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?", re.ASCII)


_WHOLE = re.compile(r"[-+]?[0-9]{1,18}", re.ASCII)


def number_text(text: str, whole: bool = False) -> float | int | None:
    """Return the number a text writes (ASCII decimal digits, surrounding spaces allowed),
    or None; ``whole``: only a whole number, returned as an int."""
    text = text.strip()
    if whole:
        return int(text) if _WHOLE.fullmatch(text) else None
    return float(text) if len(text) <= 400 and _DECIMAL.fullmatch(text) else None


def _finite(value, loc, out):
    if type(value) is str:
        read = number_text(value)
        if read is None:
            out.append((loc, f"expected a number, got {short(value)}"))
            return _BAD
        value = read
    value = float(value)
    if math.isfinite(value):
        return value
    out.append((loc, f"expected a finite number, got {short(value)}"))
    return _BAD


_BASIC = {
    str: _plain(str, "text"),
    int: _plain(int, "a whole number"),
    float: _plain((int, float, str), "a number", _finite),
    bool: _plain(bool, "true or false"),
    type(None): _plain(type(None), "nothing (null)"),
}


def _anything(value, loc, out):
    return value


_ANY = _Check(_anything, "anything", lambda v: True)


def _quote_all(values) -> str:
    items = [repr(v) for v in values]
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " or " + items[-1]


def _literal(values: tuple) -> _Check:
    allowed = {(type(v), v) for v in values}
    describe = _quote_all(values)

    def run(value, loc, out):
        try:
            if (type(value), value) in allowed:
                return value
        except TypeError:   # an unhashable value (a list, a mapping) is no literal
            pass
        out.append((loc, f"expected {describe}, got {short(value)}"))
        return _BAD
    kinds = {type(v) for v in values}
    return _Check(run, describe, lambda v: type(v) in kinds)


def _list(item: _Check) -> _Check:
    def run(value, loc, out):
        if type(value) is not list:
            out.append((loc, f"expected a list, got {short(value)}"))
            return _BAD
        kept, ok = [], True
        check = item.run
        for i, v in enumerate(value):
            v = check(v, loc + (i,), out)
            if v is _BAD:
                ok = False
            kept.append(v)
        return kept if ok else _BAD
    return _Check(run, "a list", lambda v: type(v) is list)


def _tuple(items: list[_Check] | None, repeated: _Check | None) -> _Check:
    if repeated is not None:
        describe = "a list"
    elif items and all(i.describe == "a number" for i in items):
        describe = f"a list of {len(items)} numbers"
    else:
        describe = f"a list of {len(items or ())} items"

    def run(value, loc, out):
        if type(value) not in (list, tuple):
            out.append((loc, f"expected {describe}, got {short(value)}"))
            return _BAD
        checks = [repeated] * len(value) if repeated is not None else items
        if len(value) != len(checks):
            out.append((loc, f"expected {describe}, got {len(value)} item(s)"))
            return _BAD
        kept = tuple(c.run(v, loc + (i,), out) for i, (c, v) in enumerate(zip(checks, value)))
        return _BAD if any(v is _BAD for v in kept) else kept
    return _Check(run, describe, lambda v: type(v) in (list, tuple))


def _dict(key: _Check, value_check: _Check) -> _Check:
    def run(value, loc, out):
        if type(value) is not dict:
            out.append((loc, f"expected a mapping, got {short(value)}"))
            return _BAD
        kept, ok = {}, True
        for k, v in value.items():
            k2 = key.run(k, loc + (k,), out)
            v2 = value_check.run(v, loc + (k,), out)
            if k2 is _BAD or v2 is _BAD:
                ok = False
            else:
                kept[k2] = v2
        return kept if ok else _BAD
    return _Check(run, "a mapping", lambda v: type(v) is dict)


def _union(members: list[_Check]) -> _Check:
    names = [m.describe for m in members]
    describe = ", ".join(names[:-1]) + " or " + names[-1]

    def run(value, loc, out):
        tried = []
        for m in members:
            found: list = []
            v = m.run(value, loc, found)
            if v is not _BAD:
                return v
            if m.fits(value):
                tried.append(found)
        if tried:   # report against the type the value was meant as: the deepest problems
            out.extend(max(tried, key=lambda f: max(len(loc) for loc, _ in f)))
        else:
            out.append((loc, f"expected {describe}, got {short(value)}"))
        return _BAD
    return _Check(run, describe, lambda v: any(m.fits(v) for m in members))


def _tagged(members: list[type[Record]], tag: str) -> _Check:
    by_tag: dict = {}
    for m in members:
        for value in typing.get_args(_hints(m)[tag]):
            by_tag[value] = m
    expected = ", ".join(repr(t) for t in by_tag)

    def run(value, loc, out):
        if type(value) is not dict:
            out.append((loc, f"expected a mapping, got {short(value)}"))
            return _BAD
        if tag not in value:
            out.append((loc + (tag,), f"missing required key '{tag}'; one of {expected}"))
            return _BAD
        try:
            member = by_tag.get(value[tag])
        except TypeError:
            member = None
        if member is None:
            out.append((loc + (tag,), f"expected one of {expected}, got {short(value[tag])}"))
            return _BAD
        return member._check(value, loc, out)
    return _Check(run, "a mapping", lambda v: type(v) is dict)


def _bounded(inner: _Check, f: Field) -> _Check:
    """Wrap a check with a Field's bounds, lengths and pattern."""
    ge, le, lo, hi = f.ge, f.le, f.min_length, f.max_length
    rx = None
    if f.pattern is not None:   # '$' at the very end means the end, not "before a newline"
        rx = re.compile(f.pattern[:-1] + r"\Z" if f.pattern.endswith("$") else f.pattern)
    means = f.means or (f"text matching {f.pattern}" if f.pattern else "")
    run_inner = inner.run

    def run(given, loc, out):
        value = run_inner(given, loc, out)
        if value is _BAD:
            return _BAD
        problem, kind = None, type(value)   # each bound applies to the values it measures
        if kind in _NUMBER and ge is not None and value < ge:
            problem = f"expected a number of at least {_g(ge)}, got {short(given)}"
        elif kind in _NUMBER and le is not None and value > le:
            problem = f"expected a number of at most {_g(le)}, got {short(given)}"
        elif kind in _SIZED and (lo is not None or hi is not None):
            n = len(value)
            text = kind is str
            if lo is not None and n < lo:
                problem = ("expected some text, got an empty value" if text and lo == 1 else
                           f"expected text of at least {lo} characters, got {n}" if text else
                           f"expected at least {lo} item(s), got {n}")
            elif hi is not None and n > hi:
                problem = (f"expected text of at most {hi} characters, got {n}" if text else
                           f"expected at most {hi} item(s), got {n}")
        if problem is None and rx is not None and kind is str and not rx.search(value):
            problem = f"expected {means}, got {short(value)}"
        if problem is not None:
            out.append((loc, problem))
            return _BAD
        return value
    return _Check(run, inner.describe, inner.fits)


def compile_type(tp) -> _Check:
    """Return the check for one annotation."""
    if tp is Any or tp is object:
        return _ANY
    if tp is None:
        tp = type(None)
    if tp in _BASIC:
        return _BASIC[tp]
    if isinstance(tp, type) and issubclass(tp, Record):
        return _Check(tp._check, "a mapping", lambda v: type(v) is dict)
    if tp is dict:
        return _dict(_ANY, _ANY)
    if tp is list:
        return _list(_ANY)
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if origin is typing.Annotated:
        inner = args[0]
        fields = [a for a in args[1:] if isinstance(a, Field)]
        tag = next((f.discriminator for f in fields if f.discriminator), None)
        check = _tagged(list(typing.get_args(inner)), tag) if tag else compile_type(inner)
        for f in fields:
            check = _bounded(check, f)
        return check
    if origin is typing.Literal:
        return _literal(args)
    if origin is list:
        return _list(compile_type(args[0]))
    if origin is dict:
        return _dict(compile_type(args[0]), compile_type(args[1]))
    if origin is tuple:
        if len(args) == 2 and args[1] is Ellipsis:
            return _tuple(None, compile_type(args[0]))
        return _tuple([compile_type(a) for a in args], None)
    if origin in (typing.Union, types.UnionType):
        return _union([compile_type(a) for a in args])
    raise TypeError(f"strict records cannot check {tp!r}")


# Records -------------------------------------------------------------------------------------

class _Key:
    """One declared key of a record: its check, its default and its further validators."""

    __slots__ = ("name", "check", "required", "default", "factory", "validators")

    def __init__(self, name, check, required, default, factory, validators):
        self.name, self.check, self.required = name, check, required
        self.default, self.factory, self.validators = default, factory, validators


def _hints(cls) -> dict:
    """Return a record's annotations, resolved, base classes' first."""
    hints = cls.__dict__.get("_hints_")
    if hints is None:
        hints = {k: v for k, v in typing.get_type_hints(cls, include_extras=True).items()
                 if not k.startswith("_")}
        cls._hints_ = hints
    return hints


class Record:
    """Base of typed, frozen records checked from plain data; unknown keys are refused."""

    _declared_: dict = {}

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        declared = dict(getattr(cls, "_declared_", {}))
        own = {k: v for k, v in cls.__dict__.items()
               if not k.startswith("_") and k in cls.__dict__.get("__annotations__", {})}
        declared.update(own)
        for name, value in own.items():
            if isinstance(value, Field):
                delattr(cls, name)   # the default lives in _declared_, not on the class
        validators = {}
        for base in reversed(cls.__mro__):
            for value in vars(base).values():
                fn = getattr(value, "__func__", value)
                for name in getattr(fn, "__validates__", ()):
                    validators.setdefault(name, []).append(fn)
        cls._declared_, cls._validators_, cls._keys_ = declared, validators, None

    @classmethod
    def _compiled(cls) -> dict[str, _Key]:
        keys = cls.__dict__.get("_keys_")
        if keys is None:
            keys = {}
            for name, tp in _hints(cls).items():
                if typing.get_origin(tp) is typing.ClassVar:
                    continue
                given = cls._declared_.get(name, MISSING)
                f = given if isinstance(given, Field) else None
                check = compile_type(tp)
                if f is not None and any(v is not None for v in (
                        f.ge, f.le, f.min_length, f.max_length, f.pattern)):
                    check = _bounded(check, f)
                default = f.default if f is not None else given
                if default is not MISSING:   # a default is kept as its type keeps a value
                    kept = check.run(default, (), [])
                    default = default if kept is _BAD else kept
                factory = f.default_factory if f is not None else None
                required = default is MISSING and factory is None
                keys[name] = _Key(name, check, required, default, factory,
                                  cls._validators_.get(name, ()))
            cls._keys_ = keys
        return keys

    @classmethod
    def _check(cls, data, loc: tuple, out: list):
        if type(data) is not dict:
            out.append((loc, f"expected a mapping, got {short(data)}"))
            return _BAD
        keys = cls._compiled()
        values, ok = {}, True
        for k in data:
            if k not in keys:
                out.append((loc + (k,), f"unknown key '{k}'; accepted keys: "
                                        f"{', '.join(keys)}"))
                ok = False
        for name, key in keys.items():
            if name in data:
                value = key.check.run(data[name], loc + (name,), out)
                if value is _BAD:
                    ok = False
                    continue
                for fn in key.validators:
                    try:
                        value = fn(cls, value)
                    except ValueError as exc:
                        out.append((loc + (name,), str(exc)))
                        ok = False
                        break
                values[name] = value
            elif key.required:
                out.append((loc + (name,), f"missing required key '{name}'"))
                ok = False
            else:
                values[name] = key.factory() if key.factory is not None else key.default
        if not ok:
            return _BAD
        obj = object.__new__(cls)
        obj.__dict__.update(values)
        return obj

    @classmethod
    def model_validate(cls, data):
        """Return the record for ``data``; raise ValidationError naming every problem."""
        out: list = []
        obj = cls._check(data, (), out)
        if obj is _BAD:
            raise ValidationError(out)
        return obj

    def __init__(self, **data):
        out: list = []
        obj = type(self)._check(data, (), out)
        if obj is _BAD:
            raise ValidationError(out)
        self.__dict__.update(obj.__dict__)

    def model_dump(self, mode: str = "python") -> dict:
        """Return the record as plain data (``mode="json"``: tuples as lists, keys as text)."""
        return {k: _dump(v, mode == "json") for k, v in self.__dict__.items()}

    def __setattr__(self, name, value):
        raise AttributeError(f"{type(self).__name__} is read-only")

    def __delattr__(self, name):
        raise AttributeError(f"{type(self).__name__} is read-only")

    def __eq__(self, other):
        return type(other) is type(self) and other.__dict__ == self.__dict__

    def __hash__(self):
        return hash((type(self), tuple(self.__dict__.values())))

    def __repr__(self):
        return f"{type(self).__name__}({', '.join(f'{k}={v!r}' for k, v in self.__dict__.items())})"


def _dump(value, json: bool):
    if isinstance(value, Record):
        return value.model_dump("json" if json else "python")
    if type(value) is list:
        return [_dump(v, json) for v in value]
    if type(value) is tuple:
        items = [_dump(v, json) for v in value]
        return items if json else tuple(items)
    if type(value) is dict:
        return {(str(k) if json and not isinstance(k, str) else k): _dump(v, json)
                for k, v in value.items()}
    return value
