"""Make docs/gallery.md: a picture of one sheet of every deck of the built-in games, each
game's cover, and each game's design-system specimen (palette, type scale, icons).

    python tools/gallery.py

It builds the five games into a temporary folder, renders pages with pdftoppm (poppler-utils)
and writes PNGs under docs/gallery/. Run it again whenever the games' look changes.
"""

from __future__ import annotations

import io
import subprocess
import sys
import tempfile
from pathlib import Path

from PIL import Image

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from printshop.components.base import base_context  # noqa: E402
from printshop.check.gather import load_games  # noqa: E402
from printshop.load.geometry import PrintOptions  # noqa: E402
from printshop.layout.impose import Page  # noqa: E402
from printshop.write.pdf import pages_to_pdf  # noqa: E402
from printshop.files.project import SHARED_TEMPLATES, Project  # noqa: E402
from printshop.draw.templates import make_environment, render  # noqa: E402

OUT = ROOT / "docs" / "gallery"
DPI = 50
SPECIMEN = (190.0, None)   # the height follows the palette and the icons


def png(pdf: Path, page: int, dest: Path, dpi: int = DPI) -> None:
    """Render one page of a PDF to a small palette PNG."""
    raw = subprocess.run(["pdftoppm", "-r", str(dpi), "-f", str(page), "-l", str(page), "-png",
                          str(pdf)], check=True, capture_output=True).stdout
    image = Image.open(io.BytesIO(raw)).convert("RGB").quantize(colors=128, dither=0)
    image.save(dest, optimize=True)


def specimen(game, dest: Path, work: Path) -> None:
    """Draw the game's design system on one sheet and render it."""
    style = base_context(game, PrintOptions())["style"]
    colours = [{"name": k, "value": v} for k, v in game.manifest.style.colors.items()]
    names = sorted(game.icons)[:30]
    env = make_environment(list(game.template_dirs) + [SHARED_TEMPLATES], game.icons)
    w = SPECIMEN[0]
    cell = (w - 16) / 10
    h = 28 + (len(colours) + 5) // 6 * 17 + 44 + (len(names) + 9) // 10 * (cell + 4) + 6
    body = render(env, "specimen.svg.j2", {"style": style, "colours": colours, "w": w, "h": h,
                                           "icon_names": names, "name": game.manifest.name},
                  f"the specimen of {game.id}")
    pdf = work / f"{game.id}-specimen.pdf"
    pdf.write_bytes(pages_to_pdf([Page(w, h, [body], side="sheet")], game.manifest.name))
    png(pdf, 1, dest, 60)


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    for old in OUT.glob("*.png"):
        old.unlink()
    project = Project.open(None)
    games = load_games(project, [f.id for f in project.games()])
    lines = ["# Gallery", "",
             "What printshop makes of the five built-in games: each game's cover, one sheet of "
             "each deck as it prints (crop marks, card backs on the following page), and the "
             "game's design system. Made by `python tools/gallery.py`; the design systems are "
             "described in docs/style/.", ""]
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        subprocess.run([sys.executable, "-m", "printshop.cli", "build", "--out",
                        str(work / "out"), "--quiet"], check=True, cwd=ROOT)
        for game in games:
            folder = work / "out" / game.id
            lines += [f"## {game.manifest.name}", ""]
            shots = [("cover", folder / f"{game.id}-print-and-play.pdf", "Cover")]
            shots += [(p.id, folder / f"{p.id}.pdf", p.spec.name) for p in game.parts
                      if p.spec.kind in ("deck", "tokens")]
            for key, pdf, title in shots:
                name = f"{game.id}-{key}.png"
                png(pdf, 1, OUT / name)
                lines.append(f"![{title}](gallery/{name})")
            name = f"{game.id}-specimen.png"
            specimen(game, OUT / name, work)
            lines += ["", f"![{game.manifest.name}: design system](gallery/{name})", ""]
    (ROOT / "docs" / "gallery.md").write_text("\n".join(lines), encoding="utf-8")
    print(f"wrote docs/gallery.md and {len(list(OUT.glob('*.png')))} pictures")


if __name__ == "__main__":
    main()
