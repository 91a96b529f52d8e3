"""Tabletop Simulator: deck sheets (PNG) and a saved object (JSON) that TTS loads.

Every deck becomes a ``DeckCustom``. Its distinct cards go on sheets of at most 10 x 7 slots
(TTS's limit); the last slot of each sheet holds the card back, so a sheet carries up to 69
cards and a larger deck continues on further sheets. With ``BackIsHidden`` TTS shows the back
for hidden cards; the back in the last slot serves a user who turns that off. The back is also
written as its own image for ``BackURL``; a deck whose cards have different backs gets back
sheets laid out like its face sheets (``UniqueBack``). Every CardID is the sheet's CustomDeck
key times 100 plus the card's slot.

Token sets, boards and each page of a sheet (player aids) become ``Custom_Tile`` objects at
their real size; booklets stay in the PDF. Image files are named after the game so that TTS's
Cloud Manager, one folder for all of a user's uploads, keeps games apart.

TTS's scale (https://kb.tabletopsimulator.com/custom-content/custom-token/): a unit is "about an
inch". A card at scale 1 is TTS's own poker-size card, so cards scale by their size over poker's.
"""

from __future__ import annotations

import hashlib
import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import quote

from ..components import RENDERERS
from ..components.base import base_context, draw
from ..files.errors import PrintshopError, Problem
from ..files.project import Project
from ..layout.impose import Face
from ..load.cache import CACHE_DIR
from ..load.geometry import PrintOptions, card_size
from ..load.models import Card, Game, Part
from ..write import raster
from . import default_out, drawing, drawn_cards, load_one
from .faceimages import FaceImages, Wanted
from .images import face_options, pixels

MAX_COLS, MAX_ROWS = 10, 7
CARDS_PER_SHEET = MAX_COLS * MAX_ROWS - 1   # the last slot holds the back
MAX_SHEET_PX = 4096                         # TTS's advice for the largest image side
DEFAULT_DPI = 150
POKER = (63.0, 88.0)                        # TTS's own card; other sizes scale from it
PLAIN_BACK = "#b8b8b8"
CARD_TYPE = {"rect": 0, "circle": 4}        # TTS: 0 rounded rectangle, 4 circle
TILE_TYPE = {"rect": 0, "circle": 2}        # Custom_Tile: 0 box, 1 hex, 2 circle, 3 rounded
MM_PER_UNIT = 25.4                          # a TTS unit is about an inch (TTS's knowledge base)
# The longer side of a Custom_Tile at scale 1, in units. Not in TTS's documentation: taken from
# tiles measured in TTS. If tiles come out the wrong size, this is the one number to correct.
TILE_UNITS_AT_SCALE_1 = 2.0
TOKEN_THICKNESS = 0.1                       # units; a punched card token


@dataclass
class Sheet:
    """One card sheet of a deck: its CustomDeck key, grid and the cards in its slots."""

    key: int
    cols: int
    rows: int
    cards: list[tuple[Card, Face, Face | None]]
    face_file: str = ""
    back_file: str = ""

    @property
    def slots(self) -> int:
        return self.cols * self.rows


@dataclass
class DeckPlan:
    """A deck laid out for TTS: its sheets, card pixel size and whether backs differ."""

    part: Part
    sheets: list[Sheet]
    card_px: tuple[int, int]
    unique_back: bool
    back_file: str = ""
    files: dict[str, bytes] = field(default_factory=dict)
    wanted: dict[str, Wanted] = field(default_factory=dict)   # a face's SVG -> its image


def grid(n_cards: int) -> tuple[int, int]:
    """Return (cols, rows) of a sheet holding n cards plus the back in its last slot."""
    slots = n_cards + 1
    cols = min(MAX_COLS, slots)
    return cols, math.ceil(slots / cols)


