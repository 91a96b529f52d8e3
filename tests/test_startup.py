"""The start-up budget (issue 16): what `printshop --help` and `printshop list` import.

Wall time on a shared machine is noise; the modules a command imports are not. Each check runs
a fresh interpreter, as a user's shell does, and looks at sys.modules after the command.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

# Heavy libraries a command must not load unless it draws, templates or validates with them.
HEAVY = ("cairo", "cairocffi", "cffi", "cairosvg", "pydantic", "shapely", "jinja2",
         "printshop.load.specs")

PROBE = """
import json, sys
sys.argv = ["printshop", *{args!r}]
import printshop.cli
try:
    printshop.cli.main()
except SystemExit as exc:
    code = exc.code
else:
    code = 0
roots = sorted({{m.split(".")[0] for m in sys.modules}} |
               {{m for m in sys.modules if m.startswith("printshop.")}})
sys.stdout = sys.__stdout__
print("\\n" + json.dumps({{"code": code, "modules": roots}}))
"""


def imported_by(*args: str) -> set[str]:
    """Run the CLI with ``args`` in a fresh interpreter; return the top-level modules loaded
    and printshop's own."""
    proc = subprocess.run([sys.executable, "-c", PROBE.format(args=list(args))],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    assert result["code"] in (0, None), proc.stdout
    return set(result["modules"])


@pytest.mark.parametrize("args", [("--help",), ("-h",), ("build", "--help"),
                                  ("map", "--help")])
def test_help_imports_nothing_heavy(args):
    loaded = imported_by(*args)
    assert not loaded & set(HEAVY), sorted(loaded & set(HEAVY))


def test_help_does_not_load_map_variants():
    # The map command's --variant choices are read from variants.yaml only when `map` runs.
    assert "yaml" not in imported_by("--help")


def test_list_draws_nothing():
    # `list` loads and schema-checks the games, but neither templates nor cairo.
    loaded = imported_by("list")
    drawing = {"cairo", "cairocffi", "cffi", "cairosvg", "shapely", "jinja2"}
    assert not loaded & drawing, sorted(loaded & drawing)


def test_pocketciv_code_leaves_the_map_generator_to_what_draws_maps():
    # Loading PocketCiv's code (its rules and template helpers, as an export of its cards
    # does) leaves numpy and shapely alone; a build imports them once, before its workers fork.
    probe = ("import sys\n"
             "from printshop.load.plugins import load_drawing, load_plugins\n"
             "load_plugins(['pocketciv'])\n"
             "print('shapely' in sys.modules, 'numpy' in sys.modules)\n"
             "load_drawing(['pocketciv'])\n"
             "print('shapely' in sys.modules, 'numpy' in sys.modules)\n")
    proc = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["False", "False", "True", "True"]
