"""Write docs/reference.md from the code: commands, manifest keys, field types, template
helpers, rule checks, sizes, printable areas, limits and icons.

    python tools/make_reference.py            # rewrite docs/reference.md
    python tools/make_reference.py --check    # exit 1 if docs/reference.md is out of date

tests/test_reference.py runs the check, and fails when the code gains a helper, key or check
that this file does not describe, so the reference cannot drift from the code.
"""

from __future__ import annotations

import sys
import typing
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from printshop.load import specs  # noqa: E402
from printshop.load.geometry import DEFAULT_BLEED, formats  # noqa: E402
from printshop.load.icons import icon_sets, shared_icons  # noqa: E402
from printshop.files.limits import Limits  # noqa: E402
from printshop.check.rules import CHECKS  # noqa: E402
from printshop.load.strict import Field  # noqa: E402
from printshop.draw.helpers import EXTRA_GLOBALS, helper_signature, plain_signature  # noqa: E402
from printshop.draw.templates import make_environment  # noqa: E402
from printshop.layout.tiles import printable_area  # noqa: E402

OUT = ROOT / "docs" / "reference.md"

# What each template helper is for, and an example a template can copy.
HELPERS = {
    "text": ("Set text in a box (mm; sizes in pt): wrapped, `**bold**`, `:icon:` on the "
             "baseline, a newline breaks the line. With `fallback=` it is set at `size` or "
             "at `fallback`, never between; without, it shrinks in 0.25 pt steps to "
             "`min_size` (at least 6 pt). Text that does not fit is an error naming the card. "
             "`icon_color=` colours the icons in the text.",
             "{{ text(card.text, 5, 58, 53, 24, size=style.type.body, color=style.ink) }}"),
    "flow": ("Pour headed sections (a list of `{heading, body}`, from the sheet's data) "
             "through `columns` columns of the box (x, y, w, h), page after page: this page's "
             "share (`page=page`). On the first page the columns start at `first_y` (below a "
             "title). Text is set at `size` and `heading_size`, never shrunk; a new line in a "
             "body starts a paragraph; `**bold**`, `:icon:` and `• ` bullets work as in "
             "`text`. A heading keeps with the first two lines of its body, a paragraph leaves "
             "at least two lines at a column's foot and head, and the last page's columns are "
             "balanced. With `pages: auto` the sheet has as many pages as the text needs; with "
             "a number, text that needs more is an error.",
             "{{ flow(data.sections, area.x, area.y, area.w, area.h - 8, page=page, "
             "columns=2, first_y=area.y + 30, color=style.ink, heading_color=style.accent) }}"),
    "text_width": ("Measure one line of plain text, in mm.",
                   "{% set w = text_width(card.name, 12, 'title') %}"),
    "text_lines": ("Count the lines a text takes in a box `w` mm wide at `size` pt, broken "
                   "exactly as `text` breaks it (bold, icons, hyphenation): for rows or boxes "
                   "as tall as their text.",
                   "{% set h = text_lines(card.text, 40, size=8) * 8 * PT * 1.2 %}"),
    "icon": ("Draw an icon in a square box: a name of the game's icons.yaml or of the shared "
             "icons, or a `game-icons:NAME`. `color=` fills the shapes that set no fill and "
             "takes the place of `currentColor` in the icon's fills and strokes.",
             "{{ icon('coin', 50, 4, 8, color=style.accent) }}"),
    "has_icon": ("Say whether an icon name or `game-icons:NAME` reference names an icon.",
                 "{% if has_icon(card.kind) %}...{% endif %}"),
    "image": ("Embed a PNG or JPEG of the game's template folder. With a box (x, y, w, h in "
              "mm) it returns the whole picture element, fitted as `fit` says (`contain`, "
              "`cover` or `stretch`); without, the `data:` URL for an `<image href=...>` you "
              "write yourself.",
              "{{ image('harbour.png', 3, 12, 57, 40) }}"),
    "picture": ("Draw a card's picture from a data column: a PNG or JPEG file name (as "
                "`image`) or an icon (as `icon`, centred in the box at its smaller side).",
                "{{ picture(card.art, 5, 15, 53, 34, color=style.accent) }}"),
    "fmt": ("Print a number for SVG: fixed decimals, no trailing zeros (also a filter: "
            "`x | fmt`).", '<circle cx="{{ fmt(size.w / 2) }}" .../>'),
}
CONSTANTS = {"PT": "Millimetres per point (25.4 / 72): `size * PT` is a type size in mm."}

