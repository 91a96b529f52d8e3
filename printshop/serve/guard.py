"""Who may make the studio act: only its own pages, never a page of another site.

A web page the designer visits can send requests to 127.0.0.1 (a form, an <img>, fetch in
no-cors mode). Nothing the studio answers to a GET writes a file or starts heavy work; every
action is a POST that carries the token the studio's own pages hold (a page of another site
cannot read it), and is refused outright when the browser says it comes from elsewhere.
"""

from __future__ import annotations

import hmac
from urllib.parse import parse_qs

from starlette.requests import Request

MAX_FORM_BYTES = 4096
SAME_SITE = ("same-origin", "none")   # "none": typed or bookmarked by the user


async def refusal(request: Request, token: str) -> str | None:
    """Return why an action request is refused, or None when it comes from the studio."""
    if request.method != "POST":
        return "actions are POST requests from the studio's own page"
    fetch_site = request.headers.get("sec-fetch-site")
    if fetch_site is not None and fetch_site not in SAME_SITE:
        return f"the request came from another site (Sec-Fetch-Site: {fetch_site[:40]})"
    origin = request.headers.get("origin")
    host = request.headers.get("host", "")
    if origin is not None and origin != f"{request.url.scheme}://{host}":
        return f"the request came from another site (Origin: {origin[:80]})"
    given = request.headers.get("x-studio-token")
    if given is None:
        if int(request.headers.get("content-length") or 0) > MAX_FORM_BYTES:
            return "the form is too large"
        body = b""
        async for chunk in request.stream():
            body += chunk
            if len(body) > MAX_FORM_BYTES:
                return "the form is too large"
        given = (parse_qs(body.decode("latin-1")).get("token") or [""])[0]
    if not hmac.compare_digest(given.encode("latin-1", "replace"), token.encode("ascii")):
        return "the request does not carry this studio's token (reload the studio's page)"
    return None
