"""The studio's routes: pages, fragments for live updates, downloads and the JSON API.

Every id in a URL is looked up among the loaded games; no URL is ever joined onto a path, so
an id that names nothing (or tries to climb out of the project) is a 404. Files are read only
through files.read_project_file.
"""

from __future__ import annotations

import asyncio
import secrets
import subprocess
import threading
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Callable

from jinja2 import Environment, FunctionLoader, select_autoescape
from markupsafe import Markup
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.middleware.gzip import GZipMiddleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse
from starlette.routing import Route

from ..files.errors import Problem, format_path
from ..files.project import Project
from ..load.geometry import PrintOptions
from . import preview
from .actions import ActionRoutes
from .api import ApiRoutes
from .assets import AssetRoutes
from .events import Broadcaster
from .files import NotServed, read_project_file
from .live import Live
from .pages_routes import PageRoutes
from .state import DECK_KINDS, Studio, core_message, face_document
from .webfonts import WebFonts

HERE = Path(__file__).resolve().parent
PAGES_DIR = HERE / "pages"
# A deck's first cards are drawn into the page; the others when they come near the viewport
# (a 1,000-card deck would otherwise be drawn whole, a few seconds, on every template edit).
EAGER_TILES = 36
# ... and a page's first cards only, over all its decks: about two screens (a game of several
# decks is otherwise drawn a hundred cards deep before its page is sent).
PAGE_EAGER_TILES = 40
# Tiles per grid: 120 fills whole rows at 2, 3, 4, 5, 6, 8, 10 or 12 columns.
GRID_CHUNK = 120
# Card drawings come from a project's templates, which printshop does not trust: the page
# runs only the studio's own script, and a drawing can load nothing but the studio's fonts.
CSP = ("default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
       "img-src 'self' data:; font-src 'self'; connect-src 'self'; base-uri 'none'; "
       "form-action 'self'; frame-ancestors 'none'")


def _page_source(name: str):
    try:
        text = read_project_file(PAGES_DIR, name).decode("utf-8")
    except NotServed:
        return None
    return text, None, lambda: True  # the studio's own pages change only with printshop


PAGES = Environment(loader=FunctionLoader(_page_source), autoescape=select_autoescape(
    default=True, default_for_string=True), trim_blocks=True, lstrip_blocks=True)


def _where(problem: Problem) -> str:
    return problem.file + (f":{problem.line}" if problem.line is not None else "")


def _key(problem: Problem) -> str:
    return format_path(problem.path)


