"""Following the project's files: reload what changed, tell the open pages and the terminal
(methods of App, by mixin)."""

from __future__ import annotations

import asyncio
from pathlib import Path

from ..files.errors import inert
from ..files.project import SHARED_TEMPLATES, Project

CHECK_DELAY = 0.15  # seconds between sending redrawn cards and running the rules


class Live:
    """Reloads after a save, the events that tell the pages, the terminal's lines."""

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
