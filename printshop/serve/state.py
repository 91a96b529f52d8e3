"""What the studio knows: every game loaded and checked, and the drawings made so far.

Drawings are cached by a hash of everything that feeds them (the manifest, the templates and
icons, the card's own data), so after a save only the cards whose hash changed are drawn again.
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
from dataclasses import dataclass, field
from pathlib import Path

from ..check.failures import drawing_problem
from ..check.rules import validate
from ..components import RENDERERS
from ..components.deck import card_faces
from ..files.errors import PrintshopError, Problem
from ..files.project import SHARED_TEMPLATES, GameFolder, Project
from ..layout.impose import Face, page_svg
from ..load.geometry import PrintOptions
from ..load.loader import load_game
from ..load.models import Card, Game, Part
from .files import NotServed, read_project_file

DECK_KINDS = ("deck", "tokens")
EAGER_REDRAW = 64
TEMPLATE_SUFFIXES = (".j2", ".svg", ".yaml", ".yml", ".png", ".jpg", ".jpeg")


def _hash(*parts) -> str:
    data = json.dumps(parts, sort_keys=True, default=str, ensure_ascii=False)
    return hashlib.sha1(data.encode("utf-8")).hexdigest()[:16]


def _f(v: float) -> str:
    return f"{v:.3f}".rstrip("0").rstrip(".")


def face_document(face: Face, style: str = "") -> str:
    """Return a face as a whole SVG document, bleed included, exactly as the build draws it."""
    b = face.bleed
    w, h = face.w + 2 * b, face.h + 2 * b
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{_f(w)}mm" height="{_f(h)}mm" '
            f'viewBox="{_f(-b)} {_f(-b)} {_f(w)} {_f(h)}">{style}{face.svg}</svg>')


@dataclass
class Drawn:
    """One card's faces, or the located problem that stopped them being drawn."""

    front: Face | None = None
    back: Face | None = None
    problem: Problem | None = None


@dataclass
class GameState:
    """One game as the studio last saw it."""

    folder: GameFolder
    game: Game | None = None          # the last version that loaded, shown while one fails
    load_problems: list[Problem] = field(default_factory=list)
    rule_problems: list[Problem] = field(default_factory=list)
    fingerprint: str = ""
    card_keys: dict[tuple[str, str], str] = field(default_factory=dict)
    part_keys: dict[str, str] = field(default_factory=dict)
    heads: dict[str, str] = field(default_factory=dict)   # deck -> what its section shows
    version: int = 0
    stuck: dict[str, Problem] = field(default_factory=dict)  # component -> render timed out

    @property
    def id(self) -> str:
        return self.folder.id


@dataclass
class Change:
    """What one refresh of a game changed: sent to open pages as an event."""

    game: str
    version: int
    cards: list[str]
    components: list[str]
    problems: int
    ok: bool
    checked: bool = True  # False: drawn again, the rules not yet run

    def event(self) -> dict:
        """Return the change as the JSON the event stream sends."""
        return {"type": "game", "game": self.game, "version": self.version,
                "cards": self.cards, "components": self.components,
                "problems": self.problems, "ok": self.ok, "checked": self.checked}


