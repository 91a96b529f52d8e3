"""A new game folder from the scaffold (printshop/scaffold/): data, templates and a README
that validate and build as they are, for a designer to change into their own game."""

from __future__ import annotations

from pathlib import Path

from .files.errors import PrintshopError, Problem
from .files.project import GAME_ID

SCAFFOLD = Path(__file__).resolve().parent / "scaffold"


def _title(game_id: str) -> str:
    return " ".join(w.capitalize() for w in game_id.split("-") if w) or game_id


def plan(game_id: str, project: Path, name: str | None = None) -> dict[Path, str]:
    """Return the files of a new game (path -> text), refusing an id or folder that will not do."""
    if not GAME_ID.fullmatch(game_id):
        raise PrintshopError(Problem(game_id[:64], "a game's id names its folders and files: "
                                     "lowercase letters, digits and '-' (at most 64), e.g. "
                                     "harbour-lights"))
    out: dict[Path, str] = {}
    words = {"@id@": game_id, "@name@": name or _title(game_id),
             "@project@": project.as_posix() if str(project) not in ("", ".") else "."}
    for src in sorted(SCAFFOLD.rglob("*")):
        if not src.is_file():
            continue
        rel = src.relative_to(SCAFFOLD)
        if rel.parts[0] == "data":
            dest = project / "data" / game_id / Path(*rel.parts[1:])
        elif rel.parts[0] == "templates":
            dest = project / "templates" / game_id / Path(*rel.parts[1:])
        else:
            dest = project / "data" / game_id / rel
        text = src.read_text(encoding="utf-8")
        for key, value in words.items():
            text = text.replace(key, value)
        out[dest] = text
    taken = [d for d in (project / "data" / game_id, project / "templates" / game_id)
             if d.exists()]
    if taken:
        raise PrintshopError(Problem(taken[0].as_posix(), f"already exists; a new game needs "
                                     "its own folders (choose another id, or --dir)"))
    return out


def new_game(game_id: str, project: str | Path = ".", name: str | None = None) -> list[Path]:
    """Write a new, buildable game folder into ``project``; return the files written."""
    project = Path(project)
    files = plan(game_id, project, name)
    for path, text in files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "x", encoding="utf-8") as f:   # never over a file that appeared since
            f.write(text)
    return list(files)
