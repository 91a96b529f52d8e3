"""Fact tables: what a rulebook states, the rule that enforces it, and how to break it.

A game's ``facts.yaml`` lists the rulebook's facts. Each row names the rule that enforces it and
a smallest mutation of the shipped data that makes the fact false; the mutation tests apply it
to a copy and expect that rule to fail. ``printshop validate GAME --explain`` prints the table.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

import yaml

from ..files.errors import PrintshopError, Problem
from ..load.source import load_document, read_text

FACTS_FILE = "facts.yaml"
ROW_KEYS = {"id", "fact", "source", "rule", "mutate", "wins", "origin", "value", "prints"}
PRINTS_KEYS = {"component", "card", "says"}
REQUIRED_KEYS = ("id", "fact", "source", "rule", "mutate")
OPERATIONS = ("set", "add", "swap", "remove", "duplicate", "replace")
# Where a fact comes from: the rulebook (its section is the row's ``source``), a reference data
# file under ../shared/reference/, a picture (the rulebook shows it, no sentence states it), or
# a design choice recorded beside the data (DESIGN.md). A row without ``origin`` is rulebook.
ORIGINS = ("rulebook", "reference", "picture", "design")
ORIGIN_DETAIL = {"rulebook": "section", "reference": "file", "picture": "picture",
                 "design": "file"}
_TOKEN = re.compile(r"\.?([^.\[\]]+)|\[([^\]]+)\]")


@dataclass(frozen=True)
class Fact:
    """One row of a fact table: a rulebook statement, its source, its rule and its mutation."""

    id: str
    fact: str
    source: str
    rule: str
    mutate: tuple[dict, ...]
    wins: str | None = None
    line: int | None = None
    origin: str = "rulebook"
    origin_detail: str | None = None
    value: object = None
    prints: tuple[dict, ...] = ()

    def cites(self) -> str:
        """Return where the fact comes from, as --explain prints it."""
        if self.origin == "rulebook":
            return f"rulebook: {self.origin_detail or self.source}"
        if self.origin == "reference":
            return f"reference data: ../shared/reference/{self.origin_detail}"
        if self.origin == "picture":
            return "picture" + (f": {self.origin_detail}" if self.origin_detail else "")
        return "design choice" + (f", recorded in {self.origin_detail}" if self.origin_detail
                                  else "")


@dataclass(frozen=True)
class Restated:
    """A rules sentence printed on a sheet or card, with the rulebook rule it restates."""

    file: str
    text: str
    restates: str
    line: int | None = None


@dataclass(frozen=True)
class FactStatus:
    """A fact beside the validator's verdict on the shipped data."""

    fact: Fact
    broken: tuple[str, ...]

    @property
    def ok(self) -> bool:
        """Return whether the fact's rule found nothing wrong."""
        return not self.broken


def _operations(raw, file, path, line) -> tuple[list[dict], list[Problem]]:
    ops = raw if isinstance(raw, list) else [raw]
    out, problems = [], []
    for i, op in enumerate(ops):
        where = path + ((i,) if isinstance(raw, list) else ())
        if not isinstance(op, dict) or "file" not in op:
            problems.append(Problem(file, "a mutation is a mapping with 'file' and one of "
                                    f"{', '.join(OPERATIONS)}", where, line))
            continue
        kinds = [k for k in OPERATIONS if k in op]
        unknown = sorted(set(op) - set(OPERATIONS) - {"file", "path"})
        if len(kinds) != 1 or unknown:
            problems.append(Problem(file, "a mutation needs exactly one of "
                                    f"{', '.join(OPERATIONS)} beside 'file' and 'path'"
                                    + (f"; unknown: {', '.join(unknown)}" if unknown else ""),
                                    where, line))
            continue
        if kinds[0] in ("set", "add", "duplicate", "remove") and "path" not in op:
            problems.append(Problem(file, f"'{kinds[0]}' needs a 'path'", where, line))
            continue
        out.append(op)
    return out, problems


