"""SVG path data read into cairo's path operations (arcs by their centre), kept for path
data a drawing repeats (an icon on every card)."""

from __future__ import annotations

import math
import re

from .svgread import Unsupported, kept

_PATH_TOKEN = re.compile(r"([MmLlHhVvCcSsQqTtAaZz])|([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)")


def _arc_to(ctx, x1, y1, rx, ry, angle, large, sweep, x2, y2) -> None:
    """Append an SVG elliptical arc as cairo arcs (endpoint to centre parameterisation)."""
    if rx == 0 or ry == 0 or (x1 == x2 and y1 == y2):
        ctx.line_to(x2, y2)
        return
    rx, ry = abs(rx), abs(ry)
    phi = math.radians(angle)
    cos_p, sin_p = math.cos(phi), math.sin(phi)
    dx, dy = (x1 - x2) / 2, (y1 - y2) / 2
    x1p, y1p = cos_p * dx + sin_p * dy, -sin_p * dx + cos_p * dy
    lam = (x1p / rx) ** 2 + (y1p / ry) ** 2
    if lam > 1:
        rx, ry = rx * math.sqrt(lam), ry * math.sqrt(lam)
    num = rx * rx * ry * ry - rx * rx * y1p * y1p - ry * ry * x1p * x1p
    den = rx * rx * y1p * y1p + ry * ry * x1p * x1p
    coef = math.sqrt(max(0.0, num / den)) if den else 0.0
    if large == sweep:
        coef = -coef
    cxp, cyp = coef * rx * y1p / ry, -coef * ry * x1p / rx
    cx = cos_p * cxp - sin_p * cyp + (x1 + x2) / 2
    cy = sin_p * cxp + cos_p * cyp + (y1 + y2) / 2
    start = math.atan2((y1p - cyp) / ry, (x1p - cxp) / rx)
    end = math.atan2((-y1p - cyp) / ry, (-x1p - cxp) / rx)
    ctx.save()
    ctx.translate(cx, cy)
    ctx.rotate(phi)
    ctx.scale(rx, ry)
    if sweep:
        ctx.arc(0, 0, 1, start, end)
    else:
        ctx.arc_negative(0, 0, 1, start, end)
    ctx.restore()


def append_path(ctx, d: str) -> None:
    """Append SVG path data to the cairo path: the operations it reads to, read once for
    path data a drawing repeats (an icon on every card), are replayed on the context."""
    for name, args in path_ops(d):
        getattr(ctx, name)(*args)


class _Trace:
    """Stands in for a cairo context while path data is read: keeps each operation, with
    its arguments, to be replayed on a real context (the same calls, so the same bytes)."""

    def __init__(self):
        self.ops: list[tuple[str, tuple]] = []

    def __getattr__(self, name: str):
        return lambda *args: self.ops.append((name, args))


@kept
def path_ops(d: str) -> tuple:
    """Return the cairo operations SVG path data reads to; Unsupported when it is malformed."""
    trace = _Trace()
    _read_path(trace, d)
    return tuple(trace.ops)


def _read_path(ctx, d: str) -> None:
    """Append SVG path data to the path of ``ctx`` (a _Trace)."""
    tokens = _PATH_TOKEN.findall(d or "")
    i, n = 0, len(tokens)
    cmd = None
    x = y = sx = sy = 0.0
    last_ctrl = None
    last_cmd = ""

    def nums(count):
        nonlocal i
        out = []
        for _ in range(count):
            if i >= n or tokens[i][1] == "":
                raise Unsupported("malformed path")
            out.append(float(tokens[i][1]))
            i += 1
        return out

    while i < n:
        if tokens[i][0]:
            cmd = tokens[i][0]
            i += 1
            if cmd in "Zz":
                ctx.close_path()
                x, y = sx, sy
                last_cmd, last_ctrl = cmd, None
                continue
        elif cmd is None:
            raise Unsupported("path data must start with a command")
        rel = cmd.islower()
        c = cmd.upper()
        if c == "M":
            px, py = nums(2)
            x, y = (x + px, y + py) if rel else (px, py)
            ctx.move_to(x, y)
            sx, sy = x, y
            cmd = "l" if rel else "L"
            last_ctrl = None
        elif c == "L":
            px, py = nums(2)
            x, y = (x + px, y + py) if rel else (px, py)
            ctx.line_to(x, y)
            last_ctrl = None
        elif c == "H":
            (px,) = nums(1)
            x = x + px if rel else px
            ctx.line_to(x, y)
            last_ctrl = None
        elif c == "V":
            (py,) = nums(1)
            y = y + py if rel else py
            ctx.line_to(x, y)
            last_ctrl = None
        elif c == "C":
            a = nums(6)
            if rel:
                a = [a[0] + x, a[1] + y, a[2] + x, a[3] + y, a[4] + x, a[5] + y]
            ctx.curve_to(*a)
            last_ctrl = (a[2], a[3])
            x, y = a[4], a[5]
        elif c == "S":
            a = nums(4)
            if rel:
                a = [a[0] + x, a[1] + y, a[2] + x, a[3] + y]
            if last_ctrl and last_cmd.upper() in "CS":
                c1 = (2 * x - last_ctrl[0], 2 * y - last_ctrl[1])
            else:
                c1 = (x, y)
            ctx.curve_to(c1[0], c1[1], a[0], a[1], a[2], a[3])
            last_ctrl = (a[0], a[1])
            x, y = a[2], a[3]
        elif c in "QT":
            if c == "Q":
                a = nums(4)
                if rel:
                    a = [a[0] + x, a[1] + y, a[2] + x, a[3] + y]
                qx, qy, ex, ey = a
            else:
                ex, ey = nums(2)
                if rel:
                    ex, ey = ex + x, ey + y
                if last_ctrl and last_cmd.upper() in "QT":
                    qx, qy = 2 * x - last_ctrl[0], 2 * y - last_ctrl[1]
                else:
                    qx, qy = x, y
            ctx.curve_to(x + 2 / 3 * (qx - x), y + 2 / 3 * (qy - y),
                         ex + 2 / 3 * (qx - ex), ey + 2 / 3 * (qy - ey), ex, ey)
            last_ctrl = (qx, qy)
            x, y = ex, ey
        elif c == "A":
            rx, ry, angle = nums(3)
            large, sweep = nums(2)
            ex, ey = nums(2)
            if rel:
                ex, ey = ex + x, ey + y
            _arc_to(ctx, x, y, rx, ry, angle, bool(large), bool(sweep), ex, ey)
            x, y = ex, ey
            last_ctrl = None
        last_cmd = cmd
