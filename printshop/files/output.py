"""Write build results atomically: everything goes to a staging folder, then is renamed."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

from .errors import PrintshopError, Problem, Problems
from .guard import output_path


STAGING = ".printshop-staging-"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _remove_abandoned(out_dir: Path) -> None:
    """Remove staging folders left by builds that were killed before they finished."""
    for folder in out_dir.glob(STAGING + "*"):
        pid = folder.name[len(STAGING):].split("-")[0]
        if pid.isdigit() and not _alive(int(pid)):
            if folder.is_symlink():
                folder.unlink(missing_ok=True)
            else:
                shutil.rmtree(folder, ignore_errors=True)


def _unchanged(path: Path, data: bytes) -> bool:
    """Say whether a file already holds exactly these bytes (a rebuild need not touch it)."""
    try:
        return path.stat().st_size == len(data) and path.read_bytes() == data
    except OSError:
        return False


def linked_folder(out_dir: Path) -> Path | None:
    """Return the folder of ``out_dir`` that is a symbolic link, or None.

    A relative folder (the default output/<game>, output/maps...) is checked from the working
    folder down, every step of it: that is where a game folder's own files sit. Of a folder
    named by its absolute path, the folder itself is checked (the system's own paths above it
    may be links, as /tmp is on some systems)."""
    out_dir = Path(out_dir)
    steps = [out_dir] if out_dir.is_absolute() else \
        [Path(*out_dir.parts[:i]) for i in range(1, len(out_dir.parts) + 1)]
    return next((step for step in steps if os.path.islink(step)), None)


def write_files(out_dir: Path, files: dict[str, bytes],
                unchanged: list[Path] | None = None) -> list[Path]:
    """Write files under out_dir so that each appears whole or not at all; return their paths.

    A file that already holds exactly its bytes is left alone (and added to ``unchanged``
    when a list is given).

    Every file is staged first; only when all are staged are they renamed into place, in the
    order given (put a file that vouches for others, such as the cache manifest, last). No
    write goes through a symbolic link below out_dir: one found is an error before anything
    is written.
    """
    problems = Problems()
    linked = linked_folder(out_dir)
    if linked is not None:
        raise PrintshopError(Problem(str(linked), "is a symbolic link: printshop writes only into "
                                     "real folders (a downloaded game folder can ship such a "
                                     "link to make it write elsewhere); remove the link, or "
                                     "name a real folder with --out"))
    for rel in files:
        try:
            output_path(out_dir, rel)
        except PrintshopError as exc:
            if exc.problems[0] not in problems.items:
                problems.extend(exc.problems)
    problems.raise_if_any()
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise PrintshopError(Problem(str(out_dir), f"cannot create the output folder: "
                                     f"{exc.strerror}")) from None
    _remove_abandoned(out_dir)
    try:
        staging = Path(tempfile.mkdtemp(prefix=f"{STAGING}{os.getpid()}-", dir=out_dir))
    except OSError as exc:  # a read-only folder, or one such as /proc that holds no files
        raise PrintshopError(Problem(str(out_dir), f"cannot write into the output folder: "
                                     f"{exc.strerror}")) from None
    written: list[Path] = []
    replaced = 0
    try:
        staged = []
        for rel, data in files.items():
            if _unchanged(out_dir / rel, data):
                written.append(out_dir / rel)
                if unchanged is not None:
                    unchanged.append(out_dir / rel)
                continue
            target = staging / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            with open(target, "wb") as fh:
                fh.write(data)
                fh.flush()
                os.fsync(fh.fileno())
            staged.append((target, out_dir / rel))
        for src, dst in staged:
            output_path(out_dir, dst.relative_to(out_dir).as_posix())  # still no link on the way
            dst.parent.mkdir(parents=True, exist_ok=True)
            os.replace(src, dst)
            written.append(dst)
            replaced += 1
    except (OSError, PrintshopError) as exc:
        problem = exc.problems[0] if isinstance(exc, PrintshopError) else \
            Problem(str(out_dir), f"cannot write the output: {exc.strerror}")
        # Staging failed: nothing was replaced. A rename failed: say what was.
        summary = None if not replaced else (f"{replaced} of {len(staged)} changed files were "
                                             "replaced before it")
        raise PrintshopError(problem, summary) from None
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return written
