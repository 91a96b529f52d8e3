"""Templates are strict and sandboxed: a mistake or a trick is an error naming the template."""

from __future__ import annotations

import pytest

from printshop.draw.templates import TemplateProblem, make_environment, render


@pytest.fixture
def env(tmp_path):
    def make(source: str):
        (tmp_path / "t.svg.j2").write_text(source)
        return make_environment([tmp_path], {})
    return make


def test_undefined_variable_is_an_error_with_line(env):
    e = env("<g>\n{{ card.missing }}\n</g>")
    with pytest.raises(TemplateProblem) as info:
        render(e, "t.svg.j2", {"card": {"id": "x"}}, "card 'x'")
    assert info.value.line == 2 and "missing" in str(info.value) and "card 'x'" in str(info.value)


def test_values_are_xml_escaped(env):
    out = render(env("<text>{{ card.name }}</text>"), "t.svg.j2",
                 {"card": {"name": '<b>&"]]>{{ 1 + 1 }}'}}, "c")
    assert out == "<text>&lt;b&gt;&amp;&#34;]]&gt;{{ 1 + 1 }}</text>"


@pytest.mark.parametrize("source", [
    "{{ ''.__class__.__mro__ }}",
    "{{ card.__class__ }}",
    "{{ cycler.__init__.__globals__ }}",
    "{{ 'a' * 100000000 }}",
    "{{ 9 ** 999999 }}",
    "{% include '/etc/passwd' %}",
    "{% include '../../../../etc/passwd' %}",
    "{% macro f() %}{{ f() }}{% endmacro %}{{ f() }}",
])
def test_sandbox_refuses_tricks(env, source):
    with pytest.raises(TemplateProblem):
        render(env(source), "t.svg.j2", {"card": {}}, "card 'x'")


def test_syntax_error_names_template_and_line(env):
    with pytest.raises(TemplateProblem) as info:
        render(env("<g/>\n{% if %}"), "t.svg.j2", {}, "sheet")
    assert info.value.template == "t.svg.j2" and info.value.line == 2


# --- the sandbox's quick paths and the remembered text boxes ---------------------------------

def test_a_dict_key_named_like_a_dict_method_still_reads_as_jinja_reads_it(env):
    card = {"name": "Ann", "items": "boots", "copies": 2}
    out = render(env("{{ card.name }} {{ card['items'] }} {{ card.items is callable }} "
                     "{{ card.copies * 1.5 }} {{ card.copies + 1 }} {{ card.copies % 2 }}"),
                 "t.svg.j2", {"card": card}, "c")
    assert out == "Ann boots True 3.0 3 0"


def test_helpers_called_straight_away_are_only_printshops_own(env):
    e = env("{{ text_width('abc', 9) > 0 }} {{ fmt(1.50) }}")
    assert render(e, "t.svg.j2", {}, "c") == "True 1.5"
    assert all(f is e.globals[name] for name, f in e.globals.items() if id(f) in e.helpers)
    assert id(e.globals["text"]) in e.helpers and id(e.globals["cycler"]) in e.helpers


def test_a_remembered_text_box_is_the_text_box_for_its_exact_arguments(env):
    from markupsafe import Markup

    text = env("").globals["text"]
    first = text("Gain **one**", 2, 3, 40, 8)
    assert text("Gain **one**", 2, 3, 40, 8) is first                 # remembered
    assert text("Gain **one**", 2, 3, 40, 8, size=8) != first
    assert str(text(1, 2, 3, 40, 8)) != str(text(1.0, 2, 3, 40, 8)) != str(text(True, 2, 3, 40, 8))
    assert "&amp;" in text("a & b", 2, 3, 40, 8) and "&amp;" not in text(Markup("a &amp; b"),
                                                                         2, 3, 40, 8)[:-60]
    assert str(text(["a", "b"], 2, 3, 40, 8)) == str(text(["a", "b"], 2, 3, 40, 8))  # not kept
    for _ in range(2):                                                 # a failure is not kept
        with pytest.raises(Exception, match="does not fit"):
            text("far too long for the box " * 20, 2, 3, 10, 4)


def test_the_remembered_text_boxes_stay_within_their_bound(env, monkeypatch):
    from printshop.draw.helpers import Remembered

    monkeypatch.setattr(Remembered, "KEPT", 60_000)    # results up to 600 characters kept
    text = env("").globals["text"]
    for n in range(400):
        assert len(text(f"Line {n} of the rules", 2, 3, 40, 8)) < 600
        assert text.chars == sum(map(len, text.kept.values())) <= 60_000
    assert 0 < len(text.kept) < 400
