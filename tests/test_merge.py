"""The print-and-play file is the parts joined: every page in order, a bookmark per part."""

from __future__ import annotations

import shutil
import subprocess

import pytest
from pypdf import PdfReader

from printshop.layout.impose import Page
from printshop.write.merge import MergeError, merge
from printshop.write.pdf import pages_to_pdf
from printshop.draw.text import text_box


def part(label: str, pages: int, size=(210, 297)) -> bytes:
    return pages_to_pdf([Page(*size, [str(text_box(f"{label} page {n + 1} é ♠", 20, 20, 150,
                                                    20, size=14))]) for n in range(pages)],
                        label)


@pytest.fixture(scope="module")
def joined(tmp_path_factory):
    parts = [("Contents", part("Contents", 1)), ("Cards", part("Cards", 3, (297, 210))),
             ("Board – Ünïcode", part("Board", 2, (100, 150)))]
    data = merge(parts, "Game — print and play")
    path = tmp_path_factory.mktemp("merge") / "joined.pdf"
    path.write_bytes(data)
    return path, parts


def test_every_page_in_order_with_its_size(joined):
    path, _ = joined
    reader = PdfReader(path)
    assert len(reader.pages) == 6
    texts = [p.extract_text() for p in reader.pages]
    assert [t.split(" page")[0].strip() for t in texts] == \
        ["Contents", "Cards", "Cards", "Cards", "Board", "Board"]
    assert "page 3" in texts[3] and "é ♠" in texts[0]
    sizes = [(round(float(p.mediabox.width)), round(float(p.mediabox.height)))
             for p in reader.pages]
    assert sizes == [(595, 842)] + [(842, 595)] * 3 + [(283, 425)] * 2


def test_a_bookmark_opens_each_part_at_its_first_page(joined):
    path, parts = joined
    reader = PdfReader(path)
    assert [o.title for o in reader.outline] == [name for name, _ in parts]
    assert [reader.get_destination_page_number(o) for o in reader.outline] == [0, 1, 4]
    assert reader.metadata.title == "Game — print and play"


def test_same_parts_same_bytes(joined):
    path, parts = joined
    assert merge(parts, "Game — print and play") == path.read_bytes()


def test_poppler_reads_it_without_complaint(joined, tmp_path):
    path, _ = joined
    if shutil.which("pdftoppm") is None:
        pytest.skip("poppler-utils is not installed")
    result = subprocess.run(["pdftoppm", "-r", "10", "-png", str(path), str(tmp_path / "p")],
                            capture_output=True, text=True)
    assert result.returncode == 0 and result.stderr == ""
    assert len(list(tmp_path.glob("p-*.png"))) == 6


def test_a_file_it_cannot_read_is_refused():
    with pytest.raises(MergeError):
        merge([("x", b"%PDF-1.7 not really")], "t")
