"""What printshop trusts: data is text, templates are sandboxed, nothing outside the project
is read, output is atomic and builds can run side by side."""

from __future__ import annotations

import io
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import cairocffi as cairo
import pytest
from click.testing import CliRunner
from PIL import Image
from pypdf import PdfReader

from conftest import EXAMPLE
from printshop.files import limits
from printshop.draw import pictures, templates
from printshop.cli import main
from printshop.layout.impose import Page, page_svg
from printshop.write.pdf import SVGRenderError, draw_with_cairosvg, pages_to_pdf

HOSTILE_TEXT = ['<b>bold?</b> & "quotes" \'apos\' ]]>', '<svg onload="alert(1)"><script/></svg>',
                "{{ 7 * 7 }} {% for x in y %}", "עברית Hebrew", "dice 🎲 fox 🦊",
                "e\u0301 combining"]


def project_with(tmp_path: Path, stall_texts: list[str]) -> Path:
    project = tmp_path / "project"
    shutil.copytree(EXAMPLE, project)
    stalls = project / "data" / "lantern-fair" / "stalls.yaml"
    lines = stalls.read_text(encoding="utf-8").splitlines()
    cards = [i for i, line in enumerate(lines) if line.strip().startswith("- {id:")]
    import json
    for index, text in zip(cards, stall_texts):
        head = lines[index].split(" text: ")[0]
        lines[index] = f"{head} text: {json.dumps(text, ensure_ascii=False)}}}"
    stalls.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return project


def test_card_text_is_printed_literally(tmp_path):
    project = project_with(tmp_path, HOSTILE_TEXT)
    out = tmp_path / "out"
    result = CliRunner().invoke(main, ["build", "--project", str(project), "--out", str(out),
                                       "--quiet"])
    assert result.exit_code == 0, result.output
    reader = PdfReader(out / "lantern-fair" / "stalls.pdf")
    text = " ".join(p.extract_text() for p in reader.pages).replace("\n", " ")
    for needle in ["<b>bold?</b>", "&", '"quotes"', "]]>", "<svg", "{{", "7", "{%", "🎲", "🦊"]:
        assert needle in text, needle
    assert "49" not in text  # the Jinja expression in the data was not evaluated
    # The SVG structure is intact: every stall card is still a card (8 per sheet, 6 cards).
    assert len(reader.pages) == 2


def test_cairosvg_never_loads_a_file_outside_the_drawing(tmp_path):
    secret = tmp_path / "secret.png"
    Image.new("RGB", (40, 40), (250, 10, 200)).save(secret)
    page = Page(100, 100, [f'<image href="file://{secret}" x="0" y="0" width="50" '
                           f'height="50"/>', f'<image href="{secret}" x="50" y="50" width="50" '
                           f'height="50"/>'])
    with pytest.raises(SVGRenderError, match="page 1: the drawing refers to 'file:///"):
        pages_to_pdf([page], "t")
    # The second line of defence: cairosvg itself, handed the page unchecked, loads nothing.
    out = io.BytesIO()
    surface = cairo.PDFSurface(out, 100, 100)
    draw_with_cairosvg(page_svg(page, 1, 1), 1, surface)
    surface.finish()
    assert b"/Image" not in out.getvalue() and b"/XObject" not in out.getvalue()


def test_image_helper_embeds_a_picture_from_the_template_folder(tmp_path):
    Image.new("RGB", (8, 8), (10, 200, 30)).save(tmp_path / "pic.png")
    (tmp_path / "t.svg.j2").write_text('<image href="{{ image(\'pic.png\') }}" width="5" '
                                       'height="5"/>')
    env = templates.make_environment([tmp_path], {})
    out = templates.render(env, "t.svg.j2", {}, "x")
    assert 'href="data:image/png;base64,' in out
    pdf = pages_to_pdf([Page(10, 10, [out])], "t")
    assert b"/Image" in pdf


@pytest.mark.parametrize("name", ["../secret.png", "/etc/hostname", "file:///etc/hostname",
                                  "http://example.com/a.png", "missing.png", "t.svg.j2"])
def test_image_helper_refuses_anything_else(tmp_path, name):
    (tmp_path / "t.svg.j2").write_text("{{ image(name) }}")
    env = templates.make_environment([tmp_path], {})
    with pytest.raises(templates.TemplateProblem):
        templates.render(env, "t.svg.j2", {"name": name}, "x")


def test_a_template_that_never_ends_is_stopped(tmp_path, monkeypatch):
    monkeypatch.setattr(limits, "_active", limits.Limits(render_seconds=0.5))
    (tmp_path / "t.svg.j2").write_text(
        "{% for i in range(90000) %}{% for j in range(90000) %}{% endfor %}{% endfor %}")
    env = templates.make_environment([tmp_path], {})
    start = time.monotonic()
    with pytest.raises(templates.TemplateProblem, match="more than 0.5 seconds"):
        templates.render(env, "t.svg.j2", {}, "x")
    assert time.monotonic() - start < 5


