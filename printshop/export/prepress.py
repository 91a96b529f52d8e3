"""A drawn RGB PDF made into the CMYK PDF/X-1a:2003 file a print shop's pre-press accepts.

cairo draws in RGB. Its PDF is rewritten here, operator by operator: every RGB or grey colour
becomes the ink mix separation.py chooses (total ink within the shop's limit, greys and black
text in black ink alone), the transparency groups cairo puts on every page and form are taken
off once nothing in them is see-through (flatten.py made the faces opaque), and the keys ISO
15930-4 asks for are written: GTS_PDFXVersion "PDF/X-1:2003" with GTS_PDFXConformance
"PDF/X-1a:2003", Trapped, and the output intent the shop names. Text stays text and shapes
stay shapes: nothing is drawn again, so nothing is turned into pixels.
"""

from __future__ import annotations

import hashlib
import io

from ..files.errors import PrintshopError, Problem
from ..load.models import Game, Part
from .flatten import VARIED_SHARE, flatten, translucent
from .preflight import xobjects
from .separation import profile_path, separate
from .shops import OutputIntent

PDFX_VERSION = "PDF/X-1:2003"            # ISO 15930-4: the part; the level is the conformance
PDFX_CONFORMANCE = "PDF/X-1a:2003"
PDF_HEADER = b"%PDF-1.4"                 # PDF/X-1a:2003 is based on PDF 1.4
TEXT_SHOWING = {b"Tj", b"TJ", b"'", b'"'}


def flattened_on_workers(faces, jobs: int | None = None) -> dict:
    """Return flatten()'s result for each distinct see-through face of ``faces``, worked out
    on forked workers (a face is flattened by drawing what lies under each see-through
    shape: most of a CMYK export's time in the main process, before)."""
    from ..run.workers import Workers, default_jobs

    todo = list(dict.fromkeys(f for f in faces if translucent(f.svg)))
    results: dict = {}
    workers = Workers((jobs or default_jobs()) if len(todo) > 1 else 1)
    for face in todo:
        workers.add(flatten, (face,), lambda result, face=face: results.__setitem__(face, result))
    workers.run()
    return results


def flat_faces(drawn, game: Game, part: Part, warnings: list[Problem],
               flattened: dict | None = None) -> list:
    """Return (card, front, back) triples with every face made opaque (flatten.py, or what
    ``flattened`` already holds for it); add a located warning for each see-through shape
    that lay over more than one colour."""
    out = []
    file = part.data_file or f"data/{game.id}/game.yaml"
    index = {id(card): i for i, card in enumerate(part.cards)}
    for card, front, back in drawn:
        faces = []
        for side, face in (("front", front), ("back", back)):
            flat, blends = (flattened or {}).get(face) or flatten(face)
            faces.append(flat)
            for b in blends:
                if b.varied > VARIED_SHARE:
                    x0, y0, x1, y1 = b.box
                    warnings.append(Problem(
                        file, f"card '{card.id}' ({side}): a see-through {b.what} at x "
                        f"{x0:g}-{x1:g} mm, y {y0:g}-{y1:g} mm lies over more than one colour "
                        f"({b.varied:.0%} of it); PDF/X-1a allows no transparency, so it "
                        "prints opaque in its colour over the main one (draw it opaque, or "
                        "under the details it covers)", ("cards", index.get(id(card), 0)),
                        card.line, "pod.transparency"))
        out.append((card, *faces))
    return out


class _Recolour:
    """Rewrite one content stream's colour operators into CMYK."""

    def __init__(self, limit: int):
        self.limit = limit

    def run(self, operations: list) -> list:
        text_ops: set[int] = set()
        fill_at, stack = None, []
        for i, (operands, op) in enumerate(operations):
            if op in (b"rg", b"g", b"sc", b"scn"):
                fill_at = i
            elif op == b"q":
                stack.append(fill_at)
            elif op == b"Q" and stack:
                fill_at = stack.pop()
            elif op in TEXT_SHOWING and fill_at is not None:
                text_ops.add(fill_at)
        out = []
        spaces = {b"cs": None, b"CS": None}
        for i, (operands, op) in enumerate(operations):
            out.append(self._one(operands, op, i in text_ops, spaces))
        return out

    def _one(self, operands, op, text: bool, spaces: dict):
        from pypdf.generic import FloatObject, NameObject

        def inks(rgb):
            return [FloatObject(round(v, 4)) for v in separate(rgb, self.limit, text)]

        if op in (b"rg", b"RG") and len(operands) == 3:
            return inks(tuple(float(v) for v in operands)), b"k" if op == b"rg" else b"K"
        if op in (b"g", b"G") and len(operands) == 1:
            v = float(operands[0])
            return inks((v, v, v)), b"k" if op == b"g" else b"K"
        if op in (b"cs", b"CS") and operands and operands[0] == "/DeviceRGB":
            spaces[op] = "rgb"
            return [NameObject("/DeviceCMYK")], op
        if op in (b"cs", b"CS"):
            spaces[op] = None
        if op in (b"sc", b"scn", b"SC", b"SCN") and len(operands) == 3 and \
                spaces[b"cs" if op in (b"sc", b"scn") else b"CS"] == "rgb":
            return inks(tuple(float(v) for v in operands)), op
        return operands, op


