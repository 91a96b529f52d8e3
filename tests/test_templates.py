"""Templates are strict and sandboxed: a mistake or a trick is an error naming the template."""

from __future__ import annotations

import pytest

from printshop.templates import TemplateProblem, make_environment, render


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
