"""Printed text: what each component prints, checked against the fact table.

A component's printed text is read by drawing its templates with the ``text()`` helper
recording its input instead of laying it out (the same words the PDF holds, with ``:icon:``
names kept and ``**`` dropped), plus any literal ``<text>`` a template writes. Fact rows'
``prints`` entries say what a component must print (``printed.says``); fields named
``flavour`` and template lines marked ``{# flavour #}`` may state no rule (``printed.flavour``).
The mutants of printed numbers and words live in printshop/check/mutants.py.
"""

from __future__ import annotations

import bisect
import functools
import hashlib
import html
import os
import re
import threading
from collections import OrderedDict
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from markupsafe import Markup

from ..files.errors import PrintshopError, Problem
from ..load.models import Game, Part
from ..load.source import leaf_paths, read_text

FLAVOUR_KEY = "flavour"
FLAVOUR_MARK = "{# flavour #}"
SAYS_RULE = "printed.says"
FLAVOUR_RULE = "printed.flavour"
ALWAYS = (SAYS_RULE, FLAVOUR_RULE)    # run for every game with a fact table

# Direction and comparison words, each with the word a mutant puts in its place.
SWAPS = {
    "left": "right", "right": "left",
    "more": "less", "less": "more", "fewer": "more",
    "most": "fewest", "fewest": "most", "least": "most",
    "before": "after", "after": "before",
    "gain": "lose", "gains": "loses", "lose": "gain", "loses": "gains",
    "plus": "minus", "minus": "plus",
    "higher": "lower", "lower": "higher", "highest": "lowest", "lowest": "highest",
    "above": "below", "below": "above",
    "first": "last", "last": "first",
    "top": "bottom", "bottom": "top",
    "add": "subtract", "subtract": "add",
    "increase": "decrease", "decrease": "increase",
    "clockwise": "anticlockwise", "anticlockwise": "clockwise",
    "next": "previous", "previous": "next",
    "odd": "even", "even": "odd",
    "max": "min", "min": "max",
    "up": "down", "down": "up",
}
# Rule keywords: what a player may, must or cannot do, and how often.
KEYWORDS = {
    "may": "must", "must": "may", "can": "cannot", "cannot": "can",
    "never": "always", "always": "never", "only": "also",
    "each": "one", "every": "one", "all": "one",
    "draw": "discard", "discard": "draw",
    "win": "lose", "wins": "loses",
    "once": "twice", "twice": "once",
    "double": "half",
}
WORDS = {**KEYWORDS, **SWAPS}
WORD = re.compile(r"(?<![\w'’-])(" + "|".join(sorted(WORDS, key=len, reverse=True))
                  + r")(?![\w'’-])", re.IGNORECASE)
NUMBER = re.compile(r"(?<![\w.,])(\d{1,4})(?![\w]|[.,]\d)")
SIGN = re.compile(r"(?<![\w)\]])([+\-−])(?=\d)")


# What flavour may not say: a number, a sign, or one of the direction and comparison
# words (the mutants' wider list has words such as "even", "next" and "only" that flavour
# uses in their everyday sense).
FLAVOUR_WORDS = re.compile(r"(?<![\w'’-])(left|right|more|less|most|fewest|least|before|after|"
                           r"gains?|loses?|plus|minus|higher|lower|above|below|clockwise|"
                           r"anticlockwise)(?![\w'’-])", re.IGNORECASE)


def rule_words(text: str) -> list[str]:
    """Return the numbers, signs and direction or comparison words a text states."""
    return ([m.group(1) for m in NUMBER.finditer(text)] + [m.group(1) for m in SIGN.finditer(text)]
            + [m.group(1) for m in FLAVOUR_WORDS.finditer(text)])


def _plain(s) -> str:
    s = html.unescape(str(s)) if isinstance(s, Markup) else str(s)
    return " ".join(s.replace("**", "").split())


_LITERAL = re.compile(r"<text(?![^>]*ps-runs)[^>]*>(.*?)</text>", re.S)
_TAG = re.compile(r"<[^>]+>")


_READING = threading.RLock()