def _pdfs_are_whole(folder: Path) -> None:
    for pdf in folder.rglob("*.pdf"):
        assert len(PdfReader(pdf).pages) > 0, pdf


def test_two_builds_at_once_do_not_corrupt_the_output(tmp_path):
    out = tmp_path / "out"
    cmd = [sys.executable, "-m", "printshop.cli", "build", "--project", str(EXAMPLE), "--out",
           str(out), "--quiet"]
    procs = [subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
             for _ in range(2)]
    for p in procs:
        assert p.wait(timeout=120) == 0, p.stderr.read()
    _pdfs_are_whole(out)
    assert not list(out.glob(".printshop-staging-*"))


def test_an_interrupted_build_leaves_the_previous_output(tmp_path):
    out = tmp_path / "out"
    cmd = [sys.executable, "-m", "printshop.cli", "build", "--project", str(EXAMPLE), "--out",
           str(out), "--quiet", "--jobs", "1"]
    subprocess.run(cmd, check=True, capture_output=True)
    game = out / "lantern-fair"
    before = {p: p.read_bytes() for p in game.glob("*.pdf")}
    for delay in (0.05, 0.2, 0.4, 0.7):
        proc = subprocess.Popen(cmd + ["--paper", "letter"], stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL)
        time.sleep(delay)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        _pdfs_are_whole(out)
        for path in before:
            assert path.exists()
    # A later build clears what the killed builds left in their staging folders.
    subprocess.run(cmd, check=True, capture_output=True)
    assert not list(out.glob(".printshop-staging-*"))
    assert {p: p.read_bytes() for p in game.glob("*.pdf")} == before


def _render(tmp_path, source: str, **context) -> str:
    (tmp_path / "t.svg.j2").write_text(source)
    env = templates.make_environment([tmp_path], {})
    return templates.render(env, "t.svg.j2", context, "card 'x' of deck")


def test_bounded_text_helpers_still_do_their_everyday_work(tmp_path):
    source = ('{{ "ab"|center(6) }}|{{ "a\\nb"|indent(2) }}|{{ names|join(", ") }}|'
              '{{ "%03d"|format(7) }}|{{ "{:>4}".format(5) }}|{{ "x-y"|replace("-", "+") }}|'
              '{{ "7".zfill(3) }}|{{ "a".rjust(3, ".") }}|{{ ", ".join(names) }}|'
              '{{ (names * 2)|length }}|{{ "%(n)5s"|format(n="z") }}|'
              '{{ [1, 2, 3]|batch(2)|list }}|{{ ("x" * 50000 + "y" * 50000)|length }}|{% set s %}{{ "q" * 3 }}{% endset %}{{ s }}')
    out = _render(tmp_path, source, names=["ann", "bo"])
    assert out == ('  ab  |a\n  b|ann, bo|007|   5|x+y|007|..a|ann, bo|4|    z|[[1, 2], [3]]|'
                   '100000|qqq')


@pytest.mark.parametrize("source", [
    '{{ "a".rjust(2000000000) }}',
    '{{ "a\\tb".expandtabs(900000000) }}',
    '{{ "ab".translate({97: "x" * 99999}) * 1 }}{{ ("a" * 99999).translate({97: "x" * 99999}) }}',
    '{{ "{n:>2000000000}".format_map({"n": 1}) }}',
    '{{ "%(n)2000000000s"|format(n=1) }}',
    '{{ "{:{w}}".format(1, w=2000000000) }}',
    '{{ ("x" * 99999)|wordwrap(1, wrapstring="y" * 99999) }}',
    '{{ [1]|slice(1000000000)|list }}',
    '{{ [[1] * 1000] * 1000 }}',
])
def test_strings_and_lists_over_their_limit_are_refused_before_they_are_built(tmp_path, source):
    start = time.monotonic()
    with pytest.raises(templates.TemplateProblem, match="over the limit max_(string_length|list_"
                                                         "items) = "):
        _render(tmp_path, source)
    assert time.monotonic() - start < 5


def test_a_picture_header_declares_its_size(tmp_path):
    Image.new("RGB", (30, 20)).save(tmp_path / "a.png")
    Image.new("RGB", (30, 20)).save(tmp_path / "a.jpg")
    assert pictures.picture_size((tmp_path / "a.png").read_bytes()) == (30, 20)
    assert pictures.picture_size((tmp_path / "a.jpg").read_bytes()) == (30, 20)
    assert pictures.picture_size(b"GIF89a") is None
