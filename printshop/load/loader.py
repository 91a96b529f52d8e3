"""Load a game folder into a typed Game, reporting every problem at once."""

from __future__ import annotations

import difflib
import re
from pathlib import Path, PurePosixPath

from ..files import guard
from ..files.errors import PrintshopError, Problem, Problems, control_problem
from . import fonts
from . import icons as icon_sets
from .geometry import card_size
from .models import (ID_PATTERN, Card, CheckSpec, DeckComponent, Game, Manifest, Part)
from ..files.project import SHARED_TEMPLATES, GameFolder, did_you_mean
from .schema import MAX_COPIES, RESERVED, check_fields
from .source import Document, load_document, read_text
from .strict import ValidationError, number_text, short

_ID = re.compile(ID_PATTERN.rstrip("$"))   # used with fullmatch: no newline before the end


def validation_problems(exc: ValidationError, doc: Document, prefix: tuple = ()) -> list[Problem]:
    """Place a record's problems (found in the data at ``prefix``) in their file and line."""
    problems, seen = [], set()
    for loc, message in exc.found:
        path = prefix + loc
        if (path, message) not in seen:
            seen.add((path, message))
            problems.append(Problem(doc.file, message, path, doc.line(path)))
    return problems


def safe_relative(folder: GameFolder, base: Path, name: str, label_file: str, path: tuple,
                  problems: Problems, line=None) -> Path | None:
    """Resolve a file named in the manifest, refusing anything outside ``base``."""
    if any(ord(c) < 32 or ord(c) == 127 for c in name):
        problems.add(label_file, f"'{short(name)[1:-1]}' must be a file name: it holds a "
                     "control character (such as a NUL byte)", path, line)
        return None
    pure = PurePosixPath(name)
    if pure.is_absolute() or ".." in pure.parts or "\\" in name or ":" in name:
        problems.add(label_file, f"'{name}' must be a file name inside "
                     f"{folder.label(base)}/ (no absolute paths, '..' or URLs)", path, line)
        return None
    try:
        target = (base / pure).resolve()
    except (RuntimeError, OSError):     # a loop of symbolic links (RuntimeError up to 3.12)
        problems.add(label_file, f"'{name}' is a loop of symbolic links, not a file", path,
                     line)
        return None
    if not target.is_relative_to(base.resolve()):
        problems.add(label_file, f"'{name}' points outside {folder.label(base)}/", path, line)
        return None
    return target


def _table_place(doc: Document, path: tuple, column_of: dict) -> tuple:
    """Return a card's key path as a spreadsheet user reads it: ("row 5, column 'cost'",)."""
    if not doc.rows or len(path) < 2 or path[0] != "cards":
        return path
    where = f"row {doc.rows.get(path[1], path[1])}"
    if len(path) > 2:
        where += f", column '{column_of.get(path[2], path[2])}'"
        where += "".join(f", item {p + 1}" if isinstance(p, int) else f", {p}"
                         for p in path[3:])
    return (where,)


def _unknown_columns(doc: Document, spec: DeckComponent, problems: Problems) -> set[str]:
    """Report once each spreadsheet column that is no field of the deck; return their keys."""
    accepted = list(RESERVED) + list(spec.fields)
    keys = dict.fromkeys(spec.columns.get(k, k) for raw in doc.data["cards"]
                         if isinstance(raw, dict) for k in raw)
    unknown = {k for k in keys if k not in accepted}
    column_of = {field: column for column, field in spec.columns.items()}
    for key in (k for k in keys if k in unknown):       # in the order of the columns
        problems.add(doc.file, f"unknown column; accepted columns: {', '.join(accepted)} (or "
                     "name the field it holds under 'columns:' in the deck's manifest entry)",
                     (f"column '{column_of.get(key, key)}'",), doc.line(("cards",)))
    return unknown


