"""Problems found in a user's project, reported all at once with their place."""

from __future__ import annotations

import re

from dataclasses import dataclass, field
from pathlib import Path


def format_path(path: tuple) -> str:
    """Render a key path such as ('cards', 3, 'levels', 1) as cards[3].levels[1]."""
    out = ""
    for part in path:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += ("." if out else "") + str(part)
    return out


# Characters that act on a terminal or break a record (ESC starts ANSI and OSC sequences, C1
# controls do the same in some terminals): refused in names; text keeps newlines and tabs.
CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
LINE_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")


def control_problem(value: str, one_line: bool) -> str | None:
    """Say which control character a name (one line) or a text holds, or None."""
    found = (LINE_CONTROL if one_line else CONTROL).search(value)
    if found is None:
        return None
    what = "a line break" if found.group() in "\n\r\u2028\u2029" else \
        f"the control character U+{ord(found.group()):04X}"
    return (f"holds {what}; {'a name is one line of' if one_line else 'text is'} printable "
            "characters")


def inert(text: str) -> str:
    """Return text safe to print on a terminal or write as one line: controls shown escaped."""
    return LINE_CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}" if ord(m.group()) < 256
                            else f"\\u{ord(m.group()):04x}", text)


def printable(text: str) -> str:
    """Return text for a terminal: line breaks and tabs kept, other controls shown escaped."""
    return CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", text)



@dataclass(frozen=True)
class Problem:
    """One thing wrong with the input, located by file, key path and line."""

    file: str
    message: str
    path: tuple = ()
    line: int | None = None
    rule: str | None = None

    def __str__(self) -> str:
        where = self.file
        if self.line is not None:
            where += f":{self.line}"
        key = format_path(self.path)
        head = f"{where}: {key}: " if key else f"{where}: "
        tag = f"[{self.rule}] " if self.rule else ""
        return f"{head}{tag}{self.message}"


class PrintshopError(Exception):
    """A user's mistake: carries every problem found, never a traceback."""

    def __init__(self, problems: list[Problem] | Problem | str, summary: str | None = None):
        if isinstance(problems, str):
            problems = [Problem(file="printshop", message=problems)]
        elif isinstance(problems, Problem):
            problems = [problems]
        self.problems = list(problems)
        self.summary = summary
        super().__init__(self.report())

    def __reduce__(self):
        """Pickle with the problems themselves (from a worker process, say)."""
        return type(self), (self.problems, self.summary)

    def report(self) -> str:
        """Return every problem on its own line, then a one-line summary."""
        lines = [str(p) for p in self.problems]
        n = len(self.problems)
        tail = self.summary or "nothing written"
        lines.append(f"{n} error{'s' if n != 1 else ''}, {tail}")
        return "\n".join(lines)


@dataclass
class Problems:
    """Collector used while loading and validating: add, then raise once."""

    items: list[Problem] = field(default_factory=list)

    def add(self, file: str | Path, message: str, path: tuple = (), line: int | None = None,
            rule: str | None = None) -> None:
        """Record one problem."""
        self.items.append(Problem(str(file), message, tuple(path), line, rule))

    def extend(self, problems) -> None:
        """Record several problems."""
        self.items.extend(problems)

    def __bool__(self) -> bool:
        return bool(self.items)

    def raise_if_any(self, summary: str | None = None) -> None:
        """Raise a PrintshopError carrying everything collected, if anything was."""
        if self.items:
            raise PrintshopError(self.items, summary)
