"""printshop's benchmark: every figure issues 9 and 16 ask for, printed as one table.

    python bench/run.py                 # the full run (a few minutes on 2 cores)
    python bench/run.py --quick         # one run each, 2,000-card stress decks (under a minute)
    python bench/run.py --only poker    # or startup, games, stress, maps, exports; --repeat N

Each measurement is a whole process, started the way a user starts it (`python -m
printshop.cli build ... --quiet --out DIR`), timed from outside: wall seconds, the median of
the repeats. Peak memory is the largest resident memory of the process and its workers
together (their RSS summed, sampled every 20 ms; shared pages are counted in each process, so
the figure errs high) and never less than the largest single process's maximum RSS from wait4.
The same 100-card poker deck is built by printshop, protograf and board-game-factory
(`pip install -e '.[bench]'`); a peer that is not installed is reported as missing. The machine
is shared and noisy: read the ratios, and the load average printed with the table. Results also
go to bench/results/latest.json (git-ignored).

printshop's load cache (loaded games kept per user, keyed by their files' hashes) is the
run's own folder: emptied before every build "from scratch" (and before every poker and stress
build), kept for `printshop list` and the rebuild, which also get a row with nothing cached.
printshop is measured as a user has it installed: its bytecode is compiled first
(``python -m compileall``), because an editable install under PYTHONDONTWRITEBYTECODE would
otherwise recompile every module at every start while the peers load compiled bytecode.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
PYTHON = sys.executable
# Issue 16's targets.
TARGETS = {
    "poker-ratio": 6.0,        # printshop at least 6x faster than protograf, PDF no larger
    "help": 0.25,              # `printshop --help`, seconds
    "list": 0.25,              # `printshop list`, seconds
    "poker-build": 0.35,       # `printshop build` of the 100-card deck, seconds
    "all-games": 2.5,          # every built-in game from scratch, seconds
    "rebuild": 0.3,            # nothing changed, seconds
    "stress-time": 5.0,        # 10,000 cards (1,000 distinct x 10 copies), seconds
    "stress-memory": 300.0,    # the same deck, MB
    "distinct-time": 15.0,     # 10,000 distinct cards, seconds
    "maps": 3.0,               # 1,000 standard maps generated and validated, one core, seconds
    "image-export": 5.0,       # issue 31: an image export of Deity within 5x Deity's build
    "pdfx-export": 15.0,       # issue 31: the DriveThruCards export of Deity within 15x
}
# Issue 31: each export of Deity, measured in turn with Deity's build (a noisy machine slows
# both alike); (row name, command after `printshop`, target key).
EXPORTS = [
    ("export png deity (300 dpi card images)", ["export", "png", "deity"], "image-export"),
    ("export pod deity --shop tgc", ["export", "pod", "deity", "--shop", "tgc"],
     "image-export"),
    ("export pod deity --shop mpc", ["export", "pod", "deity", "--shop", "mpc"],
     "image-export"),
    ("export tts deity", ["export", "tts", "deity"], "image-export"),
    ("export pod deity --shop dtc (PDF/X)", ["export", "pod", "deity", "--shop", "dtc"],
     "pdfx-export"),
]
# What issue 9 measured for the peers before any printshop code (same deck, same kind of machine).
REFERENCE = {"protograf": "1.70 s, 52 KB PDF", "board-game-factory": "2.93 s, 2.4 MB PNG"}
PAGE_BYTES = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096
MB = 1024 * 1024


@dataclass
class Run:
    """One measured process: wall seconds, peak memory in MB (the whole process tree, and its
    largest single process), and whether it worked."""

    seconds: float
    peak_mb: float
    largest_mb: float
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
    largest_mb: float | None = None
    runs: list[float] = field(default_factory=list)


# --- measuring a process ----------------------------------------------------------------------

def tree_rss(root: int) -> int:
    """Return the resident bytes of a process and all its descendants, summed (Linux /proc)."""
    children: dict[int, list[int]] = {}
    rss: dict[int, int] = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as f:
                fields = f.read().rsplit(b")", 1)[1].split()
        except OSError:  # the process ended while we looked
            continue
        pid = int(name)
        children.setdefault(int(fields[1]), []).append(pid)
        rss[pid] = int(fields[21]) * PAGE_BYTES
    total, stack = 0, [root]
    while stack:
        pid = stack.pop()
        total += rss.get(pid, 0)
        stack.extend(children.get(pid, ()))
    return total


class TreeSampler(threading.Thread):
    """Sample a process tree's summed RSS until stopped; keep the peak."""

    def __init__(self, pid: int, interval: float = 0.02):
        super().__init__(daemon=True)
        self.pid, self.interval, self.peak = pid, interval, 0
        self.done = threading.Event()

    def run(self):
        if not os.path.isdir("/proc"):
            return
        while not self.done.is_set():
            self.peak = max(self.peak, tree_rss(self.pid))
            self.done.wait(self.interval)