def load_cards(doc: Document, spec: DeckComponent, enums: dict, problems: Problems) -> list[Card]:
    """Check a deck's data document and return its cards."""
    data = doc.data
    if not isinstance(data, dict) or not isinstance(data.get("cards"), list):
        problems.add(doc.file, "expected a mapping with a 'cards' list", (), doc.line(()))
        return []
    extra = [k for k in data if k != "cards"]
    for k in extra:
        problems.add(doc.file, f"unknown key '{k}'; accepted keys: cards", (k,), doc.line((k,)))
    column_of = {field: column for column, field in spec.columns.items()}
    skip = _unknown_columns(doc, spec, problems) if doc.rows else set()
    cards, ids = [], {}
    for i, raw in enumerate(data["cards"]):
        path = ("cards", i)
        if not isinstance(raw, dict):
            problems.add(doc.file, f"expected a card (a mapping with id and name), got "
                         f"{short(raw)}", path, doc.line(path))
            continue
        raw = {spec.columns.get(k, k): v for k, v in raw.items()
               if spec.columns.get(k, k) not in skip}
        errors: list = []
        card_id = raw.get("id")
        if card_id is None:
            errors.append((path + ("id",), "missing required key 'id'"))
        elif not isinstance(card_id, (str, int)) or isinstance(card_id, bool) or \
                not _ID.fullmatch(str(card_id)) or len(str(card_id)) > 64:
            errors.append((path + ("id",), "expected an id of lowercase letters, digits and "
                           f"'-' (at most 64), got {short(card_id)}"))
        else:
            card_id = str(card_id)
            if card_id in ids:
                first = (f"in {_table_place(doc, ('cards', ids[card_id]), column_of)[0]}"
                         if doc.rows else f"at cards[{ids[card_id]}]")
                errors.append((path + ("id",), f"duplicate card id '{card_id}' (first used "
                               f"{first})"))
            else:
                ids[card_id] = i
        name = raw.get("name")
        if name is None:
            errors.append((path + ("name",), "missing required key 'name'"))
        elif isinstance(name, bool) or not isinstance(name, (str, int, float)) or \
                len(str(name)) > 200:
            errors.append((path + ("name",), f"expected a name (text up to 200 characters), "
                           f"got {short(name)}"))
        elif control_problem(str(name), one_line=True):
            errors.append((path + ("name",), f"{short(name)} "
                           f"{control_problem(str(name), one_line=True)}"))
        copies = raw.get("copies", 1)
        if isinstance(copies, str):   # a spreadsheet's cell is text
            read = number_text(copies, whole=True)
            copies = copies if read is None else read
        if isinstance(copies, bool) or not isinstance(copies, int) or not \
                1 <= copies <= MAX_COPIES:
            errors.append((path + ("copies",), f"expected a whole number of copies from 1 to "
                           f"{MAX_COPIES}, got {short(copies)}"))
        fields = check_fields(raw, spec.fields, enums, path, errors, RESERVED)
        for err_path, message in errors:
            problems.add(doc.file, message, _table_place(doc, err_path, column_of),
                         doc.line(err_path))
        if not errors:
            cards.append(Card(card_id, str(name), copies, fields, doc.line(path)))
    if not data["cards"]:
        problems.add(doc.file, "the deck has no cards", ("cards",), doc.line(("cards",)))
    return cards


def _check_enums(manifest: Manifest, doc: Document, problems: Problems) -> None:
    def walk(specs, path):
        for name, spec in specs.items():
            p = path + (name,)
            if spec.type == "enum":
                if spec.values is None or (isinstance(spec.values, str) and
                                           spec.values not in manifest.enums):
                    problems.add(doc.file, f"enum field needs 'values': a list or one of the "
                                 f"game's enums ({', '.join(manifest.enums) or 'none'})",
                                 p, doc.line(p))
            if spec.type == "list" and spec.items is not None:
                walk({"items": spec.items}, p)
            if spec.type == "object":
                walk(spec.fields or {}, p + ("fields",))

    for i, comp in enumerate(manifest.components):
        if isinstance(comp, DeckComponent):
            walk(comp.fields, ("components", i, "fields"))


def folder_outside(folder: GameFolder) -> None:
    """Refuse a game whose data or template folder is a link leading out of the project."""
    for sub in (folder.data_dir, folder.template_dir):
        if sub.exists() and not guard.inside(folder.root, sub):
            raise PrintshopError(Problem(f"{sub.relative_to(folder.root).as_posix()}/",
                                         "the folder leads outside the project through a "
                                         "symbolic link; printshop reads only files inside the "
                                         "project"))


