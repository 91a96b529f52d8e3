"""PocketCiv maps and the scenario book, checked against the rulebook's "Build your world".

Every generated map is legal in every variant; a seed draws the same map (file and PDF) in
another process; a legal map broken one rule at a time is reported under exactly that rule;
hand-written illegal maps are caught with their place in the file; the scenario book builds
as a saddle-stitched booklet whose every scenario passes its rules.
"""

from __future__ import annotations

import io
import os
import re
import subprocess
import sys
from collections import Counter
from dataclasses import replace
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from printshop.cli import main
from printshop.games.pocketciv_maps.atlas import check_map_file, game_look, map_files
from printshop.games.pocketciv_maps.generate import generate
from printshop.games.pocketciv_maps.model import Area, dump_map, load_map
from printshop.games.pocketciv_maps.seed import Seed, parse_seed
from printshop.games.pocketciv_maps.validate import MAP_RULES, validate_map
from printshop.games.pocketciv_maps.variant import variant
from printshop.files.project import Project

REPO = Path(__file__).resolve().parent.parent
MAPS = REPO / "tests" / "maps"
GOLDEN = MAPS / "golden"
EXAMPLES = REPO / "examples" / "maps"
UPDATE = os.environ.get("PRINTSHOP_UPDATE_GOLDEN") == "1"
AREA_KINDS = {"frontier", "sea"}


def read(path: Path):
    """Load a map file."""
    return load_map(path.read_text(encoding="utf-8"), str(path))[0]


def rules_broken(world) -> list[str]:
    """Return the ids of the rules a map breaks, in the validator's order."""
    return list(dict.fromkeys(f.rule for f in validate_map(world)))


# Every generated map is legal -----------------------------------------------------------------

def _areas_of(world) -> dict[str, str]:
    return {a.id: a.kind for a in world.areas}


def _independent_checks(world) -> None:
    """Check the rulebook's map rules straight from the outlines, not through the validator."""
    v = variant(world.variant)
    kinds = _areas_of(world)
    numbers = sorted(r.number for r in world.regions)
    assert numbers == sorted(list(range(1, 9)) * v.copies)
    # No point is shared by four or more areas: count the regions whose outline passes through
    # each point, plus one for the world outside when the point is on the coast.
    touching: dict[tuple, set] = {}
    coast: set = set()
    for r in world.regions:
        for other, line in zip(r.borders, r.outline):
            for p in line:
                touching.setdefault(p, set()).add(r.id)
            if other in kinds:
                coast.update(line)
    for p, regions in touching.items():
        assert len(regions) + (p in coast) <= 3, f"{len(regions)} regions meet at {p}"
    # Where a region's coast changes from Frontier to Sea, no other region touches the point.
    for r in world.regions:
        n = len(r.borders)
        for k in range(n):
            a, b = r.borders[k], r.borders[(k + 1) % n]
            if a in kinds and b in kinds and a != b:
                assert touching[r.outline[k][-1]] == {r.id}
    frontier = {r.id for r in world.regions for b in r.borders if kinds.get(b) == "frontier"}
    low, high = v.frontier_regions
    assert low <= len(frontier) <= high
    icons = Counter(i for r in world.regions for i in r.icons)
    assert icons["mountain"] == v.setup.mountains and icons["forest"] == v.setup.forests
    bare = [r for r in world.regions if not {"mountain", "forest"} & set(r.icons)]
    assert all("desert" in r.icons for r in bare)
    assert icons["desert"] == max(len(bare), v.setup.deserts_at_least)
    assert sum(r.tribes for r in world.regions) == v.setup.tribes


@pytest.mark.parametrize("algorithm", ["m1", "m2"])
@pytest.mark.parametrize("name, examples", [("standard", 200), ("peninsula", 60),
                                            ("islands", 60), ("two-player", 40)])
def test_every_generated_map_is_legal(algorithm, name, examples):
    @settings(max_examples=examples, deadline=None, derandomize=True, database=None)
    @given(st.integers(min_value=0, max_value=10**12))
    def check(number):
        world = generate(Seed(algorithm, name, number))
        assert validate_map(world) == []
        _independent_checks(world)
    check()


def test_a_generated_map_file_reads_back_as_the_same_map():
    world = generate(parse_seed("m1-peninsula-77"))
    again, _ = load_map(dump_map(world), "again.yaml")
    assert dump_map(again) == dump_map(world)
    assert validate_map(again) == []


ODD_NAMES = ("Crète — l'île", "Αθήνα, 東京", "a volcano 🌋", "yes", "- a: b # c", "x" * 130,
             "word " * 40, "tab\there", "line\nbreak", "nul\0", "bom\ufeff",
             "sep\u2028" * 30, "nel\x85", "del\x7f", "  spaced  ", "'quoted' \"twice\"")


