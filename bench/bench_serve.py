"""printshop serve: how long from saving a one-card edit to the card updated on an open page.

    python bench/bench_serve.py                  # pocketciv, 10 edits, browser and HTTP
    python bench/bench_serve.py --game deity --repeat 20 --no-browser
    python bench/bench_serve.py --big 1000 --runs 3   # a 1,000-card deck: edit, scroll, search

A copy of a built-in game is served by the real studio (uvicorn, watchfiles) in this process.
Each edit renames one card in its data file; the clock starts just before the file is
written. Two figures per edit:

- http: the event naming the card arrives on /api/events and GET .../<card>.svg returns the
  new drawing (what the page's script does, without a browser);
- browser: headless Chromium has the game page open; the time is the page's own clock when
  its script has swapped the new card in (no reload), compared with the clock at the save.
  (Other parts the edit touches, such as a sheet listing the deck, follow on their own.)

Edits are a second or so apart, as a person saves: each waits for the previous edit's rules
to finish (they run after the cards are sent). The target is a median under 0.5 s. The
machine is shared; the maximum is printed too.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

import httpx

from printshop.load.loader import load_game
from printshop.files.project import Project, builtin_root
from printshop.serve.testing import chromium, have_browser, start_in_thread

TARGET = 0.5


def project_copy(dest: Path, game_id: str) -> Path:
    """Copy one built-in game into a fresh project folder."""
    for kind in ("data", "templates"):
        if (builtin_root() / kind / game_id).is_dir():
            shutil.copytree(builtin_root() / kind / game_id, dest / kind / game_id)
    return dest


def target_card(root: Path, game_id: str):
    """Return the data file, deck, card and name line of a card in the game's largest deck."""
    game = load_game(Project.open(root).game(game_id))
    for part in sorted(game.parts, key=lambda p: -len(p.cards)):
        if not part.cards or not part.data_file or not part.data_file.endswith(".yaml"):
            continue
        path = root / part.data_file
        lines = path.read_text().splitlines()
        for card in part.cards:
            for n in range(card.line - 1, min(card.line + 5, len(lines))):
                if f"name: {card.name}" in lines[n]:
                    return path, part.id, card, n
    raise SystemExit(f"{game_id}: no card with a plain 'name:' line to edit")


def rename(path: Path, line: int, old: str, new: str) -> None:
    lines = path.read_text().split("\n")
    lines[line] = lines[line].replace(f"name: {old}", f"name: {new}", 1)
    path.write_text("\n".join(lines))


def http_edits(url: str, game: str, path: Path, deck: str, card, line: int,
               repeat: int) -> list[float]:
    """Time save -> event -> new SVG over HTTP."""
    times, name = [], card.name
    with httpx.Client(base_url=url, timeout=30) as http:
        http.get(f"/games/{game}")  # the page draws every card once, as a browser would
        with http.stream("GET", "/api/events") as events:
            lines = events.iter_lines()
            next(lines)
            for i in range(repeat):
                new = f"{card.name} {'Mk' if i % 2 == 0 else 'No'}{i}"
                start = time.perf_counter()
                rename(path, line, name, new)
                name = new
                for text in lines:
                    if text.startswith("data: ") and f'"{deck}/{card.id}"' in text:
                        break
                svg = http.get(f"/api/games/{game}/cards/{deck}/{card.id}.svg").text
                times.append(time.perf_counter() - start)
                assert f"{'Mk' if i % 2 == 0 else 'No'}{i}" in svg, "the drawing did not change"
                for text in lines:  # a person saves again later: let the rules finish first
                    if text.startswith("data: ") and '"checked": true' in text:
                        break
    rename(path, line, name, card.name)
    return times