def _check_fonts(manifest: Manifest, doc: Document, problems: Problems,
                 data_dir: Path | None = None) -> None:
    """Report a style font that is neither shipped nor the game's own, a game font that cannot
    be read, and hyphenation in a language without patterns."""
    known = list(fonts.ALIASES) + list(fonts.FAMILIES) + list(manifest.style.fonts)
    for key in ("title_font", "body_font"):
        name = getattr(manifest.style, key)
        if name not in known:
            path = ("style", key)
            problems.add(doc.file, f"unknown font {short(name)}; printshop ships only "
                         f"{', '.join(known)}", path, doc.line(path))
    for name, rel in manifest.style.fonts.items():
        path = ("style", "fonts", name)
        if name in fonts.ALIASES or name in fonts.FAMILIES:
            problems.add(doc.file, f"the font name {short(name)} is printshop's own; choose "
                         "another", path, doc.line(path))
            continue
        try:
            fonts.game_font(data_dir, rel, f"{doc.file}: style.fonts.{name}")
        except PrintshopError as exc:
            for problem in exc.problems:
                problems.add(doc.file, problem.message, path, doc.line(path))
    lang = manifest.style.hyphenate
    if lang:
        import pyphen

        if not pyphen.language_fallback(lang):
            path = ("style", "hyphenate")
            problems.add(doc.file, f"no hyphenation patterns for {short(lang)}; printshop has "
                         "them for languages such as en, en_GB, de_DE, fr, es, nl", path,
                         doc.line(path))


def _check_names(manifest, doc, problems: Problems) -> None:
    """Refuse control characters in what the manifest names (they would reach a terminal,
    a file name or a shop's README as they are); descriptions keep their line breaks."""
    fields = [(("name",), manifest.name, True), (("subtitle",), manifest.subtitle, True),
              (("designer",), manifest.designer, True), (("players",), manifest.players, True),
              (("description",), manifest.description, False)]
    for i, c in enumerate(manifest.components):
        fields += [(("components", i, "name"), c.name, True),
                   (("components", i, "description"), c.description, False),
                   (("components", i, "stock"), c.stock, True),
                   (("components", i, "cut"), c.cut, True)]
    for path, value, one_line in fields:
        why = control_problem(value, one_line) if isinstance(value, str) else None
        if why:
            problems.add(doc.file, f"{short(value)} {why}", path, doc.line(path))


MAX_FIELD_DEPTH = 16    # a field spec's items/fields nested inside each other


def _nested_fields(doc) -> list[Problem]:
    """Return a problem for each field spec nested deeper than MAX_FIELD_DEPTH (a deeper one
    would be checked, hashed and cached by recursion as deep as it is)."""
    found: list[Problem] = []

    def walk(spec, path: tuple, depth: int) -> None:
        if not isinstance(spec, dict) or found:
            return
        if depth > MAX_FIELD_DEPTH:
            found.append(Problem(doc.file, f"field specs nest at most {MAX_FIELD_DEPTH} deep "
                                 "(items and fields inside each other)", path, doc.line(path)))
            return
        if isinstance(spec.get("items"), dict):
            walk(spec["items"], path + ("items",), depth + 1)
        if isinstance(spec.get("fields"), dict):
            for name, sub in spec["fields"].items():
                walk(sub, path + ("fields", name), depth + 1)

    components = doc.data.get("components")
    for i, comp in enumerate(components if isinstance(components, list) else []):
        if isinstance(comp, dict) and isinstance(comp.get("fields"), dict):
            for name, spec in comp["fields"].items():
                walk(spec, ("components", i, "fields", name), 1)
    return found


# A word followed by a colon, as a key stands at the start of a line of YAML.
_KEY_WORD = re.compile(r"(?:^|\s)([a-z_]+):(?=\s|$)")
_KEY_LINE = re.compile(r"^\s*(?:-\s+)?([a-z_]+):(?:\s|$)")


