"""Property tests: whatever a data file holds, loading ends in success or a located error."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import EXAMPLE
from printshop.files.errors import PrintshopError
from printshop.load.loader import load_game
from printshop.files.project import Project

scalars = st.one_of(st.none(), st.booleans(), st.integers(-10**12, 10**12),
                    st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=40))
values = st.recursive(scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=5), st.dictionaries(st.text(max_size=12), inner, max_size=5)),
    max_leaves=25)
card_keys = st.sampled_from(["id", "name", "copies", "stall", "cost", "text", "extra"])
cards = st.lists(st.dictionaries(card_keys, values, max_size=7), max_size=6)

_TEMPLATE_PROJECT = Path(tempfile.mkdtemp(prefix="printshop-fuzz-")) / "project"
shutil.copytree(EXAMPLE, _TEMPLATE_PROJECT)
STALLS = _TEMPLATE_PROJECT / "data" / "lantern-fair" / "stalls.yaml"
MANIFEST = _TEMPLATE_PROJECT / "data" / "lantern-fair" / "game.yaml"
ORIGINAL_MANIFEST = MANIFEST.read_text()


def outcome():
    folder = Project.open(_TEMPLATE_PROJECT).game("lantern-fair")
    try:
        load_game(folder)
    except PrintshopError as exc:
        assert exc.problems
        for problem in exc.problems:
            assert problem.file.startswith(("data/", "templates/"))
            assert problem.message
            assert "Traceback" not in str(problem)


fuzz = settings(max_examples=120, deadline=None,
                suppress_health_check=[HealthCheck.too_slow])


@fuzz
@given(st.one_of(values, st.fixed_dictionaries({"cards": cards})))
def test_any_card_document_loads_or_fails_cleanly(document):
    MANIFEST.write_text(ORIGINAL_MANIFEST)
    STALLS.write_text(yaml.safe_dump(document, allow_unicode=True))
    outcome()


@fuzz
@given(st.binary(max_size=300))
def test_any_bytes_load_or_fail_cleanly(raw):
    MANIFEST.write_text(ORIGINAL_MANIFEST)
    STALLS.write_bytes(raw)
    outcome()


@fuzz
@given(st.dictionaries(st.sampled_from(["name", "components", "rules", "style", "enums",
                                        "icons", "provide", "other"]), values, max_size=6))
def test_any_manifest_loads_or_fails_cleanly(manifest):
    MANIFEST.write_text(yaml.safe_dump(manifest, allow_unicode=True))
    outcome()