# What each declarative rule check does, and the keys of a rule it reads.
CHECK_TEXT = {
    "count": ("Count the cards of `component` (copies counted) that match `where`: exactly "
              "`equals`, at least `min`, at most `max`.",
              "{id: ten-ships, check: count, component: cards, where: {kind: ship}, equals: 10}"),
    "unique": ("No two cards of `component` matching `where` share a value of `field`.",
               "{id: one-face-per-value, check: unique, component: coins, field: value}"),
    "range": ("Every card's `field` (each item, for a list) is from `min` to `max`.",
              "{id: costs, check: range, component: cards, field: cost, min: 0, max: 5}"),
    "sequence": ("The values of `field` run from `min` (default 1) to `max` (default: as "
                 "many as there are cards) without gaps or repeats.",
                 "{id: numbered, check: sequence, component: events, field: number}"),
}

# What each manifest key means, record by record.
KEYS = {
    "Manifest": {
        "name": "The game's name (cover, contents, PDF titles).",
        "subtitle": "A line under the name on the cover.",
        "designer": "Who made it (cover and credits).",
        "players": "How many play, as text (`\"2-4\"`); per-player components are counted "
                   "for the most.",
        "description": "A paragraph about the game.",
        "style": "Fonts, named colours and the type scale (below); templates read `style.*`.",
        "icons": "The game's icon file in templates/GAME/ (`icons.yaml`).",
        "enums": "Named lists of values for `enum` fields (`values: NAME`).",
        "provide": "What players bring (listed on the contents page).",
        "components": "What to print (below), at least one.",
        "rules": "Rule checks (mappings, below) and named rule sets of built-in games.",
    },
    "Style": {
        "title_font": "The font templates call `title`.",
        "body_font": "The font templates call `body`.",
        "colors": "Named colours: `style.NAME` in templates.",
        "type": "The type scale in points (below).",
        "fonts": "The game's own fonts: a name (used as `font='NAME'`) -> a TTF or OTF file in "
                 "data/GAME/ (read through the guard, at most `max_font_bytes`); each is also "
                 "tried for characters the chosen font lacks.",
        "hyphenate": "The language whose patterns may break long words (`en`, `de_DE`); empty: "
                     "none.",
    },
    "TypeScale": {
        "title": "Titles.",
        "title_fallback": "The one smaller size a title may take (`fallback=`).",
        "body": "Rules text on a card (7 pt at least).",
        "label": "Small print (6 pt at least).",
    },
    "ComponentBase": {
        "id": "Lowercase letters, digits and '-'; names the PDF (`output/GAME/ID.pdf`) and "
              "`--only ID`.",
        "kind": "`deck`, `tokens`, `sheet`, `board` or `booklet`.",
        "name": "What the contents page and the cover call it.",
        "description": "A sentence about it.",
        "stock": "What to print it on, then `;` and any advice (`300 gsm card; sleeve it`).",
        "cut": "How to cut it, for the contents page.",
        "mount": "Glued onto this (`1.5 mm greyboard`): both sides print single-sided.",
        "per_player": "One per player, printed for the most players allowed.",
        "copies": "How many the game uses at most, when not one per player (printed that "
                  "many times).",
    },
    "DeckComponent": {
        "data": "The card file in data/GAME/ (YAML with `cards:`, TOML or CSV).",
        "front": "The template of a card's front.",
        "back": "The template of a card's back (drawn per card; identical backs shared).",
        "size": "A size name (below) or `[w, h]` in mm.",
        "shape": "`rect` or `circle` (tokens).",
        "corner_radius": "Rounded corners, in mm (cut guides and studio).",
        "bleed": "Colour past the cut line, in mm (default 3 for cards, 1.5 for tokens).",
        "fields": "The card schema: field name -> field spec (below). Every other key of a "
                  "card is an error.",
        "columns": "For CSV: a column name -> the field (or `id`, `name`, `copies`) it fills.",
    },
    "SheetComponent": {
        "template": "The page's template: sees `page`, `area` (the printable part: x, y, w, h "
                    "in mm), `data` and `params`.",
        "pages": "How many pages the template draws (`page.index` 0, 1, ..., `page.count`); "
                 "`auto`: as many as its `flow()` needs.",
        "orientation": "`portrait` or `landscape`.",
        "data": "A data file the template reads as `data`.",
        "duplex": "Print the pages double-sided.",
        "params": "Settings the template reads as `params` (a mapping of your own).",
    },
    "BoardComponent": {
        "template": "The board's template, drawn once at `size` (sees `size.w`, `size.h`, "
                    "`data`).",
        "size": "`[w, h]` in mm. Larger than a page, it is tiled (printable areas below).",
        "data": "A data file the template reads as `data`.",
        "overlap": "The glue strip at each join, in mm (default 10).",
        "tiles": "`[columns, rows]` of pages to tile it over; refused, with the tiling that "
                 "fits, when they cannot hold it. Default: the fewest pages.",
    },
    "BookletComponent": {
        "template": "The template of each page (sees `entry`, `index`, `number`, `page`, "
                    "`size`, `data`).",
        "cover": "The cover's template.",
        "data": "A file with `pages:`, one entry per page; or with `sections:` and no "
                "`pages:`, flowing text: the template calls `flow(data.sections, ..., "
                "page=page)` and the booklet has as many pages as the text needs.",
        "page_size": "A paper name or `[w, h]` in mm (default `a5`), imposed two-up for "
                     "saddle stitching.",
    },
    "CheckSpec": {
        "id": "The rule's id, shown with each failure.",
        "check": "`count`, `unique`, `range` or `sequence` (below).",
        "component": "The deck it checks.",
        "where": "Only the cards whose fields equal these values (a list field: contains).",
        "field": "The card field it reads.",
        "equals": "`count`: exactly this many.",
        "min": "`count`: at least; `range`: lowest; `sequence`: first.",
        "max": "`count`: at most; `range`: highest; `sequence`: last.",
        "values": "Reserved for checks that take a list of values.",
        "message": "What the failure says instead of the default.",
    },
    "FieldSpec": {
        "type": "`str`, `text`, `int`, `number`, `bool`, `enum`, `list` or `object`.",
        "required": "`false`: a card may leave it out.",
        "default": "The value of a card that leaves it out.",
        "values": "`enum`: the values, or the name of a manifest `enums` list.",
        "min": "`int`, `number`: the lowest value.",
        "max": "`int`, `number`: the highest value.",
        "min_items": "`list`: fewest items.",
        "max_items": "`list`: most items.",
        "max_length": "`str`, `text`: most characters (default 2000).",
        "items": "`list`: the field spec of each item.",
        "fields": "`object`: its own fields.",
        "description": "What the field means (for you and the studio).",
    },
}
LIMIT_TEXT = {
    "max_font_bytes": "one font file a game brings (`style: fonts:`), checked before it is read",
    "max_cards": "cards and tokens of a build, copies counted",
    "max_output_pages": "pages of one component, and of all PDFs of a build",
    "max_pixels": "pixels of one picture (image(), a data: URL, an exported PNG)",
    "max_string_length": "characters of one string a template builds",
    "max_list_items": "items of one list a template builds",
    "render_seconds": "seconds of one template render",
    "total_render_seconds": "seconds of drawing the whole build",
    "max_file_bytes": "bytes of one data file, manifest, icon set or template",
    "max_image_bytes": "bytes of one picture",
}
RECORDS = ["Manifest", "Style", "TypeScale", "ComponentBase", "DeckComponent", "SheetComponent",
           "BoardComponent", "BookletComponent", "FieldSpec", "CheckSpec"]