def test_map_files_are_the_same_bytes_through_libyaml_as_through_pyyaml():
    """dump_map writes through libyaml when it can; the text must be PyYAML's own."""
    from printshop.games.pocketciv_maps import model
    worlds = [generate(Seed("m1", name, n)) for name in ("standard", "two-player", "islands",
                                                          "peninsula") for n in range(3)]
    worlds += [replace(worlds[0], name=name, seed=name) for name in ODD_NAMES]
    worlds += [worlds[1].with_regions([replace(r, id=f"{r.id}{name}")
                                      for r in worlds[1].regions]) for name in ODD_NAMES]
    for world in worlds:
        python = yaml.dump(model.map_to_data(world), Dumper=model._Dumper, sort_keys=False,
                           width=100, allow_unicode=True)
        assert dump_map(world, "a header\n\nand more") == "# a header\n#\n# and more\n" + python


# The same seed, the same map ---------------------------------------------------------------------

SEEDS = ("m1-standard-42", "m1-peninsula-7", "m1-islands-5", "m1-two-player-3",
         "m2-standard-42", "m2-peninsula-7", "m2-islands-5", "m2-two-player-3")


def test_a_seed_draws_the_same_file_and_pdf_in_another_process(tmp_path):
    script = ("import sys\nfrom printshop.games.pocketciv_maps.atlas import make_maps\n"
              f"for seed in sys.argv[1:]:\n    make_maps(seed, None, 1, {str(tmp_path)!r})\n")
    env = {**os.environ, "PYTHONHASHSEED": "987", "PYTHONPATH": str(REPO)}
    subprocess.run([sys.executable, "-c", script, *SEEDS], check=True, env=env, cwd=tmp_path,
                   capture_output=True, timeout=120)
    look = game_look(Project.open(None))
    for seed in SEEDS:
        for name, data in map_files(parse_seed(seed), look, "a4").items():
            assert (tmp_path / name).read_bytes() == data, name


def _neutral_icon(name, x, y, size):
    return f'<rect x="{x:.2f}" y="{y:.2f}" width="{size:.2f}" height="{size:.2f}" id="{name}"/>'


@pytest.mark.parametrize("seed", SEEDS)
def test_each_algorithm_still_draws_the_recorded_maps(seed):
    """Golden map files: set PRINTSHOP_UPDATE_GOLDEN=1 to record them again. Only a new
    algorithm version (m3) may change them: old seeds must keep drawing their old maps."""
    text = dump_map(generate(parse_seed(seed)))
    path = GOLDEN / f"{seed}.yaml"
    if UPDATE:
        GOLDEN.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    assert text == path.read_text(encoding="utf-8")


def test_a_bare_number_draws_the_default_algorithm_m2():
    seed = parse_seed("42")
    assert seed == Seed("m2", "standard", 42) and str(seed) == "m2-standard-42"
    assert dump_map(generate(seed)) == (GOLDEN / "m2-standard-42.yaml").read_text("utf-8")
    assert seed.command() == "printshop map pocketciv --seed 42 --variant standard"
    assert parse_seed("m1-standard-42").command() == \
        "printshop map pocketciv --seed m1-standard-42"


def test_the_two_algorithms_draw_different_maps_from_one_number():
    m1, m2 = (dump_map(generate(Seed(a, "standard", 42))).split("regions:")[1]
              for a in ("m1", "m2"))
    assert m1 != m2