@contextmanager
def _recording(env, runs: list[str]):
    """Make the environment's ``text()`` record its text and draw nothing, in this thread
    only: the studio draws cards in other threads while the rules run."""
    with _READING:
        original = env.globals["text"]
        reader = threading.get_ident()

        def record(s, *args, **kwargs):
            if threading.get_ident() != reader:
                return original(s, *args, **kwargs)
            runs.append(_plain(s))
            return Markup("")
        env.globals["text"] = record
        env.helpers[id(record)] = record
        try:
            yield
        finally:
            env.globals["text"] = original
            env.helpers.pop(id(record), None)


def _drawn_text(runs: list[str], svg: str) -> str:
    literal = [_plain(html.unescape(_TAG.sub(" ", m.group(1)))) for m in _LITERAL.finditer(svg)]
    return " ".join(t for t in runs + literal if t)


_REFS: dict[tuple, list] = {}


def _references(env, path: Path, label: str) -> list:
    """Return the templates one template includes or imports (None for a computed name),
    parsed once per version of the file."""
    from jinja2 import TemplateSyntaxError, meta

    st = os.stat(path)
    key = (str(path), st.st_size, st.st_mtime_ns)
    if key not in _REFS:
        try:
            source = read_text(path, label, path.parent)
            _REFS[key] = list(meta.find_referenced_templates(env.parse(source)))
        except (TemplateSyntaxError, PrintshopError):   # drawn everywhere, to be safe
            _REFS[key] = [None]
    return _REFS[key]


def template_closure(game: Game, part: Part) -> set[str]:
    """Return the templates a component draws with: those it names and those they include or
    import (every template of the game when a name is computed)."""
    from ..components.base import environment

    env = environment(game)
    names: set[str] = set()
    todo = list(template_names(part))
    while todo:
        name = todo.pop()
        if name in names:
            continue
        names.add(name)
        found = template_file(game, name)
        if found is None:
            continue
        refs = _references(env, *found)
        if None in refs:
            for folder in game.template_dirs:
                todo += [p.name for p in Path(folder).glob("*.j2")]
        todo += [r for r in refs if r]
    return names


def _template_key(game: Game, part: Part) -> str:
    digest = hashlib.sha256()
    for name in sorted(template_closure(game, part)):
        found = template_file(game, name)
        if found is not None:
            st = os.stat(found[0])
            digest.update(f"{found[0]}\0{st.st_size}\0{st.st_mtime_ns}\0".encode())
    return digest.hexdigest()


_READ: OrderedDict[tuple, dict[str, str]] = OrderedDict()
_KEEP = 4096


def read_part(game: Game, part: Part) -> dict[str, str]:
    """Return what a component prints: card id -> its text (front and back) for decks and
    tokens, '' -> the whole text for sheets, boards and booklets."""
    from ..components import RENDERERS
    from ..components.base import environment
    from ..components.deck import card_faces
    from ..load.geometry import PrintOptions

    templates = _template_key(game, part)
    opts = PrintOptions(layout="single")
    env = environment(game)
    head = (game.id, templates, repr(game.manifest), repr(part.spec))
    out: dict[str, str] = {}
    if part.kind in ("deck", "tokens"):
        for card in part.cards:
            key = head + (repr(card.context()),)
            if key not in _READ:
                runs: list[str] = []
                with _recording(env, runs):
                    front, back = card_faces(game, part, opts, card)
                _READ[key] = {card.id: _drawn_text(runs, front.svg + (back.svg if back else ""))}
            _READ.move_to_end(key)
            out.update(_READ[key])
    else:
        key = head + (repr(part.data),)
        if key not in _READ:
            runs = []
            with _recording(env, runs):
                rendered = RENDERERS[part.kind](game, part, opts)
            svg = "".join(f.svg for faces in rendered.faces.values() for f in faces)
            if not rendered.faces:
                svg = "".join(p for page in rendered.pages for p in page.parts
                              if isinstance(p, str))
            _READ[key] = {"": _drawn_text(runs, svg)}
        _READ.move_to_end(key)
        out.update(_READ[key])
    while len(_READ) > _KEEP:
        _READ.popitem(last=False)
    return out


def read_game(game: Game) -> dict[str, dict[str, str]]:
    """Return what every component of a game prints (read_part), by component id."""
    return {part.id: read_part(game, part) for part in game.parts}


