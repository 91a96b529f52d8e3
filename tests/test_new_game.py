"""`printshop new`: a game folder that validates and builds at once; the mistakes a designer
makes first (a mistyped icon in text, a helper called wrongly) are located errors."""

from __future__ import annotations

import base64
import subprocess
import sys

import pytest
from click.testing import CliRunner
from pypdf import PdfReader

from printshop.cli import main
from printshop.draw.templates import TemplateProblem, make_environment, render

# A 2 x 1 red PNG.
PNG = base64.b64decode("iVBORw0KGgoAAAANSUhEUgAAAAIAAAABCAIAAAB7QOjdAAAAD0lEQVR4nGM8ISfH"
                       "wMAAAAXMAQZFiFnUAAAAAElFTkSuQmCC")


def run(*args, cwd=None):
    """Run the command line as a user does; return (exit code, output)."""
    proc = subprocess.run([sys.executable, "-m", "printshop.cli", *args], cwd=cwd,
                          capture_output=True, text=True)
    return proc.returncode, proc.stdout + proc.stderr


@pytest.fixture(scope="module")
def new_game(tmp_path_factory):
    root = tmp_path_factory.mktemp("project")
    code, out = run("new", "harbour-lights", "--dir", str(root))
    assert code == 0, out
    return root


def test_new_makes_a_complete_folder(new_game):
    data = new_game / "data" / "harbour-lights"
    templates = new_game / "templates" / "harbour-lights"
    assert {p.name for p in data.iterdir()} == {"game.yaml", "cards.yaml", "coins.yaml",
                                                 "rules.yaml", "README.md"}
    assert (templates / "icons.yaml").read_text().count("game-icons:") >= 3
    manifest = (data / "game.yaml").read_text()
    assert "name: Harbour Lights" in manifest and "@" not in manifest.split("designer")[0]
    for kind in ("deck", "tokens", "sheet", "board"):
        assert f"kind: {kind}" in manifest
    assert "what to change" in (data / "README.md").read_text().lower()


def test_new_game_validates_and_builds_at_once(new_game, tmp_path):
    code, out = run("validate", "harbour-lights", "--project", str(new_game))
    assert code == 0 and "harbour-lights: ok (3 rules)" in out, out
    code, out = run("build", "harbour-lights", "--project", str(new_game), "--out",
                    str(tmp_path))
    assert code == 0, out
    folder = tmp_path / "harbour-lights"
    pages = {p.stem: len(PdfReader(p).pages) for p in folder.glob("*.pdf")}
    assert pages["cards"] == 4 and pages["coins"] == 2 and pages["rules"] == 1
    assert pages["board"] == 1            # 270 x 180 mm: one A4 page, landscape
    assert "Game Icons" in (folder / "NOTICE.txt").read_text()
    text = "".join(p.extract_text() for p in PdfReader(folder / "cards.pdf").pages)
    assert "Lighthouse" in text and ":" not in text.replace("Harbour", "")


def test_new_refuses_a_folder_that_exists_and_a_bad_id(new_game):
    code, out = run("new", "harbour-lights", "--dir", str(new_game))
    assert code == 1 and "already exists" in out
    code, out = run("new", "Harbour Lights", "--dir", str(new_game))
    assert code == 1 and "lowercase letters" in out and "Traceback" not in out


def test_a_mistyped_icon_in_text_is_a_located_error_with_close_matches(new_game, tmp_path):
    import shutil
    root = tmp_path / "p"
    shutil.copytree(new_game, root)
    cards = root / "data" / "harbour-lights" / "cards.yaml"
    cards.write_text(cards.read_text().replace("Take :crate: from", "Take :crates: from"))
    for command in ("validate", "build"):
        code, out = run(command, "harbour-lights", "--project", str(root), "--out",
                        str(tmp_path / "out")) if command == "build" else \
            run(command, "harbour-lights", "--project", str(root))
        assert code == 1, out
        assert ("data/harbour-lights/cards.yaml:4: cards[0].text: no icon ':crates:' in "
                "templates/harbour-lights/icons.yaml; did you mean :crate:?") in out
    assert not (tmp_path / "out").exists()


