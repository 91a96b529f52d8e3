"""Pictures inside drawings: one check for every route a picture takes into a page.

A picture reaches a drawing through image() in a template or written by the template itself
as a data: URL; either way its bytes must be the kind they claim, its declared size must be
within ``max_pixels`` (checked from the header, before anything is decoded) and it must decode.
"""

from __future__ import annotations

import base64
import binascii
import io
import re

from ..files import limits

# The one way to write a picture inside a drawing: lower case, base64, a kind cairo draws.
DATA_URL = re.compile(r"data:image/(png|jpeg|gif);base64,(.*)", re.DOTALL)
_SIGNATURES = {"png": (b"\x89PNG\r\n\x1a\n",), "jpeg": (b"\xff\xd8",),
               "gif": (b"GIF87a", b"GIF89a")}
_JPEG_FRAMES = {0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF}


class PictureError(ValueError):
    """A picture that must not be drawn: says why."""


def kind_of(raw: bytes) -> str | None:
    """Return 'png', 'jpeg' or 'gif' from a picture's first bytes, or None."""
    for kind, signatures in _SIGNATURES.items():
        if raw.startswith(signatures):
            return kind
    return None


def picture_size(raw: bytes) -> tuple[int, int] | None:
    """Return the (width, height) a PNG, JPEG or GIF declares in its header, or None."""
    if raw.startswith(b"\x89PNG\r\n\x1a\n") and raw[12:16] == b"IHDR":
        return int.from_bytes(raw[16:20], "big"), int.from_bytes(raw[20:24], "big")
    if raw.startswith((b"GIF87a", b"GIF89a")) and len(raw) >= 10:
        return int.from_bytes(raw[6:8], "little"), int.from_bytes(raw[8:10], "little")
    if raw.startswith(b"\xff\xd8"):
        at = 2
        while at + 9 < len(raw):
            if raw[at] != 0xFF:
                return None
            marker = raw[at + 1]
            if marker == 0xFF:
                at += 1
                continue
            length = int.from_bytes(raw[at + 2:at + 4], "big")
            if marker in _JPEG_FRAMES:
                return (int.from_bytes(raw[at + 7:at + 9], "big"),
                        int.from_bytes(raw[at + 5:at + 7], "big"))
            at += 2 + length
    return None


def check_picture(raw: bytes, kind: str, what: str) -> None:
    """Refuse picture bytes that are not the ``kind`` they claim, too large or unreadable."""
    bounds = limits.current()
    if len(raw) > bounds.max_image_bytes:
        raise PictureError(f"{what}: " + limits.exceeded(
            "max_image_bytes", f"it is {len(raw):,} bytes", bounds.max_image_bytes))
    found = kind_of(raw)
    if found != kind:
        raise PictureError(f"{what}: its bytes are {'a ' + found.upper() if found else 'no'} "
                           f"picture, not a {kind.upper()} as it claims")
    size = picture_size(raw)
    if size is None or size[0] < 1 or size[1] < 1:
        raise PictureError(f"{what} is not a readable {kind.upper()} picture (no size, or 0 "
                           "pixels wide or high)")
    w, h = size
    if w * h > bounds.max_pixels:
        raise PictureError(f"{what}: " + limits.exceeded(
            "max_pixels", f"it is {w:,} x {h:,} = {w * h:,} pixels", bounds.max_pixels))
    from PIL import Image

    try:
        with Image.open(io.BytesIO(raw)) as image:
            if image.size != (w, h):
                raise PictureError(f"{what}: its header and its data disagree on its size")
            image.load()
    except PictureError:
        raise
    except Exception:   # Pillow raises many kinds for damaged data; each means the same here
        raise PictureError(f"{what} is not a readable {kind.upper()} picture (its data is "
                           "damaged or cut short)") from None


def check_data_url(url: str) -> None:
    """Refuse a data: URL that is not a checked picture written the one accepted way."""
    found = DATA_URL.fullmatch(url.strip())
    if found is None:
        raise PictureError("a picture inside a drawing is written data:image/png;base64,... "
                           "(or jpeg, gif; lower case): use image('name.png') in a template")
    bounds = limits.current()
    text = re.sub(r"\s+", "", found.group(2))
    if len(text) > bounds.max_image_bytes * 4 // 3 + 4:
        raise PictureError("a picture in a data: URL: " + limits.exceeded(
            "max_image_bytes", f"it is about {len(text) * 3 // 4:,} bytes",
            bounds.max_image_bytes))
    try:
        raw = base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        raise PictureError("a picture in a data: URL is not valid base64") from None
    check_picture(raw, found.group(1), "a picture in a data: URL")
