"""Draw a map as SVG in millimetres: land, borders, the Frontier band, the Sea, and in each
region its number, icons, tribes and city, placed where the region has the most room."""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Callable

import shapely
from shapely import LineString, MultiLineString, Polygon
from shapely.ops import polylabel

from ...draw.text import PT, text_box, text_width
from .model import Region, WorldMap

Icon = Callable[[str, float, float, float], str]
TERRAIN_ORDER = ("mountain", "volcano", "forest", "farm", "desert", "fault-line")
MIN_ICON_MM = 2.8       # smallest terrain icon
MIN_BADGE_MM = 2.1      # smallest number badge radius: room for a 7 pt digit
MIN_AV_MM = 1.5         # half the height of the City's AV label
MAX_TRIBE_ICONS = 5     # more Tribes are written as +n


class MapDrawError(ValueError):
    """A map that cannot be drawn (it gives no outlines)."""


@dataclass(frozen=True)
class Palette:
    """The colours of a map, taken from the game's style where it names them."""

    ink: str = "#2b2118"
    land: str = "#f7f0e0"
    border: str = "#7a6a58"
    badge: str = "#8c4a1f"
    badge_text: str = "#f7f0e0"
    sea: str = "#dbe7ef"
    sea_ink: str = "#2e64a8"
    frontier: str = "#e3d6ac"
    frontier_ink: str = "#6e5f33"

    @classmethod
    def from_style(cls, style: dict) -> "Palette":
        """Build a palette from a game's style colours (ink, paper, accent, muted, blue)."""
        base = cls()
        paper = style.get("paper", base.land)
        blue = style.get("blue", base.sea_ink)
        return cls(ink=style.get("ink", base.ink), land=paper,
                   border=style.get("muted", base.border),
                   badge=style.get("accent", base.badge), badge_text=paper,
                   sea=mix(blue, "#ffffff", 0.2), sea_ink=blue,
                   frontier=mix(style.get("gold", "#d9a21b"), paper, 0.3),
                   frontier_ink=mix(style.get("ink", base.ink), base.frontier_ink, 0.5))

    def low_ink(self) -> "Palette":
        """Return the palette with pale fills, for printing with little ink."""
        return replace(self, sea="#ffffff", land="#ffffff", frontier=mix(self.frontier,
                                                                          "#ffffff", 0.4))


def mix(a: str, b: str, share: float) -> str:
    """Return colour a mixed into colour b: share 1 is all a, 0 all b."""
    ca = [int(a[i:i + 2], 16) for i in (1, 3, 5)]
    cb = [int(b[i:i + 2], 16) for i in (1, 3, 5)]
    return "#" + "".join(f"{round(x * share + y * (1 - share)):02x}" for x, y in zip(ca, cb))


def _f(v: float) -> str:
    """Format a number for SVG."""
    text = f"{v:.2f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


@dataclass(frozen=True)
class Frame:
    """Map units to millimetres: scale and offset."""

    scale: float
    dx: float
    dy: float

    def __call__(self, p) -> tuple[float, float]:
        return (self.dx + p[0] * self.scale, self.dy + p[1] * self.scale)


def _path(points, closed: bool) -> str:
    """Return SVG path data through the points."""
    d = "M" + " L".join(f"{_f(x)} {_f(y)}" for x, y in points)
    return d + (" Z" if closed else "")


def _frame(world: WorldMap, x: float, y: float, w: float, h: float, edge: float) -> Frame:
    """Fit the land into the box, keeping ``edge`` mm round it for the band and labels."""
    xs = [p[0] for r in world.regions for line in r.outline for p in line]
    ys = [p[1] for r in world.regions for line in r.outline for p in line]
    span_x, span_y = max(xs) - min(xs), max(ys) - min(ys)
    scale = min((w - 2 * edge) / span_x, (h - 2 * edge) / span_y)
    dx = x + (w - span_x * scale) / 2 - min(xs) * scale
    dy = y + (h - span_y * scale) / 2 - min(ys) * scale
    return Frame(scale, dx, dy)


def _coast_lines(world: WorldMap, frame: Frame) -> dict[str, list[list]]:
    """Return, for each Frontier and Sea, the coast lines it lies along (in mm)."""
    areas = {a.id for a in world.areas}
    out: dict[str, list[list]] = {a: [] for a in areas}
    for r in world.regions:
        for other, line in zip(r.borders, r.outline):
            if other in areas:
                out[other].append([frame(p) for p in line])
    return out


