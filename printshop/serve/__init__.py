"""printshop serve: a live preview studio for a project's games, in the browser."""

from __future__ import annotations

import socket
import threading
import webbrowser
from pathlib import Path
from typing import Callable

from ..files.errors import PrintshopError, Problem
from ..files.project import Project
from ..load.geometry import PrintOptions

LOCAL_HOSTS = ("127.0.0.1", "localhost", "::1")


def bind(host: str, port: int) -> socket.socket:
    """Open the listening socket, or a located error when the address is taken."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except socket.gaierror as exc:
        raise PrintshopError(Problem("--host", f"cannot use host '{host}': {exc.strerror}")) \
            from None
    family, _, _, _, address = infos[0]
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind(address)
    except OSError as exc:
        sock.close()
        raise PrintshopError(Problem("--port", f"cannot listen on {host}:{port}: "
                                     f"{exc.strerror}; try another --port")) from None
    sock.listen(128)
    return sock


def is_loopback(host: str) -> bool:
    """Say whether an address to listen on is reachable from this computer alone."""
    import ipaddress

    if host.strip("[]") in LOCAL_HOSTS:
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def allowed_hosts(host: str) -> list[str]:
    """Return the Host headers to answer: local names, or any when listening everywhere."""
    if host in ("0.0.0.0", "::", ""):
        return ["*"]
    return sorted({host, *LOCAL_HOSTS, "[::1]"})


def serve(project: Project, game: str | None = None, host: str = "127.0.0.1", port: int = 8000,
          open_browser: bool = True, out_dir: Path = Path("output"),
          opts: PrintOptions | None = None, say: Callable[[str], None] = print,
          editor: str | None = None) -> None:
    """Run the studio until Ctrl-C or SIGTERM."""
    import signal

    from .app import create_app
    from .server import make_server

    if game is not None:
        project.game(game)  # an unknown game is a located error before anything starts
    if not is_loopback(host):
        say(f"warning: listening on {host}, the studio can be reached from the network: anyone "
            "there can see this project's cards and files, and the Host check "
            + ("is off (any address)" if allowed_hosts(host) == ["*"] else f"accepts {host}")
            + "; use --host 127.0.0.1 to keep it on this computer")
    sock = bind(host, port)
    shown = f"[{host}]" if ":" in host else host
    url = f"http://{shown}:{sock.getsockname()[1]}/" + (f"games/{game}" if game else "")

    def started():
        say(f"printshop studio at {url} (press Ctrl-C to stop)")
        if open_browser:
            threading.Thread(target=webbrowser.open, args=(url,), daemon=True).start()

    app = create_app(project, opts, out_dir, allowed_hosts=allowed_hosts(host),
                     on_start=started, say=say, editor=editor)

    def terminate(signum, frame):
        raise KeyboardInterrupt

    # uvicorn stops cleanly on either signal, then raises it again with our handler in place:
    # SIGTERM then ends like Ctrl-C, quietly, instead of killing the process mid-sentence.
    before = signal.signal(signal.SIGTERM, terminate)
    try:
        make_server(app).run(sockets=[sock])
    except KeyboardInterrupt:
        pass
    finally:
        signal.signal(signal.SIGTERM, before)
        sock.close()
    say("stopped")
