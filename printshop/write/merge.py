"""Join the PDFs printshop's cairo surfaces write into one document with a bookmark per part.

cairo writes plain PDFs: one cross-reference table, a flat page tree, every object in the
open. Joining them needs no PDF library: each file's objects are renumbered into one
sequence, its pages hung under a new page tree, and an outline points at each part's first
page. (A general PDF library took longer to import than this takes to run.)
"""

from __future__ import annotations

import hashlib
import re
import zlib
from dataclasses import dataclass

_REF = re.compile(rb"(\d+) 0 R")
_STREAM = re.compile(rb">>\s*stream\r?\n")
_KEY_REF = r"/{key}\s+(\d+) 0 R"
HEADER = b"%PDF-1.5\n%\xb5\xed\xae\xfb\n"


class MergeError(ValueError):
    """A file this merger cannot read (it reads what cairo writes)."""


@dataclass
class Document:
    """One parsed input: its objects by number, its page objects in order, and its catalog,
    page-tree and info objects (replaced by the joined document's own)."""

    objects: dict[int, bytes]
    pages: list[int]
    structural: dict[int, str]


def _key_ref(body: bytes, key: str) -> int | None:
    match = re.search(_KEY_REF.format(key=key).encode(), body)
    return int(match.group(1)) if match else None


def _dict_part(body: bytes) -> bytes:
    match = _STREAM.search(body)
    return body if match is None else body[:match.start() + 2]


def parse(pdf: bytes) -> Document:
    """Read the objects and the page order of a PDF with a classic cross-reference table."""
    try:
        start = int(pdf[pdf.rindex(b"startxref") + 9:].split()[0])
    except (ValueError, IndexError):
        raise MergeError("no startxref") from None
    if not pdf.startswith(b"xref", start):
        raise MergeError("cross-reference streams are not supported")
    tokens = pdf[start + 4:pdf.index(b"trailer", start)].split()
    offsets: dict[int, int] = {}
    i = 0
    while i < len(tokens):
        first, count = int(tokens[i]), int(tokens[i + 1])
        i += 2
        for n in range(count):
            offset, _, kind = tokens[i:i + 3]
            i += 3
            if kind == b"n":
                offsets[first + n] = int(offset)
    trailer = pdf[pdf.index(b"trailer", start):]
    ends = sorted(set(offsets.values()) | {start})
    following = dict(zip(ends, ends[1:]))   # each object ends where the next one starts
    objects = {}
    for number, offset in offsets.items():
        end = following[offset]
        chunk = pdf[offset:end].rstrip()
        head = re.match(rb"\d+ \d+ obj\s*", chunk)
        if head is None or not chunk.endswith(b"endobj"):
            raise MergeError(f"object {number} is not where the table says")
        objects[number] = chunk[head.end():-6].rstrip()
    root = _key_ref(trailer, "Root")
    info = _key_ref(trailer, "Info")
    tree = _key_ref(objects[root], "Pages")
    pages: list[int] = []
    structural = {root: "catalog", tree: "tree"} | ({info: "info"} if info else {})

    def walk(node: int) -> None:
        kids = re.search(rb"/Kids\s*\[([^\]]*)\]", objects[node])
        for ref in _REF.findall(kids.group(1) if kids else b""):
            kid = int(ref)
            if re.search(rb"/Type\s*/Pages\b", objects[kid]):
                structural[kid] = "tree"
                walk(kid)
            else:
                pages.append(kid)

    walk(tree)
    return Document(objects, pages, structural)


def _text(value: str) -> bytes:
    """Return a PDF text string: UTF-16 with a byte-order mark, as hex."""
    return b"<FEFF" + value.encode("utf-16-be").hex().upper().encode() + b">"


def _reachable(doc: Document, pages: list[int]) -> list[int]:
    """Return the objects the given pages need, in number order (page tree aside)."""
    seen, todo = set(), list(pages)
    while todo:
        number = todo.pop()
        if number in seen or number in doc.structural or number not in doc.objects:
            continue
        seen.add(number)
        todo.extend(int(ref) for ref in _REF.findall(_dict_part(doc.objects[number])))
    return sorted(seen)


def page_sizes(pdf: bytes) -> list[tuple[float, float]]:
    """Return each page's size in points, in page order."""
    doc = parse(pdf)
    sizes = []
    for number in doc.pages:
        box = re.search(rb"/MediaBox\s*\[\s*([-\d.]+)\s+([-\d.]+)\s+([-\d.]+)\s+([-\d.]+)",
                        doc.objects[number])
        x0, y0, x1, y1 = (float(v) for v in box.groups())
        sizes.append((x1 - x0, y1 - y0))
    return sizes


