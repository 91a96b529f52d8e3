"""The fast YAML reader (libyaml's events) gives what the exact one (composed nodes) gives.

source.parse_yaml reads plain data from events and leaves everything else (errors included)
to the exact reader; both must agree on every value, its type, and every key path's line.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from printshop.load import source
from printshop.files.errors import PrintshopError
from printshop.files.project import builtin_root

pytestmark = pytest.mark.skipif(not hasattr(yaml, "CSafeLoader"), reason="PyYAML without libyaml")


def exact(text: str):
    """Parse the way parse_yaml does when the fast reader declines."""
    saved = source._fast_yaml

    def decline(yaml, text):
        raise source._Unusual

    source._fast_yaml = decline
    try:
        return outcome(text)
    finally:
        source._fast_yaml = saved


def outcome(text: str):
    try:
        doc = source.parse_yaml(text, "data/x/f.yaml")
    except PrintshopError as exc:
        return ("error", [str(p) for p in exc.problems])
    except Exception as exc:  # noqa: BLE001 - both readers must fail the same way
        return ("raised", type(exc).__name__)
    return ("ok", repr(doc.data), list(doc.lines.items()), doc.rows)


def fast(text: str):
    """Return the fast reader's (data, lines), or None when it declines."""
    try:
        return source._fast_yaml(yaml, text)
    except source._Unusual:
        return None


DATA_FILES = sorted(p for p in (builtin_root() / "data").rglob("*.y*ml"))


@pytest.mark.parametrize("path", DATA_FILES,
                         ids=lambda p: p.relative_to(builtin_root()).as_posix())
def test_every_built_in_data_file_reads_the_same_and_fast(path: Path):
    text = path.read_text(encoding="utf-8")
    assert fast(text) is not None   # plain data: the fast reader takes it
    assert outcome(text) == exact(text)


TRICKY = [
    "", "---\n", "# only a comment\n", "~\n", "hello\n", "- 1\n- 2\n",
    "a: 1\nb:\n  - x\n  - {c: d}\n",
    "a: 1\na: 2\n", "a: &x 1\nb: *x\n", "a: &x [1]\n", "<<: {a: 1}\n", "'<<': 1\n",
    "? [a, b]\n: c\n", "!!str 5\n", "a: !!int '3'\n", "a: !custom x\n", "a: .inf\n", "a: .nan\n",
    "a: -.Inf\n", "a: 1" + "0" * 5000 + "\n", "a: 0x1F\nb: 0o17\nc: 1_000\nd: +12\ne: 1e3\n",
    "a: 2001-12-14t21:59:43.10-05:00\nb: 2002-12-14\n", "2002-12-14: x\n1.5: y\nnull: z\n",
    "true: 1\nfalse: 2\n1: 3\n", "a: yes\nb: No\nc: on\nd: OFF\ne: ~\nf: Null\n",
    "a: 'single'\nb: \"double\\u00e9\"\nc: |\n  block\n  text\nd: >\n  folded\n  text\n",
    "a: =\n", "--- a\n--- b\n", "a: [1, 2\n", "a: b: c\n", "\t- x\n", "a:\n  - b\n  -\n",
    "%YAML 1.1\n---\na: 1\n", "a: 1\n...\n", "- - - - x\n", "[" * 300 + "]" * 300 + "\n",
    "a: !!binary aGVsbG8=\n", "a: \"\\ud800\"\n", "{a: 1, b: [x, y], 'c': {d: e}}\n",
    "a: 12:30:00\nb: 1:20\nc: 0.5\nd: .5\ne: -0\nf: 0o\n", "'': empty key\n",
    "? a\n", "a:\n  b:\n    c:\n      d: [1, {e: f}]\n",
]


@pytest.mark.parametrize("text", TRICKY)
def test_tricky_yaml_reads_the_same(text):
    assert outcome(text) == exact(text)


scalars = st.one_of(st.none(), st.booleans(), st.integers(-10**30, 10**30), st.floats(),
                    st.text(max_size=20), st.dates(), st.sampled_from(
                        ["yes", "~", "0x1f", "1_0", ".inf", "1:30", "-0", "=", "<<", "007"]))
values = st.recursive(scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=4),
    st.dictionaries(st.one_of(st.text(max_size=8), st.integers(-5, 5), st.booleans()),
                    inner, max_size=4)), max_leaves=20)
styles = st.sampled_from([dict(), dict(default_flow_style=True), dict(default_style='"'),
                          dict(default_style="'"), dict(width=20)])


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(values, styles)
def test_any_document_reads_the_same(document, style):
    text = yaml.dump(document, allow_unicode=True, **style)
    assert outcome(text) == exact(text)
