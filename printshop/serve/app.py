"""The studio's routes: pages, fragments for live updates, downloads and the JSON API.

Every id in a URL is looked up among the loaded games; no URL is ever joined onto a path, so
an id that names nothing (or tries to climb out of the project) is a 404. Files are read only
through files.read_project_file.
"""

from __future__ import annotations

import asyncio
import secrets
import subprocess
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
from starlette.responses import HTMLResponse, JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from ..files.errors import PrintshopError, Problem, format_path, inert
from ..load.fonts import FAMILIES, FONT_DIR
from ..load.geometry import PrintOptions
from ..files.project import SHARED_TEMPLATES, Project
from . import downloads, preview
from .events import Broadcaster
from .files import NotServed, read_project_file
from .guard import refusal
from .state import DECK_KINDS, Studio, core_message, face_document

HERE = Path(__file__).resolve().parent
STATIC_DIR = HERE / "static"
PAGES_DIR = HERE / "pages"
STATIC_TYPES = {".css": "text/css; charset=utf-8", ".js": "text/javascript; charset=utf-8",
                ".svg": "image/svg+xml"}
FONT_TYPES = {".ttf": "font/ttf", ".otf": "font/otf"}
FONT_FILES = {name for weights in FAMILIES.values() for name in weights.values()}
SIDES = ("front", "back")
CHECK_DELAY = 0.15  # seconds between sending redrawn cards and running the rules
# A deck's first cards are drawn into the page; the others when they come near the viewport
# (a 1,000-card deck would otherwise be drawn whole, a few seconds, on every template edit).
EAGER_TILES = 36
# Tiles per grid: 120 fills whole rows at 2, 3, 4, 5, 6, 8, 10 or 12 columns.
GRID_CHUNK = 120
MAP_GAME = "pocketciv"
# Card drawings come from a project's templates, which printshop does not trust: the page
# runs only the studio's own script, and a drawing can load nothing but the studio's fonts.
CSP = ("default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
       "img-src 'self' data:; font-src 'self'; connect-src 'self'; base-uri 'none'; "
       "form-action 'self'; frame-ancestors 'none'")
SVG_CSP = "default-src 'none'; style-src 'unsafe-inline'; font-src 'self'; img-src data:"


def font_faces() -> str:
    """Return the @font-face rules that give the browser the fonts the PDF embeds."""
    rules = []
    for family, weights in FAMILIES.items():
        for weight, file in weights.items():
            style = "italic" if weight == "italic" else "normal"
            bold = "bold" if weight == "bold" else "normal"
            rules.append(f'@font-face{{font-family:"{family}";src:url(/fonts/{file});'
                         f'font-weight:{bold};font-style:{style}}}')
    return "".join(rules)


FONT_FACES = Markup(font_faces())
SVG_STYLE = f"<style>{FONT_FACES}</style>"


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


