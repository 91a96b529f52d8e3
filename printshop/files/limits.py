"""How much one build may read, make and spend: every limit named once, with its default.

A game folder may come from a stranger, so a small input must not turn into gigabytes of
memory, thousands of pages or hours of drawing. Each limit has a name the user sees in the
error and can raise on purpose with ``printshop build --limit NAME=VALUE``.
"""

from __future__ import annotations

import time
from contextlib import contextmanager
from dataclasses import dataclass, fields, replace

from .errors import PrintshopError, Problem


@dataclass(frozen=True)
class Limits:
    """The limits of one build; the defaults fit every built-in game many times over."""

    max_cards: int = 20_000               # cards and tokens of a build, copies included
    max_output_pages: int = 5_000         # pages of all PDFs a build writes
    max_pixels: int = 50_000_000          # pixels of one picture: an image() or an exported PNG
    max_string_length: int = 1_000_000    # characters of one string a template builds
    max_list_items: int = 100_000         # items of one list a template builds
    render_seconds: float = 20.0          # one template render
    total_render_seconds: float = 600.0   # drawing the whole build
    max_file_bytes: int = 8 * 1024 * 1024     # one data file, manifest, icon set or template
    max_image_bytes: int = 10 * 1024 * 1024   # one picture embedded with image()
    max_font_bytes: int = 16 * 1024 * 1024    # one font a game brings (style: fonts:)

    def with_values(self, items: list[str] | tuple[str, ...]) -> "Limits":
        """Return these limits with NAME=VALUE items applied; refuse unknown names and values."""
        known = {f.name: f.type for f in fields(self)}
        changes: dict = {}
        problems = []
        for item in items:
            name, sep, raw = item.partition("=")
            name = name.strip().replace("-", "_")
            if not sep or name not in known:
                problems.append(Problem("--limit", f"expected NAME=VALUE with NAME one of "
                                        f"{', '.join(known)}, got {item!r}"))
                continue
            try:
                value = float(raw) if known[name] == "float" else int(raw.replace("_", ""))
            except ValueError:
                value = None
            if value is None or not value > 0 or value == float("inf"):
                problems.append(Problem("--limit", f"{name}: expected a positive "
                                        f"{'number' if known[name] == 'float' else 'whole number'}"
                                        f", got {raw!r}"))
                continue
            changes[name] = value
        if problems:
            raise PrintshopError(problems)
        return replace(self, **changes)


def exceeded(name: str, what: str, limit) -> str:
    """Return the message for a limit passed: what went over, the limit's name, how to raise it."""
    return (f"{what}, over the limit {name} = {number(limit)} (raise it on purpose with "
            f"--limit {name}=N)")


def number(value) -> str:
    """Format a count or size for a message: 20,000,000 or 0.5."""
    if isinstance(value, float) and not value.is_integer():
        return f"{value:g}"
    return f"{int(value):,}"


class LimitExceeded(ValueError):
    """A drawing would pass one of the build's limits (the message names it)."""


def check_pages(pages: int, what: str = "the component") -> None:
    """Refuse to impose more pages than max_output_pages, before any page is laid out."""
    limit = _active.max_output_pages
    if pages > limit:
        raise LimitExceeded(exceeded("max_output_pages", f"{what} would print "
                                     f"{number(pages)} pages", limit))


# The limits of the build in progress. Set once by the build before any drawing starts;
# worker processes are forked from it and so see the same values.
_active = Limits()
_deadline: float | None = None


def current() -> Limits:
    """Return the limits of the build in progress (the defaults outside a build)."""
    return _active


@contextmanager
def applied(limits: Limits):
    """Make ``limits`` the current ones, with the drawing clock started, until the block ends."""
    global _active, _deadline
    before = _active, _deadline
    _active = limits
    _deadline = time.monotonic() + limits.total_render_seconds
    try:
        yield limits
    finally:
        _active, _deadline = before


def seconds_left() -> float | None:
    """Return how long the build may still draw, or None when no build clock runs."""
    return None if _deadline is None else _deadline - time.monotonic()


def check_clock() -> None:
    """Raise a TimeoutError naming total_render_seconds when the build's time is up."""
    left = seconds_left()
    if left is not None and left <= 0:
        raise TimeoutError(total_time_message())


def total_time_message() -> str:
    """Return the message for a build that drew longer than total_render_seconds."""
    limit = _active.total_render_seconds
    return (f"the build has drawn for more than {number(limit)} seconds, over the limit "
            f"total_render_seconds (raise it on purpose with --limit total_render_seconds=N)")
