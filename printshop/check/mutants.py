"""Mutants of what a game prints: every number, sign, direction or comparison word and rule
keyword in its component data and templates, changed one at a time.

A mutant counts when it reaches print (the component's printed text, printshop.check.printed, changes)
and is caught when `validate` then reports a problem. Equivalent mutants are listed with a
reason in data/GAME/printed-equivalents.yaml. ``python -m printshop.check.mutants GAME [N|all]
[ID-PATTERN...]`` prints every survivor (of the mutants whose id matches the pattern);
tests/test_printed_mutation.py checks a sample of each game.
"""

from __future__ import annotations

import hashlib
import re
import shutil
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from ..files.errors import PrintshopError
from .printed import (FLAVOUR_KEY, FLAVOUR_MARK, NUMBER, SIGN, WORD, WORDS, literal_lines,
                      read_part, template_closure)
from ..draw.templates import TemplateProblem

EQUIVALENTS_FILE = "printed-equivalents.yaml"
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)    # libyaml when built with it
_DUMPER = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
SKIPPED_KEYS = {"id", "copies", FLAVOUR_KEY}


@dataclass(frozen=True)
class Mutant:
    """One change to one printed token: where it is, what it was and what it becomes."""

    id: str
    file: str                 # relative to the project: data/GAME/F.yaml, templates/GAME/F.j2
    path: tuple = ()          # a data file's key path; empty for a template
    line: int = 0             # a template's line (1-based)
    start: int = 0            # the token's place in the string or line
    old: str = ""
    new: str = ""
    whole: bool = False       # the whole value is a number field


@dataclass
class Score:
    """The outcome of a game's mutants."""

    game: str
    candidates: int = 0
    tried: int = 0
    unprinted: int = 0
    unreadable: int = 0
    caught: list[str] = field(default_factory=list)
    equivalent: list[str] = field(default_factory=list)
    survived: list[str] = field(default_factory=list)
    crashed: list[str] = field(default_factory=list)   # validate raised instead of reporting
    seconds: float = 0.0

    @property
    def printed(self) -> int:
        """Return how many mutants reached print and are not equivalent."""
        return len(self.caught) + len(self.survived)

    def line(self) -> str:
        """Return the score as the test summary prints it."""
        pct = 100 * len(self.caught) // self.printed if self.printed else 100
        return (f"printed text, {self.game}: {self.printed} printed mutants, "
                f"{len(self.caught)} caught ({pct}%), {len(self.equivalent)} equivalent, "
                + (f"{len(self.crashed)} crashed the validator, " if self.crashed else "")
                + f"{self.unprinted} not printed, of {self.candidates} candidates "
                f"({self.tried} tried, {self.seconds:.0f} s)")


def _changes(token: str) -> list[str]:
    if token.isdigit():
        n = int(token)
        return [str(v) for v in dict.fromkeys((n + 1, n - 1, 2 * n)) if v >= 0 and v != n]
    if token in "+-−":
        return ["-" if token == "+" else "+"]
    new = WORDS.get(token.lower())
    if new is None:
        return []
    if token.isupper() and len(token) > 1:
        return [new.upper()]
    return [new.capitalize() if token[0].isupper() else new]


def tokens(text: str) -> list[tuple[int, str]]:
    """Return (place, token) of every number, sign and listed word in a text, in order."""
    found = [(m.start(1), m.group(1)) for rx in (NUMBER, SIGN, WORD) for m in rx.finditer(text)]
    return sorted(found)


def _label(path: tuple, data) -> str:
    out, node = "", data
    for key in path:
        if isinstance(key, int):
            item = node[key]
            ident = item.get("id") if isinstance(item, dict) else None
            out += f"[id={ident}]" if isinstance(ident, (str, int)) else f"[{key}]"
        else:
            out += ("." if out else "") + str(key)
        node = node[key]
    return out


def _walk(value, path=()):
    if isinstance(value, dict):
        for k, v in value.items():
            if k not in SKIPPED_KEYS:
                yield from _walk(v, path + (k,))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _walk(v, path + (i,))
    elif isinstance(value, (str, int)) and not isinstance(value, bool):
        yield path, value


def _ids(base: str, found: list[tuple[int, str]]):
    seen: dict[str, int] = {}
    for start, token in found:
        seen[token] = seen.get(token, 0) + 1
        where = base + (f"#{seen[token]}" if seen[token] > 1 else "")
        for new in _changes(token):
            yield start, token, new, where