def _forms(resources, seen: set) -> list:
    resources = resources.get_object() if resources is not None else None
    return [x for x in xobjects(resources, seen) if x.get("/Subtype") == "/Form"]


def _see_through(writer) -> bool:
    """Return True when anything in the file is drawn see-through (alpha, soft masks)."""
    from pypdf.generic import DictionaryObject

    for obj in writer._objects:
        obj = obj.get_object() if obj is not None else None
        if not isinstance(obj, DictionaryObject) or obj.get("/Type") != "/ExtGState":
            continue
        for key in ("/ca", "/CA"):
            if key in obj and float(obj[key]) < 1:
                return True
        if str(obj.get("/SMask", "/None")) != "/None":
            return True
        if str(obj.get("/BM", "/Normal")) not in ("/Normal", "/Compatible"):
            return True
    return False


def _pdf_date(value: str) -> str:
    """Return a date as PDF writes it, D:YYYYMMDDHHmmSS in UTC (cairo leaves out the D:)."""
    digits = "".join(c for c in value if c.isdigit())[:14]
    if len(digits) < 14:
        from ..write.pdf import build_date

        digits = "".join(c for c in build_date() if c.isdigit())[:14]
    return f"D:{digits}Z"


def to_cmyk_pdfx(pdf: bytes, title: str, limit: int, intent: OutputIntent | None
                 ) -> bytes:
    """Return an RGB PDF drawn by printshop as a CMYK PDF/X-1a:2003 file; raise if the
    profile the inks are chosen against is missing."""
    from pypdf import PdfReader, PdfWriter
    from pypdf.generic import (ArrayObject, ByteStringObject, ContentStream, DictionaryObject,
                               NameObject, NumberObject, TextStringObject)

    if intent is None:
        raise PrintshopError(Problem("printshop/export/shops.yaml", "a CMYK shop names no "
                                     "output_intent (condition, identifier)"))
    if profile_path() is None:
        raise PrintshopError(Problem("gs", "Ghostscript's CMYK profile (iccprofiles/"
                                     "default_cmyk.icc) is not installed: the CMYK inks "
                                     "cannot be chosen"))
    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(pdf)))
    recolour = _Recolour(limit)
    seen: set = set()
    for page in writer.pages:
        content = page.get_contents()
        if content is not None:
            content = ContentStream(content, writer)
            content.operations = recolour.run(content.operations)
            page.replace_contents(content)
        for form in _forms(page.get("/Resources"), seen):
            stream = ContentStream(form, writer)
            stream.operations = recolour.run(stream.operations)
            form.set_data(stream.get_data())
    if not _see_through(writer):
        for page in writer.pages:
            page.pop("/Group", None)
        for page in writer.pages:
            for form in _forms(page.get("/Resources"), set()):
                form.pop("/Group", None)
    dates = {key: _pdf_date(str(writer.metadata.get(key, "")))
             for key in ("/CreationDate", "/ModDate")}
    writer.add_metadata({**dates, "/Title": title, "/Trapped": NameObject("/False"),
                         "/GTS_PDFXVersion": PDFX_VERSION,
                         "/GTS_PDFXConformance": PDFX_CONFORMANCE})
    out_intent = DictionaryObject({
        NameObject("/Type"): NameObject("/OutputIntent"),
        NameObject("/S"): NameObject("/GTS_PDFX"),
        NameObject("/OutputCondition"): TextStringObject(intent.condition),
        NameObject("/OutputConditionIdentifier"): TextStringObject(intent.identifier),
        NameObject("/RegistryName"): TextStringObject(intent.registry),
        NameObject("/Info"): TextStringObject(intent.condition)})
    profile = profile_path()
    if profile is not None:
        from pypdf.generic import StreamObject

        icc = StreamObject()
        icc.set_data(profile.read_bytes())
        icc[NameObject("/N")] = NumberObject(4)
        out_intent[NameObject("/DestOutputProfile")] = writer._add_object(icc)
    writer._root_object[NameObject("/OutputIntents")] = ArrayObject(
        [writer._add_object(out_intent)])
    writer.pdf_header = PDF_HEADER
    ident = ByteStringObject(hashlib.md5(pdf).digest())
    writer._ID = ArrayObject([ident, ident])
    buf = io.BytesIO()
    writer.write(buf)
    return buf.getvalue()