def _outward(line: LineString, at: float, land) -> tuple[tuple[float, float],
                                                       tuple[float, float]]:
    """Return the point ``at`` mm along a coast line and the unit normal pointing to sea."""
    p = line.interpolate(at)
    before = line.interpolate(max(0.0, at - 1.0))
    after = line.interpolate(min(line.length, at + 1.0))
    tx, ty = after.x - before.x, after.y - before.y
    norm = math.hypot(tx, ty) or 1.0
    nx, ny = ty / norm, -tx / norm
    if land.contains(shapely.Point(p.x + nx * 0.5, p.y + ny * 0.5)):
        nx, ny = -nx, -ny
    return (p.x, p.y), (nx, ny)


def _area_label(text: str, lines: list[list], land, gap: float, pt: float, color: str,
                icon: Icon, icon_name: str, box: tuple) -> str:
    """Draw an area's name (with its icon) beyond the middle of its longest coast line;
    beside a left or right coast it is turned to read along that side."""
    line = LineString(max(lines, key=lambda pts: LineString(pts).length))
    (px, py), (nx, ny) = _outward(line, line.length / 2, land)
    size = pt * PT
    mark = size * 1.3
    tw = mark + text_width(text, pt, "body", "bold") + 0.4
    th = size * 1.4
    x0, y0, x1, y1 = box
    spots = []
    for upright in (abs(ny) >= abs(nx), abs(ny) < abs(nx)):
        bw, bh = (tw, th) if upright else (th, tw)
        reach = gap + abs(nx) * bw / 2 + abs(ny) * bh / 2
        want = (px + nx * reach, py + ny * reach)
        cx = min(max(want[0], x0 + bw / 2 + 1.0), x1 - bw / 2 - 1.0)
        cy = min(max(want[1], y0 + bh / 2 + 1.0), y1 - bh / 2 - 1.0)
        spots.append((math.dist(want, (cx, cy)) > 0.5, (cx, cy), upright))
    _, (cx, cy), upright = min(spots, key=lambda spot: spot[0])
    body = (icon(icon_name, -tw / 2, (th - size * 1.1) / 2 - th / 2, size * 1.1) +
            str(text_box(text, -tw / 2 + mark, -th / 2, tw - mark + 0.4, th, size=pt,
                         color=color, weight="bold", valign="middle", wrap=False)))
    turn = 0 if upright else (90 if nx > 0 else -90)
    return f'<g transform="translate({_f(cx)} {_f(cy)}) rotate({turn})">{body}</g>'