def _value_span(body: bytes, key: bytes) -> tuple[int, int]:
    """Return where the value of ``key`` in a dictionary's text starts and ends."""
    match = re.search(rb"/" + key + rb"(?=[\s/<\[(])\s*", body)
    if match is None:
        raise MergeError(f"no /{key.decode()}")
    at = match.end()
    if body.startswith(b"<<", at) or body.startswith(b"[", at):
        depth, i = 0, at
        while True:
            if body.startswith(b"<<", i) or body.startswith(b"[", i):
                depth += 1
                i += 2 if body[i:i + 1] == b"<" else 1
            elif body.startswith(b">>", i) or body.startswith(b"]", i):
                depth -= 1
                i += 2 if body[i:i + 1] == b">" else 1
                if depth == 0:
                    return at, i
            else:
                i += 1
    ref = re.match(rb"\d+ 0 R|[-\d.]+|/\S+", body[at:])
    return at, at + ref.end()


def _stream(objects: dict[int, bytes], number: int) -> bytes:
    """Return a stream object's data, decoded when it is deflated."""
    body = objects[number]
    head = _dict_part(body)
    a, b = _value_span(head, b"Length")
    length = head[a:b]
    if length.endswith(b"R"):
        length = objects[int(length.split()[0])]
    start = _STREAM.search(body).end()
    data = body[start:start + int(length.strip())]
    return zlib.decompress(data) if b"/FlateDecode" in head else data


def _drop_stream(objects: dict[int, bytes], number: int) -> None:
    """Remove a stream object and its length, when that is an object of its own."""
    head = _dict_part(objects.pop(number))
    a, b = _value_span(head, b"Length")
    if head[a:b].endswith(b"R"):
        objects.pop(int(head[a:b].split()[0]), None)


def _stream_object(head: bytes, data: bytes) -> bytes:
    """Return a stream object with ``head``'s entries, holding ``data`` deflated."""
    packed = zlib.compress(data, 6)
    return (b"<< " + head + b" /Filter /FlateDecode /Length %d >>\nstream\n" % len(packed)
            + packed + b"\nendstream")


# The page label is the last thing drawn on a page (impose.page_svg): grey text to the end.
_LABEL = re.compile(rb"0\.4 0\.4 0\.4 rg(?:\s+/\S+\s+gs)?\s+BT\b(?:(?!\bET\b).)*\bET\s*((?:Q\s*)*)$", re.S)


def _unlabelled(content: bytes) -> bytes:
    """Return a page's drawing without the label it was drawn with, when it has one."""
    at = content.rfind(b"0.4 0.4 0.4 rg")
    match = _LABEL.match(content, at) if at >= 0 else None
    if match is None or b"page" not in match.group():
        return content
    return content[:at] + match.group(1)


def _relabel(objects: dict[int, bytes], kids: list[int], labels: list[int | None],
             next_number: int) -> int:
    """Replace each page's label by the drawing of the labels document's page for it: the
    page is drawn as a form without its old label, and the new label as a form over it. A
    page taken twice (copies) becomes two pages, each with its own label. Return the next
    free object number."""
    forms: dict[int, tuple[int, bytes]] = {}   # page -> (its form, its dictionary)

    def form_of(page: int, strip: bool) -> int:
        nonlocal next_number
        body = objects[page]
        contents = re.search(rb"/Contents\s+(\d+) 0 R", body)
        if contents is None:
            raise MergeError("a page without one content stream")
        data = _stream(objects, int(contents.group(1)))
        _drop_stream(objects, int(contents.group(1)))   # its data moves into the form
        if strip:
            data = _unlabelled(data)
        a, b = _value_span(body, b"MediaBox")
        r0, r1 = _value_span(body, b"Resources")
        number = next_number
        next_number += 1
        objects[number] = _stream_object(
            b"/Type /XObject /Subtype /Form /BBox " + body[a:b] + b" /Resources "
            + body[r0:r1], data)
        return number

    for i, (kid, label) in enumerate(zip(kids, labels)):
        if label is None:
            continue
        if kid not in forms:
            forms[kid] = (form_of(kid, True), objects[kid])
        form, body = forms[kid]
        if kid in kids[:i]:   # a copy of a page already relabelled: a page of its own
            kids[i] = kid = next_number
            next_number += 1
        mark = form_of(label, False)
        draw = next_number
        next_number += 1
        data = b"q /P Do Q q /L Do Q\n"
        objects[draw] = b"<< /Length %d >>\nstream\n" % len(data) + data + b"\nendstream"
        c0, c1 = _value_span(body, b"Contents")
        page = body[:c0] + b"%d 0 R" % draw + body[c1:]
        r0, r1 = _value_span(page, b"Resources")
        objects[kid] = page[:r0] + b"<< /XObject << /P %d 0 R /L %d 0 R >> >>" % (
            form, mark) + page[r1:]
    return next_number