def _swallowed_keys(doc, folder: GameFolder) -> list[Problem]:
    """Return a problem for each manifest text that took in the keys after it: a quoted value
    whose closing quote is missing runs on over the next lines (`players: "1-2` takes icons:
    and style: as its text), which is valid YAML and would be blamed on what needs them."""
    from .specs import (BoardComponent, BookletComponent, DeckComponent, Manifest,
                        SheetComponent)

    kinds = (DeckComponent, SheetComponent, BoardComponent, BookletComponent)
    mappings = [((), doc.data, set(Manifest._compiled()))]
    components = doc.data.get("components")
    for i, comp in enumerate(components if isinstance(components, list) else []):
        if isinstance(comp, dict):
            keys = set().union(*(kind._compiled() for kind in kinds))
            mappings.append((("components", i), comp, keys))
    found, lines = [], None
    for base, mapping, accepted in mappings:
        for key, value in mapping.items():
            lost = [k for k in dict.fromkeys(_KEY_WORD.findall(value))
                    if k in accepted and k not in mapping] if isinstance(value, str) else []
            start = doc.line(base + (key,))
            if not lost or start is None:
                continue
            if lines is None:   # read again only for a suspect (a colon in a text is fine)
                lines = read_text(folder.manifest, doc.file, folder.data_dir).splitlines()
            text = lines[start - 1].split(":", 1)[-1].strip()
            unclosed = text[:1] in ("'", '"') and text[:1] not in text[1:]
            after = {m.group(1) for ln in lines[start:] if (m := _KEY_LINE.match(ln))}
            if unclosed and any(k in after for k in lost):
                found.append(Problem(doc.file, f"the quoted text opened here runs on over the "
                                     f"keys {', '.join(lost)}, which are read as its text: "
                                     "is its closing quote missing?", base + (key,), start))
    return found


# An icon in text, as text() draws it: :coin:
ICON_TOKEN = re.compile(r":([a-z0-9][a-z0-9-]*):")


def _texts(value, path: tuple, spec=None, depth: int = 0):
    """Yield (path, string) for the strings of a piece of data that text() may draw: a deck's
    text fields (by their specs), and every string of a sheet's, board's or booklet's data."""
    if depth > 40:
        return
    if isinstance(value, str):
        if spec is None or spec.type == "text":
            yield path, value
    elif isinstance(value, dict):
        for key, item in value.items():
            sub = None if spec is None else (spec.fields or {}).get(key) if spec.fields else None
            if spec is not None and sub is None:
                continue
            yield from _texts(item, path + (key,), sub, depth + 1)
    elif isinstance(value, list):
        sub = None if spec is None else spec.items
        if spec is not None and sub is None:
            return
        for i, item in enumerate(value):
            yield from _texts(item, path + (i,), sub, depth + 1)


def _check_icon_tokens(parts: list[Part], icons: dict, icon_label: str | None,
                       problems: Problems) -> None:
    """Report every :name: in text that names no icon, with its line and the nearest names:
    text() would print it as it is."""
    known = set(icons) | set(icon_sets.shared_icons())
    where = f"in {icon_label}" if icon_label else "(the game has no icons.yaml)"
    for part in parts:
        if part.source is None:
            continue
        found = []
        if isinstance(part.spec, DeckComponent):
            # The cards as written, so a card with other mistakes is read for icons too.
            raw_cards = part.data.get("cards") if isinstance(part.data, dict) else None
            for i, raw in enumerate(raw_cards if isinstance(raw_cards, list) else []):
                if not isinstance(raw, dict):
                    continue
                column = {part.spec.columns.get(k, k): k for k in raw}
                for name, spec in part.spec.fields.items():
                    if name in column:
                        found.extend(_texts(raw[column[name]], ("cards", i, column[name]),
                                            spec))
        else:
            found = _texts(part.data, ())
        for path, text in found:
            for m in ICON_TOKEN.finditer(text):
                name = m.group(1)
                if name in known:
                    continue
                near = difflib.get_close_matches(name, sorted(known), n=3, cutoff=0.6)
                hint = f"; did you mean {', '.join(f':{n}:' for n in near)}?" if near else \
                    f"; icons: {', '.join(f':{n}:' for n in sorted(icons)) or 'none'}"
                problems.add(part.data_file, f"no icon ':{name}:' {where}{hint}", path,
                             part.line(path))