def one_line(stderr: bytes) -> str:
    """Return what a failing process said, in one line fit for a table cell: a traceback's
    last line, or printshop's first problem and its summary."""
    lines = [ln.strip() for ln in stderr.decode(errors="replace").splitlines() if ln.strip()]
    if not lines:
        return "no message"
    said = lines[-1] if lines[0].startswith("Traceback") or len(lines) == 1 else \
        f"{lines[0]} ... {lines[-1]}"
    return said[:240].replace("|", "/")


def measure(cmd: list[str], cwd: Path | None = None) -> Run:
    """Run a command once; return its wall time and the peak memory of its process tree."""
    with tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        proc = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=err)
        sampler = TreeSampler(proc.pid)
        sampler.start()
        _, status, usage = os.wait4(proc.pid, 0)
        seconds = time.perf_counter() - start
        sampler.done.set()
        sampler.join()
        proc.returncode = os.waitstatus_to_exitcode(status)
        err.seek(0)
        error = one_line(err.read()) if status else ""
    # ru_maxrss: kilobytes on Linux, bytes on macOS; the largest single process of the tree
    largest = usage.ru_maxrss * (1 if sys.platform == "darwin" else 1024)
    return Run(seconds, max(largest, sampler.peak) / MB, largest / MB, status == 0, error)


def repeated(name: str, cmd: list[str], repeat: int, prepare=None, cwd=None) -> tuple[Row, Run]:
    """Run a command ``repeat`` times (after ``prepare()`` each time); median time, max memory.

    Stops at the first failure; the row then carries no figures and the returned run says why.
    """
    runs = []
    for _ in range(repeat):
        if prepare:
            prepare()
        runs.append(measure(cmd, cwd))
        if not runs[-1].ok:
            return Row(name, note=f"failed: {runs[-1].error}"), runs[-1]
    row = Row(name, statistics.median(r.seconds for r in runs), max(r.peak_mb for r in runs),
              largest_mb=max(r.largest_mb for r in runs),
              runs=[round(r.seconds, 4) for r in runs])
    return row, runs[-1]


def outputs(path: Path, suffixes=(".pdf", ".png")) -> list[Path]:
    """Return the output files under a folder, leaving out hidden ones (the build cache)."""
    return sorted(p for p in path.rglob("*") if p.is_file() and p.suffix in suffixes and
                  not any(part.startswith(".") for part in p.relative_to(path).parts))


def folder_bytes(path: Path) -> int:
    """Return the total size of the output files under a folder."""
    return sum(p.stat().st_size for p in outputs(path))


def printshop(*args: str) -> list[str]:
    """Return the command line a user runs: the real CLI, quiet."""
    return [PYTHON, "-m", "printshop.cli", "build", *args, "--quiet"]