def card_pixels(w: float, h: float, dpi: float, cols: int = MAX_COLS,
                rows: int = MAX_ROWS) -> tuple[int, int]:
    """Return a card's pixel size at dpi, shrunk only as far as a sheet of cols x rows cards
    needs to stay within 4096 px a side (a full 10 x 7 sheet by default)."""
    per_mm = min(dpi / 25.4, (MAX_SHEET_PX // cols) / w, (MAX_SHEET_PX // rows) / h)
    return max(1, round(w * per_mm)), max(1, round(h * per_mm))


def capped(w: float, h: float, dpi: float) -> tuple[int, int, float]:
    """Return the pixel size of a w x h mm image at dpi, lowered to 4096 px a side, and its dpi."""
    per_mm = min(dpi / 25.4, MAX_SHEET_PX / max(w, h))
    return max(1, round(w * per_mm)), max(1, round(h * per_mm)), per_mm * 25.4


def compose(images: dict, cols: int, rows: int, cell: tuple[int, int]) -> bytes:
    """Paste card images into a cols x rows sheet (slot -> image) on white; return PNG bytes.

    Each card is drawn at exactly the cell's whole pixels, so neighbouring cards meet on a
    pixel edge: no antialiased seam between them.
    """
    from PIL import Image

    cw, ch = cell
    sheet = Image.new("RGB", (cols * cw, rows * ch), "white")
    for slot, card in images.items():
        sheet.paste(card, ((slot % cols) * cw, (slot // cols) * ch),
                    card if card.mode == "RGBA" else None)
    return raster.png(sheet)


def plain_back(front: Face) -> Face:
    """Return a plain grey back for a deck that has no back template."""
    return Face(f'<rect x="0" y="0" width="{front.w:g}" height="{front.h:g}" '
                f'fill="{PLAIN_BACK}"/>', front.w, front.h, 0.0, front.shape)


def plan_deck(game: Game, part: Part, first_key: int, dpi: float,
              faces: FaceImages) -> DeckPlan:
    """Lay a deck's cards out on TTS sheets with keys from first_key and ask ``faces`` for
    their images (compose_deck makes the sheets once they are drawn)."""
    cards = drawn_cards(game, part, PrintOptions())
    w, h = card_size(part.spec.size)
    px = card_pixels(w, h, dpi, *grid(min(len(cards), CARDS_PER_SHEET)))
    backs = [back or plain_back(front) for _, front, back in cards]
    unique = len({b.svg for b in backs}) > 1
    sheets = []
    for n, start in enumerate(range(0, len(cards), CARDS_PER_SHEET)):
        chunk = [(c, f, b) for (c, f, _), b in zip(cards[start:start + CARDS_PER_SHEET],
                                                    backs[start:start + CARDS_PER_SHEET])]
        cols, rows = grid(len(chunk))
        sheets.append(Sheet(first_key + n, cols, rows, chunk))
    plan = DeckPlan(part, sheets, px, unique)
    # one back for the deck: drawn once, for the sheets' last slots and as its own image
    shared = None if unique else faces.want(part.id, backs[0], px, keep="image",
                                            **face_options(backs[0]))
    for n, sheet in enumerate(sheets, start=1):
        suffix = f"-{n}" if len(sheets) > 1 else ""
        sheet.face_file = f"{part.id}{suffix}.png"
        if unique:
            sheet.back_file = f"{part.id}-back{suffix}.png"
        for _, front, back in sheet.cards:
            for face in (front, back):
                plan.wanted[face.svg] = shared if shared and face is back else faces.want(
                    part.id, face, px, keep="image", encode=False, **face_options(face))
    if shared:
        plan.back_file = f"{part.id}-back.png"
        plan.wanted["back"] = shared
        for sheet in sheets:
            sheet.back_file = plan.back_file
    return plan


def compose_deck(plan: DeckPlan, faces: FaceImages) -> None:
    """Put a planned deck's drawn cards on its sheets (plan.files)."""
    px = plan.card_px

    def image(face: Face):
        return faces[plan.wanted[face.svg]].kept

    for sheet in plan.sheets:
        last = sheet.slots - 1
        cells = {i: image(f) for i, (_, f, _) in enumerate(sheet.cards)}
        cells[last] = image(sheet.cards[0][2])
        plan.files[sheet.face_file] = compose(cells, sheet.cols, sheet.rows, px)
        if plan.unique_back:
            backs = {i: image(b) for i, (_, _, b) in enumerate(sheet.cards)}
            backs[last] = cells[last]
            plan.files[sheet.back_file] = compose(backs, sheet.cols, sheet.rows, px)
    if not plan.unique_back:
        plan.files[plan.back_file] = faces[plan.wanted["back"]].png


def guid(*parts) -> str:
    """Return a stable six-hex-digit TTS GUID derived from the given names."""
    return hashlib.sha1("/".join(map(str, parts)).encode()).hexdigest()[:6]


def transform(x: float = 0.0, z: float = 0.0, face_down: bool = False,
              scale: tuple[float, float] = (1.0, 1.0)) -> dict:
    """Return a TTS Transform: a position on the table, face up or down, and a scale."""
    return {"posX": round(x, 3), "posY": 1.0, "posZ": round(z, 3), "rotX": 0.0,
            "rotY": 180.0, "rotZ": 180.0 if face_down else 0.0,
            "scaleX": round(scale[0], 4), "scaleY": 1.0, "scaleZ": round(scale[1], 4)}


def custom_deck(sheet: Sheet, plan: DeckPlan, url) -> dict:
    """Return the CustomDeck entry describing one sheet."""
    return {"FaceURL": url(sheet.face_file), "BackURL": url(sheet.back_file),
            "NumWidth": sheet.cols, "NumHeight": sheet.rows, "BackIsHidden": True,
            "UniqueBack": plan.unique_back, "Type": CARD_TYPE[plan.part.spec.shape]}


def deck_object(game: Game, plan: DeckPlan, x: float, url) -> dict:
    """Return the DeckCustom object of a deck (or a lone Card when it holds one card)."""
    spec = plan.part.spec
    w, h = card_size(spec.size)
    scale = (w / POKER[0], h / POKER[1])
    decks = {str(s.key): custom_deck(s, plan, url) for s in plan.sheets}
    ids, contained = [], []
    for sheet in plan.sheets:
        for slot, (card, _, _) in enumerate(sheet.cards):
            card_id = sheet.key * 100 + slot
            for copy in range(card.copies):
                ids.append(card_id)
                contained.append({
                    "GUID": guid(game.id, spec.id, card.id, copy), "Name": "Card",
                    "Nickname": card.name, "Description": card.id, "CardID": card_id,
                    "CustomDeck": {str(sheet.key): decks[str(sheet.key)]},
                    "Transform": transform(face_down=True, scale=scale)})
    if len(contained) == 1:
        return {**contained[0], "Transform": transform(x, 0.0, True, scale)}
    return {"GUID": guid(game.id, spec.id), "Name": "DeckCustom", "Nickname": spec.name,
            "Description": f"{len(ids)} {'tokens' if spec.kind == 'tokens' else 'cards'}",
            "DeckIDs": ids, "CustomDeck": decks, "ContainedObjects": contained,
            "Transform": transform(x, 0.0, True, scale)}


def board_image(game: Game, part: Part, dpi: float, faces: FaceImages) -> tuple[Wanted, float]:
    """Ask for a board drawn once at full size (at most 4096 px a side); return the request
    and its dpi."""
    spec = part.spec
    w, h = spec.size
    opts = PrintOptions()
    ctx = {**base_context(game, opts), "data": part.data, "size": {"w": w, "h": h}}
    with drawing(game, spec.id):
        face = Face(draw(game, spec.template, ctx, f"board {spec.id}"), w, h, 0.0)
    pw, ph, used = capped(w, h, dpi)
    return faces.want(spec.id, face, (pw, ph), **face_options(face)), used


def sheet_images(game: Game, part: Part, dpi: float) -> list[tuple[bytes, float, float, float]]:
    """Draw each page of a sheet component (a player aid, a pad): (PNG, w mm, h mm, dpi)."""
    with drawing(game, part.id):
        pages = RENDERERS["sheet"](game, part, PrintOptions()).pages
        out = []
        for n, page in enumerate(pages, start=1):
            pw, ph, used = capped(page.width, page.height, dpi)
            image = raster.page_image(page, n, len(pages), (pw, ph))
            out.append((raster.png(image), page.width, page.height, used))
        return out


def tile_scale(w: float, h: float) -> tuple[float, float]:
    """Return the Transform scale that shows a w x h mm tile at its real size."""
    s = max(w, h) / MM_PER_UNIT / TILE_UNITS_AT_SCALE_1
    return s, s


def tile_object(game: Game, name: str, description: str, front: str, back: str, x: float,
                z: float, size: tuple[float, float], url, shape: str = "rect",
                stackable: bool = False, y: float = 1.0, copy: int = 0) -> dict:
    """Return a Custom_Tile showing ``front`` (and ``back`` underneath) at its real size."""
    image = {"ImageURL": url(front), "ImageSecondaryURL": url(back) if back else "",
             "ImageScalar": 1.0, "WidthScale": 0.0,
             "CustomTile": {"Type": TILE_TYPE[shape], "Thickness": TOKEN_THICKNESS,
                            "Stackable": stackable, "Stretch": False}}
    t = transform(x, z, scale=tile_scale(*size))
    t["posY"] = round(y, 3)
    return {"GUID": guid(game.id, front, copy), "Name": "Custom_Tile", "Nickname": name,
            "Description": description, "CustomImage": image, "Transform": t}


def bag_object(game: Game, part: Part, card: Card, tiles: list[dict], x: float,
               z: float) -> dict:
    """Return a Bag holding every copy of one token (TTS draws one out at a time)."""
    t = transform(x, z)
    for tile in tiles:
        tile["Transform"] = transform(scale=(tile["Transform"]["scaleX"],
                                             tile["Transform"]["scaleZ"]))
    return {"GUID": guid(game.id, part.id, card.id, "bag"), "Name": "Bag",
            "Nickname": f"{card.name} x{card.copies}",
            "Description": f"{card.id} ({part.spec.name})", "Transform": t,
            "ContainedObjects": tiles}


def token_objects(game: Game, part: Part, dpi: float, x: float, url,
                  images: dict[str, Wanted], notes: list[str], faces: FaceImages) -> list[dict]:
    """Return a bag per distinct token holding every copy as a Custom_Tile at real size (a
    token with one copy lies on the table); ``images`` gets the image each file shows."""
    w, h = card_size(part.spec.size)
    pw, ph, used = capped(w, h, dpi)
    if used < dpi - 0.5:
        notes.append(f"{part.id}: tokens drawn at {used:.0f} dpi to stay within "
                     f"{MAX_SHEET_PX} px a side")
    objects = []
    for n, (card, front, back) in enumerate(drawn_cards(game, part, PrintOptions())):
        base = f"{game.id}-{part.id}-{card.id}"
        images[f"{base}.png"] = faces.want(part.id, front, (pw, ph), **face_options(front))
        if back is not None:
            images[f"{base}-back.png"] = faces.want(part.id, back, (pw, ph),
                                                    **face_options(back))
        x_at, z_at = x + (n % 5) * 1.5, -4.0 - (n // 5) * 1.5
        tiles = [tile_object(game, card.name, f"{card.id} ({part.spec.name})", f"{base}.png",
                             f"{base}-back.png" if back is not None else "", x_at, z_at,
                             (w, h), url, part.spec.shape, True, 1.0, copy)
                 for copy in range(card.copies)]
        objects.append(tiles[0] if len(tiles) == 1 else
                       bag_object(game, part, card, tiles, x_at, z_at))
    return objects


@dataclass
class TTSExport:
    """A game ready for TTS: the saved object and every image it points to."""

    save: dict
    images: dict[str, bytes]
    notes: list[str] = field(default_factory=list)
    cache: dict[str, bytes] = field(default_factory=dict)     # the face cache's files


def tts_export(game: Game, url, dpi: float = DEFAULT_DPI, progress=None,
               out_dir: Path | None = None) -> TTSExport:
    """Lay out a game for TTS; ``url(file)`` gives the address of each written image;
    ``progress(done, total)`` hears of each face and sheet page drawn. Each distinct face is
    drawn once (faceimages.py, its cache in ``out_dir`` when given)."""
    objects, key, notes = [], 1, []
    faces = FaceImages(game, out_dir)
    named: dict[str, Wanted] = {}         # file -> the face image it is
    plans = []
    for n, part in enumerate(p for p in game.parts if p.kind == "deck"):
        plan = plan_deck(game, part, key, dpi, faces)
        plans.append(plan)
        key += len(plan.sheets)
        for sheet in plan.sheets:
            sheet.face_file = f"{game.id}-{sheet.face_file}"
            sheet.back_file = f"{game.id}-{sheet.back_file}"
        if plan.back_file:
            plan.back_file = f"{game.id}-{plan.back_file}"
        wanted = card_size(part.spec.size)
        if plan.card_px[0] < pixels(wanted[0], dpi) - 1:
            notes.append(f"{part.id}: cards drawn at {plan.card_px[0] / wanted[0] * 25.4:.0f} "
                         f"dpi so that a full 10 x 7 sheet stays within {MAX_SHEET_PX} px a side")
        objects.append(deck_object(game, plan, n * 3.0, url))
    for n, part in enumerate(p for p in game.parts if p.kind == "tokens"):
        objects.extend(token_objects(game, part, dpi, n * 8.0, url, named, notes, faces))
    for n, part in enumerate(p for p in game.parts if p.kind == "board"):
        file = f"{game.id}-{part.id}.png"
        named[file], used = board_image(game, part, dpi, faces)
        if used < dpi - 0.5:
            notes.append(f"{part.id}: board drawn at {used:.0f} dpi to stay within "
                         f"{MAX_SHEET_PX} px a side")
        objects.append(tile_object(game, part.spec.name, f"{part.id} (board)", file, "",
                                   n * 25.0, 20.0, tuple(part.spec.size), url))
    sheets = [p for p in game.parts if p.kind == "sheet"]
    # a component of sheets (its pages drawn here, one after another) counts as three faces
    total = len(faces) + 3 * len(sheets)
    faces.draw(progress and (lambda n, _: progress(n, total)))
    images = {file: faces[wanted].png for file, wanted in named.items()}
    for plan in plans:
        compose_deck(plan, faces)
        images.update(plan.files)
    tiles = []
    for k, part in enumerate(sheets, start=1):
        pages = sheet_images(game, part, dpi)
        tiles += [(part, len(pages), page) for page in enumerate(pages, start=1)]
        if progress:
            progress(len(faces) + 3 * k, total)
    for n, (part, count, (number, (png, w, h, used))) in enumerate(tiles):
        single = count == 1      # the pages drawn: a sheet of 'pages: auto' may make one
        file = f"{game.id}-{part.id}.png" if single else f"{game.id}-{part.id}-{number}.png"
        images[file] = png
        if used < dpi - 0.5:
            notes.append(f"{file}: drawn at {used:.0f} dpi to stay within {MAX_SHEET_PX} px "
                         "a side")
        name = part.spec.name if single else f"{part.spec.name} ({number})"
        objects.append(tile_object(game, name, f"{part.id} (sheet)", file, "", n * 9.0,
                                   -14.0, (w, h), url))
    if not objects:
        raise PrintshopError(Problem(f"data/{game.id}/game.yaml", "the game has no decks, "
                                     "tokens, boards or sheets to send to Tabletop Simulator"))
    save = {"SaveName": game.manifest.name, "GameMode": game.manifest.name, "Date": "",
            "VersionNumber": "", "Table": "", "Sky": "",
            "Note": "", "Rules": "", "XmlUI": "", "LuaScript": "", "LuaScriptState": "",
            "ObjectStates": objects, "TabStates": {}}
    named.update({plan.back_file: plan.wanted["back"] for plan in plans if plan.back_file})
    return TTSExport(save, images, notes, faces.cache_files(named))


def readme(game: Game, result: TTSExport, base_url: str | None, out: Path) -> str:
    """Return README.txt: what was written, how to load it and how to share it."""
    lines = [f"{game.manifest.name} for Tabletop Simulator", "",
             f"{game.id}.json is a saved object. Copy it into",
             "  Documents/My Games/Tabletop Simulator/Saves/Saved Objects/",
             "and spawn it from Objects > Saved Objects.", ""]
    if base_url:
        lines += [f"Every image address starts with {base_url}: put the .png files of this "
                  "folder there, under the same names, before anyone loads the save.", ""]
    else:
        lines += ["The images are addressed by their names alone, relative to this folder, so "
                  "the folder can be moved and shared; TTS needs a full address to load them:",
                  "  - put the .png files on a web server and export again with "
                  "--base-url https://host/folder/, or",
                  "  - to play on this computer alone, export again with --base-url "
                  f"{out.resolve().as_uri()}/ (the folder's own address), or",
                  "  - in TTS, load the save and choose Modding > Upload All Loaded Files (the "
                  "Cloud Manager holds the uploads): TTS puts each local image in your Steam "
                  "Cloud and points the objects at it; then save the objects again. The names "
                  f"start with '{game.id}-' so one game's images do not replace another's.",
                  ""]
    lines.append("Images:")
    lines += [f"  {name}" for name in sorted(result.images)]
    if result.notes:
        lines += ["", "Resolution lowered (TTS advises at most 4096 px a side):"]
        lines += [f"  {n}" for n in result.notes]
    return "\n".join(lines) + "\n"


def url_maker(base_url: str | None):
    """Return a function giving an image's address: its name relative to the export folder,
    or under base_url."""
    if base_url:
        prefix = base_url if base_url.endswith("/") else base_url + "/"
        return lambda name: prefix + quote(name)
    return quote


def export_tts(project: Project, game_id: str, out_dir: Path | None = None,
               base_url: str | None = None, dpi: float = DEFAULT_DPI,
               progress=None) -> list[Path]:
    """Write a game's TTS saved object and images; return the files written."""
    from .folder import replace_export

    out = Path(out_dir or default_out(game_id, "tts"))
    game = load_one(project, game_id)
    result = tts_export(game, url_maker(base_url), dpi, progress, out)
    files = dict(result.images)
    files[f"{game_id}.json"] = (json.dumps(result.save, ensure_ascii=False, indent=2)
                                + "\n").encode("utf-8")
    files["README.txt"] = readme(game, result, base_url, out).encode("utf-8")
    files.update(result.cache)
    written = replace_export(out, files)
    return [p for p in written if CACHE_DIR not in p.relative_to(out).parts]
