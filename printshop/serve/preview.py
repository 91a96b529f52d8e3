"""The print preview: a game's sheets imposed as the build prints them (bleed, crop marks,
fronts and backs), with the build's options chosen in the page.

Each component's pages are drawn by the renderer the build uses, with the options the page
asks for, when its section comes into view; they are kept per (component drawing, options)
so that flipping an option back, or scrolling, draws nothing again.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass, replace

from ..check.gather import drawing_problem
from ..components import RENDERERS
from ..files.errors import Problem
from ..layout.impose import page_svg
from ..load.geometry import PrintOptions

PAPERS = ("a4", "letter")
BACKS = ("duplex", "fold", "none")
BLEEDS = ("", "0", "2", "3", "5")     # "": each component's own (3 mm for cards)
KEPT = 48                             # components x options kept drawn


@dataclass(frozen=True)
class Sheet:
    """One printed page of the preview: its SVG document and what it is."""

    svg: str
    side: str          # front, back or sheet
    width: float
    height: float


def options(query, base: PrintOptions) -> PrintOptions:
    """Return the build options a preview's query asks for; what it does not name, or names
    wrongly, stays as the studio was started."""
    paper = query.get("paper") if query.get("paper") in PAPERS else base.paper
    backs = query.get("backs") if query.get("backs") in BACKS else base.backs
    bleed = base.bleed
    if query.get("bleed") in BLEEDS:
        bleed = float(query["bleed"]) if query["bleed"] else None
    low_ink = query.get("low_ink") == "1" if "paper" in query else base.low_ink
    return replace(base, paper=paper, backs=backs, bleed=bleed, low_ink=low_ink)


def query_of(opts: PrintOptions) -> str:
    """Return the query string that asks for ``opts``."""
    bleed = "" if opts.bleed is None else f"{opts.bleed:g}"
    return (f"paper={opts.paper}&backs={opts.backs}&bleed={bleed}"
            f"&low_ink={'1' if opts.low_ink else '0'}")


class Previews:
    """Imposed pages drawn so far, the most recently used kept."""

    def __init__(self):
        self.lock = threading.Lock()
        self.kept: OrderedDict[tuple, list[Sheet] | Problem] = OrderedDict()

    def pages(self, studio, game_id: str, part_id: str, opts: PrintOptions
              ) -> list[Sheet] | Problem:
        """Return a component's pages as printed with ``opts``, or the problem drawing met."""
        with studio.lock:
            st = studio.state(game_id)
            part = studio.part(game_id, part_id)
            game, key = st.game, (st.part_keys[part_id], opts.key())
        with self.lock:
            if key in self.kept:
                self.kept.move_to_end(key)
                return self.kept[key]
        try:
            rendered = RENDERERS[part.kind](game, part, opts)
            n = len(rendered.pages)
            result: list[Sheet] | Problem = [
                Sheet(page_svg(p, i, n), p.side, p.width, p.height)
                for i, p in enumerate(rendered.pages, 1)]
        except Exception as exc:  # only the kinds drawing_problem knows are the user's
            result = drawing_problem(game, part.id, exc)
            if result is None:
                raise
        with self.lock:
            self.kept[key] = result
            while len(self.kept) > KEPT:
                self.kept.popitem(last=False)
        return result
