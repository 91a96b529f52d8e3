"""Where the regions' sites go: scattered in the land (m1) or spread as the best of a few
candidates (m2), then moved by Lloyd relaxation over a grid of points inside the land."""

from __future__ import annotations

import numpy as np
import shapely
from shapely import Polygon

from .coast import Point
from .land import FRAME, Bounds
from .seed import between


SAMPLES = 32                # grid points across the frame when relaxing sites
M2_CANDIDATES = 4           # points drawn for each site, the one farthest from the others kept


def scatter_sites(stream, shape: Polygon, n: int, bounds: Bounds) -> list[Point]:
    """Scatter n points inside a piece of land (the first n of a stream of tries)."""
    x0, y0, x1, y1 = bounds
    shapely.prepare(shape)
    out: list[Point] = []
    while len(out) < n:
        tries = [(between(stream, x0, x1), between(stream, y0, y1)) for _ in range(2 * n)]
        inside = shapely.contains_xy(shape, *np.array(tries).T)
        out.extend(p for p, ok in zip(tries, inside) if ok)
    return out[:n]


def grid_samples(shape: Polygon, bounds: Bounds,
             across: int = SAMPLES) -> tuple[np.ndarray, np.ndarray]:
    """Return a fine grid of points inside the land, ``across`` to the frame's width, for
    relaxing the sites: (xs, ys)."""
    x0, y0, x1, y1 = bounds
    step = FRAME / across
    across, down = np.arange(x0 + step / 2, x1, step), np.arange(y0 + step / 2, y1, step)
    xs, ys = np.tile(across, len(down)), np.repeat(down, len(across))    # row by row
    inside = shapely.contains_xy(shape, xs, ys)
    return xs[inside], ys[inside]


def relax(sites: list[Point], samples: tuple[np.ndarray, np.ndarray],
           rounds: int) -> np.ndarray:
    """Move each site to the centre of the land nearest to it, ``rounds`` times (Lloyd);
    a site no sample is nearest to stays where it is. Return the sites as an (n, 2) array."""
    xs, ys = samples
    cx, cy = np.array(sites).T
    n = len(sites)
    for _ in range(rounds):
        d2 = xs - cx[:, None]                        # a row per site: dx * dx + dy * dy,
        d2 *= d2                                     # worked in place (the same numbers)
        dy = ys - cy[:, None]
        dy *= dy
        d2 += dy
        nearest = d2.argmin(axis=0)
        counts = np.bincount(nearest, minlength=n)
        sum_x = np.bincount(nearest, weights=xs, minlength=n)
        sum_y = np.bincount(nearest, weights=ys, minlength=n)
        if counts.all():                             # as a rule every site has samples
            cx, cy = sum_x / counts, sum_y / counts
        else:
            moved = counts > 0
            cx = np.divide(sum_x, counts, out=cx, where=moved)
            cy = np.divide(sum_y, counts, out=cy, where=moved)
    return np.stack([cx, cy], axis=1)


def spread_sites(stream, samples: tuple[np.ndarray, np.ndarray], n: int) -> list[Point]:
    """Pick n of the land's sample points for sites, each the farthest from those before it
    of M2_CANDIDATES drawn for it (Mitchell's best candidate): already fairly even, so a few
    rounds of Lloyd finish the job."""
    xs, ys = samples
    draw, count = stream.random, len(xs)
    drawn = [min(int(draw() * count), count - 1) for _ in range(n * M2_CANDIDATES)]  # below()
    pool = list(zip(xs[drawn].tolist(), ys[drawn].tolist()))
    chosen = [pool[0]]
    for k in range(M2_CANDIDATES, n * M2_CANDIDATES, M2_CANDIDATES):
        best, far = pool[k], -1.0
        for x, y in pool[k:k + M2_CANDIDATES]:
            near = min([(x - cx) * (x - cx) + (y - cy) * (y - cy) for cx, cy in chosen])
            if near > far:
                best, far = (x, y), near
        chosen.append(best)
    return chosen
