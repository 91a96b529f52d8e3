"""Write build results atomically: everything goes to a staging folder, then is renamed."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

from .errors import PrintshopError, Problem


def write_files(out_dir: Path, files: dict[str, bytes]) -> list[Path]:
    """Write files under out_dir so that each appears whole or not at all."""
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise PrintshopError(Problem(str(out_dir), f"cannot create the output folder: "
                                     f"{exc.strerror}")) from None
    staging = Path(tempfile.mkdtemp(prefix=".printshop-staging-", dir=out_dir))
    written = []
    try:
        staged = []
        for rel, data in files.items():
            target = staging / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            with open(target, "wb") as fh:
                fh.write(data)
                fh.flush()
                os.fsync(fh.fileno())
            staged.append((target, out_dir / rel))
        for src, dst in staged:
            dst.parent.mkdir(parents=True, exist_ok=True)
            os.replace(src, dst)
            written.append(dst)
    except OSError as exc:
        raise PrintshopError(Problem(str(out_dir), f"cannot write the output: "
                                     f"{exc.strerror}")) from None
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return written
