"""The studio's own scripts and style sheets, and the fonts the cards are drawn in (whole, or
cut down to the characters the games use: webfonts.py)."""

from __future__ import annotations

import threading
from pathlib import Path

from markupsafe import Markup
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response

from ..load.fonts import FONT_DIR
from .files import NotServed, read_project_file
from .webfonts import FONT_FILES, charset, game_chars

HERE = Path(__file__).resolve().parent
STATIC_DIR = HERE / "static"
STATIC_TYPES = {".css": "text/css; charset=utf-8", ".js": "text/javascript; charset=utf-8",
                ".svg": "image/svg+xml"}
FONT_TYPES = {".ttf": "font/ttf", ".otf": "font/otf"}


class AssetRoutes:
    """/static/{name} and /fonts/{name}, and the @font-face rules every page carries."""

    def font_faces(self) -> Markup:
        """Return the @font-face rules for the pages: the whole fonts, and over them the
        subsets for the games' characters once they are made (in the background)."""
        with self._chars_lock:
            chars, fresh = self.font_chars, self._chars_for == self._versions()
            start = not fresh and not self._chars_busy
            self._chars_busy = self._chars_busy or start
        if start:
            threading.Thread(target=self._count_chars, daemon=True,
                             name="printshop-chars").start()
        return Markup(self.webfonts.faces(chars))

    def svg_style(self) -> str:
        """Return the style element an SVG document carries for its fonts."""
        return f"<style>{self.font_faces()}</style>"

    def _versions(self) -> tuple:
        return tuple(sorted((g, st.version) for g, st in self.studio.games.items()))

    def _count_chars(self) -> None:
        """Gather the characters of every loaded game's files, then have their subsets made."""
        try:
            versions = self._versions()
            chars: set[str] = set()
            for st in list(self.studio.games.values()):
                if st.game is not None:
                    chars |= game_chars(st.game)
            text = charset(chars)
            self.webfonts.subsets(text)
            with self._chars_lock:
                self.font_chars, self._chars_for = text, versions
        finally:
            with self._chars_lock:
                self._chars_busy = False

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
        """Send one of the shipped fonts, or one of its subsets."""
        name = request.path_params["name"]
        if name not in FONT_FILES:
            body = self.webfonts.body(name)     # a subset: its name holds its characters' hash
            if body is None:
                raise HTTPException(404)
            return Response(body, media_type=self.webfonts.media(name),
                            headers={"Cache-Control": "max-age=31536000, immutable"})
        try:
            body = read_project_file(FONT_DIR, name)
        except NotServed:
            raise HTTPException(404) from None
        return Response(body, media_type=FONT_TYPES.get(Path(name).suffix, "font/ttf"),
                        headers={"Cache-Control": "max-age=86400"})