class App:
    """The studio of one project: its state, its event stream and its routes."""

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
        self.grid_chunk = GRID_CHUNK
        self.previews = preview.Previews()
        self.editor: str | None = None      # the editor command (--editor), else $EDITOR
        self.run_editor = subprocess.Popen
        self.instance = secrets.token_hex(8)  # a page that sees another one reloads (restart)
        self.say = say
        self.said: dict[str, tuple] = {}     # per game: what the terminal was last told

    def render(self, template: str, status: int = 200, **context) -> HTMLResponse:
        """Render one of the studio's pages."""
        if "bar" not in context:
            context["bar"] = self.bar(context.get("gid"), what=context.get("title"))
        html = PAGES.get_template(template).render(app=self, fonts=FONT_FACES, **context)
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

    def home(self, request: Request):
        """Show every game of the project."""
        games = [self.summary(g) for g in sorted(self.studio.games)]
        return self.render("home.html", games=games, title="printshop studio")

    def game_page(self, request: Request):
        """Show one game: downloads, validation and every component."""
        gid = request.path_params["game"]
        st = self.game_state(gid)
        return self.render("game.html", st=st, game=st.game, gid=gid,
                           summary=self.summary(gid), problems=self.problem_rows(gid),
                           bar=self.bar(gid),
                           has_map=gid == MAP_GAME and st.game is not None, kinds=DECK_KINDS,
                           shops=downloads.shop_names())

    def card_page(self, request: Request):
        """Show one card large with its data, source lines and problems."""
        gid, pid, cid = (request.path_params[k] for k in ("game", "component", "card"))
        part, card = self.card_or_404(gid, pid, cid)
        st = self.studio.state(gid)
        at = next(i for i, c in enumerate(part.cards) if c.id == cid)
        prev = part.cards[at - 1] if at > 0 else None
        after = part.cards[at + 1] if at + 1 < len(part.cards) else None
        return self.render("card.html", st=st, game=st.game, gid=gid, part=part, card=card,
                           bar=self.bar(gid, pid, cid), prev=prev, next=after,
                           position=(at + 1, len(part.cards)),
                           side="back" if request.query_params.get("side") == "back" else "front",
                           problems=self.problem_rows(gid, (pid, cid)),
                           source=self.studio.source(part, card))

    def map_page(self, request: Request):
        """Draw a PocketCiv map from a seed and show its validation."""
        gid = request.path_params["game"]
        st = self.loaded(gid)
        if gid != MAP_GAME:
            raise HTTPException(404, "only PocketCiv draws maps")
        from .maps import draw_map_page
        result = draw_map_page(st.game, request.query_params.get("seed", "1"),
                               request.query_params.get("variant") or None,
                               request.query_params.get("paper", "a4"))
        return self.render("map.html", st=st, game=st.game, gid=gid, result=result,
                           bar=self.bar(gid, what="Map"),
                           status=200 if result.problems == [] else 422)

    def print_page(self, request: Request):
        """Show a game's sheets as they print, with the build's options chosen in the page."""
        gid = request.path_params["game"]
        st = self.loaded(gid)
        opts = preview.options(request.query_params, self.studio.opts)
        return self.render("print.html", st=st, game=st.game, gid=gid, opts=opts,
                           query=preview.query_of(opts), choices=preview,
                           bar=self.bar(gid, what="Print preview"))

    def print_section(self, gid: str, pid: str, request: Request) -> HTMLResponse:
        """Return one component's printed pages for the preview (a fragment)."""
        st = self.loaded(gid)
        part = self.part_or_404(gid, pid)
        opts = preview.options(request.query_params, self.studio.opts)
        sheets = self.previews.pages(self.studio, gid, pid, opts)
        rows = self.problem_rows(gid, problems=[sheets]) if isinstance(sheets, Problem) else []
        return self.render("fragments.html", block="print", st=st, gid=gid, part=part,
                           sheets=sheets, rows=rows, query=preview.query_of(opts))

    def api_print_svg(self, request: Request):
        """Send one printed page of a component, as the preview's options draw it."""
        gid, pid = request.path_params["game"], request.path_params["component"]
        self.part_or_404(gid, pid)
        opts = preview.options(request.query_params, self.studio.opts)
        sheets = self.previews.pages(self.studio, gid, pid, opts)
        n = request.path_params["n"]
        if isinstance(sheets, Problem):
            return JSONResponse({"problem": str(sheets)}, 422)
        if not 1 <= n <= len(sheets):
            raise HTTPException(404, "no such page")
        return Response(sheets[n - 1].svg.replace(">", ">" + SVG_STYLE, 1),
                        media_type="image/svg+xml",
                        headers={"Content-Security-Policy": SVG_CSP})

    def fragment(self, request: Request):
        """Return one live part of a page (problems, the bar, a component, a card)."""
        gid, what = request.path_params["game"], request.path_params["what"]
        st = self.game_state(gid)
        rest = request.path_params.get("rest", "")
        ctx = {"st": st, "game": st.game, "gid": gid, "kinds": DECK_KINDS}
        if what == "problems":
            return self.render("fragments.html", block="problems",
                               problems=self.problem_rows(gid), **ctx)
        if what == "print" and rest:
            return self.print_section(gid, rest, request)
        if what == "bar":
            pid, _, cid = request.query_params.get("card", "").partition("/")
            return self.render("fragments.html", block="bar", bar=self.bar(gid, pid, cid),
                               **ctx)
        if what == "head":
            return self.render("fragments.html", block="head", summary=self.summary(gid),
                               **ctx)
        if what == "card-detail" and "/" in rest and st.game is not None:
            pid, cid = rest.split("/", 1)
            try:
                self.studio.card(gid, pid, cid)
            except KeyError:
                return self.render("fragments.html", block="card-gone", pid=pid, cid=cid,
                                   now=self.successor(gid, pid, request), **ctx)
        if what == "component" and st.game is not None:
            part = self.part_or_404(gid, rest)
            return self.render("fragments.html", block="component", part=part, **ctx)
        if what in ("card", "card-detail") and "/" in rest:
            pid, cid = rest.split("/", 1)
            part, card = self.card_or_404(gid, pid, cid)
            return self.render("fragments.html", block=what, part=part, card=card,
                               problems=self.problem_rows(gid, (pid, cid)),
                               source=self.studio.source(part, card), **ctx)
        raise HTTPException(404, "no such fragment")

    def successor(self, gid: str, pid: str, request: Request):
        """Return the card now at the line where a vanished card was (a renamed id), or None."""
        try:
            line = int(request.query_params.get("line", ""))
            part = self.studio.part(gid, pid)
        except (ValueError, KeyError):
            return None
        return next((c for c in part.cards if c.line == line), None)

    def api_games(self, request: Request):
        """List the games as JSON."""
        return JSONResponse([self.summary(g) for g in sorted(self.studio.games)])

    def api_game(self, request: Request):
        """Describe one game as JSON: components, cards, pages and problems."""
        gid = request.path_params["game"]
        st = self.game_state(gid)
        out = self.summary(gid)
        out["components"] = []
        for part in st.game.parts if st.game else []:
            entry = {"id": part.id, "kind": part.kind, "name": part.spec.name,
                     "file": part.data_file}
            if part.kind in DECK_KINDS:
                entry["cards"] = [{"id": c.id, "name": c.name, "copies": c.copies,
                                   "fields": c.fields, "file": part.data_file, "line": c.line,
                                   "key": st.card_keys.get((part.id, c.id)),
                                   "svg": f"/api/games/{gid}/cards/{part.id}/{c.id}.svg"}
                                  for c in part.cards]
            else:
                pages = self.studio.pages(gid, part.id)
                entry["pages"] = [] if isinstance(pages, Problem) else [
                    f"/api/games/{gid}/components/{part.id}/{n}.svg"
                    for n in range(1, len(pages) + 1)]
            out["components"].append(entry)
        out["problems"] = self.problem_rows(gid)
        return JSONResponse(out)

    def api_problems(self, request: Request):
        """List a game's problems as JSON."""
        gid = request.path_params["game"]
        self.game_state(gid)
        return JSONResponse(self.problem_rows(gid))

    def api_card_svg(self, request: Request):
        """Send one side of a card as an SVG document."""
        gid, pid, cid = (request.path_params[k] for k in ("game", "component", "card"))
        side = request.query_params.get("side", "front")
        if side not in SIDES:
            raise HTTPException(404, "side must be front or back")
        self.card_or_404(gid, pid, cid)
        drawn = self.studio.drawn(gid, pid, cid)
        if drawn.problem is not None:
            return JSONResponse({"problem": str(drawn.problem)}, 422)
        face = drawn.front if side == "front" else drawn.back
        if face is None:
            raise HTTPException(404, "this deck has no back")
        return Response(face_document(face, SVG_STYLE), media_type="image/svg+xml",
                        headers={"Content-Security-Policy": SVG_CSP,
                                 "Cache-Control": "no-cache"})

    def api_page_svg(self, request: Request):
        """Send one page of a sheet, board or booklet as an SVG document."""
        gid, pid = request.path_params["game"], request.path_params["component"]
        part = self.part_or_404(gid, pid)
        if part.kind in DECK_KINDS:
            raise HTTPException(404, "a deck's cards are under /cards/")
        pages = self.studio.pages(gid, pid)
        if isinstance(pages, Problem):
            return JSONResponse({"problem": str(pages)}, 422)
        n = request.path_params["n"]
        if not 1 <= n <= len(pages):
            raise HTTPException(404, "no such page")
        svg = pages[n - 1].replace(">", ">" + SVG_STYLE, 1)
        return Response(svg, media_type="image/svg+xml",
                        headers={"Content-Security-Policy": SVG_CSP})

    async def api_open(self, request: Request):
        """Open a data or template file at a line in the designer's editor (a POST action)."""
        from .editor import open_in_editor

        refused = await refusal(request, self.token)
        if refused:
            return JSONResponse({"error": refused}, 403)
        rel = request.query_params.get("file", "")
        try:
            line = int(request.query_params.get("line") or 1)
            args = open_in_editor(self.studio.project.root, rel, line, self.editor,
                                  self.run_editor)
        except ValueError:
            return JSONResponse({"error": "line must be a number"}, 400)
        except PrintshopError as exc:
            return JSONResponse({"error": exc.problems[0].message}, 422)
        return JSONResponse({"opened": rel, "line": line, "command": args[0]})

    async def api_events(self, request: Request):
        """Stream every change as server-sent events."""
        hello = {"type": "hello", "instance": self.instance,
                 "versions": {g: st.version for g, st in self.studio.games.items()}}
        return StreamingResponse(self.events.stream(request.is_disconnected, hello),
                                 media_type="text/event-stream",
                                 headers={"Cache-Control": "no-cache",
                                          "X-Accel-Buffering": "no"})

    def _problem_page(self, gid: str, problems: list[Problem], what: str,
                      action: str | None = None):
        """Explain why something could not be made."""
        rows = self.problem_rows(gid, problems=problems)
        return self.render("refused.html", 422, gid=gid, what=what, problems=rows,
                           st=self.studio.state(gid), title=f"Cannot {what}",
                           action=action)

    def confirm(self, request: Request, what: str, gid: str):
        """Answer a GET on an action's URL: a page with the button that makes it (a POST)."""
        self.loaded(gid)
        return self.render("action.html", gid=gid, what=what, action=request.url.path,
                           title=f"Make {what}")

    async def download(self, request: Request):
        """Make one of the game's downloads (a POST from the studio's own page)."""
        gid, what = request.path_params["game"], request.path_params["what"]
        st = self.loaded(gid)
        maker = downloads.find(what, st.game)
        if maker is None:
            raise HTTPException(404, f"no download '{what}'")
        if request.method != "POST":
            return self.confirm(request, what, gid)
        refused = await refusal(request, self.token)
        if refused:
            return self.refused(refused)
        if st.load_problems:
            return self._problem_page(gid, st.load_problems, f"download {what}",
                                      request.url.path)
        try:
            name, media, body = await asyncio.to_thread(maker, self, st.game)
        except PrintshopError as exc:
            return self._problem_page(gid, exc.problems, f"download {what}", request.url.path)
        return Response(body, media_type=media, headers={
            "Content-Disposition": f'attachment; filename="{name}"'})

    async def map_download(self, request: Request):
        """Send a map file or its printable page (a POST from the studio's own page)."""
        from .maps import map_download

        gid = request.path_params["game"]
        st = self.loaded(gid)
        if gid != MAP_GAME:
            raise HTTPException(404, "only PocketCiv draws maps")
        seed, ext = request.path_params["seed"], request.path_params["ext"]
        if ext not in ("yaml", "pdf"):
            raise HTTPException(404, "no such map file")
        if request.method != "POST":
            return self.confirm(request, f"{seed}.{ext}", gid)
        refused = await refusal(request, self.token)
        if refused:
            return self.refused(refused)
        try:
            name, media, body = await asyncio.to_thread(map_download, st.game, seed, ext)
        except PrintshopError as exc:
            return self._problem_page(gid, exc.problems, "draw the map")
        except KeyError:
            raise HTTPException(404, "no such map file") from None
        return Response(body, media_type=media, headers={
            "Content-Disposition": f'attachment; filename="{name}"'})

    def refused(self, why: str) -> HTMLResponse:
        """Refuse an action that did not come from the studio's own page."""
        return self.render("refused.html", 403, gid=None, what=None, problems=[],
                           title="Refused", detail=why)

    def static(self, request: Request):
        """Send one of the studio's own scripts or style sheets."""
        name = request.path_params["name"]
        media = STATIC_TYPES.get(Path(name).suffix)
        if media is None:
            raise HTTPException(404)
        try:
            body = read_project_file(STATIC_DIR, name)
        except NotServed:
            raise HTTPException(404) from None
        return Response(body, media_type=media, headers={"Cache-Control": "no-cache"})

    def font(self, request: Request):
        """Send one of the shipped fonts."""
        name = request.path_params["name"]
        if name not in FONT_FILES:
            raise HTTPException(404)
        try:
            body = read_project_file(FONT_DIR, name)
        except NotServed:
            raise HTTPException(404) from None
        return Response(body, media_type=FONT_TYPES.get(Path(name).suffix, "font/ttf"),
                        headers={"Cache-Control": "max-age=86400"})

    async def not_found(self, request: Request, exc: HTTPException):
        """Answer a 404 as JSON under /api/, else as a page."""
        if request.url.path.startswith("/api/"):
            return JSONResponse({"error": exc.detail}, exc.status_code)
        return self.render("refused.html", exc.status_code, gid=None, what=None, problems=[],
                           title="Not found" if exc.status_code == 404 else "Error",
                           detail=exc.detail)

    async def apply(self, paths: set[Path]) -> None:
        """Refresh the games whose files changed and tell every open page."""
        games, rescan = games_for(self.studio.project, set(self.studio.games), paths)
        if rescan:
            await asyncio.to_thread(self.studio.reload)
            self.events.publish({"type": "games"})
            return
        for gid in sorted(games):  # cards first: the rules of some games take a while
            change = await asyncio.to_thread(self.studio.load, gid)
            self.events.publish(change.event())
            if not change.checked:
                # Let open pages fetch the new cards before the rules take the interpreter.
                await asyncio.sleep(CHECK_DELAY)
                change = await asyncio.to_thread(self.studio.check, gid)
                self.events.publish(change.event())
            self.tell(gid, change)

    def tell(self, gid: str, change) -> None:
        """Say on the terminal, in one line, what a reload did: an error, a fix, a redraw."""
        if self.say is None:
            return
        import time

        rows = self.problem_rows(gid)
        before = self.said.get(gid, (True, 0))
        self.said[gid] = (change.ok, len(rows))
        stamp = time.strftime("%H:%M:%S")
        if not change.ok:
            first = rows[0] if rows else None
            where = f"{first['where']}: {first['message']}" if first else ""
            more = f" (and {len(rows) - 1} more)" if len(rows) > 1 else ""
            self.say(inert(f"{stamp} {gid}: does not load: {where}{more}"))
        elif not before[0]:
            self.say(inert(f"{stamp} {gid}: fixed, loads again"
                                   + (f"; {len(rows)} problems" if rows else "")))
        elif len(rows) != before[1]:
            self.say(inert(f"{stamp} {gid}: reloaded; " + (
                f"{len(rows)} problem{'s' if len(rows) != 1 else ''}" if rows
                else "all rules pass")))
        else:
            self.say(inert(f"{stamp} {gid}: reloaded"))

    async def watch_files(self, stop: asyncio.Event) -> None:
        """Follow the project's data and template folders until ``stop`` is set."""
        from watchfiles import awatch

        root = self.studio.project.root
        folders = [str(p) for p in (root / "data", root / "templates", SHARED_TEMPLATES)
                   if p.is_dir()]
        async for changes in awatch(*folders, stop_event=stop, step=20, debounce=400,
                                    recursive=True):
            await self.apply({Path(p) for _, p in changes})

    def starlette(self, on_start: Callable[[], None] | None = None) -> Starlette:
        """Return the ASGI application."""
        @asynccontextmanager
        async def lifespan(app):
            stop = asyncio.Event()
            task = asyncio.create_task(self.watch_files(stop)) if self.watch else None
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


def games_for(project: Project, known: set[str], paths: set[Path]) -> tuple[set[str], bool]:
    """Return the games whose files are among ``paths``, and whether games came or went."""
    games, rescan = set(), False
    for path in paths:
        if path.is_relative_to(SHARED_TEMPLATES):
            games |= known
            continue
        try:
            rel = path.relative_to(project.root).parts
        except ValueError:
            continue
        if len(rel) < 2 or rel[0] not in ("data", "templates"):
            continue
        if rel[1] not in known:
            rescan = rescan or rel[0] == "data"
            continue
        if len(rel) == 2 and rel[0] == "data" and not path.is_dir():
            rescan = True  # a game folder was removed
        games.add(rel[1])
    return games, rescan


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

