"""Map algorithm m2, the default: the same land, sites and checks as m1, each site the best of
a few candidates, three rounds of Lloyd, short borders pulled apart rather than dropped, the
cells built from the Delaunay triangles (voronoi.py), fresh sites on the same land after a
failed try."""

from __future__ import annotations

import numpy as np
import shapely
from shapely import Polygon

from .coast import Point, give_coast, min_border
from .land import ATTEMPTS, GenerationError, draw_land
from .layout import COAST, Layout, clean
from .seed import Seed
from .sites import grid_samples, relax, spread_sites
from .variant import Variant
from .voronoi import clipped_cells, untangled


M2_ROUNDS = 3                 # Lloyd rounds for m2's sites
M2_SAMPLES = 24               # grid points across the frame when relaxing them
M2_SITE_TRIES = 8             # fresh sites on the same land before the land is drawn again
M2_OUTLINES = 1000            # outlines of land drawn at most (islands drop most of them)


def _coast_outline(shape: Polygon) -> np.ndarray:
    """Return the land's outline as an (n, 2) array running clockwise on the page (which,
    y growing downwards, is anticlockwise in GEOS's eyes)."""
    ring = shapely.get_exterior_ring(shape)
    outline = shapely.get_coordinates(ring)[:-1]
    return outline if shapely.is_ccw(ring) else outline[::-1].copy()


def _m2_piece(stream, shape: Polygon, n: int, land_area: float, v: Variant) -> Layout | None:
    """Return the layout of one piece of land's n regions: sites relaxed by M2_ROUNDS rounds
    of Lloyd, their Voronoi cells clipped to the land (voronoi.py) and checked as m1's are;
    fresh sites, up to M2_SITE_TRIES times, while the checks fail."""
    bounds = shape.bounds
    shapely.prepare(shape)
    coast = _coast_outline(shape)
    samples = grid_samples(shape, bounds, M2_SAMPLES)

    def on_land(xs: np.ndarray, ys: np.ndarray) -> np.ndarray:
        return shapely.contains_xy(shape, xs, ys)

    for _ in range(M2_SITE_TRIES):
        sites = relax(spread_sites(stream, samples, n), samples, M2_ROUNDS)
        cells = clipped_cells(untangled(sites, on_land, min_border(v)), coast)
        if cells is not None:
            rings, beyond, runs = cells
            if clean(rings, beyond, land_area, v):
                return Layout(rings, beyond, [runs])
    return None


def _joined(layouts: list[Layout]) -> Layout:
    """Return the layouts of the pieces of land as one, the regions numbered on from piece
    to piece."""
    rings: list[list[Point]] = []
    beyond: list[list[object]] = []
    coasts: list[list[tuple[int, list[Point]]]] = []
    for layout in layouts:
        first = len(rings)
        rings.extend(layout.rings)
        beyond.extend([[b if b == COAST else b + first for b in row] for row in layout.beyond])
        coasts.extend([[(r + first, line) for r, line in runs] for runs in layout.coasts])
    return Layout(rings, beyond, coasts)


def _lands(seed: Seed, v: Variant):
    """Yield (attempt, sizes, shapes) for each land drawn, skipping outlines whose islands
    lie too close together (most islands outlines are dropped so; up to M2_OUTLINES are
    drawn), until ATTEMPTS lands have been given."""
    given = 0
    for attempt in range(M2_OUTLINES):
        drawn = draw_land(seed, v, attempt)
        if drawn is not None:
            yield attempt, *drawn
            given += 1
            if given == ATTEMPTS:
                return


def geometry(seed: Seed, v: Variant):
    """Return (layout, coast) for algorithm m2: each piece of land keeps its outline while
    fresh sites are tried, and the cells are built by voronoi.py rather than GEOS."""
    for attempt, sizes, shapes in _lands(seed, v):
        land_area = sum(shape.area for shape in shapes)
        stream = seed.stream(f"sites:{attempt}")
        layouts = []
        for n, shape in zip(sizes, shapes):
            layout = _m2_piece(stream, shape, n, land_area, v)
            if layout is None:
                break
            layouts.append(layout)
        else:
            layout = _joined(layouts)
            coast = give_coast(seed.stream(f"coast:{attempt}"), v, layout.coasts)
            if coast is not None:
                return layout, coast
    raise GenerationError(f"no legal map for seed {seed} in {ATTEMPTS} tries")