def test_a_rule_about_the_whole_deck_names_the_line_its_cards_begin(new_game, tmp_path):
    import shutil
    root = tmp_path / "p"
    shutil.copytree(new_game, root)
    manifest = root / "data" / "harbour-lights" / "game.yaml"
    manifest.write_text(manifest.read_text().replace("equals: 12}", "equals: 13}"))
    code, out = run("validate", "harbour-lights", "--project", str(root))
    assert code == 1
    # at the deck's `cards:` line (line 2, under a comment), as every deck-level count is
    assert "data/harbour-lights/cards.yaml:2: cards: [twelve-cards] expected 13 cards in " \
        "cards, found 12" in out


# --- pictures and icons as designers use them ----------------------------------------------

@pytest.fixture
def env(tmp_path):
    (tmp_path / "harbour.png").write_bytes(PNG)

    def make(source: str, icons=None):
        (tmp_path / "t.svg.j2").write_text(source)
        return make_environment([tmp_path], icons or {})
    return make


def test_image_with_a_box_is_the_picture_itself(env):
    out = render(env("{{ image('harbour.png', 2, 3, 40, 30) }}"), "t.svg.j2", {}, "card 'x'")
    assert out.startswith('<image x="2" y="3" width="40" height="30" preserveAspectRatio='
                          '"xMidYMid meet" href="data:image/png;base64,')
    url = render(env("{{ image('harbour.png') }}"), "t.svg.j2", {}, "c")
    assert url.startswith("data:image/png;base64,")


def test_picture_takes_a_file_or_an_icon_from_a_data_column(env):
    e = env("{{ picture(card.art, 0, 0, 40, 20, color='#123456') }}",
            {"wave": '<path d="M0 0 L9 9" stroke="currentColor" fill="currentColor"/>'})
    png = render(e, "t.svg.j2", {"card": {"art": "harbour.png"}}, "c")
    assert png.startswith("<image ")
    icon = render(e, "t.svg.j2", {"card": {"art": "wave"}}, "c")
    assert 'translate(10 0) scale(0.2)' in icon and "currentColor" not in icon
    assert icon.count("#123456") == 3      # the group's fill, the stroke and the fill
    shipped = render(e, "t.svg.j2", {"card": {"art": "game-icons:anvil"}}, "c")
    assert "ps-set-game-icons" in shipped and 'fill="#123456"' in shipped
    with pytest.raises(TemplateProblem) as info:
        render(e, "t.svg.j2", {"card": {"art": "game-icons:anvill"}}, "card 'x'")
    assert "picture(): no icon 'anvill' in Game Icons; did you mean game-icons:anvil" \
        in str(info.value)


@pytest.mark.parametrize("call, says", [
    ("image('harbour.png', 1, 2, 3, 4, 5, 6)",
     "image(): 7 values given, at most 6 expected; image takes image(name, x=None, y=None, "
     "w=None, h=None, fit='contain')"),
    ("icon('coin', 1, 2)", "icon(): missing a required argument: 'size'; icon takes "
     "icon(name, x, y, size, color=None)"),
    ("icon('coin', 1, 2, 3, colour='red')", "icon(): no parameter 'colour' (did you mean "
     "'color'?)"),
    ("text('hi', 1, 2, 3, 4, sise=9)", "text(): no parameter 'sise' (did you mean 'size'?)"),
])
def test_a_helper_called_wrongly_says_so_in_its_own_terms(env, call, says):
    with pytest.raises(TemplateProblem) as info:
        render(env("<g/>\n{{ " + call + " }}"), "t.svg.j2", {}, "card 'x'")
    message = str(info.value)
    assert says in message and "t.svg.j2:2" in message and "card 'x'" in message
    assert "lambda" not in message and "positional argument" not in message


def test_the_new_command_is_in_the_help():
    out = CliRunner().invoke(main, ["--help"]).output
    assert "new" in out and "Start a game of your own" in out
