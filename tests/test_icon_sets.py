"""The shipped icon sets: a game names an icon in icons.yaml, draws it, and credits the set."""

from __future__ import annotations

import shutil
from pathlib import Path

from click.testing import CliRunner
from pypdf import PdfReader

from printshop.load import icons
from printshop.cli import main

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "lantern-fair"


def run(*args):
    return CliRunner().invoke(main, list(args))


def _example(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    shutil.copytree(EXAMPLE, root)
    return root


def test_the_set_ships_with_its_licence_and_every_icon():
    s = icons.icon_sets()["game-icons"]
    assert s.licence == "CC BY 3.0"
    assert "Attribution 3.0 Unported" in s.licence_file.read_text(encoding="utf-8")
    names = icons.set_names("game-icons")
    assert len(names) > 4000 and {"anvil", "wood-axe", "microscope", "sewing-machine"} <= names


def test_an_icon_is_one_path_in_the_100_box():
    frag = icons.set_icon("game-icons:anvil")
    assert frag.startswith('<g class="ps-set-game-icons" transform="scale(0.1953125)"><path d=')
    assert icons.fragment_problem(frag) is None
    assert icons.set_icon("game-icons:eskimo") == icons.set_icon("game-icons:person-in-blizzard")


def test_a_mistyped_icon_names_the_close_matches():
    try:
        icons.set_icon("game-icons:anvill")
    except icons.IconError as exc:
        assert "no icon 'anvill' in Game Icons" in str(exc)
        assert "game-icons:anvil" in str(exc)
    else:
        raise AssertionError("a mistyped icon was accepted")


def test_layers_place_and_colour_icons():
    frag = icons.resolve(["game-icons:anvil",
                          {"icon": "game-icons:flame", "x": 50, "size": 50, "color": "#c33"}])
    assert frag.count("ps-set-game-icons") == 2
    assert 'transform="translate(50 0) scale(0.5)" fill="#c33"' in frag
    try:
        icons.resolve([{"icon": "game-icons:flame", "zoom": 2}])
    except icons.IconError as exc:
        assert "unknown key 'zoom'" in str(exc)
    else:
        raise AssertionError("an unknown layer key was accepted")


def test_a_game_that_names_an_icon_draws_it_and_credits_the_set(tmp_path):
    root = _example(tmp_path)
    with (root / "templates" / "lantern-fair" / "icons.yaml").open("a") as f:
        f.write("\nanvil: game-icons:anvil\n")
    out = tmp_path / "out"
    result = run("build", "--project", str(root), "--out", str(out), "lantern-fair")
    assert result.exit_code == 0, result.output
    notice = (out / "lantern-fair" / "NOTICE.txt").read_text(encoding="utf-8")
    assert "Game Icons (https://game-icons.net)" in notice and "Lorc" in notice
    assert "Attribution 3.0" in (out / "lantern-fair" / "LICENSE-game-icons.txt").read_text()
    reader = PdfReader(out / "lantern-fair" / "lantern-fair-print-and-play.pdf")
    for page in reader.pages[:2]:       # the cover and the contents page
        said = " ".join(page.extract_text().split())
        assert "game-icons.net" in said and "CC BY 3.0" in said


def test_a_game_without_shipped_icons_credits_nothing(tmp_path):
    root = _example(tmp_path)
    out = tmp_path / "out"
    assert run("build", "--project", str(root), "--out", str(out), "lantern-fair").exit_code == 0
    assert not (out / "lantern-fair" / "NOTICE.txt").exists()


def test_a_mistyped_icon_in_icons_yaml_is_a_located_error(tmp_path):
    root = _example(tmp_path)
    path = root / "templates" / "lantern-fair" / "icons.yaml"
    with path.open("a") as f:
        f.write("\nanvil: game-icons:anvill\n")
    line = path.read_text().splitlines().index("anvil: game-icons:anvill") + 1
    result = run("validate", "--project", str(root), "lantern-fair")
    assert result.exit_code == 1
    assert f"icons.yaml:{line}: anvil: no icon 'anvill' in Game Icons" in result.output
    assert "did you mean game-icons:anvil" in result.output


def test_a_template_may_draw_an_icon_named_in_the_data(tmp_path):
    root = _example(tmp_path)
    tpl = root / "templates" / "lantern-fair" / "stall.svg.j2"
    tpl.write_text(tpl.read_text() + "\n{{ icon('game-icons:lantern-flame', 2, 2, 8) }}\n")
    out = tmp_path / "out"
    result = run("build", "--project", str(root), "--out", str(out), "lantern-fair")
    assert result.exit_code == 0, result.output
    tpl.write_text(tpl.read_text().replace("lantern-flame", "lantern-flam"))
    result = run("build", "--project", str(root), "--out", str(out), "lantern-fair")
    assert result.exit_code == 1 and "did you mean game-icons:lantern-flame" in result.output