class App(PageRoutes, ApiRoutes, ActionRoutes, AssetRoutes, Live):
    """The studio of one project: its state, its event stream and its routes (the routes by
    concern in pages_routes, api, actions and assets; following the files in live)."""

    def __init__(self, project: Project, opts: PrintOptions | None = None,
                 out_dir: Path | None = None, watch: bool = True,
                 allowed_hosts: list[str] | None = None,
                 say: Callable[[str], None] | None = None):
        self.studio = Studio(project, opts)
        self.events = Broadcaster()
        self.out_dir = Path(out_dir) if out_dir else Path("output")
        self.watch = watch
        self.allowed_hosts = allowed_hosts or ["127.0.0.1", "localhost", "[::1]"]
        # Held by the studio's own pages; a page of another site cannot read it, so it
        # cannot make the studio act (downloads, open in editor) on the designer's behalf.
        self.token = secrets.token_urlsafe(24)
        self.eager_tiles = EAGER_TILES
        self.page_eager_tiles = PAGE_EAGER_TILES
        self.grid_chunk = GRID_CHUNK
        self.previews = preview.Previews()
        self.editor: str | None = None      # the editor command (--editor), else $EDITOR
        self.run_editor = subprocess.Popen
        self.instance = secrets.token_hex(8)  # a page that sees another one reloads (restart)
        self.say = say
        self.said: dict[str, tuple] = {}     # per game: what the terminal was last told
        self.webfonts = WebFonts()           # the fonts cut down to the games' characters
        self.font_chars: str | None = None   # ... those characters, once gathered
        self._chars_for: tuple | None = None  # the games' versions they were gathered from
        self._chars_busy = False
        self._chars_lock = threading.Lock()

    def render(self, template: str, status: int = 200, **context) -> HTMLResponse:
        """Render one of the studio's pages."""
        if "bar" not in context:
            context["bar"] = self.bar(context.get("gid"), what=context.get("title"))
        html = PAGES.get_template(template).render(app=self, fonts=self.font_faces(),
                                                    **context)
        return HTMLResponse(html, status, headers={"Content-Security-Policy": CSP})

    def game_state(self, game_id: str):
        """Return a game's state, or 404."""
        try:
            return self.studio.state(game_id)
        except KeyError:
            raise HTTPException(404, f"no game '{game_id}'") from None

    def loaded(self, game_id: str):
        """Return the state of a game that has loaded at least once, or 404."""
        st = self.game_state(game_id)
        if st.game is None:
            raise HTTPException(404, f"game '{game_id}' has not loaded")
        return st

    def card_or_404(self, game_id: str, part_id: str, card_id: str):
        """Return a deck and its card, or 404."""
        self.loaded(game_id)
        try:
            return self.studio.card(game_id, part_id, card_id)
        except KeyError:
            raise HTTPException(404, f"no card '{card_id}' in '{part_id}'") from None

    def part_or_404(self, game_id: str, part_id: str):
        """Return a component, or 404."""
        self.loaded(game_id)
        try:
            return self.studio.part(game_id, part_id)
        except KeyError:
            raise HTTPException(404, f"no component '{part_id}'") from None

    def problem_rows(self, game_id: str, only: tuple | None = None,
                     problems: list[Problem] | None = None) -> list[dict]:
        """Return a game's problems with the card or component each concerns.

        A template that fails on many cards is one row listing the cards (not one per card).
        """
        failed = {id(p): (part, card) for part, card, p in
                  self.studio.drawing_failures(game_id)}
        rows, groups = [], {}
        for p in self.studio.problems(game_id) if problems is None else problems:
            if id(p) in failed:
                part, card = failed[id(p)]
                if only is not None and (part, card) != only:
                    continue
                link = f"/games/{game_id}/cards/{part}/{card}"
                group = groups.get((p.file, p.line, core_message(p)))
                if group is None:
                    group = groups[(p.file, p.line, core_message(p))] = {
                        "file": p.file, "line": p.line, "where": _where(p), "key": _key(p),
                        "rule": p.rule, "message": p.message, "component": part,
                        "card": card, "link": link, "cards": []}
                    rows.append(group)
                group["cards"].append({"component": part, "card": card, "link": link})
                if len(group["cards"]) == 2:
                    group["message"] = f"while drawing cards of {part}: {core_message(p)}"
                continue
            part, card = self.studio.concerns(game_id, p)
            if only is not None and (part, card) != only:
                continue
            if card:
                link = f"/games/{game_id}/cards/{part}/{card}"
            elif part:
                link = f"/games/{game_id}#component-{part}"
            else:
                link = None
            rows.append({"file": p.file, "line": p.line, "where": _where(p), "key": _key(p),
                         "rule": p.rule, "message": p.message, "component": part,
                         "card": card, "link": link, "cards": []})
        return rows

    def flagged(self, game_id: str) -> dict[tuple[str, str], int]:
        """Return how many problems name each card, for the badges on the card tiles."""
        out: dict[tuple[str, str], int] = {}
        for row in self.problem_rows(game_id):
            cards = row["cards"] or ([{"component": row["component"], "card": row["card"]}]
                                     if row["card"] else [])
            for c in cards:
                key = (c["component"], c["card"])
                out[key] = out.get(key, 0) + 1
        return out

    def eager_cards(self, parts) -> set[tuple[str, str]]:
        """Return the cards drawn into a page showing ``parts`` (the others come lazily): each
        deck's first ``eager_tiles``, up to ``page_eager_tiles`` in all."""
        out: set[tuple[str, str]] = set()
        for part in parts:
            if part.kind not in DECK_KINDS:
                continue
            for card in part.cards[:self.eager_tiles]:
                if len(out) >= self.page_eager_tiles:
                    return out
                out.add((part.id, card.id))
        return out

    def aspect(self, part) -> str:
        """Return a card face's width / height, bleed included, for a tile not drawn yet."""
        from ..components.deck import deck_bleed
        from ..load.geometry import card_size

        try:
            w, h = card_size(part.spec.size)
            b = deck_bleed(part, self.studio.opts)
        except (KeyError, TypeError, ValueError, AttributeError):
            return "63 / 88"
        return f"{w + 2 * b:g} / {h + 2 * b:g}"

    def face_html(self, game_id: str, part_id: str, card_id: str, side: str) -> Markup:
        """Return a card side as inline SVG for a page (the page carries the fonts)."""
        drawn = self.studio.drawn(game_id, part_id, card_id)
        face = drawn.front if side == "front" else drawn.back
        if face is None:
            return Markup("")
        return Markup(face_document(face))

    def bar(self, game_id: str | None, part_id: str | None = None,
            card_id: str | None = None, what: str | None = None) -> dict:
        """Return what the header bar and the tab title say: where the page is, and the
        game's problems (seen from anywhere on the page, and in the tab)."""
        out = {"gid": None, "crumbs": [], "title": what or "printshop studio",
               "summary": None, "query": ""}
        if game_id is None or game_id not in self.studio.games:
            return out
        st = self.studio.state(game_id)
        name = st.game.manifest.name if st.game else game_id
        out["gid"], out["crumbs"], base = game_id, [(f"/games/{game_id}", name)], name
        if part_id and card_id:
            out["query"] = f"?card={part_id}/{card_id}"
            try:
                part, card = self.studio.card(game_id, part_id, card_id)
            except KeyError:
                out["crumbs"].append((None, f"{card_id} (no longer in the data)"))
                base = f"{card_id} · {name}"
            else:
                out["crumbs"] += [(f"/games/{game_id}#component-{part.id}", part.spec.name),
                                  (None, card.name)]
                base = f"{card.name} · {name}"
        elif what and what != name:
            out["crumbs"].append((None, what))
            base = f"{what} · {name}"
        summary = out["summary"] = self.summary(game_id)
        n = summary["problems"]
        badge = "does not load" if summary["status"] == "error" else (
            f"{n} problem{'s' if n != 1 else ''}" if n else "")
        out["title"] = f"({badge}) {base}" if badge else base
        return out

    def summary(self, game_id: str) -> dict:
        """Return what the home page and GET /api/games say about a game."""
        st = self.studio.state(game_id)
        problems = self.problem_rows(game_id)
        status = "error" if st.load_problems else ("problems" if problems else "ok")
        game = st.game
        out = {"id": game_id, "name": game.manifest.name if game else game_id,
               "status": status, "problems": len(problems), "version": st.version,
               "components": [], "cards": 0}
        if game is not None:
            out["components"] = [{"id": p.id, "kind": p.kind, "name": p.spec.name,
                                  "cards": p.card_count(), "distinct": len(p.cards)}
                                 for p in game.parts]
            out["cards"] = sum(p.card_count() for p in game.parts)
        return out

    async def not_found(self, request: Request, exc: HTTPException):
        """Answer a 404 as JSON under /api/, else as a page."""
        if request.url.path.startswith("/api/"):
            return JSONResponse({"error": exc.detail}, exc.status_code)
        return self.render("refused.html", exc.status_code, gid=None, what=None, problems=[],
                           title="Not found" if exc.status_code == 404 else "Error",
                           detail=exc.detail)

    def starlette(self, on_start: Callable[[], None] | None = None) -> Starlette:
        """Return the ASGI application."""
        @asynccontextmanager
        async def lifespan(app):
            stop = asyncio.Event()
            task = asyncio.create_task(self.watch_files(stop)) if self.watch else None
            self.font_faces()   # the games' characters gathered now: the first page gets subsets
            if on_start:
                on_start()
            yield
            stop.set()
            self.events.close()
            if task:
                try:
                    await asyncio.wait_for(task, 2)
                except (asyncio.TimeoutError, asyncio.CancelledError):
                    pass

        routes = [
            Route("/", self.home),
            Route("/games/{game}", self.game_page),
            Route("/games/{game}/cards/{component}/{card}", self.card_page),
            Route("/games/{game}/map", self.map_page),
            Route("/games/{game}/print", self.print_page),
            Route("/games/{game}/map/{seed}.{ext}", self.map_download, methods=["GET", "POST"]),
            Route("/games/{game}/download/{what:path}", self.download, methods=["GET", "POST"]),
            Route("/fragments/{game}/{what}", self.fragment),
            Route("/fragments/{game}/{what}/{rest:path}", self.fragment),
            Route("/api/games", self.api_games),
            Route("/api/games/{game}", self.api_game),
            Route("/api/games/{game}/problems", self.api_problems),
            Route("/api/games/{game}/cards/{component}/{card}.svg", self.api_card_svg),
            Route("/api/games/{game}/components/{component}/{n:int}.svg", self.api_page_svg),
            Route("/api/games/{game}/print/{component}/{n:int}.svg", self.api_print_svg),
            Route("/api/events", self.api_events),
            Route("/api/open", self.api_open, methods=["POST"]),
            Route("/static/{name}", self.static),
            Route("/fonts/{name}", self.font),
        ]
        return Starlette(routes=routes, lifespan=lifespan,
                         exception_handlers={HTTPException: self.not_found},
                         middleware=[Middleware(TrustedHostMiddleware,
                                                allowed_hosts=self.allowed_hosts),
                                     Middleware(GZipMiddleware, minimum_size=1024,
                                                compresslevel=6)])


def create_app(project: Project, opts: PrintOptions | None = None, out_dir: Path | None = None,
               watch: bool = True, allowed_hosts: list[str] | None = None,
               on_start: Callable[[], None] | None = None,
               say: Callable[[str], None] | None = None,
               editor: str | None = None) -> Starlette:
    """Return the studio for a project as an ASGI app (its state at ``app.state.studio``)."""
    studio_app = App(project, opts, out_dir, watch, allowed_hosts, say)
    studio_app.editor = editor
    app = studio_app.starlette(on_start)
    app.state.studio = studio_app
    return app