@dataclass(frozen=True)
class Place:
    """A piece of source a component prints from: a data field or a template line."""

    file: str
    line: int | None
    path: tuple
    text: str


def _leaves(value):
    """Yield (key path, value) for each text or number in plain data."""
    for path, leaf in leaf_paths(value):
        if isinstance(leaf, (str, int, float)) and not isinstance(leaf, bool):
            yield path, leaf


def _card_index(part: Part, card_id: str | None) -> int | None:
    for i, card in enumerate(part.cards):
        if card.id == card_id:
            return i
    return None


def template_names(part: Part) -> list[str]:
    """Return the templates a component names (front, back, template, cover)."""
    return [n for n in (getattr(part.spec, k, None) for k in ("front", "back", "template",
                                                             "cover")) if n]


def template_file(game: Game, name: str) -> tuple[Path, str] | None:
    """Return a template's path and its label (templates/GAME/NAME) in the game's folders."""
    for folder in game.template_dirs:
        path = Path(folder) / name
        if path.is_file():
            label = (f"templates/{game.id}/{name}" if Path(folder).name == game.id
                     else f"{Path(folder).name}/{name}")
            return path, label
    return None


def places(game: Game, part: Part, card: str | None = None) -> list[Place]:
    """Return the data fields (the card's first) and template lines a component prints from."""
    out: list[Place] = []
    doc = part.source
    if doc is not None and part.data_file:
        index = _card_index(part, card)
        leaves = list(_leaves(doc.data))
        if index is not None:   # the card's own fields first
            leaves.sort(key=lambda pv: pv[0][:2] != ("cards", index))
        out += [Place(part.data_file, doc.line(p), p, _plain(v)) for p, v in leaves]
    for name in template_names(part):
        found = template_file(game, name)
        if found is None:
            continue
        path, label = found
        try:
            lines = read_text(path, label, path.parent).splitlines()
        except PrintshopError:
            continue
        out += [Place(label, n, (), " ".join(t.split())) for n, t in enumerate(lines, 1)]
    return out


def locate_text(candidates: list[Place], words: list[str],
                must: int | None = None) -> Place | None:
    """Return the place that holds the longest run of ``words`` (the one at ``must`` in it)."""
    spans = sorted(((i, j) for i in range(len(words)) for j in range(i + 1, len(words) + 1)
                    if must is None or i <= must < j), key=lambda s: s[0] - s[1])
    for i, j in spans:
        probe = " ".join(words[i:j])
        if must is None and j - i < min(2, len(words)):
            break
        for place in candidates:
            if probe in place.text and re.search(      # the plain test first: it is cheap
                    r"(?<![\w])" + re.escape(probe) + r"(?![\w])", place.text):
                return place
    return None


@functools.lru_cache(maxsize=4096)      # a game's entries outnumber the re module's cache
def _says_pattern(says: str, value) -> re.Pattern:
    def literal(part: str) -> str:
        return "".join(r"\s+" if c.isspace() else re.escape(c)
                       for c in re.split(r"(\s+)", part) if c)
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        slot = r"([+\-−]?\d+(?:\.\d+)?)"
    else:
        slot = r"([\w'’:-]+)"
    return re.compile(slot.join(literal(p) for p in says.split("{value}")), re.IGNORECASE)


def _same(found: str, value) -> bool:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        try:
            return float(found.replace("−", "-")) == float(value)
        except ValueError:
            return False
    return found.casefold() == str(value).casefold()