def type_text(tp) -> str:
    """Return a type annotation as a manifest's writer reads it."""
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if origin is typing.Annotated:
        base, meta = args[0], [a for a in args[1:] if isinstance(a, Field)]
        text = type_text(base)
        for f in meta:
            bounds = [f"{k} {v:g}" for k, v in (("≥", f.ge), ("≤", f.le)) if v is not None]
            if f.pattern:
                text = "id" if "a-z0-9" in f.pattern else text
            if bounds:
                text += f" ({', '.join(bounds)})"
        return text
    if origin is typing.Literal:
        return " \\| ".join(f"`{a}`" for a in args)
    if origin in (typing.Union, getattr(__import__("types"), "UnionType", None)):
        return " or ".join(type_text(a) for a in args if a is not type(None))
    if origin is list:
        return f"list of {type_text(args[0])}"
    if origin is dict:
        return f"mapping of {type_text(args[0])} to {type_text(args[1])}"
    if origin is tuple:
        return "[" + ", ".join(type_text(a) for a in args) + "]"
    names = {str: "text", int: "whole number", float: "number", bool: "true/false",
             typing.Any: "any"}
    if tp in names:
        return names[tp]
    return getattr(tp, "__name__", str(tp)).replace("Spec", " spec")


def default_text(key) -> str:
    if key.required:
        return "required"
    if key.factory is not None:
        value = key.factory()
        return "`{}`" if value == {} else "`[]`" if value == [] else "(defaults below)"
    if key.default is None:
        return "—"
    if isinstance(key.default, bool):
        return f"`{str(key.default).lower()}`"
    if isinstance(key.default, str):
        return f"`{key.default}`" if key.default else '`""`'
    return f"`{key.default:g}`" if isinstance(key.default, float) else f"`{key.default}`"


