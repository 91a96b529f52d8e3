"""The studio's pages and the fragments that update them live (routes of App, by mixin)."""

from __future__ import annotations

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import HTMLResponse

from ..files.errors import Problem
from . import downloads, preview
from .state import DECK_KINDS

MAP_GAME = "pocketciv"


class PageRoutes:
    """The HTML pages: home, a game, a card, the map studio, the print preview, fragments."""

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