def test_an_m1_seed_on_the_command_line_still_draws_the_m1_map(tmp_path):
    result = CliRunner().invoke(main, ["map", "pocketciv", "--seed", "m1-standard-42",
                                       "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    written = (tmp_path / "m1-standard-42.yaml").read_text("utf-8")
    assert "Draw it again: printshop map pocketciv --seed m1-standard-42\n" in written
    assert written.endswith((GOLDEN / "m1-standard-42.yaml").read_text("utf-8"))


def test_m2_regions_are_the_voronoi_cells_clipped_to_the_land():
    """voronoi.py builds the cells itself; GEOS, building them its own way from the same
    sites and land, must find the same regions (up to the rounding to a tenth)."""
    import shapely

    from printshop.games.pocketciv_maps import algorithm_m2 as m2
    from printshop.games.pocketciv_maps.coast import min_border
    from printshop.games.pocketciv_maps.land import draw_land
    from printshop.games.pocketciv_maps.layout import ring_area
    from printshop.games.pocketciv_maps.sites import grid_samples, relax, spread_sites
    from printshop.games.pocketciv_maps.voronoi import clipped_cells, untangled
    checked = 0
    for name in ("standard", "two-player", "peninsula"):
        v = variant(name)
        for n in range(30):
            seed = Seed("m2", name, n)
            sizes, shapes = draw_land(seed, v, 0) or (None, None)
            if shapes is None:
                continue
            shape = shapes[0]
            samples = grid_samples(shape, shape.bounds, m2.M2_SAMPLES)
            sites = relax(spread_sites(seed.stream("sites:0"), samples, sizes[0]), samples,
                          m2.M2_ROUNDS)
            diagram = untangled(sites, lambda xs, ys: shapely.contains_xy(shape, xs, ys),
                                min_border(v))
            cells = clipped_cells(diagram, m2._coast_outline(shape))
            if cells is None:
                continue
            frame = shapely.box(-2000, -2000, 4000, 4000)
            theirs = shapely.intersection(shapely.get_parts(shapely.voronoi_polygons(
                shapely.multipoints(diagram.sites), extend_to=frame, ordered=True)), shape)
            for ring, other in zip(cells[0], theirs):
                assert shapely.Polygon(ring).symmetric_difference(other).area < 0.01 * \
                    other.area
                assert ring_area(ring) > 0                    # clockwise on the page
            checked += 1
    assert checked > 60


def test_m2_pulls_apart_four_sites_on_one_circle():
    """Four sites nearly on one circle would give two regions a border too short to see;
    untangled moves them until the border is long enough."""
    import numpy as np

    from printshop.games.pocketciv_maps.voronoi import Diagram, untangled
    sites = np.array([[500.0, 300.0], [700.0, 500.0], [500.0, 700.0], [300.0, 501.0],
                      [100.0, 100.0], [900.0, 900.0]])
    anywhere = lambda xs, ys: np.ones(len(xs), dtype=bool)       # noqa: E731
    assert Diagram(sites, anywhere).short_edges(24.0)
    moved = untangled(sites, anywhere, 24.0)
    assert not moved.short_edges(24.0)
    assert np.abs(moved.sites - sites).max() < 40


def test_streams_are_per_stage_so_terrain_never_moves_a_border():
    a, b = Seed("m1", "standard", 5), Seed("m1", "standard", 6)
    assert a.stream("terrain").random() != a.stream("land:0").random()
    assert a.stream("terrain").random() == Seed("m1", "standard", 5).stream("terrain").random()
    assert a.stream("terrain").random() != b.stream("terrain").random()



def test_a_try_dropped_before_its_cells_are_built_would_fail_when_they_are():
    """The early look at the Delaunay triangles drops only tries that the clipped cells
    would reject too (so dropping them early leaves every map as it was)."""
    import shapely

    from printshop.games.pocketciv_maps import algorithm_m1 as m1
    from printshop.games.pocketciv_maps.coast import min_border
    from printshop.games.pocketciv_maps.land import draw_land
    from printshop.games.pocketciv_maps.sites import grid_samples, relax, scatter_sites
    dropped = 0
    for name in ("standard", "two-player", "peninsula"):
        v = variant(name)
        for n in range(40):
            seed = Seed("m1", name, n)
            drawn = draw_land(seed, v, 0)
            if drawn is None:
                continue
            sizes, shapes = drawn
            shape, bounds = shapes[0], shapes[0].bounds
            sites = scatter_sites(seed.stream("sites:0"), shape, sizes[0], bounds)
            points = shapely.multipoints(relax(sites, grid_samples(shape, bounds),
                                               m1.LLOYD_ROUNDS))
            if m1._short_inland_edge(points, shape, min_border(v)):
                dropped += 1
                assert m1._soon_too_short(m1._diagram(bounds, points), shape, min_border(v))
    assert dropped > 20

# One rule broken at a time ----------------------------------------------------------------------

BRICK = read(EXAMPLES / "brickfields.yaml")
DRAWN = read(EXAMPLES / "brickfields-drawn.yaml")


def edit(world, at: int, **changes):
    """Return the map with region number ``at`` changed."""
    return replace(world, regions=tuple(replace(r, **changes) if r.number == at else r
                                        for r in world.regions))


def lists(world, **borders):
    """Return the map with some regions' borders replaced (keys like r6 for region 6)."""
    for key, value in borders.items():
        world = edit(world, int(key[1:]), borders=tuple(str(v) for v in value))
    return world


def areas(world, frontiers=None, seas=None):
    """Return the map with new Frontier and Sea lists ({id: [borders]} each)."""
    def make(kind, spec):
        return tuple(Area(i, kind, tuple(tuple(str(x) for x in c) for c in
                                       (cycles if isinstance(cycles[0], list) else [cycles])))
                     for i, cycles in spec.items())
    return replace(world, frontiers=make("frontier", frontiers) if frontiers is not None
                   else world.frontiers, seas=make("sea", seas) if seas is not None
                   else world.seas)


def merged_regions():
    """Brickfields with region 8 merged into region 4: seven regions (a preset map)."""
    world = lists(replace(BRICK, setup="preset"), r4=[5, 2, 6, "sea"],
                  r5=[3, 7, 2, 4, "sea", "frontier"])
    world = replace(world, regions=tuple(r for r in world.regions if r.number != 8))
    return areas(world, seas={"sea": [2, 6, 4, 5, "frontier"]})


def one_sea_all_round():
    """Brickfields with its Frontier turned to Sea, called an islands map: one island only."""
    world = lists(replace(BRICK, variant="islands"), r3=["sea", 7, 5], r7=["sea", 1, 2, 5, 3],
                  r1=["sea", 2, 7], r5=[3, 7, 2, 4, 8, "sea"], r2=[7, 1, "sea", 6, 4, 5])
    return replace(areas(world, seas={"sea": [5, 3, 7, 1, 2, 6, 4, 8]}), frontiers=())


MUTATIONS = {
    "pocketciv.map.region-count": merged_regions,
    "pocketciv.map.numbers": lambda: edit(BRICK, 8, number=4),
    "pocketciv.map.ids": lambda: edit(BRICK, 6, id="2"),
    "pocketciv.map.border-names": lambda: lists(BRICK, r6=[2, "sea", 9]),
    "pocketciv.map.border-mutual": lambda: lists(BRICK, r6=[2, "sea"]),
    "pocketciv.map.enclosed": lambda: areas(
        lists(BRICK, r6=[4], r2=[7, 1, "frontier", "sea", 4, 5]),
        seas={"sea": [2, 4, 8, 5, "frontier"]}),
    "pocketciv.map.junctions": lambda: lists(BRICK, r7=["frontier", 1, 2, 3],
                                             r5=[3, 2, 4, 8, "sea", "frontier"]),
    "pocketciv.map.flat": lambda: read(MAPS / "torus.yaml"),
    "pocketciv.map.land-pieces": one_sea_all_round,
    "pocketciv.map.areas": lambda: replace(BRICK, frontiers=(), seas=(
        Area("frontier", "sea", (("5", "3", "7", "1", "2", "sea"),)), BRICK.seas[0])),
    "pocketciv.map.frontier-stretch": lambda: areas(
        lists(BRICK, r7=["frontier", "sea", "frontier", 1, 2, 5, 3]),
        {"frontier": [5, 3, 7, "sea", 7, 1, 2, "sea"]},
        {"sea": [2, 6, 4, 8, 5, "frontier", 7, "frontier"]}),
    "pocketciv.map.sea-stretch": lambda: areas(
        lists(BRICK, r3=["frontier", 7, "sea", 5], r7=["frontier", 1, 2, 5, "sea", 3],
              r5=[3, "sea", 7, 2, 4, 8, "sea", "frontier"]),
        seas={"sea": [[2, 6, 4, 8, 5, "frontier"], [3, 5, 7]]}),
    "pocketciv.map.frontier-regions": lambda: areas(
        lists(BRICK, r3=["sea", "frontier", 7, 5], r1=["frontier", "sea", 2, 7],
              r5=[3, 7, 2, 4, 8, "sea"], r2=[7, 1, "sea", 6, 4, 5]),
        {"frontier": [3, 7, 1, "sea"]}, {"sea": [1, 2, 6, 4, 8, 5, 3, "frontier"]}),
    "pocketciv.map.icons-once": lambda: edit(BRICK, 1, icons=("forest", "forest")),
    "pocketciv.map.volcano-mountain": lambda: edit(replace(BRICK, setup="preset"), 6,
                                                   icons=("mountain", "volcano")),
    "pocketciv.map.coordinates": lambda: edit(DRAWN, 6, outline=tuple(
        tuple((x * 1e306, y * 1e306) for x, y in line) for line in DRAWN.regions[7].outline)),
    "pocketciv.map.outline": lambda: edit(DRAWN, 6, outline=DRAWN.regions[7].outline[:2]),
    "pocketciv.map.outline-shared": lambda: edit(DRAWN, 6, outline=(
        ((91.0, 62.0), (106.0, 64.0), (121.0, 61.0)),) + DRAWN.regions[7].outline[1:]),
    "pocketciv.map.overlap": lambda: edit(DRAWN, 8, outline=DRAWN.regions[5].outline[:2] + (
        ((31.0, 90.0), (15.0, 93.0), (1.0, 89.0), (-5.0, 75.0), (-10.0, 50.0), (10.0, 45.0),
         (-2.0, 60.0)),)),
    "pocketciv.map.setup-mountains": lambda: edit(BRICK, 3, icons=("forest",)),
    "pocketciv.map.setup-forests": lambda: edit(BRICK, 2, icons=("mountain",)),
    "pocketciv.map.setup-deserts": lambda: edit(BRICK, 1, icons=("forest", "desert")),
    "pocketciv.map.setup-tribes": lambda: edit(BRICK, 3, tribes=2),
    "pocketciv.map.setup-bare": lambda: edit(BRICK, 5, icons=("forest", "farm")),
}


def test_the_maps_broken_below_start_out_legal():
    assert DRAWN.regions[7].number == 6 and DRAWN.regions[5].number == 8
    for world in (BRICK, DRAWN, replace(BRICK, setup="preset")):
        assert rules_broken(world) == []


def test_every_rule_has_a_mutation():
    assert set(MUTATIONS) == set(MAP_RULES)


@pytest.mark.parametrize("rule_id", sorted(MUTATIONS))
def test_a_map_broken_one_rule_at_a_time_reports_exactly_that_rule(rule_id):
    assert rules_broken(MUTATIONS[rule_id]()) == [rule_id]


def test_generated_maps_broken_report_the_rule_too():
    world = generate(parse_seed("m1-standard-3"))
    inner = {r.id for r in world.regions}
    a = next(r for r in world.regions if sum(b in inner for b in r.borders) >= 3)
    b = next(x for x in a.borders if x in inner and a.borders.count(x) == 1 and
             world.region(x).borders.count(a.id) == 1)
    contracted = [replace(r, borders=tuple(x for x in r.borders if x != other),
                          outline=None) for r in world.regions
                  for other in [b if r.id == a.id else a.id if r.id == b else None]]
    assert rules_broken(world.with_regions(contracted)) == ["pocketciv.map.junctions"]
    shifted = edit(world, world.regions[0].number, icons=world.regions[0].icons + ("volcano",))
    assert "pocketciv.map.setup-bare" in rules_broken(shifted)


# Hand-written maps ------------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["brickfields.yaml", "brickfields-drawn.yaml"])
def test_the_hand_written_examples_are_legal(name):
    applied, problems = check_map_file(EXAMPLES / name)
    assert problems == [] and applied == len(MAP_RULES)


ILLEGAL = [
    ("four-corners.yaml", "pocketciv.map.junctions", {2, 3, 5, 7}),
    ("frontier-three.yaml", "pocketciv.map.frontier-regions", {3, 7, 1}),
    ("frontier-six.yaml", "pocketciv.map.frontier-regions", {5, 3, 7, 1, 2, 6}),
    ("frontier-two-pieces.yaml", "pocketciv.map.frontier-stretch", {5, 3, 7, 1, 2}),
    ("number-duplicated.yaml", "pocketciv.map.numbers", {4}),
    ("number-missing.yaml", "pocketciv.map.numbers", {6}),
    ("two-forests.yaml", "pocketciv.map.icons-once", {1}),
    ("volcano-and-mountain.yaml", "pocketciv.map.volcano-mountain", {6}),
    ("desert-forbidden.yaml", "pocketciv.map.setup-deserts", {1}),
    ("torus.yaml", "pocketciv.map.flat", set()),
]


@pytest.mark.parametrize("name, rule_id, numbers", ILLEGAL)
def test_hand_written_illegal_maps_are_caught(name, rule_id, numbers):
    _, problems = check_map_file(MAPS / name)
    found = [p for p in problems if p.rule == rule_id]
    assert found, [str(p) for p in problems]
    assert all(p.line is not None and p.file.endswith(name) for p in problems)
    named = {int(n) for p in found for n in re.findall(r"\b(\d)\b", p.message.split(";")[0])}
    assert numbers <= named


def test_a_region_with_a_bad_key_is_a_format_error_with_its_line(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text((EXAMPLES / "brickfields.yaml").read_text().replace(
        "{number: 1, borders", "{number: 1, hills: 2, borders"), encoding="utf-8")
    result = CliRunner().invoke(main, ["validate", "map", str(bad)])
    assert result.exit_code == 1
    assert "[pocketciv.map.format]" in result.output and "bad.yaml:" in result.output
    assert "unknown key 'hills'" in result.output and "Traceback" not in result.output


def test_the_documented_example_is_a_legal_map():
    doc = (REPO / "docs" / "maps.md").read_text(encoding="utf-8")
    block = doc.split("```yaml\n", 1)[1].split("```", 1)[0]
    world, _ = load_map(block, "docs/maps.md")
    assert rules_broken(world) == [] and len(world.regions) == 8


# The command line -------------------------------------------------------------------------------

def test_map_command_writes_a_map_file_and_a_page(tmp_path):
    result = CliRunner().invoke(main, ["map", "pocketciv", "--seed", "11", "--variant",
                                       "islands", "--count", "2", "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == ["m2-islands-11.pdf", "m2-islands-11.yaml", "m2-islands-12.pdf",
                     "m2-islands-12.yaml"]                    # a bare number: the default, m2
    assert (tmp_path / "m2-islands-11.pdf").read_bytes().startswith(b"%PDF")
    assert "seed: m2-islands-11" in (tmp_path / "m2-islands-11.yaml").read_text()
    checked = CliRunner().invoke(main, ["validate", "map", str(tmp_path / "m2-islands-12.yaml")])
    assert checked.exit_code == 0 and f"ok ({len(MAP_RULES)} rules)" in checked.output


@pytest.mark.parametrize("args, message", [
    (["map", "pocketciv", "--seed", "m1-islands-4", "--variant", "peninsula"],
     "is for the islands variant"),
    (["map", "pocketciv", "--seed", "m9-standard-4"],
     "needs map algorithm m9; this printshop draws m1 and m2 maps"),
    (["map", "pocketciv", "--seed", "soon"], "is not a seed"),
    (["validate", "map", "tests/maps/four-corners.yaml"],
     "four-corners.yaml:6: regions[0].borders[1]: [pocketciv.map.junctions] 4 borders meet"),
])
def test_command_line_mistakes_are_messages_not_tracebacks(args, message, tmp_path):
    result = CliRunner().invoke(main, args + (["--out", str(tmp_path)] if args[0] == "map"
                                              else []))
    assert result.exit_code == 1
    assert message in result.output and "Traceback" not in result.output


def test_validate_still_takes_games_and_map_needs_files():
    assert CliRunner().invoke(main, ["validate", "map"]).exit_code == 2
    result = CliRunner().invoke(main, ["validate", "--project", str(REPO / "examples" /
                                                                     "lantern-fair")])
    assert result.exit_code == 0 and "lantern-fair: ok" in result.output


# The scenario book ------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def pocketciv():
    from printshop.load.loader import load_game
    return load_game(Project.open(None).game("pocketciv"))


def test_the_scenario_book_passes_its_rules(pocketciv):
    from printshop.check.rules import validate
    book = pocketciv.part("scenarios")
    assert book.kind == "booklet" and len(book.data["pages"]) >= 8
    assert [p for p in validate(pocketciv) if "scenario" in (p.rule or "")] == []


def test_the_scenario_book_is_a_saddle_stitched_a5_booklet(pocketciv):
    from pypdf import PdfReader

    from printshop.build import render_component
    from printshop.load.geometry import PrintOptions

    built = render_component(pocketciv, "scenarios", PrintOptions(paper="letter"))
    reader = PdfReader(io.BytesIO(built.pdf))
    pages = len(pocketciv.part("scenarios").data["pages"]) + 1
    assert len(reader.pages) == 2 * ((pages + 3) // 4)
    for page in reader.pages:
        assert float(page.mediabox.width) > float(page.mediabox.height)
    text = "".join(p.extract_text() for p in reader.pages)
    for entry in pocketciv.part("scenarios").data["pages"]:
        assert entry["title"] in text
    first = reader.pages[0].extract_text()
    assert "Scenario Book" in first


def _broken_book(game_copy, change):
    from printshop.load.loader import load_game
    from printshop.files.project import Project as P
    from printshop.check.rules import validate

    root = game_copy("pocketciv")
    path = root / "data" / "pocketciv" / "scenarios.yaml"
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    change(data["pages"])
    path.write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True), "utf-8")
    game = load_game(P.open(root).game("pocketciv"))
    return {p.rule for p in validate(game) if "scenario" in (p.rule or "")}


@pytest.mark.parametrize("rule_id, change", [
    ("pocketciv.scenario-book", lambda pages: pages.__delitem__(slice(3, None))),
    ("pocketciv.scenario-fields", lambda pages: pages[0].pop("goal")),
    ("pocketciv.scenario-ids", lambda pages: pages[1].update(title=pages[0]["title"])),
    ("pocketciv.scenario-map", lambda pages: pages[0].update(terrain={9: ["forest"]})),
    ("pocketciv.scenario-map", lambda pages: pages[0].update(
        terrain={1: ["mountain", "volcano"]})),
    ("pocketciv.scenario-eras", lambda pages: pages[2].update(deadline=1)),
    ("pocketciv.scenario-advances", lambda pages: pages[0]["start"].update(
        advances=["Telepathy"])),
    ("pocketciv.scenario-advances", lambda pages: pages[0]["start"].update(
        advances=["Architecture"])),
    ("pocketciv.scenario-city-av", lambda pages: pages[2]["cities"].update({3: 4})),
])
def test_a_broken_scenario_names_its_rule(game_copy, rule_id, change):
    assert _broken_book(game_copy, change) == {rule_id}


# The maps in the print-and-play file ------------------------------------------------------------

def _pdf_text(pdf: Path, page: int | None = None, crop: tuple | None = None) -> str:
    """Return a PDF's text (one page, or part of one) as pdftotext reads it."""
    import shutil
    if shutil.which("pdftotext") is None:
        pytest.skip("pdftotext (poppler-utils) is not installed")
    args = ["pdftotext"]
    if page is not None:
        args += ["-f", str(page), "-l", str(page)]
    if crop is not None:
        args += ["-x", str(crop[0]), "-y", str(crop[1]), "-W", str(crop[2]), "-H", str(crop[3])]
    return subprocess.run(args + [str(pdf), "-"], check=True, capture_output=True,
                          text=True).stdout


@pytest.fixture(scope="module")
def built_pocketciv(tmp_path_factory):
    """Build PocketCiv once into a fresh folder; return that game's output folder."""
    from printshop.build import build
    from printshop.load.geometry import PrintOptions

    out = tmp_path_factory.mktemp("pocketciv-build")
    build(Project.open(None), ["pocketciv"], PrintOptions(), out, jobs=1)
    return out / "pocketciv"


def _pages(pdf: Path) -> list[str]:
    from pypdf import PdfReader
    return [_pdf_text(pdf, n + 1) for n in range(len(PdfReader(str(pdf)).pages))]


def test_the_shipped_map_seed_draws_a_legal_map(pocketciv):
    from printshop.games.pocketciv_maps.printed import map_sheets, sheet_world
    from printshop.check.rules import validate

    sheets = [part for _, part in map_sheets(pocketciv)]
    assert [p.id for p in sheets] == ["map"]
    world = sheet_world(sheets[0].spec.params)
    assert world.variant == "standard" and world.setup == "random"
    assert validate_map(world) == []
    assert [p for p in validate(pocketciv) if p.rule == "pocketciv.map-sheet"] == []


def test_the_print_and_play_file_holds_the_map_with_its_seed_and_command(built_pocketciv,
                                                                         pocketciv):
    params = pocketciv.part("map").spec.params
    seed = parse_seed(params["seed"], params["variant"])
    pages = _pages(built_pocketciv / "pocketciv-print-and-play.pdf")
    found = [text for text in pages if f"Seed {seed}" in text]
    assert len(found) == 1
    page = " ".join(found[0].split())
    assert "Standard variant" in page
    assert f"printshop map pocketciv --seed {seed.number} --variant standard" in page
    # The full-size map shows all eight regions and the key.
    for word in ("FRONTIER", "SEA", "Mountain", "Forest", "Desert", "Tribe"):
        assert word in page
    assert {str(n) for n in range(1, 9)} <= set(page.split())


def test_the_print_and_play_file_holds_a_blank_map(built_pocketciv):
    pages = _pages(built_pocketciv / "pocketciv-print-and-play.pdf")
    found = [" ".join(t.split()) for t in pages if "draw your own world" in t]
    assert len(found) == 1
    blank = found[0]
    for words in ("8 Regions", "Frontier", "4 or 5 Regions", "Mountain in 5 Regions",
                  "Forest in 5", "Desert", "3 Tribes", "Region numbers", "Map key",
                  "Three lines meet"):
        assert words in blank, words
    assert "Seed m1-" not in blank


def test_the_map_sheets_are_landscape_pages_of_the_chosen_paper(pocketciv):
    from pypdf import PdfReader

    from printshop.build import render_component
    from printshop.load.geometry import PrintOptions

    for paper, long_side in (("a4", 297), ("letter", 279.4)):
        for cid in ("map", "blank-map"):
            built = render_component(pocketciv, cid, PrintOptions(paper=paper))
            reader = PdfReader(io.BytesIO(built.pdf))
            assert len(reader.pages) == 1
            box = reader.pages[0].mediabox
            assert round(float(box.width) * 25.4 / 72, 1) == long_side
            assert float(box.width) > float(box.height)


def test_every_scenario_page_prints_its_seed(built_pocketciv, pocketciv):
    from pypdf import PdfReader

    pdf = built_pocketciv / "scenarios.pdf"
    reader = PdfReader(str(pdf))
    halves = []
    for n, page in enumerate(reader.pages):
        w, h = float(page.mediabox.width), float(page.mediabox.height)
        for left in (0, w / 2):
            halves.append(" ".join(_pdf_text(pdf, n + 1, (int(left), 0, int(w / 2),
                                                            int(h))).split()))
    for i, entry in enumerate(pocketciv.part("scenarios").data["pages"]):
        [page] = [t for t in halves if f"SCENARIO {i + 1} " in t]
        assert entry["title"] in page
        if "seed" in entry["map"]:
            seed = parse_seed(entry["map"]["seed"])
            assert f"Map seed {seed} · {variant(seed.variant).title} variant" in page
            # The book's seeds are m1's: the command names the whole seed, since a bare
            # number would now draw the m2 map.
            assert f"full size: printshop map pocketciv --seed {seed}" in page
        else:
            assert f"Map {entry['map']['name']}" in page and "has no seed" in page
        assert f"pieces set out: printshop map pocketciv --scenario {entry['id']}" in page


def test_the_map_sheet_is_the_same_bytes_every_time(pocketciv):
    from printshop.build import render_component
    from printshop.load.geometry import PrintOptions

    first = render_component(pocketciv, "map", PrintOptions())
    assert render_component(pocketciv, "map", PrintOptions()).pdf == first.pdf
    low = render_component(pocketciv, "map", PrintOptions(low_ink=True))
    assert low.pdf != first.pdf


def _map_index(root: Path) -> int:
    """Return the place of the map sheet among the manifest's components."""
    data = yaml.safe_load((root / "data" / "pocketciv" / "game.yaml").read_text("utf-8"))
    return [c["id"] for c in data["components"]].index("map")


def _with_map_params(game_copy, params):
    """Copy PocketCiv with other settings for its map sheet; return the project folder."""
    from conftest import edit_yaml

    def change(data):
        data["components"][_map_index(root)]["params"] = params

    root = game_copy("pocketciv")
    edit_yaml(root / "data" / "pocketciv" / "game.yaml", change)
    return root


@pytest.mark.parametrize("params, key, message", [
    ({"seed": "m1-islands-7", "variant": "standard"}, "seed", "is for the islands variant"),
    ({"seed": 7, "variant": "mainland"}, "variant", "unknown variant 'mainland'"),
    ({"seed": "m9-standard-7"}, "seed", "needs map algorithm m9; this printshop draws m1 and m2"),
    ({"seed": "m2-mainland-7"}, "seed", "names a variant this printshop cannot draw"),
    ({"seed": 7, "colour": "red"}, "colour", "accepted keys: seed, variant"),
])
def test_a_map_sheet_seed_that_names_no_map_stops_the_build_at_its_key(game_copy, tmp_path,
                                                                     params, key, message):
    from printshop.build import build
    from printshop.files.errors import PrintshopError
    from printshop.load.geometry import PrintOptions

    root = _with_map_params(game_copy, params)
    with pytest.raises(PrintshopError) as caught:
        build(Project.open(root), ["pocketciv"], PrintOptions(), tmp_path / "out", jobs=1)
    [problem] = caught.value.problems
    assert problem.file == "data/pocketciv/game.yaml"
    assert problem.rule == "pocketciv.map-sheet"
    assert problem.path == ("components", _map_index(root), "params", key)
    assert message in problem.message
    assert not (tmp_path / "out").exists()


def test_a_seed_whose_map_fails_validation_stops_the_build(game_copy, tmp_path, monkeypatch):
    from printshop.build import build
    from printshop.files.errors import PrintshopError
    from printshop.games.pocketciv_maps import validate as validate_module
    from printshop.games.pocketciv_maps.survey import Flaw
    from printshop.load.geometry import PrintOptions

    monkeypatch.setenv("PRINTSHOP_CACHE_DIR", "off")  # rules that passed before must run
    real = validate_module.validate_map
    broken = Flaw("pocketciv.map.setup-tribes", "the world starts with 2 Tribes; it needs 3")
    monkeypatch.setattr(validate_module, "validate_map",
                        lambda world: real(world) + ([broken] if world.seed ==
                                                     "m2-standard-7" else []))
    root = _with_map_params(game_copy, {"seed": 7, "variant": "standard"})
    with pytest.raises(PrintshopError) as caught:
        build(Project.open(root), ["pocketciv"], PrintOptions(), tmp_path / "out", jobs=1)
    [problem] = caught.value.problems
    # at the seed's own line of the manifest
    assert re.match(rf"data/pocketciv/game\.yaml:\d+: components\[{_map_index(root)}\]",
                    str(problem)), str(problem)
    assert str(problem).split(": ", 1)[1].startswith(f"components[{_map_index(root)}]"
                                   ".params.seed: "
                                   "[pocketciv.map-sheet] map: the map of seed m2-standard-7 "
                                   "breaks [pocketciv.map.setup-tribes]")
    assert not (tmp_path / "out").exists()


def test_map_command_prints_a_scenarios_map_with_its_pieces(tmp_path):
    for scenario in ("brickfields", "first-fires"):
        result = CliRunner().invoke(main, ["map", "pocketciv", "--scenario", scenario,
                                           "--out", str(tmp_path)])
        assert result.exit_code == 0, result.output
    world = read(tmp_path / "first-fires.yaml")
    assert world.setup == "preset" and world.seed == "m1-standard-12"
    assert sum(r.tribes for r in world.regions) == 8          # the scenario's Tribes
    assert validate_map(world) == [] and validate_map(read(tmp_path / "brickfields.yaml")) == []
    page = " ".join(_pdf_text(tmp_path / "brickfields.pdf").split())
    assert "Brickfields" in page and "Drawn by hand · Standard variant" in page
    assert "printshop map pocketciv --scenario brickfields" in page


@pytest.mark.parametrize("args, code, message", [
    (["--scenario", "atlantis"], 1, "there is no scenario 'atlantis'; the scenarios are "
                                    "first-fires"),
    ([], 2, "give either --seed or --scenario"),
    (["--seed", "4", "--scenario", "brickfields"], 2, "give either --seed or --scenario"),
])
def test_map_command_wants_a_seed_or_a_scenario(tmp_path, args, code, message):
    result = CliRunner().invoke(main, ["map", "pocketciv", *args, "--out", str(tmp_path)])
    assert result.exit_code == code and message in result.output
    assert "Traceback" not in result.output