def records() -> list[str]:
    out = ["## Manifest keys (data/GAME/game.yaml)", "",
           "Every other key is an error that lists these. A component's keys are its kind's "
           "and the shared ones.", ""]
    shared = set(getattr(specs, "ComponentBase")._compiled())
    for name in RECORDS:
        rec = getattr(specs, name)
        keys = rec._compiled()
        if name.endswith("Component") and name != "ComponentBase":
            keys = {k: v for k, v in keys.items() if k not in shared or k == "kind"}
            keys.pop("kind", None)
        hints = typing.get_type_hints(rec, include_extras=True)
        title = {"Manifest": "The manifest", "ComponentBase": "Every component",
                 "DeckComponent": "`deck` and `tokens`", "SheetComponent": "`sheet`",
                 "BoardComponent": "`board`", "BookletComponent": "`booklet`",
                 "FieldSpec": "A card field (`fields:`)", "CheckSpec": "A rule check "
                 "(`rules:`)", "Style": "`style`", "TypeScale": "`style: type:` (points)"}
        out += [f"### {title[name]}", "", "| key | type | default | meaning |",
                "|---|---|---|---|"]
        for key in keys.values():
            meaning = KEYS[name][key.name]
            tp = type_text(hints[key.name]) if key.name != "kind" else \
                "`deck` \\| `tokens` \\| `sheet` \\| `board` \\| `booklet`"
            out.append(f"| `{key.name}` | {tp} | {default_text(key)} | {meaning} |")
            if name == "ComponentBase" and key.name == "id":
                out.append("| `kind` | `deck` \\| `tokens` \\| `sheet` \\| `board` \\| "
                           f"`booklet` | required | {KEYS[name]['kind']} |")
        out.append("")
    return out


def helpers() -> list[str]:
    env = make_environment([ROOT], {})
    out = ["## Template helpers", "",
           "Every template can call these (sizes of boxes in mm, type in points). A helper "
           "called with the wrong arguments says so in its own terms, with the template's "
           "line and the card.", ""]
    for name, fn in env.globals.items():
        # Jinja's own, and helpers a built-in game adds for its own templates alone
        if name in ("range", "dict", "cycler", "joiner", "namespace") or name in EXTRA_GLOBALS:
            continue
        if not callable(fn):
            out += [f"### `{name}`", "", CONSTANTS[name], ""]
            continue
        sig = plain_signature(helper_signature(fn))
        what, example = HELPERS[name]
        out += [f"### `{name}{sig}`", "", what, "", "```jinja", example, "```", ""]
    return out


def checks() -> list[str]:
    out = ["## Rule checks", "",
           "A mapping under `rules:` with an `id` and a `check`; its keys are in the table of "
           "a rule check above. A failure names the rule's id and a line: the card's where one "
           "card is at fault, else the line where the deck's cards begin; a failure about the "
           "whole game (a component without cards, a rule of a game's own code, an unknown "
           "check), the line of the rule's entry in the manifest.", "",
           "| check | what it checks | example |", "|---|---|---|"]
    for name in CHECKS:
        what, example = CHECK_TEXT[name]
        out.append(f"| `{name}` | {what} | `{example}` |")
    return out + [""]


