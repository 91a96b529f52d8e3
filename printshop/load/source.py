"""Read YAML, TOML and CSV data files into plain values, remembering where each key stood."""

from __future__ import annotations

import math
import sys
from dataclasses import dataclass, field
from pathlib import Path

from ..files import limits
from ..files.errors import PrintshopError, Problem
from ..files.guard import read_project_file
from .models import Later

_MAX_DIGITS = sys.get_int_max_str_digits()


@dataclass
class Document:
    """A parsed data file: its values and the line of every key path."""

    file: str
    data: object
    lines: dict[tuple, int] = field(default_factory=dict)
    rows: dict[int, int] = field(default_factory=dict)  # CSV: card index -> spreadsheet row

    def line(self, path: tuple) -> int | None:
        """Return the line of ``path`` or of its nearest located parent."""
        if type(self.lines) is Later:  # read back from the load cache: decoded when first asked
            self.lines = self.lines()
        path = tuple(path)
        while path:
            if path in self.lines:
                return self.lines[path]
            path = path[:-1]
        return self.lines.get(())


class _Unusual(Exception):
    """The fast YAML reader met something it leaves to the exact one (see _fast_yaml)."""


_BASIC = (str, int, float, bool)
_DEEP = 200   # nesting the fast reader leaves to the exact one (which reports RecursionError)


def _fast_yaml(yaml, text: str):
    """Return (data, lines) of plain YAML from libyaml's events, without building nodes.

    Handles what data files hold: one document of mappings, lists and untagged scalars.
    Anything else (anchors, aliases, tags, complex or duplicate keys, merge keys, numbers
    Python refuses, non-finite numbers, very deep nesting, several documents, any error) raises
    _Unusual, and parse_yaml reads the text again the exact way, which says what is wrong and
    where. Values and lines are the same as the exact reader's: a scalar is resolved and
    constructed by PyYAML's own resolver and SafeConstructor, and every key path gets the line
    where its node starts.
    """
    from yaml.events import (DocumentEndEvent, DocumentStartEvent, MappingEndEvent,
                             MappingStartEvent, ScalarEvent, SequenceEndEvent,
                             SequenceStartEvent, StreamEndEvent)

    loader = yaml.CSafeLoader(text)
    try:
        get = loader.get_event
        get()   # the stream's start
        event = get()
        if type(event) is StreamEndEvent:
            return None, None
        if type(event) is not DocumentStartEvent:
            raise _Unusual
        constructor = yaml.constructor.SafeConstructor()
        resolve, ScalarNode = loader.resolve, yaml.ScalarNode
        made: dict = {}   # a plain scalar's text -> its value (the text decides its type)
        lines: dict = {}

        def scalar(event):
            if event.anchor is not None or event.tag is not None:
                raise _Unusual
            if not event.implicit[0]:   # quoted or block text: a string
                return event.value
            value = made.get(event.value, made)
            if value is made:
                tag = resolve(ScalarNode, event.value, (True, False))
                value = made[event.value] = constructor.construct_object(
                    ScalarNode(tag, event.value, event.start_mark, event.end_mark))
            return value

        def build(event, path, depth):
            lines.setdefault(path, event.start_mark.line + 1)
            kind = type(event)
            if kind is ScalarEvent:
                value = scalar(event)
                if type(value) is float and not math.isfinite(value):
                    raise _Unusual
                if not isinstance(value, _BASIC) and value is not None:
                    value = str(event.value)   # dates and such: the text the user wrote
                return value
            if depth > _DEEP or event.anchor is not None or event.tag is not None:
                raise _Unusual
            if kind is MappingStartEvent:
                out = {}
                while True:
                    event = get()
                    if type(event) is MappingEndEvent:
                        return out
                    if type(event) is not ScalarEvent:
                        raise _Unusual
                    key = scalar(event)
                    if key == "<<":
                        raise _Unusual
                    if not isinstance(key, (str, int)) or isinstance(key, bool):
                        key = str(key)
                    if key in out:
                        raise _Unusual
                    out[key] = build(get(), path + (key,), depth + 1)
            if kind is SequenceStartEvent:
                out = []
                while True:
                    event = get()
                    if type(event) is SequenceEndEvent:
                        return out
                    out.append(build(event, path + (len(out),), depth + 1))
            raise _Unusual

        data = build(get(), (), 0)
        if type(get()) is not DocumentEndEvent or type(get()) is not StreamEndEvent:
            raise _Unusual
        return data, lines
    finally:
        loader.dispose()