def data_mutants(root: Path, game_id: str, file: str) -> list[Mutant]:
    """Return the mutants of one data file (a YAML file of the game's data folder)."""
    data = yaml.load((root / file).read_text(encoding="utf-8"), Loader=_LOADER)
    out = []
    for path, value in _walk(data):
        base = f"{file}:{_label(path, data)}"
        if isinstance(value, int):
            out += [Mutant(f"{base}:{value}>{new}", file, path, 0, 0, str(value), new, True)
                    for new in _changes(str(abs(value)))
                    if value >= 0]
            continue
        for start, token, new, where in _ids(base, tokens(value)):
            out.append(Mutant(f"{where}:{token}>{new}", file, path, 0, start, token, new))
    return out


def template_mutants(root: Path, file: str) -> list[Mutant]:
    """Return the mutants of one template's literal text (never of a comment, a tag or the
    code of a Jinja expression, whichever lines they span)."""
    text = (root / file).read_text(encoding="utf-8")
    lines = text.split("\n")
    found: dict[int, list[tuple[int, str]]] = {}
    for n, a, b in literal_lines(text):
        if FLAVOUR_MARK not in lines[n - 1]:
            found.setdefault(n, []).extend((a + s, t) for s, t in tokens(lines[n - 1][a:b]))
    out = []
    for n in sorted(found):
        for start, token, new, where in _ids(f"{file}:{n}", sorted(found[n])):
            out.append(Mutant(f"{where}:{token}>{new}", file, (), n, start, token, new))
    return out


def game_files(game) -> tuple[list[str], list[str]]:
    """Return a game's component data files and its own templates, relative to the project."""
    data = sorted({f"data/{game.id}/{Path(p.data_file).name}" for p in game.parts
                   if p.data_file and Path(p.data_file).suffix in (".yaml", ".yml")})
    folder = Path(game.template_dirs[0]) if game.template_dirs else None
    templates = sorted(f"templates/{game.id}/{p.name}" for p in folder.glob("*.j2")) \
        if folder is not None and folder.name == game.id else []
    return data, templates


def mutants(root: Path, game) -> list[Mutant]:
    """Return every candidate mutant of a game's printed data and templates."""
    data, templates = game_files(game)
    out = [m for f in data for m in data_mutants(root, game.id, f)]
    return out + [m for f in templates for m in template_mutants(root, f)]


def load_equivalents(data_dir: Path) -> list[dict]:
    """Read data/GAME/printed-equivalents.yaml: a list of {mutant: ID-PATTERN, why: TEXT}."""
    path = Path(data_dir) / EQUIVALENTS_FILE
    if not path.is_file():
        return []
    doc = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    rows = doc.get("equivalents") if isinstance(doc, dict) else None
    if not isinstance(rows, list) or not all(
            isinstance(r, dict) and set(r) == {"mutant", "why"} and all(
                isinstance(v, str) and v.strip() for v in r.values()) for r in rows):
        raise ValueError(f"{path}: expected 'equivalents:', a list of {{mutant, why}} strings")
    return rows


def matches(mutant_id: str, pattern: str) -> bool:
    """Say whether an id matches a pattern where only * (any text) and ? (one character) are
    wild: brackets stay literal, as in cards[id=leader]."""
    rx = "".join(".*" if c == "*" else "." if c == "?" else re.escape(c) for c in pattern)
    return re.fullmatch(rx, mutant_id, re.S) is not None


def equivalent(mutant_id: str, rows: list[dict]) -> dict | None:
    """Return the equivalents row that names a mutant, if any."""
    return next((r for r in rows if matches(mutant_id, r["mutant"])), None)


def apply(root: Path, m: Mutant) -> None:
    """Write a mutant into a copied project."""
    path = root / m.file
    text = path.read_text(encoding="utf-8")
    if not m.path:
        lines = text.split("\n")
        line = lines[m.line - 1]
        assert line[m.start:m.start + len(m.old)] == m.old, m.id
        lines[m.line - 1] = line[:m.start] + m.new + line[m.start + len(m.old):]
        path.write_text("\n".join(lines), encoding="utf-8")
        return
    data = yaml.load(text, Loader=_LOADER)
    node = data
    for key in m.path[:-1]:
        node = node[key]
    value = node[m.path[-1]]
    if m.whole:
        node[m.path[-1]] = int(m.new)
    else:
        assert value[m.start:m.start + len(m.old)] == m.old, m.id
        node[m.path[-1]] = value[:m.start] + m.new + value[m.start + len(m.old):]
    path.write_text(yaml.dump(data, Dumper=_DUMPER, sort_keys=False, allow_unicode=True,
                              width=1000), encoding="utf-8")


