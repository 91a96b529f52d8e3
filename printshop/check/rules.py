"""The validator: declarative checks from a manifest and named rules of the built-in games.

A game's manifest lists its rules. A string names a rule (``deity.progression-order``) or a
whole rule set (``deity``) from the registry; a mapping is a declarative check (``count``,
``unique``, ``range``, ``sequence``) run on one component's cards.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable, Iterable

from ..files.errors import PrintshopError, Problem
from ..load.models import Card, CheckSpec, Game, Part
from ..load.plugins import load_plugins
from ..load.source import leaf_paths, manifest_document
from . import printed
from .facts import check_table, load_facts, missing_restated


@dataclass(frozen=True)
class Finding:
    """A rule broken somewhere: a message and, where known, the card or key involved (or a
    file of the project and its line, for what no component holds)."""

    message: str
    part: str | None = None
    card: str | None = None
    path: tuple = ()
    file: str | None = None
    line: int | None = None


RuleFn = Callable[[Game], Iterable[Finding]]
RULES: dict[str, tuple[str, RuleFn]] = {}


def rule(rule_id: str, description: str):
    """Register a named rule: a function of the game yielding Findings."""
    def register(fn: RuleFn) -> RuleFn:
        RULES[rule_id] = (description, fn)
        return fn
    return register


def sheet_text_rule(game_id: str, description: str) -> RuleFn:
    """Register GAME.sheet-text: every sentence the fact table's ``restated`` list names is
    still printed by its template or data file (one rule, shared by every game that has one)."""
    def check(game: Game):
        for message, file, line in missing_restated(game.data_dir, game.id, game.template_dirs):
            yield Finding(message, file=file, line=line)
    return rule(f"{game_id}.sheet-text", description)(check)


def matching(cards: list[Card], where: dict) -> list[Card]:
    """Return the cards whose fields equal every value in ``where``."""
    def ok(card):
        values = card.context()
        for key, want in where.items():
            have = values.get(key)
            if isinstance(have, list):
                if want not in have:
                    return False
            elif have != want:
                return False
        return True
    return [c for c in cards if ok(c)]


def _check_count(game: Game, spec: CheckSpec):
    cards = matching(game.part(spec.component).cards, spec.where)
    n = sum(c.copies for c in cards)
    what = spec.message or f"cards in {spec.component}" + (
        f" with {', '.join(f'{k}={v}' for k, v in spec.where.items())}" if spec.where else "")
    if spec.equals is not None and n != spec.equals:
        yield Finding(f"expected {spec.equals:g} {what}, found {n}", spec.component)
    if spec.min is not None and n < spec.min:
        yield Finding(f"expected at least {spec.min:g} {what}, found {n}", spec.component)
    if spec.max is not None and n > spec.max:
        yield Finding(f"expected at most {spec.max:g} {what}, found {n}", spec.component)


def _check_unique(game: Game, spec: CheckSpec):
    seen: dict = {}
    for card in matching(game.part(spec.component).cards, spec.where):
        value = card.context().get(spec.field)
        key = repr(value)
        if key in seen:
            yield Finding(f"{spec.field} {value!r} is used by both '{seen[key]}' and "
                          f"'{card.id}'", spec.component, card.id, (spec.field,))
        else:
            seen[key] = card.id


def _check_range(game: Game, spec: CheckSpec):
    for card in matching(game.part(spec.component).cards, spec.where):
        value = card.context().get(spec.field)
        values = value if isinstance(value, list) else [value]
        for v in values:
            if not isinstance(v, (int, float)):
                continue
            if (spec.min is not None and v < spec.min) or (spec.max is not None and v >
                                                           spec.max):
                yield Finding(f"{spec.field} is {v}, expected {spec.min:g} to {spec.max:g}",
                              spec.component, card.id, (spec.field,))


def _check_sequence(game: Game, spec: CheckSpec):
    cards = matching(game.part(spec.component).cards, spec.where)
    numbers = sorted(c.context().get(spec.field) for c in cards
                     if isinstance(c.context().get(spec.field), int))
    lo = int(spec.min if spec.min is not None else 1)
    hi = int(spec.max if spec.max is not None else lo + len(numbers) - 1)
    want = list(range(lo, hi + 1))
    missing = sorted(set(want) - set(numbers))
    extra = sorted(set(numbers) - set(want))
    dupes = sorted({n for n in numbers if numbers.count(n) > 1})
    if missing or extra or dupes:
        parts = []
        if missing:
            parts.append(f"missing {', '.join(map(str, missing))}")
        if dupes:
            parts.append(f"duplicated {', '.join(map(str, dupes))}")
        if extra:
            parts.append(f"outside {lo}-{hi}: {', '.join(map(str, extra))}")
        yield Finding(f"{spec.field} must run {lo} to {hi} without gaps: " + "; ".join(parts),
                      spec.component)


CHECKS: dict[str, Callable] = {
    "count": _check_count,
    "unique": _check_unique,
    "range": _check_range,
    "sequence": _check_sequence,
}


_QUOTED = re.compile(r"'([^']+)'|\"([^\"]+)\"")
_AGAIN = re.compile(r"\btwice\b|\b\d+ times\b|\bboth\b|\bduplicate", re.IGNORECASE)


def _subtree(data, path: tuple):
    for key in path:
        try:
            data = data[key]
        except (KeyError, IndexError, TypeError):
            return None
    return data


def _field_of(part: Part, path: tuple, message: str) -> tuple:
    """Return the path of the field a message names by its quoted value, below ``path``: the
    second holder of a value the message says is used again, else the first; else ``path``."""
    doc = part.source
    node = _subtree(doc.data, path) if doc is not None else None
    if node is None:
        return path
    for m in _QUOTED.finditer(message):
        value = m.group(1) or m.group(2)
        holders = [path + p for p, v in leaf_paths(node) if p and isinstance(v, (str, int))
                   and not isinstance(v, bool) and str(v) == value]
        if holders:
            return holders[1] if len(holders) > 1 and _AGAIN.search(message) else holders[0]
    return path


def manifest_place(game: Game, rule_id: str) -> tuple[str, tuple, int]:
    """Return (file, key path, line) of the manifest's rules entry that runs a rule: its own,
    else its rule set's, else the `rules:` list itself (a rule every such game runs)."""
    names = [e if isinstance(e, str) else getattr(e, "id", None) for e in game.manifest.rules]
    index = next((i for i, n in enumerate(names) if n == rule_id), None)
    if index is None:
        index = next((i for i, n in enumerate(names)
                      if isinstance(n, str) and rule_id.startswith(n + ".")), None)
    file, doc = manifest_document(game)
    path = ("rules",) if index is None else ("rules", index)
    if doc is None:
        return file, path, 1
    return file, path, doc.line(path) or doc.line(("rules",)) or 1


