"""Every file the studio reads goes through here, so one guarded reader can replace it."""

from __future__ import annotations

import os
import stat
from pathlib import Path, PurePosixPath

MAX_BYTES = 16 * 1024 * 1024


class NotServed(Exception):
    """A path the studio refuses to read: outside the root, a link, not a file, too big."""


def read_project_file(root: Path, rel: str, max_bytes: int = MAX_BYTES) -> bytes:
    """Return the bytes of ``rel`` inside ``root``; refuse links, escapes and odd files."""
    pure = PurePosixPath(rel)
    if not rel or pure.is_absolute() or ".." in pure.parts or "\\" in rel or "\0" in rel:
        raise NotServed(rel)
    base = Path(root).resolve()
    path = base / pure
    current = base
    for part in pure.parts:  # no link anywhere below the root, not only at the end
        current = current / part
        if current.is_symlink():
            raise NotServed(rel)
    if not path.resolve().is_relative_to(base):
        raise NotServed(rel)
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        fd = os.open(path, flags)  # non-blocking: opening a named pipe must not hang
    except OSError:
        raise NotServed(rel) from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_size > max_bytes:
            raise NotServed(rel)
        chunks, left = [], max_bytes + 1
        while left > 0:
            chunk = os.read(fd, min(left, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
    finally:
        os.close(fd)
    data = b"".join(chunks)
    if len(data) > max_bytes:  # the file grew after it was measured
        raise NotServed(rel)
    return data