def _affected(game, m: Mutant) -> list:
    if m.path:
        return [p for p in game.parts if p.data_file
                and f"data/{game.id}/{Path(p.data_file).name}" == m.file]
    name = Path(m.file).name
    return [p for p in game.parts if name in template_closure(game, p)]


def ordered(found: list[Mutant]) -> list[Mutant]:
    """Return the mutants in a fixed order drawn from each one's id, so a sample changes only
    where the data or templates changed."""
    return sorted(found, key=lambda m: hashlib.sha256(m.id.encode()).digest())


# A mutation run draws each component hundreds of times on whatever machine runs it: a slow
# moment must not read as a caught mutant (a template over the render limit is a problem),
# so the run draws without the render clocks a build keeps.
RUN_LIMITS = {"render_seconds": 3600.0, "total_render_seconds": 10.0 ** 9}


def run(source: Path, game_id: str, work: Path, n: int | None = None,
        only: str | list[str] | None = None) -> Score:
    """Copy a game into ``work``, try its mutants (until n of them reached print, or all; only
    those whose id matches the pattern ``only``, or one of a list of them, if given) and
    return the score."""
    from dataclasses import replace

    from ..files import limits

    with limits.applied(replace(limits.current(), **RUN_LIMITS)):
        return _run(source, game_id, work, n, only)


def _run(source: Path, game_id: str, work: Path, n: int | None,
         only: str | list[str] | None) -> Score:
    from ..load.loader import load_game
    from ..files.project import Project
    from .rules import validate

    began = time.monotonic()
    for sub in ("data", "templates"):
        if (source / sub / game_id).is_dir():
            shutil.copytree(source / sub / game_id, work / sub / game_id)
    project = Project.open(work)
    game = load_game(project.game(game_id))
    assert not validate(game), "the shipped game must validate first"
    baseline = {p.id: read_part(game, p) for p in game.parts}
    rows = load_equivalents(game.data_dir)
    found = mutants(work, game)
    if only:
        patterns = [only] if isinstance(only, str) else list(only)
        found = [m for m in found if any(matches(m.id, p) for p in patterns)]
    score = Score(game_id, len(found))
    stale = [r["mutant"] for r in rows if not any(equivalent(m.id, [r]) for m in found)]
    if stale and not only:
        raise ValueError(f"{game_id}: equivalents that name no mutant: {', '.join(stale)}")
    for m in ordered(found):
        if n is not None and score.printed + len(score.equivalent) >= n:
            break
        score.tried += 1
        original = (work / m.file).read_text(encoding="utf-8")
        try:
            apply(work, m)
            try:
                mutated = load_game(Project.open(work).game(game_id))
            except PrintshopError:
                score.caught.append(m.id)   # the loader refuses it: validate fails too
                continue
            try:
                changed = any(read_part(mutated, p) != baseline[p.id]
                              for p in _affected(mutated, m))
                drawn = None
            except (PrintshopError, TemplateProblem) as exc:
                changed, drawn = True, exc
            except Exception as exc:  # noqa: BLE001 - a helper's crash, e.g. GEOS on a map
                changed, drawn = True, exc
            if not changed:
                score.unprinted += 1
                continue
            if equivalent(m.id, rows):
                score.equivalent.append(m.id)
                continue
            try:
                found = validate(mutated)
            except Exception as exc:  # noqa: BLE001 - a rule that crashes is reported
                score.crashed.append(f"{m.id}: validate: {type(exc).__name__}: {exc}")
                continue
            if found:
                score.caught.append(m.id)
            elif drawn is not None and not isinstance(drawn, (PrintshopError, TemplateProblem)):
                score.crashed.append(f"{m.id}: drawing: {type(drawn).__name__}: {drawn}")
            elif drawn is not None:
                score.unreadable += 1     # a build reports it, with its place
            else:
                score.survived.append(m.id)
        finally:
            (work / m.file).write_text(original, encoding="utf-8")
    score.seconds = time.monotonic() - began
    return score


def main(argv: list[str]) -> int:
    """Print a game's mutation score over its printed text and every survivor."""
    import tempfile

    from ..files.project import builtin_root

    if not argv:
        print("usage: python -m printshop.check.mutants GAME [N|all] [ID-PATTERN...]", file=sys.stderr)
        return 2
    n = None if len(argv) < 2 or argv[1] == "all" else int(argv[1])
    with tempfile.TemporaryDirectory() as tmp:
        score = run(builtin_root(), argv[0], Path(tmp), n, argv[2:] or None)
    print(score.line())
    for mid in score.survived:
        print("survived", mid)
    for what in score.crashed:
        print("crashed", what)
    return 0 if not (score.survived or score.crashed) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
