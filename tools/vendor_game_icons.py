"""Rebuild printshop/art/game-icons.zip from the npm package @iconify-json/game-icons.

    npm pack @iconify-json/game-icons && tar xzf iconify-json-game-icons-*.tgz
    python tools/vendor_game_icons.py package/icons.json

Each icon is one path (fill currentColor) in a 512 x 512 box; the archive keeps its path data
under the icon's name, an alias as '=' and the name it stands for. Entries are dated
1980-01-01 so the archive's bytes depend on the icons alone.
"""

import json
import re
import sys
import zipfile
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "printshop" / "art" / "game-icons.zip"
PATH = re.compile(r'<path fill="currentColor" d="([^"]+)"/>')


def main(source: str) -> None:
    data = json.loads(Path(source).read_text(encoding="utf-8"))
    assert data["width"] == data["height"] == 512, "the set's box is no longer 512 x 512"
    entries = {name: PATH.fullmatch(icon["body"]).group(1) for name, icon in data["icons"].items()}
    entries.update({name: "=" + alias["parent"] for name, alias in data.get("aliases", {}).items()})
    with zipfile.ZipFile(OUT, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as archive:
        for name in sorted(entries):
            info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, entries[name])
    print(f"{len(entries)} icons -> {OUT}")


if __name__ == "__main__":
    main(sys.argv[1])
