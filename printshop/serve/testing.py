"""Drive the studio from tests and benchmarks: run it in a thread, look at it in Chromium.

Both need Debian's chromium and chromium-driver for the browser, and selenium (the test extra).
"""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Callable

from ..files.project import Project
from . import bind

CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")


def have_browser() -> bool:
    """Say whether Debian's headless Chromium and its driver are installed."""
    return CHROMIUM.is_file() and CHROMEDRIVER.is_file()


def start_in_thread(root: Path, out: Path, wait: float = 20.0, port: int = 0,
                    say: Callable[[str], None] | None = None) -> tuple[str, Callable[[], None]]:
    """Run the studio (uvicorn, watchfiles) over ``root`` in a thread on a local port (a free
    one unless given); return its address and a function that stops it."""
    from .app import create_app
    from .server import make_server

    sock = bind("127.0.0.1", port)
    server = make_server(create_app(Project.open(root), out_dir=out, say=say))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + wait
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.02)

    def stop():
        server.should_exit = True
        thread.join(10)
    return f"http://127.0.0.1:{sock.getsockname()[1]}", stop


def chromium(profile: Path, size: tuple[int, int] = (1400, 1000)):
    """Start headless Chromium with network features off and a fresh profile (selenium)."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for arg in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                "--no-first-run", "--disable-background-networking",
                "--disable-component-update", "--disable-sync",
                f"--window-size={size[0]},{size[1]}", f"--user-data-dir={profile}"):
        options.add_argument(arg)
    return webdriver.Chrome(service=Service(str(CHROMEDRIVER)), options=options)
