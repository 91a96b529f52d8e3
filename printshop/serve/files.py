"""Every file the studio reads goes through here, and on to the guarded project reader.

A path that arrives in a URL is checked for its shape first (no absolute path, '..',
backslash or NUL); then ``guard.read_project_file`` refuses links out of the root, anything
but a regular file, and files over the size limit, without blocking on a pipe.
"""

from __future__ import annotations

from pathlib import Path, PurePosixPath

from ..files.errors import PrintshopError
from ..files.guard import read_project_file as guarded_read

MAX_BYTES = 16 * 1024 * 1024


class NotServed(Exception):
    """A path the studio refuses to read: outside the root, a link out, not a file, too big."""


def read_project_file(root: Path, rel: str, max_bytes: int = MAX_BYTES) -> bytes:
    """Return the bytes of ``rel`` inside ``root``; refuse escapes and odd files."""
    pure = PurePosixPath(rel)
    if not rel or pure.is_absolute() or ".." in pure.parts or "\\" in rel or "\0" in rel:
        raise NotServed(rel)
    try:
        return guarded_read(Path(root), pure, max_bytes, rel)
    except PrintshopError:
        raise NotServed(rel) from None
