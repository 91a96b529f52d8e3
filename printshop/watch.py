"""Watch a project: when a data or template file is saved, rebuild the games it belongs to.

Files are polled (no extra dependency): a file counts as changed when its content hash
changes, so saving without editing rebuilds nothing. The build skips components whose inputs
did not change, and it is atomic, so a failed rebuild leaves the last good output in place.
"""

from __future__ import annotations

import hashlib
import os
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from .files import limits
from .files.errors import PrintshopError
from .files.guard import read_project_file
from .files.project import SHARED_TEMPLATES, Project
from .load.geometry import PrintOptions

WATCHED_SUFFIXES = (".yaml", ".yml", ".toml", ".csv", ".j2", ".svg", ".json")
DEFAULT_INTERVAL = 0.5
Say = Callable[[str], None]


def watched_files(project: Project, ids) -> dict[Path, set[str]]:
    """Return every data and template file of the selected games, and the games it feeds."""
    files: dict[Path, set[str]] = {}
    folders = project.select(list(ids))
    for folder in folders:
        for root in (folder.data_dir, folder.template_dir):
            for path in _files_under(root):
                if path.suffix in WATCHED_SUFFIXES and path.is_file():
                    files.setdefault(path, set()).add(folder.id)
    for path in sorted(SHARED_TEMPLATES.rglob("*.j2")):
        files.setdefault(path, set()).update(f.id for f in folders)
    return files


def _files_under(root: Path) -> list[Path]:
    """Return the files below a folder, sorted; a folder that vanishes or is renamed while it
    is read simply holds nothing (os.walk skips what it cannot list, where rglob raises)."""
    return sorted(Path(folder) / name for folder, _, names in os.walk(root) for name in names)


RACY_SECONDS = 2.0  # a file this fresh is re-read even if its stamp looks unchanged


@dataclass
class Fingerprints:
    """Content hashes of files, re-read only when a file's size or time changes.

    Like git's "racily clean" check, a file modified in the last two seconds is always
    re-read: a coarse file-system clock could give two quick saves the same stamp.
    """

    seen: dict[Path, tuple[tuple, str]] = field(default_factory=dict)

    def take(self, paths) -> dict[Path, str]:
        """Return the content hash of every path that exists."""
        out = {}
        for path in paths:
            try:
                st = path.stat()
                stamp = (st.st_mtime_ns, st.st_size, st.st_ino)
                known = self.seen.get(path)
                if known is None or known[0] != stamp or \
                        time.time() - st.st_mtime < RACY_SECONDS:
                    known = (stamp, _digest(path))
                    self.seen[path] = known
                out[path] = known[1]
            except OSError:
                self.seen.pop(path, None)
        return out


def _digest(path: Path) -> str:
    """Hash a watched file, read the guarded way (no link out of its folder, no pipe, bounded
    size); a file the build would refuse hashes to its refusal, so the build names it."""
    try:
        data = read_project_file(path.parent, path.name, limits.current().max_file_bytes)
    except PrintshopError as exc:
        return "refused: " + exc.problems[0].message
    return hashlib.sha1(data).hexdigest()


def changed(before: dict[Path, str], after: dict[Path, str]) -> list[Path]:
    """Return the files added, removed or edited between two snapshots."""
    return sorted(p for p in set(before) | set(after) if before.get(p) != after.get(p))


@dataclass
class Watcher:
    """Rebuilds the games whose files changed since the last look."""

    project: Project
    ids: tuple
    opts: PrintOptions
    out_dir: Path
    say: Say
    jobs: int | None = None
    only: tuple = ()          # component ids: draw just these (--only)
    files: dict[Path, set[str]] = field(default_factory=dict)
    snapshot: dict[Path, str] = field(default_factory=dict)
    prints: Fingerprints = field(default_factory=Fingerprints)

    def look(self) -> dict[Path, str]:
        """Find the watched files again (new ones included) and hash them."""
        self.files = watched_files(self.project, self.ids)
        return self.prints.take(self.files)

    def start(self) -> bool:
        """Take the first snapshot and build every selected game."""
        self.snapshot = self.look()
        games = sorted({g for gs in self.files.values() for g in gs})
        return self.rebuild(games, "first build")

    def step(self) -> bool | None:
        """Rebuild what changed since the last step: True built, False failed, None idle."""
        before = self.snapshot
        old_files = dict(self.files)
        try:
            self.snapshot = self.look()
        except (PrintshopError, OSError):
            # A game's folder vanished or was renamed: its files count as removed, and the
            # rebuild below says what is missing; watching goes on until it is back.
            self.files, self.snapshot = {}, {}
        paths = changed(before, self.snapshot)
        if not paths:
            return None
        games = sorted({g for p in paths for g in self.files.get(p, old_files.get(p, ()))})
        names = ", ".join(self._label(p) for p in paths)
        return self.rebuild(games, f"{names} changed")

    def _label(self, path: Path) -> str:
        try:
            return path.relative_to(self.project.root).as_posix()
        except ValueError:
            return path.name

    def _only(self, games: list[str]) -> tuple:
        """Return the --only components that the games being rebuilt have (all: none)."""
        if not self.only or not games:
            return self.only
        from .check.gather import load_games
        there = {p.id for g in load_games(self.project, games) for p in g.parts}
        return tuple(c for c in self.only if c in there) or self.only

    def rebuild(self, games: list[str], reason: str) -> bool:
        """Build the games and say what was drawn again and how long it took."""
        from .build import build

        start = time.perf_counter()
        drawn: list[str] = []
        try:
            build(self.project, games, self.opts, self.out_dir, progress=drawn.append,
                  jobs=self.jobs, only=self._only(games))
        except PrintshopError as exc:
            self.say(f"{reason}: the build failed in {time.perf_counter() - start:.1f} s; "
                     f"{self.out_dir} keeps the last good output\n{exc.report()}")
            return False
        redrawn = [d for d in drawn if not d.endswith("(unchanged)")]
        what = ", ".join(redrawn) if redrawn else "nothing (every component was unchanged)"
        self.say(f"{reason}: rebuilt {what} in {time.perf_counter() - start:.1f} s")
        return True


def watch(project: Project, ids, opts: PrintOptions, out_dir: Path,
          interval: float = DEFAULT_INTERVAL, max_cycles: int | None = None,
          stop: threading.Event | None = None, say: Say = print,
          jobs: int | None = None, only=()) -> int:
    """Build, then poll every ``interval`` seconds and rebuild what changed; return cycles run.

    Runs until ``stop`` is set or ``max_cycles`` polls have been made (forever if neither).
    ``only`` names the components to draw (the others and the print-and-play files wait).
    """
    watcher = Watcher(project, tuple(ids), opts, Path(out_dir), say, jobs, tuple(only))
    watcher.start()
    stop = stop or threading.Event()
    cycles = 0
    while not stop.is_set() and (max_cycles is None or cycles < max_cycles):
        if stop.wait(interval):
            break
        watcher.step()
        cycles += 1
    return cycles
