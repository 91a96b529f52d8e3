"""printshop's benchmark: every figure issue 9 asks for, printed as one table.

    python bench/run.py            # the full run (a few minutes on 2 cores)
    python bench/run.py --quick    # fewer repeats, a 2,000-card stress deck (about a minute)

Each measurement runs as its own process, as a user would run it, and is timed from outside
(wall time, median of the repeats) with the child's peak memory from wait4(). The same 100-card
poker deck is built by printshop, protograf and board-game-factory (`pip install -e '.[bench]'`);
a peer that is not installed is reported as missing. Results also go to bench/results/latest.json.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
PYTHON = sys.executable
TARGETS = {
    "poker-ratio": 4.0,        # printshop at least 4x faster than protograf
    "all-games": 10.0,         # every built-in game from scratch, seconds
    "rebuild": 1.0,            # nothing changed, seconds
    "stress-time": 60.0,       # 10,000 cards, seconds
    "stress-memory": 500.0,    # 10,000 cards, MB
    "maps": 200.0,             # 8-region maps generated and validated per second
}


@dataclass
class Run:
    """One measured process: wall seconds, peak memory in MB, and whether it worked."""

    seconds: float
    peak_mb: float
    ok: bool
    error: str = ""


@dataclass
class Row:
    """A line of the table."""

    name: str
    seconds: float | None = None
    peak_mb: float | None = None
    output_bytes: int | None = None
    note: str = ""
    target: str = ""
    met: bool | None = None
    runs: list[float] = field(default_factory=list)


def measure(cmd: list[str], cwd: Path | None = None, env: dict | None = None) -> Run:
    """Run a command once; return its wall time and peak memory (from wait4)."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    seconds = time.perf_counter() - start
    error = proc.stderr.read().decode(errors="replace")[-400:] if status else ""
    proc.stderr.close()
    return Run(seconds, usage.ru_maxrss / 1024, status == 0, error)


def repeated(cmd: list[str], repeat: int, prepare=None, cwd=None, env=None) -> tuple[Row, Run]:
    """Run a command ``repeat`` times (after ``prepare()`` each time); median time, max memory."""
    runs = []
    for _ in range(repeat):
        if prepare:
            prepare()
        runs.append(measure(cmd, cwd, env))
        if not runs[-1].ok:
            break
    good = [r for r in runs if r.ok]
    row = Row("", statistics.median(r.seconds for r in good) if good else None,
              max(r.peak_mb for r in good) if good else None, runs=[r.seconds for r in good])
    return row, runs[-1]


def folder_bytes(path: Path, suffixes=(".pdf", ".png")) -> int:
    """Return the total size of the output files under a folder (the cache excluded)."""
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file() and
               p.suffix in suffixes and ".printshop-cache" not in p.parts)


def printshop(*args: str) -> list[str]:
    return [PYTHON, "-m", "printshop.cli", *args]


# --- projects made for the benchmark ----------------------------------------------------------

POKER_TEMPLATE = """\
<rect x="{{ -size.bleed }}" y="{{ -size.bleed }}" width="{{ size.w + 2 * size.bleed }}" \
height="{{ size.h + 2 * size.bleed }}" fill="#fff"/>
<rect x="{{ -size.bleed }}" y="{{ -size.bleed }}" width="{{ size.w + 2 * size.bleed }}" \
height="{{ 14 + size.bleed }}" fill="#2d1b3d"/>
{{ text(card.name, 4, 3, size.w - 8, 8, size=12, font='title', color='#fff') }}
{% for line in card.lines %}{{ text(line, 5, 18 + loop.index0 * 8, size.w - 10, 6, size=8) }}\
{% endfor %}
{% for i in range(5) %}<circle cx="{{ 9 + i * 11.2 }}" cy="78" r="3.5" fill="#c2571a"/>\
{% endfor %}
"""