def _fringe(lines: list[list], land, band: float, color: str) -> str:
    """Draw short hatch strokes across the Frontier band, like the edge of a hill map."""
    out = []
    step = band * 0.9
    for pts in lines:
        line = LineString(pts)
        n = int(line.length // step)
        for k in range(n):
            at = (k + 0.5) * line.length / n
            (px, py), (nx, ny) = _outward(line, at, land)
            out.append(f"M{_f(px + nx * band * 0.3)} {_f(py + ny * band * 0.3)} "
                       f"L{_f(px + nx * band * 0.85)} {_f(py + ny * band * 0.85)}")
    if not out:
        return ""
    return (f'<path d="{" ".join(out)}" fill="none" stroke="{color}" stroke-width="0.25" '
            f'stroke-linecap="round"/>')


def _cluster(region: Region, shape: Polygon, palette: Palette, icon: Icon,
             size: float) -> str:
    """Draw a region's number badge, city, terrain icons and tribes where it has most room."""
    spot = polylabel(shape, tolerance=0.2)
    terrain = [i for i in TERRAIN_ORDER if i in region.icons]
    tribes = min(region.tribes, MAX_TRIBE_ICONS)
    for scale in (1.0, 0.85, 0.72):
        s = max(MIN_ICON_MM, size * scale)
        badge = max(0.6 * s, MIN_BADGE_MM)
        av = max(0.3 * s, MIN_AV_MM)
        person = 0.75 * s
        row1 = 2 * badge + (0.5 * s + s + av * 3.2 if region.city else 0)
        row2 = len(terrain) * s * 1.15 + (0.15 * s if terrain and tribes else 0) + \
            tribes * person * 0.72
        width = max(row1, row2)
        height = 2 * badge + (0.25 * s + s if row2 else 0)
        box = shapely.box(spot.x - width / 2, spot.y - height / 2,
                          spot.x + width / 2, spot.y + height / 2)
        if shape.contains(box):
            break
    x0, y0 = spot.x - row1 / 2, spot.y - height / 2
    out = [f'<circle cx="{_f(x0 + badge)}" cy="{_f(y0 + badge)}" r="{_f(badge)}" '
           f'fill="{palette.badge}"/>',
           str(text_box(str(region.number), x0, y0, 2 * badge, 2 * badge,
                        size=min(16.0, max(7.0, badge * 1.25 / PT)), color=palette.badge_text,
                        align="center", valign="middle", weight="bold", font="title",
                        wrap=False))]
    if region.city:
        cx = x0 + 2 * badge + 0.2 * s
        out.append(icon("city", cx, y0 + badge - s / 2, s))
        out.append(str(text_box(f"AV{region.city}", cx + s + 0.3, y0 + badge - av, av * 3.2,
                                2 * av, size=7, color=palette.ink, valign="middle",
                                weight="bold", wrap=False)))
    x = spot.x - row2 / 2
    y = y0 + 2 * badge + 0.25 * s
    for name in terrain:
        out.append(icon(name, x, y, s))
        x += s * 1.15
    if terrain and tribes:
        x += 0.15 * s
    for _ in range(tribes):
        out.append(icon("tribe", x, y + s - person, person))
        x += person * 0.72
    if region.tribes > tribes:
        out.append(str(text_box(f"+{region.tribes - tribes}", x + 0.4, y + s - 3.0, 6, 3.0,
                                size=7, color=palette.ink, wrap=False)))
    return "".join(out)


def draw_map(world: WorldMap, x: float, y: float, w: float, h: float, palette: Palette,
             icon: Icon) -> str:
    """Return SVG drawing the map inside the box (x, y, w, h), all in millimetres."""
    if any(r.outline is None for r in world.regions):
        raise MapDrawError("the map gives no outlines, so it cannot be drawn; generate it "
                           "from a seed or add an outline to every region")
    unit = max(3.2, min(6.5, w / 42))
    band = 0.8 * unit
    pt = max(7.5, min(10.0, unit * 1.5))
    frame = _frame(world, x, y, w, h, band + 1.0 + 2.2 * pt * PT)
    shapes = {r.id: Polygon([frame(p) for p in r.ring()]) for r in world.regions}
    land = shapely.union_all(list(shapes.values()))
    coasts = _coast_lines(world, frame)
    out = [f'<rect x="{_f(x)}" y="{_f(y)}" width="{_f(w)}" height="{_f(h)}" rx="2" '
           f'fill="{palette.sea}"/>']
    echo = land.buffer(0.9 * unit * 0.5, join_style="round")
    for part in getattr(echo, "geoms", [echo]):
        out.append(f'<path d="{_path(part.exterior.coords[:-1], True)}" fill="none" '
                   f'stroke="{palette.sea_ink}" stroke-opacity="0.45" stroke-width="0.2"/>')
    for area in world.frontiers:
        strip = MultiLineString(coasts[area.id]).buffer(band, cap_style="flat",
                                                         join_style="round")
        for part in getattr(strip, "geoms", [strip]):
            out.append(f'<path d="{_path(part.exterior.coords[:-1], True)}" '
                       f'fill="{palette.frontier}" stroke="{palette.frontier_ink}" '
                       f'stroke-width="0.25"/>')
        out.append(_fringe(coasts[area.id], land, band, palette.frontier_ink))
    for r in world.regions:
        out.append(f'<path d="{_path(shapes[r.id].exterior.coords[:-1], True)}" '
                   f'fill="{palette.land}"/>')
    areas = {a.id for a in world.areas}
    for r in world.regions:
        for other, line in zip(r.borders, r.outline):
            if other not in areas and other < r.id:
                continue
            coast = other in areas
            out.append(f'<path d="{_path([frame(p) for p in line], False)}" fill="none" '
                       f'stroke="{palette.ink if coast else palette.border}" '
                       f'stroke-width="{0.55 if coast else 0.35}" stroke-linejoin="round" '
                       f'stroke-linecap="round"/>')
    for r in world.regions:
        out.append(_cluster(r, shapes[r.id], palette, icon, unit))
    for area in world.areas:
        if coasts[area.id]:
            frontier = area.kind == "frontier"
            out.append(_area_label(area.label.removeprefix("the ").upper(), coasts[area.id],
                                   land, band + 1.0 if frontier else unit * 0.6, pt,
                                   palette.frontier_ink if frontier else palette.sea_ink,
                                   icon, area.kind, (x, y, x + w, y + h)))
    return "".join(out)