def browser_edits(url: str, game: str, path: Path, deck: str, card, line: int, repeat: int,
                  profile: Path) -> list[float]:
    """Time save -> card swapped into the open game page, by the page's own clock."""
    from selenium.webdriver.support.ui import WebDriverWait

    browser = chromium(profile)
    tile_id = f"card-{deck}-{card.id}"
    times, name = [], card.name
    try:
        browser.get(f"{url}/games/{game}")
        WebDriverWait(browser, 30).until(
            lambda b: "on" in b.find_element("id", "live").get_attribute("class"))
        browser.execute_script(
            "window.swapped = []; document.addEventListener('studio:swapped', e => {"
            f"if (e.detail !== {json.dumps(tile_id)}) return;"
            "window.swapped.push([Date.now(), document.getElementById(e.detail).innerHTML]);"
            "});")
        for i in range(repeat):
            mark = f"{'Mk' if i % 2 == 0 else 'No'}{i}"
            new = f"{card.name} {mark}"
            browser.execute_script("window.swapped = []")
            start = time.time() * 1000
            rename(path, line, name, new)
            name = new
            done = WebDriverWait(browser, 30, poll_frequency=0.02).until(
                lambda b: next((t for t, html in b.execute_script("return window.swapped")
                                if mark in html), None))
            times.append((done - start) / 1000)
            time.sleep(1.0)  # a person saves again later: let the rules finish first
        assert browser.execute_script("return performance.getEntriesByType('navigation')"
                                      ".length") == 1, "the page reloaded"
    finally:
        browser.quit()
        rename(path, line, name, card.name)
    return times


BIG_TARGETS = {"edit_to_last_card_s": 1.5, "longest_task_ms": 100, "search_ms": 100}


def big_project(dest: Path, cards: int) -> Path:
    """Copy the example project and give its deck ``cards`` distinct cards."""
    example = Path(__file__).resolve().parent.parent / "examples" / "lantern-fair"
    shutil.copytree(example, dest)
    stalls = ["food", "games", "lights"]
    rows = [f"  - {{id: c{n}, name: Stall {n}, stall: {stalls[n % 3]}, cost: {n % 6}, "
            f"text: \"Card {n}: gain :coin: when a neighbour opens a stall.\"}}"
            for n in range(cards)]
    (dest / "data/lantern-fair/stalls.yaml").write_text("cards:\n" + "\n".join(rows) + "\n")
    rules = dest / "data/lantern-fair/rules.py"
    if rules.exists():
        rules.unlink()
    return dest