def poker_project(root: Path, cards: int, copies: int = 1) -> Path:
    """Write a project with one poker deck: a title bar, a title, five lines, five icons."""
    data, tpl = root / "data" / "poker", root / "templates" / "poker"
    data.mkdir(parents=True)
    tpl.mkdir(parents=True)
    (data / "game.yaml").write_text(
        "name: Poker Bench\ncomponents:\n  - id: deck\n    kind: deck\n    name: Deck\n"
        "    size: poker\n    data: cards.yaml\n    front: card.svg.j2\n    fields:\n"
        "      lines: {type: list, items: {type: str}}\n")
    lines = ["cards:"]
    for i in range(cards):
        text = ", ".join(f'"Line {j + 1} of card {i + 1}: gain one"' for j in range(5))
        lines.append(f'  - {{id: c{i + 1}, name: "Card {i + 1}", copies: {copies}, '
                     f"lines: [{text}]}}")
    (data / "cards.yaml").write_text("\n".join(lines) + "\n")
    (tpl / "card.svg.j2").write_text(POKER_TEMPLATE)
    return root


PROTOGRAF = """\
from protograf import *

Create(filename={out!r}, margin=1)
rows = [["Title", "L1", "L2", "L3", "L4", "L5"]]
for i in range(100):
    rows.append([f"Card {{i + 1}}"] + [f"Line {{j + 1}} of card {{i + 1}}: gain one"
                                       for j in range(5)])
Data(data_list=rows)
Deck(cards=100, width=6.3, height=8.8, grid_marks=True)
Card("*", rectangle(x=0, y=0, width=6.3, height=1.4, fill="#2d1b3d", stroke="#2d1b3d"))
Card("*", text(text=T("{{{{ Title }}}}"), x=3.15, y=1.0, font_size=12, stroke="white"))
for j in range(5):
    Card("*", text(text=T("{{{{ L%d }}}}" % (j + 1)), x=0.5, y=2.6 + 0.8 * j, font_size=8,
                   align="left"))
for j in range(5):
    Card("*", circle(cx=1.0 + 1.08 * j, cy=7.8, radius=0.35, fill="#c2571a"))
Save()
"""

BOARD_GAME_FACTORY = """\
import sys
from bgfactory import ff

DPI = 300
mm = lambda v: ff.mm_to_pixels(v, DPI)
cards = []
for i in range(100):
    card = ff.Rectangle(0, 0, mm(63), mm(88), stroke_width=3, fill_src=ff.COLOR_WHITE)
    card.add(ff.Rectangle(0, 0, mm(63), mm(14), stroke_width=0, fill_src=(0.18, 0.11, 0.24)))
    card.add(ff.TextUniform(mm(4), mm(3), mm(55), mm(9), f"Card {i + 1}",
                            ff.FontDescription(size=mm(5)), fill_src=ff.COLOR_WHITE))
    for j in range(5):
        card.add(ff.TextUniform(mm(5), mm(20 + 8 * j), mm(53), mm(6),
                                f"Line {j + 1} of card {i + 1}: gain one",
                                ff.FontDescription(size=mm(3))))
    for j in range(5):
        card.add(ff.Circle(mm(6 + 11 * j), mm(74), mm(4), stroke_width=0,
                           fill_src=(0.76, 0.34, 0.1)))
    cards.append(card)
ff.make_printable_sheets(cards, dpi=DPI, out_dir_path=sys.argv[1])
"""


def installed(module: str) -> bool:
    """Say whether a peer's module can be imported here."""
    return subprocess.run([PYTHON, "-c", f"import {module}"], capture_output=True).returncode == 0


# --- the measurements -------------------------------------------------------------------------

