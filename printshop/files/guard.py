"""The guarded ways in and out: reading a project's files, writing in the output folder.

A game folder may come from a stranger, so every file printshop reads from a project goes
through ``read_project_file`` and everything it writes or deletes under the output folder goes
through ``output_path``: no symbolic link leads a read out of the project or a write out of the
output folder, only regular files are read, and sizes are checked before reading.
"""

from __future__ import annotations

import atexit
import os
import shutil
import stat
import tempfile
from pathlib import Path, PurePosixPath

from .errors import PrintshopError, Problem
from .limits import exceeded

_KINDS = ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a named pipe (FIFO)"),
          (stat.S_ISSOCK, "a socket"), (stat.S_ISCHR, "a device"), (stat.S_ISBLK, "a device"))


def read_project_file(root: Path, path: Path | str, limit: int, label: str | None = None,
                      limit_name: str | None = "max_file_bytes") -> bytes:
    """Return the bytes of one regular file inside ``root``; refuse anything else.

    ``path`` is absolute or relative to ``root``. Every symbolic link on the way is resolved,
    and the file must still lie inside ``root`` (links that stay inside are followed). The
    file is opened without following a last link and without blocking; it must be a regular
    file (not a folder, FIFO, socket or device), and its size, taken from the open file, must
    be at most ``limit`` bytes before anything is read; no more than ``limit`` bytes are ever
    read. Every refusal is a PrintshopError naming ``label`` (default: the path as given) and
    ``limit_name``, the limit a user may raise.
    """
    label = label or str(path)
    real_root = Path(os.path.realpath(root))
    full = Path(os.path.realpath(Path(root) / path))
    if not full.is_relative_to(real_root):
        raise PrintshopError(Problem(label, f"the file leads outside {_folder(root)} through a "
                                     "symbolic link; printshop reads only files inside the "
                                     "project"))
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0) | \
        getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(full, flags)
    except FileNotFoundError:
        raise PrintshopError(Problem(label, "file not found")) from None
    except OSError as exc:
        raise PrintshopError(Problem(label, f"cannot read the file: {exc.strerror}")) from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            kind = next((name for test, name in _KINDS if test(info.st_mode)), "not a file")
            raise PrintshopError(Problem(label, f"expected a regular file, found {kind}"))
        if info.st_size > limit:
            raise PrintshopError(Problem(label, _too_big(
                limit_name, f"the file is {info.st_size:,} bytes", limit)))
        chunks, left = [], limit + 1
        while left > 0:
            chunk = os.read(fd, min(left, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
        data = b"".join(chunks)
    except OSError as exc:
        raise PrintshopError(Problem(label, f"cannot read the file: {exc.strerror}")) from None
    finally:
        os.close(fd)
    if len(data) > limit:  # the file grew while it was read
        raise PrintshopError(Problem(label, _too_big(limit_name, "the file grew while it was "
                                                     "read", limit)))
    return data


def _too_big(limit_name: str | None, what: str, limit: int) -> str:
    """Name the limit a user may raise, or (``None``) say the size is fixed."""
    if limit_name is None:
        return f"{what}; at most {limit:,} bytes are read"
    return exceeded(limit_name, what, limit)


def inside(root: Path, path: Path) -> bool:
    """Say whether ``path``, every symbolic link resolved, lies inside ``root``'s real folder."""
    return Path(os.path.realpath(path)).is_relative_to(os.path.realpath(root))


def _folder(root) -> str:
    name = Path(root).name
    return f"{name}/" if name else "the project"


def output_path(out_dir: Path, rel: str) -> Path:
    """Return ``out_dir/rel`` for writing or deleting; refuse a symbolic link at any level.

    ``out_dir`` itself is the user's choice and may be a link; below it, no existing folder
    or file on the way to ``rel`` may be one, so a write or delete never lands elsewhere.
    """
    pure = PurePosixPath(rel)
    if pure.is_absolute() or ".." in pure.parts or not pure.parts:
        raise PrintshopError(Problem(str(out_dir), f"'{rel}' is not a path inside the output "
                                     "folder"))
    current = Path(out_dir)
    for part in pure.parts:
        current = current / part
        try:
            info = os.lstat(current)
        except FileNotFoundError:
            break
        except OSError as exc:
            raise PrintshopError(Problem(str(current), f"cannot use this output path: "
                                         f"{exc.strerror}")) from None
        if stat.S_ISLNK(info.st_mode):
            raise PrintshopError(Problem(str(current), "is a symbolic link; printshop never "
                                         "writes or deletes through a link in the output "
                                         "folder (remove the link or choose another --out)"))
    return Path(out_dir) / rel


def remove_output(out_dir: Path, rel: str) -> None:
    """Delete a file or folder under ``out_dir`` without following any symbolic link."""
    path = output_path(out_dir, rel)
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return
    if stat.S_ISDIR(info.st_mode):
        shutil.rmtree(path)  # uses file descriptors: links inside are removed, not followed
    else:
        path.unlink()


def private_dir(name: str) -> Path:
    """Return a temporary folder that only this user can reach, made if need be.

    The shared temporary directory is open to every local user, who could plant a folder or
    link under a predictable name: a folder that is not ours, not private, or a link is never
    used, and a fresh ``mkdtemp`` folder (removed at exit) is used instead.
    """
    uid = os.getuid() if hasattr(os, "getuid") else 0
    base = Path(tempfile.gettempdir()) / f"{name}-{uid}"
    try:
        os.mkdir(base, 0o700)
    except FileExistsError:
        pass
    except OSError:
        return _fresh_dir(name)
    info = os.lstat(base)
    if stat.S_ISDIR(info.st_mode) and info.st_uid == uid and not info.st_mode & 0o077:
        return base
    return _fresh_dir(name)


def _fresh_dir(name: str) -> Path:
    path = Path(tempfile.mkdtemp(prefix=f"{name}-"))
    atexit.register(shutil.rmtree, path, True)
    return path