def sizes() -> list[str]:
    f = formats()
    out = ["## Sizes", "", "Card and token sizes (`size:` of a deck), in mm, portrait:", "",
           "| name | w x h mm |", "|---|---|"]
    out += [f"| `{n}` | {w:g} x {h:g} |" for n, (w, h) in f["cards"].items()]
    out += ["", f"Cards print with {DEFAULT_BLEED:g} mm of bleed (tokens 1.5 mm) and a 5 mm "
            "page margin.", "", "Papers (`--paper`; booklets' `page_size`):", "",
            "| name | w x h mm |", "|---|---|"]
    out += [f"| `{n}` | {w:g} x {h:g} |" for n, (w, h) in f["papers"].items()]
    out += ["", "### Printable area (boards and sheets)", "",
            "A board up to *one page* prints whole; a larger one is cut into tiles, each of "
            "which prints up to *one tile*, its glue strip and join included. A sheet's "
            "`area` is one page's.", "",
            "| paper | one page, portrait | one page, landscape | one tile, portrait | "
            "one tile, landscape |", "|---|---|---|---|---|"]
    for paper in ("a4", "letter"):
        a = printable_area(paper)
        cells = [f"{a[k][0]:g} x {a[k][1]:g}" for k in ("portrait", "landscape",
                                                        "portrait tile", "landscape tile")]
        out.append(f"| `{paper}` | " + " | ".join(cells) + " |")
    return out + [""]


def limits_section() -> list[str]:
    out = ["## Limits", "", "Raise one on purpose with `--limit NAME=VALUE` "
           "(docs/trust.md says why they exist).", "", "| limit | default | bounds |",
           "|---|---|---|"]
    for name, value in vars(Limits()).items():
        shown = f"{value:,}" if isinstance(value, int) else f"{value:g} s"
        out.append(f"| `{name}` | {shown} | {LIMIT_TEXT[name]} |")
    return out + [""]


def icons_section() -> list[str]:
    out = ["## Icons", "",
           "In `templates/GAME/icons.yaml`: `name: game-icons:NAME` (a shipped icon), your own "
           "SVG fragment in a 100 x 100 box (write `currentColor` where `color=` should go), or "
           "a list of layers (`{icon, x, y, size, rotate, flip, color}`). Text names an icon "
           "as `:name:`; a name that is no icon is an error at its data line, with the "
           "nearest names.", "", "Shared icons every game has: " +
           ", ".join(f"`{n}`" for n in shared_icons()) + ".", "", "Shipped sets:", ""]
    for prefix, s in icon_sets().items():
        out.append(f"- `{prefix}:NAME`: {s.name} ({s.url}), {s.licence}; credited on the "
                   "cover and in NOTICE.txt when used.")
    return out + [""]


def commands() -> list[str]:
    from printshop.cli import main

    out = ["## Commands", "", "`printshop COMMAND --help` gives each one's options.", "",
           "| command | what it does |", "|---|---|"]
    for name, cmd in sorted(main.commands.items()):
        out.append(f"| `printshop {name}` | {cmd.get_short_help_str(200)} |")
    return out + [""]


def reference() -> str:
    """Return the text of docs/reference.md."""
    head = ["# printshop reference", "",
            "Made from the code by `python tools/make_reference.py`; tests/test_reference.py "
            "fails when it is out of date. The walk from an empty folder to a playtest PDF is "
            "[the tutorial](tutorial.md); how the pieces fit, [design.md](design.md).", ""]
    body = commands() + records() + helpers() + checks() + sizes() + limits_section() + \
        icons_section()
    return "\n".join(head + body).rstrip() + "\n"


def main(argv: list[str]) -> int:
    text = reference()
    if "--check" in argv:
        if OUT.read_text(encoding="utf-8") != text:
            print(f"{OUT.relative_to(ROOT)} is out of date: run python tools/make_reference.py")
            return 1
        return 0
    OUT.write_text(text, encoding="utf-8")
    print(f"wrote {OUT.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