def poker_rows(work: Path, repeat: int) -> list[Row]:
    """The same 100-card deck by printshop and its peers."""
    rows = []
    project = poker_project(work / "poker", 100)
    out = work / "poker-out"
    row, last = repeated(printshop("build", "--project", str(project), "--out", str(out),
                                   "--quiet", "--backs", "none"), repeat,
                         prepare=lambda: shutil.rmtree(out, ignore_errors=True), cwd=REPO)
    row.name = "100-card deck: printshop"
    row.output_bytes = (out / "poker" / "deck.pdf").stat().st_size if last.ok else None
    row.note = "vector PDF (deck.pdf); print-and-play file also written" if last.ok else \
        f"failed: {last.error}"
    rows.append(row)
    peers = [("protograf", "protograf", PROTOGRAF, "vector PDF"),
             ("board-game-factory", "bgfactory", BOARD_GAME_FACTORY, "300 dpi PNG sheets")]
    for name, module, script, kind in peers:
        if not installed(module):
            rows.append(Row(f"100-card deck: {name}", note="missing (pip install -e '.[bench]')"))
            continue
        folder = work / name
        folder.mkdir()
        target = folder / "deck.pdf"
        path = folder / "deck.py"
        path.write_text(script.format(out=str(target)) if module == "protograf" else script)
        sheets = folder / "sheets"
        args = [PYTHON, str(path)] + ([str(sheets)] if module == "bgfactory" else [])
        peer, last = repeated(args, repeat, cwd=folder,
                              prepare=lambda: shutil.rmtree(sheets, ignore_errors=True))
        peer.name = f"100-card deck: {name}"
        peer.output_bytes = (target.stat().st_size if target.exists()
                             else folder_bytes(sheets)) if last.ok else None
        peer.note = kind if last.ok else f"failed: {last.error}"
        if last.ok and peer.seconds and row.seconds:
            ratio = peer.seconds / row.seconds
            peer.note += f"; printshop is {ratio:.1f}x faster"
            if module == "protograf":
                smaller = (row.output_bytes or 0) <= (peer.output_bytes or 0)
                peer.target = f">= {TARGETS['poker-ratio']:.0f}x faster, PDF no larger"
                peer.met = ratio >= TARGETS["poker-ratio"] and smaller
        rows.append(peer)
    if row.seconds and row.output_bytes:
        rows.append(Row("per card (100-card deck)", row.seconds / 100, None,
                        row.output_bytes // 100, "seconds and PDF bytes per card, whole process"))
    return rows


def game_rows(work: Path, repeat: int) -> list[Row]:
    """Every built-in game alone, then all together, then a rebuild with nothing changed."""
    sys.path.insert(0, str(REPO))
    from printshop.project import Project

    rows = []
    for folder in Project.open(None).games():
        out = work / f"game-{folder.id}"
        row, last = repeated(printshop("build", folder.id, "--out", str(out), "--quiet"),
                             repeat, prepare=lambda: shutil.rmtree(out, ignore_errors=True),
                             cwd=REPO)
        row.name = f"build {folder.id}"
        row.output_bytes = folder_bytes(out) if last.ok else None
        row.note = "from scratch, 2 workers" if last.ok else f"failed: {last.error}"
        rows.append(row)
    out = work / "all-games"
    row, last = repeated(printshop("build", "--out", str(out), "--quiet"), repeat,
                         prepare=lambda: shutil.rmtree(out, ignore_errors=True), cwd=REPO)
    row.name = "build all five games"
    row.output_bytes = folder_bytes(out) if last.ok else None
    row.target = f"< {TARGETS['all-games']:.0f} s"
    row.met = bool(row.seconds and row.seconds < TARGETS["all-games"]) if last.ok else False
    row.note = "from scratch" if last.ok else f"failed: {last.error}"
    rows.append(row)
    again, last = repeated(printshop("build", "--out", str(out), "--quiet"), repeat, cwd=REPO)
    again.name = "rebuild, nothing changed"
    again.target = f"< {TARGETS['rebuild']:.0f} s"
    again.met = bool(again.seconds and again.seconds < TARGETS["rebuild"]) if last.ok else False
    again.note = "content-hash cache in the output folder" if last.ok else \
        f"failed: {last.error}"
    rows.append(again)
    return rows


def stress_row(work: Path, cards: int) -> Row:
    """A deck of ``cards`` poker cards (distinct tenths, ten copies each), one process."""
    distinct = max(1, cards // 10)
    project = poker_project(work / "stress", distinct, copies=cards // distinct)
    out = work / "stress-out"
    run = measure(printshop("build", "--project", str(project), "--out", str(out), "--quiet",
                            "--jobs", "1"), cwd=REPO)
    row = Row(f"{cards:,}-card deck", run.seconds, run.peak_mb,
              (out / "poker" / "deck.pdf").stat().st_size if run.ok else None,
              "one process, fronts and print-and-play file" if run.ok else
              f"failed: {run.error}")
    row.target = f"< {TARGETS['stress-time']:.0f} s, < {TARGETS['stress-memory']:.0f} MB"
    row.met = run.ok and run.seconds < TARGETS["stress-time"] and \
        run.peak_mb < TARGETS["stress-memory"]
    if cards < 10_000:
        row.note += "; --quick size, the target is for 10,000"
        row.met = None
    return row


def map_row(seconds: float) -> Row:
    """PocketCiv maps generated and validated per second (bench/bench_maps.py)."""
    script = REPO / "bench" / "bench_maps.py"
    if not script.exists():
        return Row("maps per second", note="missing: bench/bench_maps.py")
    result = subprocess.run([PYTHON, str(script), "--seconds", str(seconds)],
                            capture_output=True, text=True, cwd=REPO)
    rates = {}
    for line in result.stdout.splitlines():
        if "regions" in line and "/s" in line:
            label = "8" if line.startswith("8 ") else "16"
            rates[label] = float(line.split("/s")[0].split()[-1])
    if result.returncode or "8" not in rates:
        return Row("maps per second", note=f"failed: {result.stderr[-300:]}")
    row = Row("maps generated + validated", note=f"{rates['8']:.0f}/s for 8 regions, "
              f"{rates.get('16', 0):.0f}/s for 16 (one core, CPU time)")
    row.target = f">= {TARGETS['maps']:.0f}/s (8 regions)"
    row.met = rates["8"] >= TARGETS["maps"]
    return row


def table(rows: list[Row]) -> str:
    """Format the rows as a Markdown table."""
    out = ["| measurement | seconds | peak MB | output bytes | target | met | notes |",
           "|---|---:|---:|---:|---|---|---|"]
    for r in rows:
        met = "" if r.met is None else ("yes" if r.met else "no")
        out.append(f"| {r.name} | {'' if r.seconds is None else f'{r.seconds:.3f}'} | "
                   f"{'' if r.peak_mb is None else f'{r.peak_mb:.0f}'} | "
                   f"{'' if r.output_bytes is None else f'{r.output_bytes:,}'} | {r.target} | "
                   f"{met} | {r.note} |")
    return "\n".join(out)


def main() -> None:
    """Run every measurement and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer repeats, smaller stress deck")
    parser.add_argument("--repeat", type=int, default=None, help="runs per timing (median)")
    parser.add_argument("--only", choices=["poker", "games", "stress", "maps"], default=None)
    args = parser.parse_args()
    repeat = args.repeat or (1 if args.quick else 5)
    stress = 2_000 if args.quick else 10_000
    rows: list[Row] = []
    with tempfile.TemporaryDirectory(prefix="printshop-bench-") as tmp:
        work = Path(tmp)
        if args.only in (None, "poker"):
            rows += poker_rows(work, repeat)
        if args.only in (None, "games"):
            rows += game_rows(work, max(1, repeat // 2 + 1))
        if args.only in (None, "stress"):
            rows.append(stress_row(work, stress))
        if args.only in (None, "maps"):
            rows.append(map_row(1.0 if args.quick else 3.0))
    text = table(rows)
    machine = f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}"
    print(f"printshop benchmark, {time.strftime('%Y-%m-%d')}, {machine}\n")
    print(text)
    results = REPO / "bench" / "results"
    results.mkdir(exist_ok=True)
    (results / "latest.json").write_text(json.dumps(
        {"date": time.strftime("%Y-%m-%d"), "machine": machine,
         "rows": [asdict(r) for r in rows]}, indent=2))


if __name__ == "__main__":
    main()