def big_deck(cards: int, tmp: Path) -> dict:
    """Measure a deck of ``cards`` cards in headless Chromium: first visit, scrolling, search,
    and a template edit until the page's last card shows it."""
    from selenium.webdriver.support.ui import WebDriverWait

    root = big_project(tmp / "big", cards)
    url, stop = start_in_thread(root, tmp / "output")
    browser = chromium(tmp / "big-profile", (1400, 1000))
    out: dict = {}
    try:
        started = time.perf_counter()
        browser.get(f"{url}/games/lantern-fair")
        out["first_visit_s"] = time.perf_counter() - started
        WebDriverWait(browser, 60).until(
            lambda b: "on" in b.find_element("id", "live").get_attribute("class"))
        out["page_bytes"] = browser.execute_script(
            "const n = performance.getEntriesByType('navigation')[0];"
            "return [n.transferSize, n.decodedBodySize]")
        out["dom_nodes"] = browser.execute_script("return document.querySelectorAll('*').length")
        # scrolling to the bottom and back, a screen a frame, watching for long tasks
        out["longest_task_ms"], out["long_tasks"] = browser.execute_async_script("""
            const done = arguments[0]; const tasks = [];
            new PerformanceObserver(l => tasks.push(...l.getEntries().map(e => e.duration)))
              .observe({entryTypes: ["longtask"]});
            let y = 0, down = true;
            function step() {
              y += down ? 600 : -600; window.scrollTo(0, y);
              if (down && y >= document.body.scrollHeight) down = false;
              if (!down && y <= 0) { setTimeout(() => done([Math.max(0, ...tasks),
                tasks.filter(t => t > 100).length]), 500); return; }
              requestAnimationFrame(step);
            }
            step();""")
        out["search_ms"] = browser.execute_script("""
            const box = document.getElementById('filter-search'); const times = [];
            for (const q of ['stall 99', 'lights', '']) {
              const t = performance.now(); box.value = q;
              box.dispatchEvent(new Event('input')); document.body.offsetHeight;
              times.push(performance.now() - t);
            }
            return Math.max(...times);""")
        last = f"card-stalls-c{cards - 1}"
        browser.execute_script(f"document.getElementById('{last}').scrollIntoView()")
        WebDriverWait(browser, 60).until(lambda b: b.execute_script(
            f"return !document.getElementById('{last}').hasAttribute('data-lazy')"))
        template = root / "templates/lantern-fair/stall.svg.j2"
        browser.execute_script(
            "window.seen = null; new MutationObserver(() => {"
            f"const el = document.getElementById('{last}');"
            "if (!window.seen && el && el.innerHTML.includes('bench-mark'))"
            " window.seen = Date.now(); }).observe(document.body,"
            " {subtree: true, childList: true});")
        start = time.time() * 1000
        template.write_text(template.read_text() + "\n<desc>bench-mark</desc>\n")
        seen = WebDriverWait(browser, 60, poll_frequency=0.05).until(
            lambda b: b.execute_script("return window.seen"))
        out["edit_to_last_card_s"] = (seen - start) / 1000
    finally:
        browser.quit()
        stop()
    for key, value in out.items():
        target = BIG_TARGETS.get(key)
        shown = f"{value:.3f}" if isinstance(value, float) else value
        verdict = "" if target is None else ("  ok" if value < target
                                             else f"  OVER TARGET {target}")
        print(f"{key:<22} {shown}{verdict}")
    return out


READY = """
    const done = arguments[0];
    function near(el) { const b = el.getBoundingClientRect();
                        return b.bottom > 0 && b.top < innerHeight; }
    function check() {
      if (document.readyState === "complete" &&
          ![...document.querySelectorAll("[data-lazy]")].some(near))
        document.fonts.ready.then(() => done(performance.now()));
      else setTimeout(check, 10);
    }
    check();"""


def first_visits(browser: bool = True) -> dict:
    """Time the first visit of each built-in game's page on a fresh studio: over HTTP (the
    page itself), and in headless Chromium with an empty cache until the page is ready (its
    styles, script and fonts loaded, and the parts on screen drawn)."""
    from printshop.serve.app import create_app
    from starlette.testclient import TestClient

    client = TestClient(create_app(Project.open(None), watch=False),
                        base_url="http://127.0.0.1")
    out = {}
    for folder in Project.open(None).games():
        started = time.perf_counter()
        page = client.get(f"/games/{folder.id}", headers={"accept-encoding": "gzip"})
        out[folder.id] = {"http_s": time.perf_counter() - started}
        print(f"first visit {folder.id:<20} {out[folder.id]['http_s']:.2f} s  page "
              f"{len(page.content) // 1024} KB, sent {page.headers.get('content-encoding', 'plain')}")
    if not browser or not have_browser():
        return out
    from printshop.serve.webfonts import WebFonts, charset, game_chars

    started = time.perf_counter()
    chars = charset(set().union(*(game_chars(load_game(f)) for f in Project.open(None).games())))
    made = WebFonts().wait(chars)        # once per character set: kept in the cache folder
    print(f"font subsets ready in {time.perf_counter() - started:.1f} s ({len(made)} fonts)")
    with tempfile.TemporaryDirectory() as tmp:
        url, stop = start_in_thread(builtin_root(), Path(tmp) / "output")
        try:
            for folder in Project.open(None).games():
                out[folder.id].update(browser_visit(url, folder.id, Path(tmp) / folder.id))
                row = out[folder.id]
                print(f"in Chromium {folder.id:<20} {row['ready_s']:.2f} s to ready (page "
                      f"{row['page_s']:.2f} s, load event {row['load_s']:.2f} s)  "
                      f"({row['fonts_kb']} KB of fonts, {row['kb']} KB sent in all)")
        finally:
            stop()
    return out