def merge(parts: list[tuple], title: str, labels: tuple[bytes, list[int | None]] | None = None
          ) -> bytes:
    """Join parts into one PDF; the same parts give the same bytes.

    A part is (bookmark title, PDF) or (bookmark title or None, PDF, page indexes or None):
    only the chosen pages are taken, and a part without a title gets no bookmark. With
    ``labels`` (a PDF and, per page joined, the index of its page there or None), each
    page's own label is replaced by the one drawn on that page of the labels PDF."""
    parts = [tuple(p) + (None,) * (3 - len(p)) for p in parts]
    if labels is not None:
        parts.append((None, labels[0], None))
    docs = [parse(pdf) for _, pdf, _ in parts]
    for doc, (_, _, chosen) in zip(docs, parts):
        if chosen is not None:
            doc.pages = [doc.pages[i] for i in chosen]
    marked = [i for i, (name, _, _) in enumerate(parts) if name]
    catalog, tree, outlines, info = 1, 2, 3, 4
    first_item = 5
    next_number = first_item + len(marked)
    renumbered: list[tuple[int, bytes]] = []
    kids: list[int] = []
    starts: list[int] = []
    for doc in docs:
        base = next_number
        needed = _reachable(doc, doc.pages)
        mapping = {n: base + i for i, n in enumerate(needed)}
        next_number = base + len(needed)
        shared = {n: {"catalog": catalog, "tree": tree, "info": info}[role]
                  for n, role in doc.structural.items()}

        def renumber(match, mapping=mapping, shared=shared):
            old = int(match.group(1))
            return b"%d 0 R" % mapping.get(old, shared.get(old, 0))

        for old, new in mapping.items():
            body = doc.objects[old]
            head = _dict_part(body)
            head = _REF.sub(renumber, head)
            if old in doc.pages:
                head = re.sub(rb"/Parent\s+\d+ 0 R", b"/Parent %d 0 R" % tree, head)
            renumbered.append((new, head + body[len(_dict_part(body)):]))
        starts.append(mapping[doc.pages[0]] if doc.pages else 0)
        kids.extend(mapping[p] for p in doc.pages)
    objects: dict[int, bytes] = dict(renumbered)
    if labels is not None:
        label_pages = kids[len(kids) - len(docs[-1].pages):]
        del kids[len(kids) - len(docs[-1].pages):]
        wanted = [None if j is None else label_pages[j] for j in labels[1]]
        next_number = _relabel(objects, kids, wanted, next_number)
        for page in label_pages:   # drawn into the pages now: no longer pages themselves
            del objects[page]
    objects.update({
        catalog: b"<< /Type /Catalog /Pages %d 0 R /Outlines %d 0 R /PageMode /UseOutlines >>"
                 % (tree, outlines),
        tree: b"<< /Type /Pages /Kids [" + b" ".join(b"%d 0 R" % k for k in kids) +
              b"] /Count %d >>" % len(kids),
        outlines: b"<< /Type /Outlines /First %d 0 R /Last %d 0 R /Count %d >>"
                  % (first_item, first_item + len(marked) - 1, len(marked)),
        info: b"<< /Title " + _text(title) + b" /Creator (printshop) /Producer (printshop) >>",
    })
    for i, part in enumerate(marked):
        name, page = parts[part][0], starts[part]
        item = b"<< /Title " + _text(name) + b" /Parent %d 0 R /Dest [%d 0 R /Fit]" % (
            outlines, page)
        if i:
            item += b" /Prev %d 0 R" % (first_item + i - 1)
        if i < len(marked) - 1:
            item += b" /Next %d 0 R" % (first_item + i + 1)
        objects[first_item + i] = item + b" >>"
    out = bytearray(HEADER)
    offsets = {}
    for number in sorted(objects):
        offsets[number] = len(out)
        out += b"%d 0 obj\n" % number + objects[number] + b"\nendobj\n"
    size = max(objects) + 1
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % size
    for number in range(1, size):
        if number in offsets:
            out += b"%010d 00000 n \n" % offsets[number]
        else:
            out += b"0000000000 65535 f \n"
    ident = hashlib.md5(b"".join(pdf for _, pdf, _ in parts)).hexdigest().upper().encode()
    out += (b"trailer\n<< /Size %d /Root %d 0 R /Info %d 0 R /ID [<%s> <%s>] >>\n"
            b"startxref\n%d\n%%%%EOF\n" % (size, catalog, info, ident, ident, xref))
    return bytes(out)
