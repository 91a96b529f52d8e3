"""Find games: the built-in ones shipped with printshop and those in a user's project folder."""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from pathlib import Path

from .errors import PrintshopError, Problem

PACKAGE_DIR = Path(__file__).resolve().parent.parent

GAME_ID = re.compile(r"[a-z0-9][a-z0-9-]{0,63}")


def did_you_mean(name: str, choices) -> str:
    """Return " (did you mean 'x'?)" for the choice nearest a mistyped name, or ""."""
    near = difflib.get_close_matches(name, list(choices), n=1, cutoff=0.6)
    return f" (did you mean '{near[0]}'?)" if near else ""


def builtin_root() -> Path:
    """Return the folder holding the built-in data/ and templates/ (wheel or checkout)."""
    shipped = PACKAGE_DIR / "_builtin"
    if (shipped / "data").is_dir():
        return shipped
    return PACKAGE_DIR.parent


SHARED_TEMPLATES = PACKAGE_DIR / "templates"
MANIFEST_NAMES = ("game.yaml", "game.yml", "game.toml")


@dataclass(frozen=True)
class GameFolder:
    """Where one game's data and templates live."""

    id: str
    root: Path
    data_dir: Path
    manifest: Path
    template_dir: Path

    def label(self, path: Path) -> str:
        """Return a path as the user should read it in messages (relative to the project)."""
        try:
            return path.resolve().relative_to(self.root).as_posix()
        except (ValueError, RuntimeError, OSError):    # outside, or a loop of links
            return str(path)


@dataclass(frozen=True)
class Project:
    """A folder with data/<game>/ and templates/<game>/ subfolders."""

    root: Path

    @classmethod
    def open(cls, root: str | Path | None) -> "Project":
        """Open the user's project, or the built-in games when no folder is given."""
        if root is None:
            return cls(builtin_root())
        path = Path(root).resolve()
        if not (path / "data").is_dir():
            raise PrintshopError(Problem(str(root), "not a printshop project: expected a "
                                         "data/ folder with one subfolder per game"))
        return cls(path)

    def games(self) -> list[GameFolder]:
        """Return every game folder, sorted by id."""
        found = []
        data = self.root / "data"
        for sub in sorted(data.iterdir()) if data.is_dir() else []:
            if not sub.is_dir() or sub.name.startswith((".", "_")):
                continue
            manifest = next((sub / n for n in MANIFEST_NAMES if (sub / n).is_file()), None)
            if manifest is None:
                continue
            if not GAME_ID.fullmatch(sub.name):
                # The id names output folders, file names and the studio's links.
                raise PrintshopError(Problem(f"data/{sub.name!r}"[:90], "a game folder's name is "
                                             "the game's id: lowercase letters, digits and '-' "
                                             "(at most 64); rename the folder"))
            found.append(GameFolder(sub.name, self.root, sub, manifest,
                                    self.root / "templates" / sub.name))
        return found

    def game(self, game_id: str) -> GameFolder:
        """Return the folder of one game, or an error naming the games there are."""
        for g in self.games():
            if g.id == game_id:
                return g
        ids = [g.id for g in self.games()]
        raise PrintshopError(Problem(str(self.root / "data"), f"no game '{game_id}'"
                                     f"{did_you_mean(game_id, ids)}; games here: "
                                     f"{', '.join(ids) or 'none'}"))

    def select(self, ids: list[str] | tuple[str, ...]) -> list[GameFolder]:
        """Return the named games, or all of them when none are named."""
        if not ids:
            return self.games()
        return [self.game(i) for i in ids]