def load_game(folder: GameFolder) -> Game:
    """Load and schema-check one game; raise a PrintshopError listing every problem."""
    problems = Problems()
    label = folder.label(folder.manifest)
    folder_outside(folder)
    doc = load_document(folder.manifest, label, folder.data_dir)
    if not isinstance(doc.data, dict):
        raise PrintshopError(Problem(label, "expected a mapping with name and components", (),
                                     1))
    early = _nested_fields(doc) or _swallowed_keys(doc, folder)
    if early:
        raise PrintshopError(early)
    try:
        manifest = Manifest.model_validate(doc.data)
    except ValidationError as exc:
        raise PrintshopError(validation_problems(exc, doc)) from None
    _check_enums(manifest, doc, problems)
    _check_fonts(manifest, doc, problems, folder.data_dir)
    _check_names(manifest, doc, problems)
    for i, rule in enumerate(manifest.rules):
        if isinstance(rule, CheckSpec) and rule.component and rule.component not in \
                [c.id for c in manifest.components]:
            path = ("rules", i, "component")
            hint = did_you_mean(rule.component, [c.id for c in manifest.components])
            problems.add(label, f"no component '{rule.component}'{hint}", path, doc.line(path))

    template_dirs = [folder.template_dir, SHARED_TEMPLATES]
    icons, icon_label, icons_failed = {}, None, False
    if manifest.icons:
        icon_path = safe_relative(folder, folder.template_dir, manifest.icons, label,
                                  ("icons",), problems, doc.line(("icons",)))
        if icon_path is not None:
            icon_label = folder.label(icon_path)
            try:
                icons = icon_sets.load_icons(icon_path, icon_label, folder.template_dir)
            except PrintshopError as exc:
                problems.extend(exc.problems)
                icons_failed = True
        else:
            icons_failed = True

    parts = []
    for i, comp in enumerate(manifest.components):
        cpath = ("components", i)
        for key in ("front", "back", "template", "cover"):
            name = getattr(comp, key, None)
            if name is None:
                continue
            target = safe_relative(folder, folder.template_dir, name, label, cpath + (key,),
                                   problems, doc.line(cpath + (key,)))
            if target is not None and not target.is_file():
                found = "is not a regular file (a folder, FIFO or device)" if target.exists() \
                    else "not found"
                problems.add(label, f"template '{name}' {found} in "
                             f"{folder.label(folder.template_dir)}/", cpath + (key,),
                             doc.line(cpath + (key,)))
        if isinstance(getattr(comp, "size", None), str) and comp.kind in ("deck", "tokens"):
            try:
                card_size(comp.size)
            except KeyError as exc:
                problems.add(label, exc.args[0], cpath + ("size",), doc.line(cpath + ("size",)))
        for column, target in getattr(comp, "columns", {}).items():
            if target not in RESERVED and target not in comp.fields:
                path = cpath + ("columns", column)
                problems.add(label, f"'{target}' is no field of this deck; expected one of "
                             f"{', '.join(list(RESERVED) + list(comp.fields))}", path,
                             doc.line(path))
        part = Part(comp)
        if getattr(comp, "data", None):
            target = safe_relative(folder, folder.data_dir, comp.data, label, cpath + ("data",),
                                   problems, doc.line(cpath + ("data",)))
            if target is not None:
                try:
                    data_doc = load_document(target, folder.label(target), folder.data_dir)
                except PrintshopError as exc:
                    problems.extend(exc.problems)
                    data_doc = None
                if data_doc is not None:
                    part.data_file = data_doc.file
                    part.data = data_doc.data
                    part.source = data_doc
                    if isinstance(comp, DeckComponent):
                        part.cards = load_cards(data_doc, comp, manifest.enums, problems)
        parts.append(part)
    if not icons_failed:    # with the icon file broken, every name would look unknown
        _check_icon_tokens(parts, icons, icon_label, problems)
    problems.raise_if_any()
    game = Game(folder.id, manifest, parts, folder.data_dir, template_dirs, icons, icon_label)
    game.memo["manifest_data"] = doc.data   # what the load cache keeps of the manifest
    return game