def browser_visit(url: str, game: str, profile: Path) -> dict:
    """Open a game's page in a fresh Chromium (no cache) and time it until it is ready."""
    browser = chromium(profile)
    try:
        browser.get(f"{url}/")      # the browser started and connected: not counted
        browser.get(f"{url}/games/{game}")
        browser.set_script_timeout(60)
        ready = browser.execute_async_script(READY)
        nav = browser.execute_script(
            "const n = performance.getEntriesByType('navigation')[0];"
            "return [n.responseEnd, n.loadEventEnd]")
        sent = browser.execute_script(
            "return performance.getEntriesByType('resource').concat("
            "performance.getEntriesByType('navigation')).map(e => [e.name, e.transferSize])")
    finally:
        browser.quit()
    fonts = sum(size for name, size in sent if "/fonts/" in name)
    return {"ready_s": ready / 1000, "page_s": nav[0] / 1000, "load_s": nav[1] / 1000,
            "fonts_kb": fonts // 1024,
            "kb": sum(size for _, size in sent) // 1024}


def report(label: str, times: list[float]) -> dict:
    med, worst = statistics.median(times), max(times)
    verdict = "ok" if med < TARGET else "SLOWER THAN TARGET"
    print(f"{label:<8} median {med * 1000:6.0f} ms   max {worst * 1000:6.0f} ms   "
          f"({len(times)} edits; target < {TARGET * 1000:.0f} ms: {verdict})")
    return {"median": med, "max": worst, "runs": times}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="pocketciv")
    parser.add_argument("--repeat", type=int, default=10)
    parser.add_argument("--no-browser", action="store_true")
    parser.add_argument("--big", type=int, default=0, metavar="N",
                        help="measure a deck of N cards instead (scrolling, search, an edit)")
    parser.add_argument("--runs", type=int, default=1, metavar="N",
                        help="with --big: measure N fresh studios and print the medians")
    parser.add_argument("--first-visits", action="store_true",
                        help="time the first visit of every built-in game's page")
    args = parser.parse_args(argv)
    if args.first_visits:
        first_visits()
        return 0
    if args.big:
        runs = []
        for n in range(args.runs):
            if args.runs > 1:
                print(f"-- run {n + 1} of {args.runs}")
            with tempfile.TemporaryDirectory() as tmp:
                runs.append(big_deck(args.big, Path(tmp)))
        out = {k: statistics.median(r[k] for r in runs) for k in BIG_TARGETS}
        if args.runs > 1:
            print(f"-- median of {args.runs} runs")
            for key, value in out.items():
                verdict = "ok" if value < BIG_TARGETS[key] else f"OVER TARGET {BIG_TARGETS[key]}"
                print(f"{key:<22} {value:.3f}  {verdict}")
        return 0 if all(out[k] < v for k, v in BIG_TARGETS.items()) else 1
    game = args.game
    with tempfile.TemporaryDirectory() as tmp:
        root = project_copy(Path(tmp) / "project", game)
        path, deck, card, line = target_card(root, game)
        print(f"{game}: editing card '{card.id}' of {deck} in {path.relative_to(root)}")
        url, stop = start_in_thread(root, Path(tmp) / "output")
        results = {}
        try:
            results["http"] = report("http", http_edits(url, game, path, deck, card, line,
                                                        args.repeat))
            if not args.no_browser and have_browser():
                results["browser"] = report("browser", browser_edits(
                    url, game, path, deck, card, line, args.repeat, Path(tmp) / "profile"))
            elif not args.no_browser:
                print("browser  skipped: /usr/bin/chromium and /usr/bin/chromedriver needed")
        finally:
            stop()
    return 0 if all(r["median"] < TARGET for r in results.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
