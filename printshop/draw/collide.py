"""Find text that collides: with other text, with a shape, or with the edge of its container.

A drawing is taken apart the way render.py draws it (takeapart.py): each text unit (a `<g>`
that text.py made, its runs and inline icons, or a template's own `<text>`) and each shape's
fill and stroke are drawn alone, with their transforms, clips and opacity. A laid-out run's
box comes from its glyphs' extents and a shape's from its path's; ink is drawn, at SCALE
pixels a millimetre, only where a shape's box meets a run's. Text collides when:

- two units' runs overlap, their ink touching; or stand side by side on one line closer than
  GAP_EM of the smaller text (cells that read as one line);
- a shape drawn after the text covers its ink;
- a shape drawn before the text covers part of a run's box or of CLEARANCE around it, not all
  of it, and the ground inside the shape and beside it differs (a rule, a frame edge, a dashed
  slot, a starfield's dots; a panel the text sits on wholly, or two panels of one colour
  meeting under it, are fine);
- a run lies partly outside its container (the card's trim, the board, the sheet's printable
  area) or is cut by a nested viewport's clip.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from xml.etree import ElementTree

from ..load.fonts import use_shipped_fonts

use_shipped_fonts()

import cairocffi as cairo  # noqa: E402  (fontconfig must be pointed at our fonts first)
import numpy as np  # noqa: E402

from . import drawing, render, subset  # noqa: E402
from .svgread import SVG, Unsupported  # noqa: E402
from .takeapart import (INK, SCALE, TOLERANCE, Ink, Parts, Run, TextUnit,  # noqa: E402
                        alpha_of, take_apart, within)

# Set on the five built-in games (docs/design.md): they find the defects issue 26 names (with
# takeapart.py's SCALE, TOLERANCE and INK).
MIN_AREA = 0.04        # mm²: less ink than this over or under a run is not seen
CLEARANCE = 0.3        # mm: the edge of a shape under text keeps this far from its ink
GAP_EM = 0.8           # em of the smaller text: side by side on a line, closer reads as one
EDGE_CONTRAST = 0.09   # an edge is seen when the ground's colour either side differs this much
COVERED = 40           # alpha from which a pixel counts as covered by a shape (a faint dot is)


# How text collides, the worst first: one text and one thing it hits make one finding.
HOW = ("overlaps", "is drawn over by", "runs outside", "is cut off by", "crosses the edge of",
       "runs into", "is too near the edge of")


@dataclass(frozen=True)
class Collision:
    """Text that collides: its first words, how (one of HOW), what it hits, and where (mm
    from the drawing's origin)."""

    text: str
    how: str
    what: str
    x: float
    y: float

    def __str__(self) -> str:
        near = f" (less than {CLEARANCE:g} mm)" if self.how == HOW[-1] else ""
        return f'"{self.text}" {self.how} {self.what}{near} at ({self.x:.1f}, {self.y:.1f}) mm'


def collisions(fragment: str, container: tuple[float, float, float, float],
               clip: tuple[float, float, float, float], edge: str) -> list[Collision]:
    """Return the collisions of an SVG fragment (in mm) whose text must stay inside
    ``container`` (x, y, w, h), drawn clipped to ``clip``; ``edge`` names the container."""
    root = drawing.take_tree(fragment)   # the tree the template check parsed, if kept
    if root is None:
        try:
            root = ElementTree.fromstring(f'<svg xmlns="{SVG[1:-1]}">{fragment}</svg>')
        except ElementTree.ParseError:
            return []   # never a template's output, which drawing.py has parsed and checked
    if not subset.drawable(root):
        return []   # drawn by cairosvg, which this cannot take apart
    try:
        parts = take_apart(root, clip)
    except cairo.CairoError as exc:
        raise render.DrawError(f"cairo could not draw it ({render.cairo_reason(exc)})") from None
    except RecursionError:
        raise render.DrawError("it nests elements too deeply to draw") from None
    except (Unsupported, ValueError, IndexError, TypeError) as exc:
        raise render.DrawError(f"it could not be drawn ({exc})") from None
    found = _outside(parts, container, edge) + _text_on_text(parts) + _text_and_shapes(parts)
    return _unique(found)


def _unique(found: list[Collision]) -> list[Collision]:
    """Return one collision per text and thing hit: the worst, where it was first seen."""
    worst: dict[tuple[str, str], Collision] = {}
    for hit in found:
        key = (hit.text, hit.what)
        if key not in worst or HOW.index(hit.how) < HOW.index(worst[key].how):
            worst[key] = hit
    return list(worst.values())


def _mm(px: float) -> float:
    return px / SCALE


def _raster(recording, box: tuple[int, int, int, int]) -> np.ndarray:
    """Return the alpha of a recording over a pixel box (x0, y0, x1, y1)."""
    x0, y0, x1, y1 = box
    surface = cairo.ImageSurface(cairo.FORMAT_A8, x1 - x0, y1 - y0)
    ctx = cairo.Context(surface)
    ctx.set_source_surface(recording, -x0, -y0)
    ctx.paint()
    return alpha_of(surface)


def _colour(recordings: list, box: tuple[int, int, int, int]) -> np.ndarray:
    """Return the colour (r, g, b from 0 to 1) of recordings drawn in order on white paper."""
    x0, y0, x1, y1 = box
    surface = cairo.ImageSurface(cairo.FORMAT_RGB24, x1 - x0, y1 - y0)
    ctx = cairo.Context(surface)
    ctx.set_source_rgb(1, 1, 1)
    ctx.paint()
    for recording in recordings:
        ctx.set_source_surface(recording, -x0, -y0)
        ctx.paint()
    surface.flush()
    pixels = np.frombuffer(surface.get_data(), np.uint8).reshape(y1 - y0,
                                                                 surface.get_stride() // 4, 4)
    return pixels[:, :x1 - x0, :3] / 255.0


def _inner(box, slack: int) -> tuple[int, int, int, int] | None:
    """Return a pixel box shrunk by ``slack`` on each side, or the box when too small."""
    x0, y0, x1, y1 = box
    if x1 - x0 > 2 * slack + 1 and y1 - y0 > 2 * slack + 1:
        return x0 + slack, y0 + slack, x1 - slack, y1 - slack
    return box


def _where(box, rows=None, cols=None) -> tuple[float, float]:
    """Return the middle of a pixel box (or of the given rows and columns in it) in mm."""
    x0, y0, x1, y1 = box
    if rows is not None and len(rows):
        return _mm(x0 + float(np.mean(cols)) + 0.5), _mm(y0 + float(np.mean(rows)) + 0.5)
    return _mm((x0 + x1) / 2), _mm((y0 + y1) / 2)


# The rules


def _outside(drawing: Parts, container, edge: str) -> list[Collision]:
    """Text partly outside its container, or cut by a viewport's clip."""
    x, y, w, h = container
    outer = (x * SCALE, y * SCALE, (x + w) * SCALE, (y + h) * SCALE)
    found = []
    for unit in drawing.texts:
        for run in unit.runs:
            if not within(run.box, outer):
                x, y = (_beyond(run.box[0], run.box[2], outer[0], outer[2]),
                        _beyond(run.box[1], run.box[3], outer[1], outer[3]))
                found.append(Collision(unit.words, "runs outside", edge, _mm(x), _mm(y)))
    for unit, run, clip in drawing.clipped:
        found.append(Collision(unit.words, "is cut off by", "its viewport's edge",
                               *_where(run.box)))
    return found


def _beyond(low: float, high: float, start: float, end: float) -> float:
    """Return the middle of the part of [low, high] outside [start, end] (or of all of it)."""
    if high > end:
        return (max(low, end) + high) / 2
    if low < start:
        return (low + min(high, start)) / 2
    return (low + high) / 2


def _text_on_text(drawing: Parts) -> list[Collision]:
    """Two text units whose runs overlap, or stand on one line too close to read apart."""
    slack = TOLERANCE * SCALE
    found = []
    runs = [(unit, run) for unit in drawing.texts for run in unit.runs]
    runs.sort(key=lambda item: item[1].box[0])
    for i, (unit, run) in enumerate(runs):
        ax0, ay0, ax1, ay1 = run.box
        gap = GAP_EM * run.em
        for other_unit, other in runs[i + 1:]:
            bx0, by0, bx1, by1 = other.box
            if bx0 > ax1 + max(gap, GAP_EM * other.em):
                break
            if other_unit is unit:
                continue
            across = min(ax1, bx1) - max(ax0, bx0)
            down = min(ay1, by1) - max(ay0, by0)
            if across > slack and down > slack:
                box = (max(ax0, bx0), max(ay0, by0), min(ax1, bx1), min(ay1, by1))
                if _touch(run, other, box):
                    found.append(Collision(unit.words, "overlaps", f'"{other_unit.words}"',
                                           *_where(box)))
                continue
            if not (run.em and other.em and run.upright and other.upright) \
                    or _joins(unit.words) or _joins(other_unit.words):
                continue
            line = min(ay1 - ay0, by1 - by0)
            if down >= 0.5 * line and -across < GAP_EM * min(run.em, other.em):
                box = (min(ax1, bx1), max(ay0, by0), max(ax0, bx0), min(ay1, by1))
                found.append(Collision(unit.words, "runs into", f'"{other_unit.words}"',
                                       *_where(box)))
    return found


def _joins(words: str) -> bool:
    """Return whether a text is only a joining sign ("&", "+", "·"): set apart to colour the
    words either side, it makes them one line, meant to be read as one."""
    return not any(ch.isalnum() for ch in words)


def _touch(run: Run, other: Run, box) -> bool:
    """Return whether two runs' ink touches (within a pixel) inside a box where both lie."""
    x0, y0, x1, y1 = box
    a = _part(run, box) >= INK
    b = _grow(_part(other, box) >= INK, 1)
    return bool((a & b).any()) if a.size and x1 > x0 and y1 > y0 else False


def _part(run: Run, box) -> np.ndarray:
    """Return a run's alpha inside a box that lies within its own."""
    x0, y0 = run.box[:2]
    return run.mask[box[1] - y0:box[3] - y0, box[0] - x0:box[2] - x0]


def _grow(mask: np.ndarray, pixels: int) -> np.ndarray:
    """Return a boolean mask grown by ``pixels`` in the four directions, step by step."""
    for _ in range(pixels):
        grown = mask.copy()
        grown[1:] |= mask[:-1]
        grown[:-1] |= mask[1:]
        grown[:, 1:] |= mask[:, :-1]
        grown[:, :-1] |= mask[:, 1:]
        mask = grown
    return mask


def _text_and_shapes(drawing: Parts) -> list[Collision]:
    """Shapes over a text's ink, and edges of shapes under it or too near it."""
    least = max(1, round(MIN_AREA * SCALE * SCALE))
    slack = max(1, round(TOLERANCE * SCALE))
    clear = round(CLEARANCE * SCALE)
    marks = drawing.marks
    if not marks:
        return []
    boxes = np.array([m.box for m in marks])
    orders = np.array([m.order for m in marks])
    found = []
    for unit in drawing.texts:
        later = orders > unit.order
        for run in unit.runs:
            inner = _inner(run.box, slack)
            x0, y0, x1, y1 = run.box
            ring = (x0 - clear, y0 - clear, x1 + clear, y1 + clear)
            over = [marks[i] for i in np.flatnonzero(later & _meeting(boxes, inner))
                    if not _holds(marks[i].hole, inner)]
            under = [marks[i] for i in np.flatnonzero(~later & _meeting(boxes, ring))]
            found += _drawn_over(unit, run, inner, over, least)
            found += _edges_under(unit, run, inner, ring, under, least)
    return found


def _meeting(boxes: np.ndarray, box) -> np.ndarray:
    """Return which of the boxes (rows x0, y0, x1, y1) meet a box."""
    return ((boxes[:, 0] < box[2]) & (box[0] < boxes[:, 2]) & (boxes[:, 1] < box[3])
            & (box[1] < boxes[:, 3]))


def _holds(outer, box) -> bool:
    return outer is not None and outer[0] <= box[0] and outer[1] <= box[1] \
        and outer[2] >= box[2] and outer[3] >= box[3]


def _covered(mark: Ink, region) -> np.ndarray | None:
    """Return which pixels of a region a mark covers; None when it covers all of them or
    none, known without drawing (a card's ground or a panel around the region, a frame's
    stroke around it)."""
    if _holds(mark.core, region) or _holds(mark.hole, region):
        return None
    if not mark.solid:
        return _raster(mark.recording, region) >= COVERED
    x0, y0, x1, y1 = region
    bx0, by0, bx1, by1 = mark.box
    if bx0 <= x0 and by0 <= y0 and bx1 >= x1 and by1 >= y1:
        return None
    covered = np.zeros((y1 - y0, x1 - x0), bool)
    cols = [min(max(math.ceil(v - x0 - 0.5), 0), x1 - x0) for v in (bx0, bx1)]
    rows = [min(max(math.ceil(v - y0 - 0.5), 0), y1 - y0) for v in (by0, by1)]
    covered[rows[0]:rows[1], cols[0]:cols[1]] = True
    return covered


def _drawn_over(unit: TextUnit, run: Run, inner, marks: list[Ink], least: int
                ) -> list[Collision]:
    """A shape drawn after the text, over its ink."""
    found = []
    if not marks:
        return found
    x0, y0 = run.box[:2]
    text = run.mask[inner[1] - y0:inner[3] - y0, inner[0] - x0:inner[2] - x0] >= INK
    for mark in marks:
        hit = (_raster(mark.recording, inner) >= COVERED) & text
        if hit.sum() >= least:
            rows, cols = np.nonzero(hit)
            found.append(Collision(unit.words, "is drawn over by", mark.name,
                                   *_where(inner, rows, cols)))
    return found


def _edges_under(unit: TextUnit, run: Run, inner, ring, marks: list[Ink], least: int
                 ) -> list[Collision]:
    """A shape drawn before the text covering part of its box (or of the clearance around
    it), its edge seen: the ground inside the shape and beside it differ. Around a turned
    run, whose box holds much that is not near it, only the pixels near its ink count."""
    found = []
    ground = None
    clear = (inner[0] - ring[0]) if run.upright else run.box[0] - ring[0]
    near = None if run.upright else _grow(np.pad(run.mask >= INK, clear), clear)
    if run.upright:
        ink = np.zeros((ring[3] - ring[1], ring[2] - ring[0]), bool)
        ink[inner[1] - ring[1]:inner[3] - ring[1], inner[0] - ring[0]:inner[2] - ring[0]] = True
    else:
        ink = np.pad(run.mask >= INK, clear)
    for mark in marks:
        covered = _covered(mark, ring)
        if covered is None:
            continue
        mine, rest = (covered, ~covered) if near is None else (covered & near, near & ~covered)
        if int(mine.sum()) < least or int(rest.sum()) < least:
            continue
        if ground is None:
            ground = _colour([m.recording for m in marks], ring)
        if float(np.abs(ground[mine].mean(axis=0) - ground[rest].mean(axis=0)).max()) \
                < EDGE_CONTRAST:
            continue
        crossed = least <= int((covered & ink).sum()) <= int(ink.sum()) - least
        rows, cols = np.nonzero(mine)
        found.append(Collision(unit.words, HOW[4] if crossed else HOW[-1], mark.name,
                               *_where(ring, rows, cols)))
    return found