def _yaml_to_python(yaml, node, path, lines, constructor, file):
    lines.setdefault(path, node.start_mark.line + 1)
    if isinstance(node, yaml.MappingNode):
        out = {}
        for key_node, value_node in node.value:
            if not isinstance(key_node, yaml.ScalarNode):
                raise PrintshopError(Problem(file, "a key must be plain text", path,
                                             key_node.start_mark.line + 1))
            key = constructor.construct_object(key_node)
            if key == "<<":
                raise PrintshopError(Problem(file, "YAML merge keys ('<<') are not supported",
                                             path, key_node.start_mark.line + 1))
            if not isinstance(key, (str, int)) or isinstance(key, bool):
                key = str(key)
            if key in out:
                raise PrintshopError(Problem(file, f"duplicate key '{key}'", path + (key,),
                                             key_node.start_mark.line + 1))
            out[key] = _yaml_to_python(yaml, value_node, path + (key,), lines, constructor,
                                       file)
        return out
    if isinstance(node, yaml.SequenceNode):
        return [_yaml_to_python(yaml, child, path + (i,), lines, constructor, file)
                for i, child in enumerate(node.value)]
    try:
        value = constructor.construct_object(node)
    except ValueError:  # Python refuses to read integers of more than 4300 digits
        raise PrintshopError(Problem(file, f"expected a number of at most {_MAX_DIGITS} digits, "
                                     f"got one of {len(node.value)} characters", path,
                                     node.start_mark.line + 1)) from None
    if isinstance(value, float) and not math.isfinite(value):
        raise PrintshopError(Problem(file, f"expected a finite number, got {node.value!r}", path,
                                     node.start_mark.line + 1))
    if not isinstance(value, (str, int, float, bool)) and value is not None:
        # Dates, binary and other YAML types are kept as the text the user wrote.
        value = str(node.value)
    return value


def _walk(yaml, node):
    # Yields a node once per reference, so a node reached twice is an alias.
    stack, seen = [node], set()
    while stack:
        current = stack.pop()
        yield current
        if id(current) in seen:
            continue
        seen.add(id(current))
        if isinstance(current, yaml.MappingNode):
            for k, v in current.value:
                stack.extend((k, v))
        elif isinstance(current, yaml.SequenceNode):
            stack.extend(current.value)


def parse_yaml(text: str, file: str) -> Document:
    """Parse YAML text into a Document, with a line for every key path.

    Plain data is read from libyaml's events (_fast_yaml, 1.7x faster on the built-in games);
    anything else, errors included, the exact way below, from the nodes libyaml composes.
    """
    import yaml

    if hasattr(yaml, "CSafeLoader"):
        try:
            data, lines = _fast_yaml(yaml, text)
        except Exception:  # noqa: BLE001 - whatever it is, the exact reader says it right
            pass
        else:
            return Document(file, data, lines if lines is not None else {(): 1})
    # libyaml's parser when PyYAML was built with it (PyPI wheels are): same nodes, ten times
    # faster.
    try:
        loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)(text)
        try:
            node = loader.get_single_node()
        finally:
            loader.dispose()
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark else None
        problem = exc.problem or exc.context
        if "nesting depth" in str(problem):   # libyaml's own limit (PyYAML 6.0.4 on)
            raise PrintshopError(Problem(file, "not valid data: nested too deeply", (),
                                         line)) from None
        raise PrintshopError(Problem(file, f"not valid YAML: {problem}", (), line)) from None
    except yaml.YAMLError as exc:
        raise PrintshopError(Problem(file, f"not valid YAML: {exc}")) from None
    except RecursionError:
        raise PrintshopError(Problem(file, "not valid data: nested too deeply")) from None
    if node is None:
        return Document(file, None, {(): 1})
    seen_ids: set[int] = set()
    for n in _walk(yaml, node):
        if id(n) in seen_ids:
            raise PrintshopError(Problem(file, "YAML anchors and aliases are not supported",
                                         (), n.start_mark.line + 1))
        seen_ids.add(id(n))
    lines: dict[tuple, int] = {}
    constructor = yaml.constructor.SafeConstructor()
    try:
        data = _yaml_to_python(yaml, node, (), lines, constructor, file)
    except RecursionError:
        raise PrintshopError(Problem(file, "not valid data: nested too deeply")) from None
    except yaml.constructor.ConstructorError as exc:
        mark = exc.problem_mark
        raise PrintshopError(Problem(file, f"not valid YAML: {exc.problem}", (),
                                     mark.line + 1 if mark else None)) from None
    return Document(file, data, lines)


def parse_toml(text: str, file: str) -> Document:
    """Parse TOML text into a Document (TOML gives no per-key lines)."""
    import tomllib

    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise PrintshopError(Problem(file, f"not valid TOML: {exc}")) from None
    except ValueError:  # an integer longer than Python will read
        raise PrintshopError(Problem(file, f"not valid TOML: a number has more than "
                                     f"{_MAX_DIGITS} digits")) from None
    return Document(file, _plain(data, file, ()), {(): 1})


def _plain(value, file, path):
    if isinstance(value, dict):
        return {k: _plain(v, file, path + (k,)) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v, file, path + (i,)) for i, v in enumerate(value)]
    if isinstance(value, float) and not math.isfinite(value):
        raise PrintshopError(Problem(file, f"expected a finite number, got {value}", path))
    if isinstance(value, (str, int, float, bool)):
        return value
    return str(value)