def locate(game: Game, finding: Finding, rule_id: str) -> Problem:
    """Turn a Finding into a Problem at the line of the field that breaks the rule: the
    card's field, the value a message quotes, a deck's card list, or the manifest's entry of
    the rule when no component's data is involved. Every problem it makes has a line."""
    if finding.file is not None:
        return Problem(finding.file, finding.message, finding.path, finding.line, rule_id)
    line, path = None, finding.path
    part = None
    if finding.part:
        try:
            part = game.part(finding.part)
        except KeyError:
            part = None
    if part is not None and part.data_file:
        index = next((i for i, card in enumerate(part.cards) if card.id == finding.card), None) \
            if finding.card else None
        if index is not None:
            path = _field_of(part, ("cards", index) + tuple(finding.path), finding.message)
            line = part.line(path) if len(path) > 2 else part.cards[index].line
        elif finding.path:
            path = _field_of(part, tuple(finding.path), finding.message)
            line = part.line(path)
        else:   # a count over the whole deck or sheet: where its data begins (`cards:`),
            # before any card, so the studio links it to the component, not its first card
            path = ("cards",) if part.cards else ()
            line = part.line(()) or 1
        if line is not None:
            return Problem(part.data_file, finding.message, path, line, rule_id)
    # About the whole game, or a place its data no longer has: the rule's manifest line.
    file, _, line = manifest_place(game, rule_id)
    return Problem(file, finding.message, finding.path or ("rules",), line, rule_id)


def rule_games(game: Game) -> set[str]:
    """Return the games whose code the manifest's rules need: its own and any it names."""
    named = {entry.split(".")[0] for entry in game.manifest.rules if isinstance(entry, str)}
    return {game.id} | named


def rule_ids(game: Game) -> list[str | CheckSpec]:
    """Expand the manifest's rule list: a rule set name stands for all its rules."""
    load_plugins(rule_games(game))
    out: list = []
    for entry in game.manifest.rules:
        if isinstance(entry, CheckSpec):
            out.append(entry)
        elif entry in RULES:
            out.append(entry)
        else:
            members = sorted(r for r in RULES if r.startswith(entry + "."))
            out.extend(members if members else [entry])
    return out


def validate(game: Game) -> list[Problem]:
    """Run every rule the game's manifest lists; return what is broken."""
    problems = []
    for entry in rule_ids(game):
        if isinstance(entry, CheckSpec):
            check = CHECKS.get(entry.check)
            if check is None:
                file, _, line = manifest_place(game, entry.id)
                problems.append(Problem(file, f"unknown check '{entry.check}'; known checks: "
                                        f"{', '.join(CHECKS)}", ("rules",), line,
                                        entry.id))
                continue
            problems.extend(locate(game, f, entry.id) for f in check(game, entry))
        elif entry not in RULES:
            file, _, line = manifest_place(game, entry)
            problems.append(Problem(file, f"unknown rule '{entry}'", ("rules",), line, entry))
        else:
            _, fn = RULES[entry]
            try:
                findings = list(fn(game))
            except KeyError as exc:
                findings = [Finding(f"the rule needs component {exc}, which the game lacks")]
            problems.extend(locate(game, f, entry) for f in findings)
    listed = {e if isinstance(e, str) else e.id for e in rule_ids(game)}
    try:
        facts = load_facts(game.data_dir, game.id)
    except PrintshopError as exc:
        return problems + list(exc.problems)
    if facts:   # a game with a fact table has its printed text checked against it
        listed |= set(printed.ALWAYS)
        problems.extend(printed.check_says(game, facts))
        problems.extend(printed.check_flavour(game))
    problems.extend(check_table(game.id, facts, set(RULES) | listed, listed))
    return problems


def part_cards(game: Game, part_id: str) -> tuple[Part, list[Card]]:
    """Return a component and its cards (for rule functions)."""
    part = game.part(part_id)
    return part, part.cards
