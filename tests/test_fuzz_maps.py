"""Property tests: any map document, mangled at random, ends in success or located errors."""

from __future__ import annotations

import copy
from pathlib import Path

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from printshop.files.errors import PrintshopError
from printshop.games.pocketciv_maps.atlas import check_map_file
from printshop.games.pocketciv_maps.generate import generate
from printshop.games.pocketciv_maps.model import dump_map
from printshop.games.pocketciv_maps.seed import parse_seed

EXAMPLES = Path(__file__).resolve().parent.parent / "examples" / "maps"
# The maps mangled: one written by hand and one drawn by each map algorithm.
BASES = [yaml.safe_load((EXAMPLES / "brickfields-drawn.yaml").read_text(encoding="utf-8"))] + \
    [yaml.safe_load(dump_map(generate(parse_seed(seed)))) for seed in ("m1-standard-5",
                                                                       "m2-standard-5")]

junk = st.recursive(st.one_of(st.none(), st.booleans(), st.integers(-5, 20),
                              st.floats(allow_nan=False, allow_infinity=False, width=32),
                              st.text(max_size=8)),
                    lambda inner: st.one_of(st.lists(inner, max_size=4),
                                            st.dictionaries(st.text(max_size=6), inner,
                                                            max_size=3)), max_leaves=10)


def paths(value, prefix=()):
    """Yield the key path of every value in a nested document."""
    yield prefix
    if isinstance(value, dict):
        for k, v in value.items():
            yield from paths(v, prefix + (k,))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from paths(v, prefix + (i,))


ALL_PATHS = [[p for p in paths(base) if p] for base in BASES]


@st.composite
def mangled(draw):
    which = draw(st.integers(0, len(BASES) - 1))
    doc = copy.deepcopy(BASES[which])
    for _ in range(draw(st.integers(1, 4))):
        path = draw(st.sampled_from(ALL_PATHS[which]))
        parent = doc
        try:
            for key in path[:-1]:
                parent = parent[key]
            action = draw(st.sampled_from(["replace", "delete", "duplicate"]))
            if action == "replace":
                parent[path[-1]] = draw(junk)
            elif action == "delete":
                del parent[path[-1]]
            elif isinstance(parent, list):
                parent.append(copy.deepcopy(parent[path[-1]]))
        except (KeyError, IndexError, TypeError):
            continue
    return doc


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mangled())
def test_any_mangled_map_validates_or_fails_with_located_rules(tmp_path_factory, doc):
    path = tmp_path_factory.mktemp("map") / "map.yaml"
    path.write_text(yaml.safe_dump(doc, allow_unicode=True), encoding="utf-8")
    try:
        _, problems = check_map_file(path)
    except PrintshopError as exc:
        problems = exc.problems
    for problem in problems:
        assert problem.file == str(path)
        assert problem.message and "Traceback" not in problem.message
        assert problem.rule is None or problem.rule.startswith("pocketciv.map.")
