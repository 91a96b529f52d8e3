"""The studio's actions: downloads and map files, made only for a POST from its own page
(routes of App, by mixin)."""

from __future__ import annotations

import asyncio

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response

from ..files.errors import PrintshopError, Problem
from . import downloads
from .guard import refusal
from .pages_routes import MAP_GAME


class ActionRoutes:
    """Downloads and map files: a GET shows the button, a POST with the page's token makes it."""

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