# What a spreadsheet would run as a formula: deck lists write such a cell after a quote (')
# and reading a card table drops that quote again, so a list round-trips unchanged.
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
MAX_CSV_COLUMNS = 1_000     # columns of a card table: a game's fields, with room to spare


def parse_csv(text: str, file: str) -> Document:
    """Parse CSV text into a Document whose data is {'cards': [row dicts]}.

    Each card keeps the line where its record starts and its row as a spreadsheet numbers it
    (blank rows count; a cell holding a line break makes the two differ).
    """
    import csv
    import io

    reader = csv.reader(io.StringIO(text, newline=""))
    records, line = [], 1
    try:
        for row_no, cells in enumerate(reader, start=1):
            records.append((row_no, line, cells))
            line = reader.line_num + 1
    except csv.Error as exc:
        raise PrintshopError(Problem(file, f"not valid CSV: {exc}", (), line)) from None
    records = [r for r in records if any(cell.strip() for cell in r[2])]
    if not records:
        raise PrintshopError(Problem(file, "the CSV file is empty: expected a header row"))
    _, head_line, head_cells = records[0]
    wide = next((r for r in records if len(r[2]) > MAX_CSV_COLUMNS), None)
    if wide is not None:
        raise PrintshopError(Problem(file, f"row {wide[0]} has {len(wide[2]):,} cells; a card "
                                     f"table has at most {MAX_CSV_COLUMNS:,} columns", (),
                                     wide[1]))
    header = [h.strip() for h in head_cells]
    problems, seen = [], set()
    for i, name in enumerate(header):
        if not name:
            problems.append(Problem(file, f"column {i + 1} has no name in the header row", (),
                                    head_line))
        elif name in seen:
            problems.append(Problem(file, f"column '{name}' appears twice in the header row",
                                    (), head_line))
        seen.add(name)
    if problems:
        raise PrintshopError(problems)
    cards, lines, rows = [], {(): head_line, ("cards",): head_line}, {}
    for row_no, line, row in records[1:]:
        if any(cell.strip() for cell in row[len(header):]):  # empty padding cells are fine
            problems.append(Problem(file, f"row {row_no} has {len(row)} cells but the header "
                                    f"has {len(header)} columns", (), line))
            continue
        record = {}
        for name, cell in zip(header, row):
            cell = cell.strip()
            if cell[:1] == "'" and cell[1:2] in FORMULA_START:
                cell = cell[1:]     # a deck list's guard against formulas, as spreadsheets drop it
            if cell != "":
                record[name] = cell
        lines[("cards", len(cards))] = line
        rows[len(cards)] = row_no
        cards.append(record)
    if problems:
        raise PrintshopError(problems)
    return Document(file, {"cards": cards}, lines, rows)


PARSERS = {".yaml": parse_yaml, ".yml": parse_yaml, ".toml": parse_toml, ".csv": parse_csv}


def read_text(path: Path, label: str, root: Path | None = None) -> str:
    """Read a data file inside ``root`` (default: its own folder) as UTF-8 text.

    The read is guarded (see guard.read_project_file): no link out of ``root``, regular files
    only, at most the max_file_bytes limit.
    """
    raw = read_project_file(root if root is not None else path.parent, path,
                            limits.current().max_file_bytes, label)
    if raw.startswith(b"\xef\xbb\xbf"):
        raw = raw[3:]
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise PrintshopError(Problem(label, f"not UTF-8 text (byte 0x{raw[exc.start]:02x} at "
                                     f"offset {exc.start}); save the file as UTF-8", (),
                                     line)) from None
    if "\x00" in text:
        raise PrintshopError(Problem(label, "the file contains NUL bytes: expected text"))
    return text


def load_document(path: Path, label: str, root: Path | None = None) -> Document:
    """Read (inside ``root``, default the file's folder) and parse one data file."""
    parser = PARSERS.get(path.suffix.lower())
    if parser is None:
        raise PrintshopError(Problem(label, f"unsupported data file type '{path.suffix}': "
                                     f"expected one of {', '.join(sorted(PARSERS))}"))
    text = read_text(path, label, root)
    try:
        return parser(text, label)
    except RecursionError:
        raise PrintshopError(Problem(label, "not valid data: nested too deeply")) from None


def manifest_document(game) -> tuple[str, Document | None]:
    """Return the label of a loaded game's manifest and its document, read again for a
    problem's line (a game read back from the load cache has no lines); None if unreadable."""
    from ..files.project import MANIFEST_NAMES

    for name in MANIFEST_NAMES:
        path = Path(game.data_dir) / name
        if path.is_file():
            label = f"data/{game.id}/{name}"
            try:
                return label, load_document(path, label, Path(game.data_dir))
            except PrintshopError:
                return label, None
    return f"data/{game.id}/game.yaml", None


def leaf_paths(node, path: tuple = ()):
    """Yield (key path, value) for every leaf of plain data: a dict's values by key, a list's
    by index, anything else as a leaf."""
    if isinstance(node, dict):
        for k, v in node.items():
            yield from leaf_paths(v, path + (k,))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from leaf_paths(v, path + (i,))
    else:
        yield path, node