def _origin(raw, file, path, line) -> tuple[str, str | None, list[Problem]]:
    """Read a row's ``origin``: a kind, or a one-key mapping of kind to its detail."""
    if raw is None:
        return "rulebook", None, []
    if isinstance(raw, str) and raw in ORIGINS:
        if raw == "reference":
            return raw, None, [Problem(file, "origin 'reference' names its file: "
                                       "origin: {reference: FILE} (in ../shared/reference/)",
                                       path, line)]
        return raw, None, []
    if isinstance(raw, dict) and len(raw) == 1:
        (kind, detail), = raw.items()
        if kind in ORIGINS and isinstance(detail, str) and detail.strip():
            if kind == "reference" and (detail.startswith("/") or ".." in detail.split("/")):
                return kind, detail, [Problem(file, f"origin reference '{detail}' must be a "
                                              "file inside ../shared/reference/", path, line)]
            return kind, detail.strip(), []
    return "rulebook", None, [Problem(
        file, "origin is one of " + ", ".join(ORIGINS) + ", or a mapping of one of them to "
        "its " + "/".join(dict.fromkeys(ORIGIN_DETAIL.values())) + " (origin: {reference: "
        "pocketciv-data.md})", path, line)]


def _prints(row, file, path, doc) -> tuple[list[dict], list[Problem]]:
    """Read a row's ``prints``: where a component prints the fact (printshop/check/printed.py)."""
    raw = row.get("prints")
    if raw is None:
        return [], []
    entries = raw if isinstance(raw, list) else [raw]
    out, problems = [], []
    for i, entry in enumerate(entries):
        where = path + (("prints", i) if isinstance(raw, list) else ("prints",))
        line = doc.line(where)
        if (not isinstance(entry, dict) or not {"component", "says"} <= set(entry)
                or set(entry) - PRINTS_KEYS
                or not all(isinstance(v, str) and v.strip() for v in entry.values())):
            problems.append(Problem(file, "a prints entry is {component: ID, says: TEXT} and "
                                    "optionally card: ID, each a string", where, line))
            continue
        if "{value}" in entry["says"] and row.get("value") is None:
            problems.append(Problem(file, "says uses {value}, but the fact has no value",
                                    where, line))
            continue
        if isinstance(row.get("value"), (list, dict)):
            problems.append(Problem(file, "a fact's value is a number or a word",
                                    path + ("value",), doc.line(path + ("value",))))
            continue
        out.append({**entry, "line": line})
    return out, problems


_PARSED: dict[tuple[str, str], object] = {}


def _parse(path: Path, label: str):
    """Parse a fact table, reusing the last parse of the same text (validation reads it twice)."""
    key = (label, read_text(path, label))   # guarded, like every read of a project file
    if key not in _PARSED:
        _PARSED.clear()
        _PARSED[key] = load_document(path, label)
    return _PARSED[key]


def _document(data_dir: Path, game_id: str):
    path = Path(data_dir) / FACTS_FILE
    label = f"data/{game_id}/{FACTS_FILE}"
    if not os.path.lexists(path):
        return label, None
    doc = _parse(path, label)     # a FIFO, a folder or a link out is refused there, not skipped
    if not isinstance(doc.data, dict) or not isinstance(doc.data.get("facts"), list):
        raise PrintshopError(Problem(label, "expected a 'facts' list", (), doc.line(())))
    unknown = sorted(set(doc.data) - {"facts", "restated"})
    if unknown:
        raise PrintshopError(Problem(label, f"unknown key(s) {', '.join(unknown)}; accepted: "
                                     "facts, restated", (), doc.line(())))
    return label, doc


def load_restated(data_dir: Path, game_id: str) -> list[Restated]:
    """Read the table's ``restated`` list: sheet sentences that restate a rulebook rule."""
    label, doc = _document(data_dir, game_id)
    if doc is None:
        return []
    out, problems = [], []
    for i, row in enumerate(doc.data.get("restated") or []):
        where = ("restated", i)
        if not isinstance(row, dict) or set(row) != {"file", "text", "restates"}:
            problems.append(Problem(label, "a restated sentence has exactly file, text and "
                                    "restates", where, doc.line(where)))
            continue
        out.append(Restated(str(row["file"]), str(row["text"]), str(row["restates"]),
                            doc.line(where)))
    if problems:
        raise PrintshopError(problems, f"{label} is malformed")
    return out


def _strings(value):
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from _strings(v)
    elif isinstance(value, list):
        for v in value:
            yield from _strings(v)


def _printed(path: Path, root: Path, label: str) -> str:
    """Return the text a file prints: a YAML file's string values, a template's source."""
    if path.suffix in (".yaml", ".yml"):  # parsed as data files are: guarded, bounded
        text = " | ".join(_strings(load_document(path, label, root).data))
    else:
        text = read_text(path, label, root)
    return " ".join(text.split())


def _line_of(text: str, words: list[str]) -> int | None:
    """Return the line of ``text`` holding the longest run of ``words`` (two at least)."""
    lines = [" ".join(t.split()) for t in text.splitlines()]
    for size in range(len(words), 1, -1):
        for i in range(len(words) - size + 1):
            probe = " ".join(words[i:i + size])
            for n, line in enumerate(lines, 1):
                if probe in line:
                    return n
    return None