def check_says(game: Game, facts) -> list[Problem]:
    """Return a problem for each ``prints`` entry its component does not print as the fact
    says: the sentence gone, or its {value} printed as another number or word."""
    from .facts import FACTS_FILE

    label = f"data/{game.id}/{FACTS_FILE}"
    out: list[Problem] = []
    read: dict[str, dict[str, str]] = {}     # each component read once, however many entries
    for fact in facts:
        for entry in fact.prints:
            comp, card, says = entry["component"], entry.get("card"), entry["says"]
            try:
                part = game.part(comp)
            except KeyError:
                out.append(Problem(label, f"fact '{fact.id}' prints on component '{comp}', "
                                   "which the game lacks", ("facts", fact.id, "prints"),
                                   entry["line"], SAYS_RULE))
                continue
            try:
                if comp not in read:
                    read[comp] = read_part(game, part)
                texts = read[comp]
            except PrintshopError as exc:
                out.append(Problem(label, f"fact '{fact.id}': {comp} cannot be read: "
                                   f"{exc.problems[0].message}", ("facts", fact.id, "prints"),
                                   entry["line"], SAYS_RULE))
                continue
            except Exception as exc:  # noqa: BLE001 - drawing failed: report it where it is
                from .failures import drawing_problem

                found = drawing_problem(game, comp, exc)
                if found is None:
                    raise
                out.append(Problem(found.file, f"fact '{fact.id}': {comp} cannot be read: "
                                   f"{found.message}", found.path, found.line, SAYS_RULE))
                continue
            if card is not None:
                if card not in texts:
                    out.append(Problem(label, f"fact '{fact.id}' prints on card '{card}', "
                                       f"which {comp} lacks", ("facts", fact.id, "prints"),
                                       entry["line"], SAYS_RULE))
                    continue
                texts = {card: texts[card]}
            slotted = "{value}" in says
            if not slotted:      # a fixed sentence: printed text is spaced singly already
                plain = " ".join(says.split()).casefold()
                if any(plain in text.casefold() for text in texts.values()):
                    continue
                matches = []
            else:
                pattern = _says_pattern(says, fact.value)
                matches = [(cid, m) for cid, text in texts.items()
                           for m in pattern.finditer(text)]
            where = f"{comp}" + (f" card '{card}'" if card else "")
            if not matches:
                words = says.replace("{value}", str(fact.value)).split()
                place = _changed_field(game, part, card, words, texts) \
                    or locate_text(places(game, part, card), words)
                out.append(_problem(place, label, entry, f"fact '{fact.id}': {where} no longer "
                                    f"prints '{says.replace('{value}', str(fact.value))}'"))
                continue
            wrong: dict[tuple, list[str]] = {}
            for cid, m in matches:
                if slotted and not _same(m.group(1), fact.value):
                    words = m.group(0).split()
                    at = next((i for i, w in enumerate(words) if m.group(1) in w), None)
                    place = locate_text(places(game, part, cid or card), words, at)
                    wrong.setdefault((place, m.group(0)), []).append(cid)
            for (place, said), cards in wrong.items():
                named = [c for c in cards if c]
                which = (f" card '{named[0]}'" if len(named) == 1 else
                         f" ({len(named)} cards: {', '.join(named[:5])}"
                         + (", ..." if len(named) > 5 else "") + ")" if named else "")
                out.append(_problem(place, label, entry, f"fact '{fact.id}': {comp}{which} "
                                    f"prints '{said}'; the fact says {fact.value}"))
    return out


def _changed_field(game: Game, part: Part, card: str | None, words: list[str],
                   texts: dict[str, str]) -> Place | None:
    """Return the data field that prints the one word a sentence now reads otherwise: a
    text of the component prints the sentence with a single word changed (a cost, a number,
    a direction), and a field of its data holds exactly that word. On a card, the card's own
    field; on a sheet or booklet, of the fields that hold the word, the one whose entry's
    other texts (a scenario's name, its goal) the same page prints most."""
    if not words:
        return None
    index = _card_index(part, card) if card is not None else None
    if card is not None and index is None:
        return None
    found = [t for t in ([texts.get(card)] if card is not None else texts.values()) if t]
    data: list[Place] | None = None
    n = len(words)
    for text in found:
        printed = text.split()
        for i in range(len(printed) - n + 1):
            diff = [k for k in range(n) if printed[i + k].casefold() != words[k].casefold()]
            if len(diff) != 1:
                continue
            new = printed[i + diff[0]].strip(".,;:!?()")
            if data is None:
                data = [p for p in places(game, part, card)
                        if p.path and p.file == part.data_file]
            if card is not None:
                hits = [p for p in data if p.path[:2] == ("cards", index) and p.text == new]
            else:
                hits = [p for p in data if p.text == new]
            if hits:
                return max(hits, key=lambda p: sum(
                    1 for q in data if q.path[:-1] == p.path[:-1] and q is not p
                    and len(q.text) > 3 and q.text in text))
    return None