class Studio:
    """The loaded games of one project and a cache of their drawings."""

    def __init__(self, project: Project, opts: PrintOptions | None = None):
        self.project = project
        self.opts = opts or PrintOptions()
        self.lock = threading.RLock()
        self.games: dict[str, GameState] = {}
        self.cards: dict[str, Drawn] = {}
        self.parts: dict[str, list[str] | Problem] = {}
        self.drawing: dict[str, threading.Event] = {}  # card keys being drawn right now
        self.drawn_count = 0  # how many cards were drawn, for tests and the benchmark
        self.reload()

    def reload(self) -> list[Change]:
        """Find the project's games again and refresh every one."""
        with self.lock:
            folders = {f.id: f for f in self.project.games()}
            for gone in set(self.games) - set(folders):
                del self.games[gone]
            for gid, folder in folders.items():
                self.games.setdefault(gid, GameState(folder))
            return [self.refresh(gid) for gid in sorted(folders)]

    def refresh(self, game_id: str) -> Change:
        """Load one game again, redraw what changed, then run its rules."""
        change = self.load(game_id)
        if change.checked:
            return change
        change.problems = self.check(game_id).problems
        change.checked = True
        return change

    def check(self, game_id: str) -> Change:
        """Run the rules of a game's loaded version (the slow part of a refresh).

        The rules run outside the lock, so pages can fetch the redrawn cards meanwhile.
        """
        with self.lock:
            st = self.games[game_id]
            game, version = st.game, st.version
            runnable = game is not None and not st.load_problems
        problems = validate(game) if runnable else None
        with self.lock:
            if problems is not None and st.version == version:
                st.rule_problems = problems
            return Change(game_id, st.version, [], [], len(self.problems(game_id)),
                          not st.load_problems)

    def load(self, game_id: str) -> Change:
        """Load one game again and redraw the cards that were shown and have changed."""
        with self.lock:
            st = self.games[game_id]
            st.version += 1
            try:
                game = load_game(st.folder)
            except PrintshopError as exc:
                st.load_problems = exc.problems
                return Change(game_id, st.version, [], [], len(exc.problems), False)
            st.load_problems = []
            st.stuck = {}
            st.game = game
            st.fingerprint = self._fingerprint(game)
            old_cards, old_parts, old_heads = st.card_keys, st.part_keys, st.heads
            # A deck's section (heading, counts, the tiles in order) is sent again whole only
            # when it changes; a template edit redraws its tiles one by one, those on screen
            # first (a 1,000-card section at once would block the page).
            st.heads = {p.id: _hash(p.spec.model_dump(), [(c.id, c.copies) for c in p.cards])
                        for p in game.parts if p.kind in DECK_KINDS}
            specs = {p.id: _hash(st.fingerprint, p.spec.model_dump()) for p in game.parts}
            st.card_keys = {(p.id, c.id): _hash(specs[p.id], c.context())
                            for p in game.parts if p.kind in DECK_KINDS for c in p.cards}
            st.part_keys = {p.id: _hash(specs[p.id], p.data) for p in game.parts}
            changed = [k for k, v in st.card_keys.items() if old_cards.get(k) != v]
            # A few changed cards are drawn at once; many (a template edit on a big deck) are
            # drawn as open pages ask for them, the ones on screen first.
            for part_id, card_id in changed if len(changed) <= EAGER_REDRAW else ():
                key = st.card_keys[(part_id, card_id)]
                if old_cards.get((part_id, card_id)) in self.cards and key not in self.cards:
                    part, card = self.card(game_id, part_id, card_id)  # on screen before
                    self._store(st, part_id, card_id, key, self._stuck(st, part_id, card_id)
                                or self._draw(game, part, card))
            parts = [p.id for p in game.parts
                     if (old_heads.get(p.id) != st.heads[p.id] if p.kind in DECK_KINDS
                         else old_parts.get(p.id) != st.part_keys[p.id])]
            parts += [p for p in old_parts if p not in st.part_keys]
            self._forget_old()
            return Change(game_id, st.version, [f"{p}/{c}" for p, c in changed],
                          sorted(set(parts)), len(self.problems(game_id)), True, False)

    def _forget_old(self) -> None:
        """Drop drawings no game shows any more, so a long session does not grow."""
        cards = {k for g in self.games.values() for k in g.card_keys.values()}
        parts = {k for g in self.games.values() for k in g.part_keys.values()}
        self.cards = {k: v for k, v in self.cards.items() if k in cards}
        self.parts = {k: v for k, v in self.parts.items() if k in parts}

    def _fingerprint(self, game: Game) -> str:
        """Hash what every drawing of a game depends on: manifest, templates, icons, options."""
        files = []
        for base in game.template_dirs:
            base = Path(base)
            root = SHARED_TEMPLATES if base == SHARED_TEMPLATES else self.project.root
            for path in sorted(base.rglob("*")) if base.is_dir() else []:
                if path.suffix.lower() not in TEMPLATE_SUFFIXES:
                    continue
                rel = path.relative_to(root).as_posix()
                try:
                    files.append((rel, hashlib.sha1(read_project_file(root, rel)).hexdigest()))
                except NotServed:
                    files.append((rel, "refused"))
        return _hash(game.manifest.model_dump(), game.icons, files, self.opts.key())

    def state(self, game_id: str) -> GameState:
        """Return a game's state, or KeyError for an unknown id."""
        return self.games[game_id]

    def game(self, game_id: str) -> Game | None:
        """Return the last version of a game that loaded, or None."""
        return self.games[game_id].game

    def part(self, game_id: str, part_id: str) -> Part:
        """Return a component of a game, or KeyError."""
        game = self.game(game_id)
        if game is None:
            raise KeyError(part_id)
        return game.part(part_id)

    def card(self, game_id: str, part_id: str, card_id: str) -> tuple[Part, Card]:
        """Return a deck and one of its cards, or KeyError."""
        part = self.part(game_id, part_id)
        for card in part.cards:
            if card.id == card_id:
                return part, card
        raise KeyError(card_id)

    def drawn(self, game_id: str, part_id: str, card_id: str) -> Drawn:
        """Return a card's faces, drawn now unless this exact card was drawn before.

        Drawing happens outside the studio's lock, so a slow template holds up only the
        requests that wait for that card; a render that runs out of time marks its component
        stuck (its other cards are not tried) until the game loads again.
        """
        with self.lock:
            st = self.games[game_id]
            part, card = self.card(game_id, part_id, card_id)
            key = st.card_keys[(part_id, card_id)]
            hit = self.cards.get(key)
            if hit is not None:
                return hit
            stuck = self._stuck(st, part_id, card_id)
            if stuck is not None:
                return self._store(st, part_id, card_id, key, stuck)
            busy = self.drawing.get(key)
            if busy is None:
                busy = self.drawing[key] = threading.Event()
                mine, game = True, st.game
            else:
                mine = False
        if not mine:
            busy.wait()
            with self.lock:
                hit = self.cards.get(key)
            return hit if hit is not None else self.drawn(game_id, part_id, card_id)
        try:
            result = self._draw(game, part, card)
        finally:
            with self.lock:
                self.drawing.pop(key, None)
                busy.set()
        with self.lock:
            return self._store(st, part_id, card_id, key, result)

    @staticmethod
    def _stuck(st: GameState, part_id: str, card_id: str) -> Drawn | None:
        """Return the problem of a card whose component's template ran out of time."""
        stuck = st.stuck.get(part_id)
        if stuck is None:
            return None
        return Drawn(problem=Problem(stuck.file, f"while drawing card '{card_id}' of "
                                     f"{part_id}: {core_message(stuck)}", stuck.path,
                                     stuck.line))

    def _store(self, st: GameState, part_id: str, card_id: str, key: str,
               result: Drawn) -> Drawn:
        """Keep a drawing; a render that ran out of time marks its component stuck."""
        if result.problem is not None and "render_seconds" in result.problem.message \
                and st.card_keys.get((part_id, card_id)) == key:
            st.stuck[part_id] = result.problem
        if key not in self.cards:
            self.drawn_count += 1
        self.cards[key] = result
        return result

    def _draw(self, game: Game, part: Part, card: Card) -> Drawn:
        """Draw one card's faces, or return the located problem that stopped them."""
        try:
            front, back = card_faces(game, part, self.opts, card)
            return Drawn(front, back)
        except Exception as exc:  # only the kinds drawing_problem knows are the user's
            problem = drawing_problem(game, part.id, exc)
            if problem is None:
                raise
            return Drawn(problem=problem)

    def drawing_failures(self, game_id: str) -> list[tuple[str, str, Problem]]:
        """Return (component, card, problem) for every shown card that failed to draw."""
        with self.lock:
            st = self.games[game_id]
            if st.load_problems:
                return []
            out = []
            for (part_id, card_id), key in st.card_keys.items():
                drawn = self.cards.get(key)
                if drawn is not None and drawn.problem is not None:
                    out.append((part_id, card_id, drawn.problem))
            return out

    def pages(self, game_id: str, part_id: str) -> list[str] | Problem:
        """Return a sheet's pages, a board whole or a booklet's pages as SVG documents.

        Drawn outside the studio's lock, as cards are: a slow sheet holds up only the
        requests waiting for it."""
        with self.lock:
            st = self.games[game_id]
            part = self.part(game_id, part_id)
            key = st.part_keys[part_id]
            if key in self.parts:
                return self.parts[key]
            busy = self.drawing.get(key)
            mine = busy is None
            if mine:
                busy = self.drawing[key] = threading.Event()
                game = st.game
        if not mine:
            busy.wait()
            with self.lock:
                if key in self.parts:
                    return self.parts[key]
            return self.pages(game_id, part_id)
        try:
            result = self._draw_pages(game, part)
        finally:
            with self.lock:
                self.drawing.pop(key, None)
                busy.set()
        with self.lock:
            self.parts[key] = result
            return result

    def _draw_pages(self, game: Game, part: Part) -> list[str] | Problem:
        """Draw a component's pages as SVG documents, or return the located problem."""
        try:
            rendered = RENDERERS[part.kind](game, part, self.opts)
            faces = [f for group in rendered.faces.values() for f in group]
            if faces:
                return [face_document(f) for f in faces]
            n = len(rendered.pages)
            return [page_svg(p, i, n) for i, p in enumerate(rendered.pages, 1)]
        except Exception as exc:  # only the kinds drawing_problem knows are the user's
            result = drawing_problem(game, part.id, exc)
            if result is None:
                raise
            return result

    def problems(self, game_id: str) -> list[Problem]:
        """Return everything wrong with a game: loading, rules, and cards that failed to draw."""
        with self.lock:
            st = self.games[game_id]
            if st.load_problems:
                return list(st.load_problems)
            out = list(st.rule_problems)
            for (part_id, card_id), key in st.card_keys.items():
                drawn = self.cards.get(key)
                if drawn is not None and drawn.problem is not None:
                    out.append(drawn.problem)
            for part_id, key in st.part_keys.items():
                if isinstance(self.parts.get(key), Problem):
                    out.append(self.parts[key])
            return out

    def concerns(self, game_id: str, problem: Problem) -> tuple[str | None, str | None]:
        """Return the (component, card) a problem is about, as far as its place tells."""
        game = self.game(game_id)
        if game is None:
            return None, None
        path = problem.path
        for part in game.parts:
            if part.data_file and part.data_file == problem.file:
                if len(path) >= 2 and path[0] == "cards" and isinstance(path[1], int) \
                        and path[1] < len(part.cards) and problem.rule:
                    return part.id, part.cards[path[1]].id
                if problem.line is not None:
                    if self.games[game_id].load_problems:
                        # The file changed since the version shown: map its line to a card
                        # with the file as it is now, not the last good version's lines.
                        found = self._card_in_file_now(part, problem.line)
                        return part.id, found if any(c.id == found for c in part.cards) \
                            else None
                    return part.id, _card_at_line(part, problem.line)
                return part.id, None
        if len(path) >= 2 and path[0] == "components" and isinstance(path[1], int) \
                and path[1] < len(game.parts):
            return game.parts[path[1]].id, None
        if len(path) >= 2 and path[0] == "components" and isinstance(path[1], str):
            return (path[1], None) if any(p.id == path[1] for p in game.parts) else (None, None)
        return None, None

    def _card_in_file_now(self, part: Part, line: int) -> str | None:
        """Return the id of the card entry holding ``line`` in the data file as it is now."""
        try:
            text = read_project_file(self.project.root, part.data_file).decode("utf-8",
                                                                                 "replace")
        except NotServed:
            return None
        lines = text.splitlines()[:line]
        for n in range(len(lines) - 1, -1, -1):
            found = _ID_LINE.match(lines[n])
            if found:
                return found.group(1).strip("'\"")
            if n < len(lines) - 1 and _ENTRY_START.match(lines[n]):
                return None  # the entry starts here and names no id before the line
        return None

    def source(self, part: Part, card: Card) -> list[tuple[int, str]]:
        """Return the lines of the data file that hold a card, numbered."""
        if not part.data_file or card.line is None:
            return []
        try:
            text = read_project_file(self.project.root, part.data_file).decode("utf-8",
                                                                                 "replace")
        except NotServed:
            return []
        lines = text.splitlines()
        later = [c.line for c in part.cards if c.line is not None and c.line > card.line]
        end = min(later) - 1 if later else min(len(lines), card.line + 40)
        end = min(end, card.line + 40)
        while end > card.line and not lines[end - 1].strip():
            end -= 1
        return [(n, lines[n - 1]) for n in range(card.line, end + 1) if n <= len(lines)]


_ID_LINE = re.compile(r"""^\s*(?:-\s*)?(?:\{\s*)?id:\s*("[^"]*"|'[^']*'|[^,}\s]+)""")
_ENTRY_START = re.compile(r"^\s*-\s")
_WHILE = re.compile(r"^while drawing (?:card '[^']*' of \S+|[^:]*): ")


def core_message(problem: Problem) -> str:
    """Return a drawing problem's message without the card it was met on."""
    return _WHILE.sub("", problem.message, count=1)


def _card_at_line(part: Part, line: int) -> str | None:
    """Return the card whose entry in the data file holds ``line``."""
    best = None
    for card in part.cards:
        if card.line is not None and card.line <= line and (best is None or
                                                             card.line > best.line):
            best = card
    return best.id if best else None