def compile_bytecode() -> bool:
    """Compile printshop's bytecode, as installing it does; say whether that worked."""
    return subprocess.run([PYTHON, "-m", "compileall", "-q", str(REPO / "printshop")],
                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode == 0


def fresh(folder: Path, forget: bool = True):
    """Return a function that removes an output folder or file, and (``forget``) printshop's
    load cache, so that each run starts from scratch."""
    def remove():
        if folder.is_dir():
            shutil.rmtree(folder)
        elif folder.exists():
            folder.unlink()
        if forget:
            forget_loads()
    return remove


def forget_loads() -> None:
    """Empty the load cache this run gave printshop (PRINTSHOP_CACHE_DIR, set in main)."""
    folder = os.environ.get("PRINTSHOP_CACHE_DIR", "")
    if folder and folder != "off" and Path(folder).is_dir():
        shutil.rmtree(folder)


# --- projects made for the benchmark ----------------------------------------------------------

POKER_TEMPLATE = """\
<rect x="{{ -size.bleed }}" y="{{ -size.bleed }}" width="{{ size.w + 2 * size.bleed }}" \
height="{{ size.h + 2 * size.bleed }}" fill="#fff"/>
<rect x="{{ -size.bleed }}" y="{{ -size.bleed }}" width="{{ size.w + 2 * size.bleed }}" \
height="{{ 14 + size.bleed }}" fill="#2d1b3d"/>
{{ text(card.name, 4, 3, size.w - 8, 8, size=12, font='title', color='#fff') }}
{% for line in card.lines %}{{ text(line, 5, 18 + loop.index0 * 8, size.w - 10, 6, size=8) }}\
{% endfor %}
{% for i in range(5) %}{{ icon('circle', 5.5 + i * 11.2, 74.5, 7, color='#c2571a') }}\
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
from bgfactory import ff

DPI = 300
mm = lambda v: ff.mm_to_pixels(v, DPI)
cards = []
for i in range(100):
    card = ff.Rectangle(0, 0, mm(63), mm(88), stroke_width=3, fill_src=ff.COLOR_WHITE)
    card.add(ff.Rectangle(0, 0, mm(63), mm(14), stroke_width=0, fill_src=(0.18, 0.11, 0.24)))
    card.add(ff.TextUniform(mm(4), mm(3), mm(55), mm(9), f"Card {{i + 1}}",
                            ff.FontDescription(size=mm(5)), fill_src=ff.COLOR_WHITE))
    for j in range(5):
        card.add(ff.TextUniform(mm(5), mm(20 + 8 * j), mm(53), mm(6),
                                f"Line {{j + 1}} of card {{i + 1}}: gain one",
                                ff.FontDescription(size=mm(3))))
    for j in range(5):
        card.add(ff.Circle(mm(6 + 11 * j), mm(74), mm(4), stroke_width=0,
                           fill_src=(0.76, 0.34, 0.1)))
    cards.append(card)
ff.make_printable_sheets(cards, dpi=DPI, out_dir_path={out!r})
"""


@dataclass
class Peer:
    """A tool measured beside printshop: its module, the script that draws the deck, its output."""

    name: str
    module: str
    script: str
    target: str  # the file or folder the script writes
    output: str

    def command(self, folder: Path) -> tuple[list[str], Path]:
        """Write the peer's script into ``folder``; return its command line and output path."""
        target = folder / self.target
        path = folder / "deck.py"
        path.write_text(self.script.format(out=str(target)))
        return [PYTHON, str(path)], target


PEERS = [Peer("protograf", "protograf", PROTOGRAF, "deck.pdf", "vector PDF"),
         Peer("board-game-factory", "bgfactory", BOARD_GAME_FACTORY, "sheets",
              "300 dpi PNG sheets")]


def installed(module: str) -> bool:
    """Say whether a peer's module is installed here (without importing it)."""
    return importlib.util.find_spec(module) is not None


def size(n: int) -> str:
    """Return a byte count the way people say it."""
    return f"{n / MB:.1f} MB" if n >= MB else f"{n / 1024:.0f} KB"


# --- the measurements -------------------------------------------------------------------------

def per_card(name: str, row: Row, cards: int) -> Row | None:
    """Return seconds and PDF bytes per card of a deck build, or None if it failed."""
    if row.seconds is None or row.output_bytes is None:
        return None
    return Row(name, row.seconds / cards, None, round(row.output_bytes / cards),
               f"{cards / row.seconds:,.0f} cards/s; the whole process (start-up included) "
               f"divided by {cards:,} cards")


@dataclass
class Contender:
    """One tool's build of the 100-card deck: how to run it and where its output lands."""

    name: str
    cmd: list[str]
    cwd: Path
    output: Path
    kind: str
    runs: list[Run] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return all(r.ok for r in self.runs)

    def row(self) -> Row:
        """Return the contender's row: median time, peak memory, output size."""
        if not self.ok:
            return Row(f"100-card deck: {self.name}", note=f"failed: {self.runs[-1].error}")
        out = self.output
        return Row(f"100-card deck: {self.name}", statistics.median(r.seconds for r in self.runs),
                   max(r.peak_mb for r in self.runs),
                   folder_bytes(out) if out.is_dir() else out.stat().st_size, self.kind,
                   largest_mb=max(r.largest_mb for r in self.runs),
                   runs=[round(r.seconds, 4) for r in self.runs])


def poker_rows(work: Path, repeat: int) -> list[Row]:
    """The same 100-card deck by printshop and its peers, each a whole process.

    The tools take turns (printshop, protograf, board-game-factory, printshop, ...) so a burst
    of load on the machine falls on all of them; a ratio is the median of the rounds' ratios.
    A first round, not counted, warms the caches (fontconfig, pages of the libraries).
    """
    project = poker_project(work / "poker", 100)
    out = work / "poker-out"
    ours = Contender("printshop", printshop("--project", str(project), "--out", str(out),
                                            "--backs", "none"), REPO, out / "poker" / "deck.pdf",
                     "vector PDF (deck.pdf); the print-and-play file is written too; "
                     "nothing cached")
    contenders, missing = [ours], {}
    for peer in PEERS:
        if not installed(peer.module):
            missing[peer.name] = Row(f"100-card deck: {peer.name}",
                                     note="missing: not installed (pip install -e '.[bench]')")
            continue
        folder = work / peer.name
        folder.mkdir()
        cmd, target = peer.command(folder)
        contenders.append(Contender(peer.name, cmd, folder, target,
                                    f"{peer.output}; issue's reference {REFERENCE[peer.name]}"))
    for round in range(repeat + 1):  # round 0 warms the disk and font caches, unmeasured
        for c in contenders:
            if c.ok:
                fresh(out if c is ours else c.output)()
                run = measure(c.cmd, c.cwd)
                if round or not run.ok:
                    c.runs.append(run)
    rows = [ours.row()]
    rows[0].target = f"< {TARGETS['poker-build']:.2f} s wall"
    rows[0].met = ours.ok and rows[0].seconds < TARGETS["poker-build"]
    for peer in PEERS:
        if peer.name in missing:
            rows.append(missing[peer.name])
            continue
        theirs = next(c for c in contenders if c.name == peer.name)
        row = theirs.row()
        rows.append(row)
        if not (theirs.ok and ours.ok):
            continue
        ratio = statistics.median(t.seconds / o.seconds for t, o in zip(theirs.runs, ours.runs))
        row.note += f"; printshop {ratio:.1f}x faster, output {size(rows[0].output_bytes)} " \
                    f"vs {size(row.output_bytes)}"
        if peer.name == "protograf":
            row.target = f">= {TARGETS['poker-ratio']:.0f}x faster, PDF no larger"
            row.met = ratio >= TARGETS["poker-ratio"] and \
                rows[0].output_bytes <= row.output_bytes
    card = per_card("per card: 100-card deck", rows[0], 100)
    return rows + ([card] if card else [])


def startup_rows(repeat: int) -> list[Row]:
    """`printshop --help` and `printshop list` (every built-in game loaded and counted),
    taking turns so that load on the machine falls on both."""
    commands = {"--help": [PYTHON, "-m", "printshop.cli", "--help"],
                "list": [PYTHON, "-m", "printshop.cli", "list"],
                "list, nothing cached": [PYTHON, "-m", "printshop.cli", "list"]}
    runs: dict[str, list[Run]] = {name: [] for name in commands}
    for turn in range(repeat + 1):  # turn 0 warms the caches, unmeasured
        for name, cmd in commands.items():
            if name == "list, nothing cached":
                forget_loads()
            run = measure(cmd, REPO)
            if turn or not run.ok:
                runs[name].append(run)
    rows = []
    for name, target, note in (("--help", "help", "start-up: click and the command list"),
                               ("list", "list", "the 5 built-in games read back from the load "
                                "cache (their files hashed, unchanged since the last run)"),
                               ("list, nothing cached", None, "loads and schema-checks the 5 "
                                "games (YAML with line numbers, manifests and cards checked): the "
                                "first run after an edit")):
        done = runs[name]
        row = Row(f"printshop {name}", note=note,
                  target=f"< {TARGETS[target]:.2f} s" if target else "")
        if all(r.ok for r in done):
            row.seconds = statistics.median(r.seconds for r in done)
            row.peak_mb = max(r.peak_mb for r in done)
            row.largest_mb = max(r.largest_mb for r in done)
            row.runs = [round(r.seconds, 4) for r in done]
            row.met = row.seconds < TARGETS[target] if target else None
        else:
            row.note, row.met = f"failed: {done[-1].error}", False
        rows.append(row)
    return rows


def builtin_games() -> list[str]:
    """Return the ids of the built-in games (data/<game>/ with a manifest), without importing
    printshop: a game mid-edit must fail its own row, not the whole run."""
    manifests = ("game.yaml", "game.yml", "game.toml")
    return sorted(d.name for d in (REPO / "data").iterdir() if d.is_dir() and
                  not d.name.startswith((".", "_")) and any((d / m).is_file() for m in manifests))


def game_rows(work: Path, repeat: int) -> list[Row]:
    """Every built-in game alone, then all together, then a rebuild with nothing changed."""
    rows = []
    for game in builtin_games():
        out = work / f"game-{game}"
        row, last = repeated(f"build {game}", printshop(game, "--out", str(out)), repeat,
                             fresh(out), cwd=REPO)
        if last.ok:
            row.output_bytes = folder_bytes(out)
            row.note = "from scratch (nothing cached), every component and the " \
                "print-and-play file"
        rows.append(row)
    out = work / "all-games"
    row, last = repeated("build all games", printshop("--out", str(out)), repeat, fresh(out),
                         cwd=REPO)
    row.target = f"< {TARGETS['all-games']:.1f} s"
    row.met = last.ok and row.seconds < TARGETS["all-games"]
    rows.append(row)
    if not last.ok:
        rows.append(Row("rebuild, nothing changed", note="not run: the full build failed",
                        target=f"< {TARGETS['rebuild']:.1f} s", met=False))
        return rows
    row.output_bytes = folder_bytes(out)
    row.note = f"from scratch (nothing cached), {len(builtin_games())} games in one process"
    before = {p: (p.stat().st_mtime_ns, p.read_bytes()) for p in outputs(out)}
    again, last = repeated("rebuild, nothing changed", printshop("--out", str(out)), repeat,
                           cwd=REPO)
    again.target = f"< {TARGETS['rebuild']:.1f} s"
    again.met = last.ok and again.seconds < TARGETS["rebuild"]
    if last.ok:
        again.output_bytes = folder_bytes(out)
        after = {p: (p.stat().st_mtime_ns, p.read_bytes()) for p in outputs(out)}
        touched = sum(1 for p in before if p not in after or after[p][0] != before[p][0])
        same = after.keys() == before.keys() and \
            all(after[p][1] == before[p][1] for p in before)
        again.note = (f"into the same folder; {touched} of {len(before)} PDFs rewritten, "
                      f"{'the same bytes' if same else 'bytes CHANGED'}")
    rows.append(again)
    return rows


def export_rows(work: Path, repeat: int) -> list[Row]:
    """Each export of Deity against Deity's build from scratch, run in turn with it, so that
    the ratio compares runs the machine slowed alike."""
    build_out = work / "export-build"
    build_cmd = printshop("deity", "--out", str(build_out))
    commands = [(name, [PYTHON, "-m", "printshop.cli", *args, "--quiet", "--out",
                        str(work / f"export-{n}")], key)
                for n, (name, args, key) in enumerate(EXPORTS)]
    builds: list[Run] = []
    runs: dict[str, list[Run]] = {name: [] for name, _, _ in commands}
    for _ in range(repeat):
        fresh(build_out)()
        builds.append(measure(build_cmd, cwd=REPO))
        for name, cmd, _ in commands:
            fresh(Path(cmd[-1]))()
            runs[name].append(measure(cmd, cwd=REPO))
    if not all(r.ok for r in builds):
        return [Row("build deity (beside its exports)", note=f"failed: {builds[-1].error}")]
    build = statistics.median(r.seconds for r in builds)
    rows = [Row("build deity (beside its exports)", build, max(r.peak_mb for r in builds),
                note="from scratch, measured in turn with each export below",
                runs=[round(r.seconds, 4) for r in builds])]
    for name, cmd, key in commands:
        done = runs[name]
        if not all(r.ok for r in done):
            rows.append(Row(name, note=f"failed: {done[-1].error}"))
            continue
        seconds = statistics.median(r.seconds for r in done)
        ratio = seconds / build
        rows.append(Row(name, seconds, max(r.peak_mb for r in done),
                        folder_bytes(Path(cmd[-1])),
                        f"{ratio:.1f}x the build of deity", f"< {TARGETS[key]:.0f}x build",
                        ratio < TARGETS[key], max(r.largest_mb for r in done),
                        [round(r.seconds, 4) for r in done]))
    return rows


def stress_rows(work: Path, cards: int) -> list[Row]:
    """Two decks of ``cards`` poker cards: a tenth of them distinct (ten copies each), then
    every card distinct. Each is one whole build (duplex backs, the print-and-play file)."""
    rows = []
    for copies in (10, 1):
        distinct = max(1, cards // copies)
        label = "distinct" if copies == 1 else "copies"
        project = poker_project(work / f"stress-{label}", distinct, copies=cards // distinct)
        out = work / f"stress-{label}-out"
        forget_loads()
        run = measure(printshop("--project", str(project), "--out", str(out)), cwd=REPO)
        name = (f"{cards:,}-card deck, {distinct:,} distinct x {copies}" if copies > 1
                else f"{cards:,}-card deck, all distinct")
        row = Row(name, note=f"failed: {run.error}")
        if run.ok:
            row = Row(name, run.seconds, run.peak_mb,
                      (out / "poker" / "deck.pdf").stat().st_size,
                      f"{cards / run.seconds:,.0f} cards/s; deck.pdf bytes",
                      largest_mb=run.largest_mb, runs=[round(run.seconds, 4)])
        if copies > 1:
            row.target = (f"< {TARGETS['stress-time']:.0f} s, "
                          f"< {TARGETS['stress-memory']:.0f} MB")
            row.met = run.ok and run.seconds < TARGETS["stress-time"] and \
                run.peak_mb < TARGETS["stress-memory"]
        else:
            row.target = f"< {TARGETS['distinct-time']:.0f} s"
            row.met = run.ok and run.seconds < TARGETS["distinct-time"]
        if cards < 10_000:
            row.note += "; --quick size, the target is for 10,000"
            row.met = None
        rows.append(row)
    return rows


def map_row(seconds: float) -> Row:
    """1,000 standard PocketCiv maps generated and validated on one core, from the rate
    bench/bench_maps.py measures (CPU time of one process)."""
    row = Row("1,000 maps generated + validated",
              target=f"< {TARGETS['maps']:.0f} s (8 regions, one core)")
    script = REPO / "bench" / "bench_maps.py"
    if not script.exists():
        row.note = "missing: bench/bench_maps.py is not there"
        return row
    result = subprocess.run([PYTHON, str(script), "--seconds", str(seconds), "--no-m1"],
                            capture_output=True, cwd=REPO)
    rates = {}
    algorithm = "the default algorithm"
    for line in result.stdout.decode(errors="replace").splitlines():
        words = line.split()
        if words[:1] == ["algorithm"] and len(words) > 1:
            algorithm = f"algorithm {words[1]}"
        if len(words) > 3 and words[1] == "regions" and words[0].isdigit():
            try:
                rates[words[0]] = float(line.split("/s")[0].split()[-1])
            except ValueError:
                pass
    if result.returncode or "8" not in rates:
        row.note = f"missing: bench/bench_maps.py failed ({one_line(result.stderr)})"
        return row
    row.seconds = 1000 / rates["8"]
    row.note = (f"{rates['8']:,.0f}/s for 8 regions, {rates.get('16', 0):,.0f}/s for 16 "
                f"({algorithm}, one core, CPU time, bench/bench_maps.py)")
    row.met = row.seconds < TARGETS["maps"]
    return row


# --- the report -------------------------------------------------------------------------------

def table(rows: list[Row]) -> str:
    """Format the rows as a Markdown table."""
    out = ["| measurement | seconds | peak MB | largest process MB | output bytes | target | met "
           "| notes |", "|---|---:|---:|---:|---:|---|---|---|"]
    for r in rows:
        met = "" if r.met is None else ("yes" if r.met else "**no**")
        secs = "" if r.seconds is None else (f"{r.seconds:.3f}" if r.seconds >= 0.1
                                             else f"{r.seconds * 1000:.2f} ms")
        out.append(f"| {r.name} | {secs} | "
                   f"{'' if r.peak_mb is None else f'{r.peak_mb:.0f}'} | "
                   f"{'' if r.largest_mb is None else f'{r.largest_mb:.0f}'} | "
                   f"{'' if r.output_bytes is None else f'{r.output_bytes:,}'} | {r.target} | "
                   f"{met} | {r.note}{_spread(r.runs)} |")
    return "\n".join(out)


def _spread(runs: list[float]) -> str:
    """Return the fastest and slowest of a row's runs, when it had several: on a shared
    machine the spread says how much of a median is the machine's."""
    if len(runs) < 2:
        return ""
    low, high = min(runs), max(runs)
    return f" (runs {low:.3f}-{high:.3f} s)" if low >= 0.1 else \
        f" (runs {low * 1000:.0f}-{high * 1000:.0f} ms)"


def machine() -> str:
    """Describe the machine: CPU, cores, memory, Python."""
    cpu = platform.processor() or platform.machine()
    memory = ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
        kb = int(Path("/proc/meminfo").read_text().split()[1])
        memory = f", {kb / MB:.0f} GB RAM"
    except (OSError, ValueError, IndexError):
        pass
    return f"{cpu}, {os.cpu_count()} cores{memory}, {platform.system()}, " \
           f"Python {platform.python_version()}"


def load() -> str:
    """Return the 1-minute load average (how busy the machine was), if the system tells it."""
    try:
        return f"{os.getloadavg()[0]:.2f}"
    except (AttributeError, OSError):
        return "unknown"


REFERENCE_WORK = """
import statistics, time
times = []
for _ in range(3):
    start = time.perf_counter()
    records = [{"id": i, "name": str(i), "lines": [i, i + 1]} for i in range(150_000)]
    records.sort(key=lambda r: r["name"])
    del records
    times.append(time.perf_counter() - start)
print(statistics.median(times))
"""


def reference() -> float | None:
    """Return the seconds a fixed piece of pure-Python work takes here (median of 3, in a
    process of its own, so that this one stays small: a child starts as a copy of it): the
    machine's own speed at the time. A shared virtual machine slows down when its neighbours
    are busy, and its load average does not show it. The work makes, sorts and drops 150,000
    small records, as a build makes and drops trees: a tight loop of arithmetic stays in the
    processor's cache and misses a slowdown of the memory that printshop feels."""
    done = subprocess.run([PYTHON, "-c", REFERENCE_WORK], capture_output=True, text=True)
    try:
        return round(float(done.stdout.strip()), 3)
    except ValueError:
        return None


def main(argv: list[str] | None = None) -> None:
    """Run the measurements, print the table and write bench/results/latest.json."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true",
                        help="one run per timing (three for start-up) and 2,000-card stress "
                             "decks")
    parser.add_argument("--repeat", type=int, default=None,
                        help="runs per timing, the median reported (default 5, --quick 1)")
    parser.add_argument("--only", choices=["startup", "poker", "games", "stress", "maps",
                                           "exports"],
                        action="append",
                        help="run only these parts (repeatable)")
    parser.add_argument("--stress-cards", type=int, default=None,
                        help="cards in the stress decks (default 10,000, --quick 2,000)")
    args = parser.parse_args(argv)
    repeat = max(1, args.repeat or (1 if args.quick else 5))
    stress = args.stress_cards or (2_000 if args.quick else 10_000)
    parts = set(args.only or ["startup", "poker", "games", "stress", "maps", "exports"])
    started, load_before, speed_before = time.perf_counter(), load(), reference()
    compiled = compile_bytecode()
    rows: list[Row] = []
    with tempfile.TemporaryDirectory(prefix="printshop-bench-") as tmp:
        work = Path(tmp)
        # printshop's load cache, the run's own: emptied before every "from scratch" run,
        # kept for `list` and the rebuild (what a user has on a second run).
        os.environ["PRINTSHOP_CACHE_DIR"] = str(work / "load-cache")
        if "startup" in parts:
            rows += startup_rows(max(3, repeat))
        if "poker" in parts:
            rows += poker_rows(work, repeat)
        if "games" in parts:
            rows += game_rows(work, min(repeat, 3))
        if "stress" in parts:
            rows += stress_rows(work, stress)
        if "maps" in parts:
            rows.append(map_row(1.0 if args.quick else 3.0))
        if "exports" in parts:
            rows += export_rows(work, min(repeat, 3))
    date = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    took = time.perf_counter() - started
    speed_after = reference()
    print(f"printshop benchmark, {date}, {machine()}\n"
          f"median of {repeat} run(s) per timing (games: {min(repeat, 3)}); load average "
          f"{load_before} before, {load()} after; reference work {speed_before} s before, "
          f"{speed_after} s after (fixed pure-Python work: the machine's speed at the time); "
          f"{took:.0f} s in all; printshop's bytecode "
          f"{'compiled first' if compiled else 'NOT compiled (compileall failed)'}\n")
    print(table(rows))
    results = REPO / "bench" / "results"
    results.mkdir(exist_ok=True)
    (results / "latest.json").write_text(json.dumps(
        {"date": date, "machine": machine(), "repeat": repeat, "load_before": load_before,
         "load_after": load(), "reference_before": speed_before, "reference_after": speed_after,
         "seconds": round(took, 1), "rows": [asdict(r) for r in rows]},
        indent=2) + "\n")


if __name__ == "__main__":
    main()
