"""Open a project file at a line in the designer's editor, from the studio's page.

The studio runs on the designer's own machine; a click on a `file:line` asks it (a POST with
the page's token, see guard.py) to start the editor command: `--editor`, else $VISUAL or
$EDITOR. `{file}` and `{line}` in the command are replaced; without them the file is
given as `+LINE FILE` (vi, vim, nano, emacs) or `-g FILE:LINE` (VS Code). Only files of
the project's data and templates folders are opened, never a path from outside.
"""

from __future__ import annotations

import os
import shlex
import subprocess
from pathlib import Path, PurePosixPath

from ..files.errors import PrintshopError, Problem

FOLDERS = ("data", "templates")


def editor_command(configured: str | None = None) -> str | None:
    """Return the editor command: the configured one, else $VISUAL, else $EDITOR."""
    return configured or os.environ.get("VISUAL") or os.environ.get("EDITOR") or None


def command_line(command: str, path: Path, line: int) -> list[str]:
    """Return the argument list that opens ``path`` at ``line`` with ``command``."""
    words = shlex.split(command)
    if any("{file}" in w for w in words):
        return [w.replace("{file}", str(path)).replace("{line}", str(line)) for w in words]
    name = Path(words[0]).name if words else ""
    if name in ("code", "code-insiders", "codium", "cursor"):
        return words + ["-g", f"{path}:{line}"]
    return words + [f"+{line}", str(path)]


def project_file(root: Path, rel: str) -> Path:
    """Return a data or template file of the project named by ``rel``; refuse anything else."""
    pure = PurePosixPath(rel)
    if pure.is_absolute() or ".." in pure.parts or "\\" in rel or "\0" in rel or \
            not pure.parts or pure.parts[0] not in FOLDERS:
        raise PrintshopError(Problem(rel[:80], "only the project's data and template files "
                                     "are opened"))
    path = Path(root) / pure
    real = path.resolve()
    if not real.is_relative_to(Path(root).resolve()) or not real.is_file():
        raise PrintshopError(Problem(rel[:80], "no such file in the project"))
    return path


def open_in_editor(root: Path, rel: str, line: int, configured: str | None = None,
                   run=subprocess.Popen) -> list[str]:
    """Start the editor on a project file at a line; return the command started."""
    command = editor_command(configured)
    if not command:
        raise PrintshopError(Problem("--editor", "no editor: set $EDITOR or give "
                                     "printshop serve --editor 'code -g {file}:{line}'"))
    args = command_line(command, project_file(root, rel), max(1, line))
    try:
        run(args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL, start_new_session=True)
    except OSError as exc:
        raise PrintshopError(Problem("--editor", f"cannot start '{args[0]}': "
                                     f"{exc.strerror}")) from None
    return args
