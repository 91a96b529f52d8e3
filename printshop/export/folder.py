"""An export's folder: its files written at once, and what the previous export into it wrote
and this one does not removed (a card taken out of the data loses its image).

The list of what an export wrote is kept beside its files, signed as the build's cache is
(load/cache.py), so a planted list removes nothing.
"""

from __future__ import annotations

import hmac
import json
from pathlib import Path, PurePosixPath

from ..files.errors import PrintshopError
from ..files.guard import read_project_file
from ..files.output import output_path, write_files
from ..load import cache

EXPORT_LIST = ".printshop-cache/export.json"


def replace_export(out_dir: Path, files: dict[str, bytes], scope: str = "") -> list[Path]:
    """Write an export's files as write_files does and remove what the previous export into
    ``out_dir`` wrote and this one does not (a card taken out of the data loses its image);
    return the files written. With ``scope`` (a folder prefix such as 'deck/'), only
    previous files under it are this export's to remove.

    Only files the previous export listed, under this user's signature (cache.py), are
    removed: a file of the user's own in the folder, or one a planted list names, stays.
    """
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
