"""Write build results atomically: everything goes to a staging folder, then is renamed."""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path, PurePosixPath

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


EXPORT_LIST = ".printshop-cache/export.json"


def replace_export(out_dir: Path, files: dict[str, bytes], scope: str = "") -> list[Path]:
    """Write an export's files as write_files does and remove what the previous export into
    ``out_dir`` wrote and this one does not (a card taken out of the data loses its image);
    return the files written. With ``scope`` (a folder prefix such as 'deck/'), only
    previous files under it are this export's to remove.

    Only files the previous export listed, under this user's signature (cache.py), are
    removed: a file of the user's own in the folder, or one a planted list names, stays.
    """
    from . import cache

    previous = _listed(out_dir)
    carried = {rel for rel in previous if not rel.startswith(scope)}
    previous -= carried
    names = sorted(set(files) | carried)
    listing = json.dumps(names).encode()
    record = json.dumps({"version": 1, "files": names,
                         "mac": cache._signature("export", EXPORT_LIST, listing) or ""},
                        indent=1).encode() + b"\n"
    written = write_files(out_dir, {**files, EXPORT_LIST: record})
    for rel in sorted(previous - set(files), reverse=True):
        try:
            path = output_path(out_dir, rel)
            if path.is_file() and not path.is_symlink():
                path.unlink()
            for folder in PurePosixPath(rel).parents:   # folders it leaves empty
                if str(folder) in (".", "") or any(output_path(out_dir, str(folder)).iterdir()):
                    break
                output_path(out_dir, str(folder)).rmdir()
        except (OSError, PrintshopError):
            continue     # a file that cannot be removed is no reason to fail the export
    return [p for p in written if p != out_dir / EXPORT_LIST]


def _listed(out_dir: Path) -> set[str]:
    """Return the files the previous export into ``out_dir`` listed, if its list is signed."""
    import hmac

    from . import cache
    from .guard import read_project_file

    try:
        record = json.loads(read_project_file(out_dir, EXPORT_LIST, 16 * 1024 * 1024,
                                              limit_name=None))
        names, mac = record["files"], record["mac"]
    except (PrintshopError, ValueError, KeyError, TypeError):
        return set()
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        return set()
    expected = cache._signature("export", EXPORT_LIST, json.dumps(names).encode())
    if expected is None or not isinstance(mac, str) or not hmac.compare_digest(expected, mac):
        return set()
    return set(names)