def missing_restated(data_dir: Path, game_id: str,
                     template_dirs: list) -> list[tuple[str, str, int | None]]:
    """Return (message, file, line) for each listed sheet sentence its file no longer prints:
    the line of the file where most of the sentence still stands, else the row's line.

    Runs of white space count as one space, so re-wrapping a line changes nothing.
    """
    out, printed, sources = [], {}, {}
    table = f"data/{game_id}/{FACTS_FILE}"
    for r in load_restated(data_dir, game_id):
        found, root = next(((Path(d) / r.file, Path(d)) for d in [*template_dirs, data_dir]
                            if (Path(d) / r.file).is_file()), (None, None))
        if found is not None and found not in printed:
            try:
                printed[found] = _printed(found, root, r.file)
                sources[found] = read_text(found, r.file, root)
            except PrintshopError as exc:  # a link out of the folder, a pipe, a huge file
                out.append((f"{r.file}: {exc.problems[0].message}", table, r.line))
                continue
        if found is None:
            out.append((f"{r.file}: no such template", table, r.line))
        elif " ".join(r.text.split()) not in printed[found]:
            line = _line_of(sources[found], r.text.split())
            label = (f"data/{game_id}/{r.file}" if root == Path(data_dir)
                     else f"templates/{game_id}/{r.file}")
            out.append((f"{r.file} no longer says '{r.text}' ({r.restates})",
                        label if line else table, line or r.line))
    return out


def load_facts(data_dir: Path, game_id: str) -> list[Fact]:
    """Read a game's fact table; raise every malformed row at once, each with its line."""
    label, doc = _document(data_dir, game_id)
    if doc is None:
        return []
    rows = doc.data["facts"]
    facts, problems, seen = [], [], set()
    for i, row in enumerate(rows):
        where = ("facts", i)
        line = doc.line(where)
        if not isinstance(row, dict):
            problems.append(Problem(label, "a fact is a mapping", where, line))
            continue
        unknown = sorted(set(row) - ROW_KEYS)
        missing = [k for k in REQUIRED_KEYS if k not in row]
        if unknown:
            problems.append(Problem(label, f"unknown key(s) {', '.join(unknown)}; accepted: "
                                    f"{', '.join(sorted(ROW_KEYS))}", where, line))
        if missing:
            problems.append(Problem(label, f"missing {', '.join(missing)}", where, line))
        if unknown or missing:
            continue
        if row["id"] in seen:
            problems.append(Problem(label, f"fact id '{row['id']}' is used twice", where, line))
        seen.add(row["id"])
        ops, bad = _operations(row["mutate"], label, where + ("mutate",), line)
        problems.extend(bad)
        origin, detail, bad = _origin(row.get("origin"), label, where + ("origin",),
                                      doc.line(where + ("origin",)) or line)
        problems.extend(bad)
        prints, bad = _prints(row, label, where, doc)
        problems.extend(bad)
        facts.append(Fact(str(row["id"]), str(row["fact"]), str(row["source"]),
                          str(row["rule"]), tuple(ops), row.get("wins"), line, origin, detail,
                          row.get("value"), tuple(prints)))
    if problems:
        raise PrintshopError(problems, f"{label} is malformed")
    return facts


def check_table(game_id: str, facts: list[Fact], known: set[str], listed: set[str]) -> list[Problem]:
    """Return a problem for every row whose rule is unknown or not run for this game."""
    label = f"data/{game_id}/{FACTS_FILE}"
    out = []
    for f in facts:
        if f.rule not in known:
            out.append(Problem(label, f"fact '{f.id}' names unknown rule '{f.rule}'",
                               ("facts", f.id), f.line, "facts.table"))
        elif f.rule not in listed:
            out.append(Problem(label, f"fact '{f.id}' names rule '{f.rule}', which game.yaml's "
                               "rules list does not run", ("facts", f.id), f.line, "facts.table"))
    return out


_SAID = re.compile(r"fact '([^']+)': ")


def explain(facts: list[Fact], problems: list[Problem]) -> list[FactStatus]:
    """Pair each fact with the messages its rule produced on the shipped data, and those its
    own ``prints`` produced (printed.says names the fact)."""
    by_rule: dict[str, list[str]] = {}
    by_fact: dict[str, list[str]] = {}
    for p in problems:
        said = _SAID.match(p.message) if p.rule == "printed.says" else None
        if said:
            by_fact.setdefault(said.group(1), []).append(p.message)
        else:
            by_rule.setdefault(p.rule, []).append(p.message)
    return [FactStatus(f, tuple(by_rule.get(f.rule, [])) + tuple(by_fact.get(f.id, [])))
            for f in facts]


