"""Check card values against the field types a game declares for a deck."""

from __future__ import annotations

import math
from typing import Any

from ..files.errors import control_problem
from .models import FieldSpec
from .strict import number_text, short

MAX_COPIES = 1000
RESERVED = ("id", "name", "copies")


def _number(value, integer: bool):
    """Convert a value (possibly CSV text) to a number, or return None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, str):
        value = number_text(value, whole=integer)   # ASCII digits: not '٣', '²' or 'nan'
        if value is None:
            return None
    if integer and isinstance(value, float) and value.is_integer():
        value = int(value)
    if integer and not isinstance(value, int):
        return None
    if not integer and not isinstance(value, (int, float)):
        return None
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def _range_text(spec: FieldSpec) -> str:
    if spec.min is not None and spec.max is not None:
        return f" from {spec.min:g} to {spec.max:g}"
    if spec.min is not None:
        return f" of at least {spec.min:g}"
    if spec.max is not None:
        return f" of at most {spec.max:g}"
    return ""


def _as_list(value):
    if isinstance(value, str):
        # CSV cells carry lists as ';'-separated text.
        return [part.strip() for part in value.split(";") if part.strip()]
    return value


def check_value(value: Any, spec: FieldSpec, enums: dict[str, list[str]], path: tuple,
                errors: list) -> Any:
    """Return ``value`` converted to ``spec``'s type, adding (path, message) pairs to errors."""
    kind = spec.type
    if kind in ("str", "text"):
        if isinstance(value, bool) or not isinstance(value, (str, int, float)):
            errors.append((path, f"expected text, got {short(value)}"))
            return None
        value = str(value)
        if len(value) > spec.max_length:
            errors.append((path, f"expected text of at most {spec.max_length} characters, "
                                 f"got {len(value)}"))
            return None
        why = control_problem(value, one_line=kind == "str")
        if why:
            errors.append((path, f"{short(value)} {why}"))
            return None
        return value
    if kind in ("int", "number"):
        number = _number(value, kind == "int")
        label = "a whole number" if kind == "int" else "a number"
        if number is None:
            errors.append((path, f"expected {label}{_range_text(spec)}, got {short(value)}"))
            return None
        if (spec.min is not None and number < spec.min) or \
                (spec.max is not None and number > spec.max):
            errors.append((path, f"expected {label}{_range_text(spec)}, got {number}"))
            return None
        return number
    if kind == "bool":
        if isinstance(value, str) and value.strip().lower() in ("true", "yes", "1", "false",
                                                               "no", "0"):
            return value.strip().lower() in ("true", "yes", "1")
        if not isinstance(value, bool):
            errors.append((path, f"expected true or false, got {short(value)}"))
            return None
        return value
    if kind == "enum":
        allowed = spec.values if isinstance(spec.values, list) else enums.get(spec.values or "",
                                                                             [])
        if not isinstance(value, str) or value not in allowed:
            errors.append((path, f"expected one of {', '.join(allowed)}; got "
                                 f"{short(value)}"))
            return None
        return value
    if kind == "list":
        value = _as_list(value)
        if not isinstance(value, list):
            errors.append((path, f"expected a list, got {short(value)}"))
            return None
        n = len(value)
        if (spec.min_items is not None and n < spec.min_items) or \
                (spec.max_items is not None and n > spec.max_items):
            if spec.min_items == spec.max_items:
                want = f"exactly {spec.min_items}"
            elif spec.max_items is None:
                want = f"at least {spec.min_items}"
            elif spec.min_items is None:
                want = f"at most {spec.max_items}"
            else:
                want = f"{spec.min_items} to {spec.max_items}"
            errors.append((path, f"expected {want} items, got {n}"))
            return None
        item_spec = spec.items or FieldSpec(type="str")
        return [check_value(v, item_spec, enums, path + (i,), errors) for i, v in
                enumerate(value)]
    if kind == "object":
        if not isinstance(value, dict):
            errors.append((path, f"expected a mapping of {', '.join(spec.fields or {})}, "
                                 f"got {short(value)}"))
            return None
        return check_fields(value, spec.fields or {}, enums, path, errors)
    raise AssertionError(kind)


def check_fields(record: dict, specs: dict[str, FieldSpec], enums, path: tuple, errors: list,
                 reserved: tuple = ()) -> dict:
    """Check a mapping against field specs: unknown keys, missing keys and each value."""
    out = {}
    for key in record:
        if key not in specs and key not in reserved:
            accepted = ", ".join(list(reserved) + list(specs))
            errors.append((path + (key,), f"unknown key '{key}'; accepted keys: {accepted}"))
    for name, spec in specs.items():
        if name in record and record[name] is not None:
            out[name] = check_value(record[name], spec, enums, path + (name,), errors)
        elif spec.required and spec.default is None:
            errors.append((path + (name,), f"missing required key '{name}' ({spec.type})"))
        else:
            out[name] = spec.default
    return out