def _problem(place: Place | None, label: str, entry: dict, message: str) -> Problem:
    if place is None:
        return Problem(label, message, ("prints",), entry["line"], SAYS_RULE)
    return Problem(place.file, message, place.path, place.line, SAYS_RULE)


_JINJA = re.compile(r"\{\{.*?\}\}|\{%.*?%\}|\{#.*?#\}", re.S)
_QUOTED = re.compile(r"(['\"])((?:(?!\1).)*)\1")
# Before a quoted string: a keyword argument's '=' or a subscript's '[' (card['cost'], not the
# '[' that opens a list of strings).
_SUBSCRIPT_OR_KEYWORD = re.compile(r"(=|[\w)\]]\s*\[)\s*$")
_KEY = re.compile(r"\s*:")      # after a quoted string: the string was a mapping's key


def literal_spans(text: str) -> list[tuple[int, int]]:
    """Return the spans of a template's text (a line or a whole file) that may print: text
    outside tags and Jinja, and the quoted strings of its Jinja expressions that are not a
    keyword argument's value or a key. A comment, on one line or over several, never prints."""
    spans, hidden = [], []
    masked = list(text)
    for j in _JINJA.finditer(text):
        hidden.append((j.start(), j.end()))
        masked[j.start():j.end()] = [c if c == "\n" else " " for c in j.group(0)]
        if j.group(0).startswith("{#"):
            continue
        for m in _QUOTED.finditer(j.group(0)):
            if not (_SUBSCRIPT_OR_KEYWORD.search(j.group(0)[:m.start()])
                    or _KEY.match(j.group(0), m.end())):
                spans.append((j.start() + m.start(2), j.start() + m.end(2)))
    tags = [(t.start(), t.end()) for t in _TAG.finditer("".join(masked))]
    pos = 0
    for a, b in sorted(hidden + tags):
        if a > pos:
            spans.append((pos, a))
        pos = max(pos, b)
    if pos < len(text):
        spans.append((pos, len(text)))
    return sorted(spans)


def literal_lines(text: str) -> list[tuple[int, int, int]]:
    """Return literal_spans of a whole template as (line, start, end), line 1-based and the
    span cut at each line's end, so a comment or tag over several lines stays unprinted."""
    starts = [0] + [m.end() for m in re.finditer("\n", text)]
    out = []
    for a, b in literal_spans(text):
        n = bisect.bisect_right(starts, a) - 1
        while a < b:
            end = min(b, starts[n + 1] - 1 if n + 1 < len(starts) else len(text))
            if end > a:
                out.append((n + 1, a - starts[n], end - starts[n]))
            n, a = n + 1, end + 1
    return out


def template_literals(line: str) -> list[str]:
    """Return the pieces of a template line that may print (literal_spans)."""
    return [line[a:b] for a, b in literal_spans(line) if line[a:b].strip()]


def check_flavour(game: Game) -> list[Problem]:
    """Return a problem for each flavour field or line that states a number or rule word."""
    out: list[Problem] = []
    seen = set()
    for part in game.parts:
        doc = part.source
        if doc is None or not part.data_file or part.data_file in seen:
            continue
        seen.add(part.data_file)
        for path, value in _leaves(doc.data):
            if FLAVOUR_KEY not in [k for k in path if isinstance(k, str)]:
                continue
            said = rule_words(str(value))
            if said:
                out.append(Problem(part.data_file, "flavour text states a rule ("
                                   + ", ".join(dict.fromkeys(said)) + "); move it to a rules "
                                   "field or reword it", path, doc.line(path), FLAVOUR_RULE))
    folder = Path(game.template_dirs[0]) if game.template_dirs else None
    if folder is not None and folder.is_dir():
        for path in sorted(folder.glob("*.j2")):
            label = f"templates/{game.id}/{path.name}"
            try:
                lines = read_text(path, label, folder).splitlines()
            except PrintshopError:   # a link out, a pipe: refused where it is used, not here
                continue
            for n, line in enumerate(lines, 1):
                if FLAVOUR_MARK not in line:
                    continue
                said = rule_words(" ".join(html.unescape(t) for t in template_literals(line)))
                if said:
                    out.append(Problem(label, "a flavour line "
                                       "states a rule (" + ", ".join(dict.fromkeys(said))
                                       + ")", (), n, FLAVOUR_RULE))
    return out
