"""Join the PDFs printshop's cairo surfaces write into one document with a bookmark per part.

cairo writes plain PDFs: one cross-reference table, a flat page tree, every object in the
open. Joining them needs no PDF library: each file's objects are renumbered into one
sequence, its pages hung under a new page tree, and an outline points at each part's first
page. (A general PDF library took longer to import than this takes to run.)
"""

from __future__ import annotations

import hashlib
import re
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


def merge(parts: list[tuple], title: str) -> bytes:
    """Join parts into one PDF; the same parts give the same bytes.

    A part is (bookmark title, PDF) or (bookmark title or None, PDF, page indexes or None):
    only the chosen pages are taken, and a part without a title gets no bookmark."""
    parts = [tuple(p) + (None,) * (3 - len(p)) for p in parts]
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
    objects: dict[int, bytes] = {
        catalog: b"<< /Type /Catalog /Pages %d 0 R /Outlines %d 0 R /PageMode /UseOutlines >>"
                 % (tree, outlines),
        tree: b"<< /Type /Pages /Kids [" + b" ".join(b"%d 0 R" % k for k in kids) +
              b"] /Count %d >>" % len(kids),
        outlines: b"<< /Type /Outlines /First %d 0 R /Last %d 0 R /Count %d >>"
                  % (first_item, first_item + len(marked) - 1, len(marked)),
        info: b"<< /Title " + _text(title) + b" /Creator (printshop) /Producer (printshop) >>",
    }
    for i, part in enumerate(marked):
        name, page = parts[part][0], starts[part]
        item = b"<< /Title " + _text(name) + b" /Parent %d 0 R /Dest [%d 0 R /Fit]" % (
            outlines, page)
        if i:
            item += b" /Prev %d 0 R" % (first_item + i - 1)
        if i < len(marked) - 1:
            item += b" /Next %d 0 R" % (first_item + i + 1)
        objects[first_item + i] = item + b" >>"
    objects.update(renumbered)
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
