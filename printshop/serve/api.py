"""The studio's JSON API, its SVG documents and its event stream (routes of App, by mixin)."""

from __future__ import annotations

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse

from ..files.errors import PrintshopError, Problem
from . import preview
from .guard import refusal
from .state import DECK_KINDS, face_document

SIDES = ("front", "back")
SVG_CSP = "default-src 'none'; style-src 'unsafe-inline'; font-src 'self'; img-src data:"


class ApiRoutes:
    """GET /api/...: games, problems, card and page SVGs; POST /api/open; /api/events."""

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
        return Response(face_document(face, self.svg_style()), media_type="image/svg+xml",
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
        svg = pages[n - 1].replace(">", ">" + self.svg_style(), 1)
        return Response(svg, media_type="image/svg+xml",
                        headers={"Content-Security-Policy": SVG_CSP})

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
        return Response(sheets[n - 1].svg.replace(">", ">" + self.svg_style(), 1),
                        media_type="image/svg+xml",
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