def describe(statuses: list[FactStatus]) -> list[str]:
    """Return the fact table as text lines: status, fact id, rule, statement and source."""
    lines = []
    for s in statuses:
        f = s.fact
        lines.append(f"  {'ok' if s.ok else 'BROKEN':6} {f.id}  [{f.rule}]")
        lines.append(f"         {f.fact}")
        lines.append(f"         source: {f.cites()}")
        if f.wins:
            lines.append(f"         which wins: {f.wins}")
        for entry in f.prints:
            where = entry["component"] + (f", card {entry['card']}" if entry.get("card") else "")
            lines.append(f"         printed on {where}: \"{entry['says']}\""
                         + (f" ({{value}} = {f.value})" if "{value}" in entry["says"] else ""))
        lines.extend(f"         ! {m}" for m in s.broken)
    ok = sum(s.ok for s in statuses)
    lines.append(f"  {ok} of {len(statuses)} facts hold")
    kinds = {k: sum(s.fact.origin == k for s in statuses) for k in ORIGINS}
    lines.append("  sources: " + ", ".join(f"{n} {k}" for k, n in kinds.items() if n))
    return lines


def _tokens(path: str) -> list:
    out = []
    for key, index in _TOKEN.findall(path):
        if key:
            out.append(key)
        elif "=" in index:
            field, value = index.split("=", 1)
            out.append((field.strip(), value.strip()))
        else:
            out.append(int(index))
    return out


def _step(node, token, path, new=False):
    if isinstance(token, tuple):
        field, value = token
        for i, item in enumerate(node):
            if isinstance(item, dict) and str(item.get(field)) == value:
                return i
        raise LookupError(f"{path}: no item with {field}={value}")
    if isinstance(token, int):
        if not isinstance(node, list) or not -len(node) <= token < len(node):
            raise LookupError(f"{path}: index {token} is out of range")
        return token
    if not isinstance(node, dict) or (token not in node and not new):
        raise LookupError(f"{path}: no key '{token}'")
    return token


def _parent(data, path: str, new: bool = False):
    tokens = _tokens(path)
    if not tokens:
        raise LookupError(f"empty path '{path}'")
    node = data
    for token in tokens[:-1]:
        node = node[_step(node, token, path)]
    return node, _step(node, tokens[-1], path, new)


def _apply(data, op: dict):
    if "swap" in op:
        (pa, ka), (pb, kb) = (_parent(data, p) for p in op["swap"])
        if pa[ka] == pb[kb]:
            raise LookupError(f"swap {op['swap']}: both hold the same value")
        pa[ka], pb[kb] = pb[kb], pa[ka]
        return
    parent, key = _parent(data, op["path"], new="set" in op)
    if "set" in op:
        if isinstance(parent, dict) and key in parent and parent[key] == op["set"]:
            raise LookupError(f"{op['path']} already holds {op['set']!r}")
        parent[key] = op["set"]
    elif "add" in op:
        if isinstance(parent[key], bool) or not isinstance(parent[key], (int, float)):
            raise LookupError(f"{op['path']} is not a number")
        parent[key] = parent[key] + op["add"]
    elif "remove" in op:
        del parent[key]
    elif "duplicate" in op:
        parent.insert(key + 1, parent[key])
    elif "replace" in op:
        old, new = op["replace"]
        if not isinstance(parent[key], str) or old not in parent[key]:
            raise LookupError(f"{op['path']} does not contain {old!r}")
        parent[key] = parent[key].replace(old, new, 1)


def target(root: Path, game_id: str, file: str) -> Path:
    """Return the file a mutation edits: a bare name is in the game's data folder."""
    if file.startswith(("data/", "templates/")):
        return Path(root) / file
    return Path(root) / "data" / game_id / file


def mutate(root: Path, game_id: str, op: dict) -> None:
    """Apply one mutation to a file of a copied project, in place."""
    path = target(root, game_id, op["file"])
    text = path.read_text(encoding="utf-8")
    if "replace" in op and "path" not in op:
        old, new = op["replace"]
        if old not in text:
            raise LookupError(f"{op['file']} does not contain {old!r}")
        path.write_text(text.replace(old, new, 1), encoding="utf-8")
        return
    data = yaml.safe_load(text)
    _apply(data, op)
    path.write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=1000),
                    encoding="utf-8")
