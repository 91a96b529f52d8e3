"""Check a drawing before anything draws it: well-formed, self-contained and drawable.

The rules hold on the parsed SVG, the tree the renderers read, not on its text: every
attribute and every piece of CSS (style attributes and <style> elements, after CSS escapes and
comments are undone) is searched for references. A drawing may point only at its own parts
('#id') and at embedded pictures (data:image/png, jpeg or gif). It may not nest or reuse itself
so deeply that drawing it never ends, and no transform or viewBox may squash it to nothing or
blow it up beyond what a page can hold (cairo stops on such a matrix).
"""

from __future__ import annotations

import math
import re
import threading
from collections import OrderedDict
from functools import lru_cache
from xml.etree import ElementTree

from .pictures import PictureError, check_data_url

SVG_NS = "http://www.w3.org/2000/svg"
XLINK_NS = "http://www.w3.org/1999/xlink"
XML_BASE = "{http://www.w3.org/XML/1998/namespace}base"
MAX_DEPTH = 100             # elements inside elements, references followed included
MAX_REUSE = 100_000         # elements that <use> and paint references may copy in
MAX_SCALE = 1e6             # a transform or viewBox may scale by at most this, or 1/this
MAX_OFFSET = 1e9            # millimetres: a drawing moved further has left every page
FORBIDDEN = {"script", "foreignObject", "iframe", "handler", "listener"}
PICTURES = re.compile(r"data:image/(png|jpeg|jpg|gif)[;,]", re.IGNORECASE)

_CSS_COMMENT = re.compile(r"/\*.*?(\*/|$)", re.DOTALL)
_CSS_ESCAPE = re.compile(r"\\(?:([0-9a-fA-F]{1,6})[ \t\r\n\f]?|\r\n|([\s\S]))")
_URL = re.compile(r"url\s*\(\s*(?:\"([^\"]*)\"?|'([^']*)'?|([^)]*))", re.IGNORECASE)
_AT_RULE = re.compile(r"@(?:import|font-face|namespace)[^;{]*", re.IGNORECASE)
_SPACE = re.compile(r"[\x00-\x20\x7f]+")
_TRANSFORM = re.compile(r"([A-Za-z]+)\s*\(([^)]*)\)")
_NUMBER = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")
_ARITY = {"matrix": (6,), "translate": (1, 2), "scale": (1, 2), "rotate": (1, 3),
          "skewX": (1,), "skewY": (1,)}
_IDENTITY = (1.0, 0.0, 0.0, 1.0, 0.0, 0.0)
_LINKS = {"href", "src"}
# A browser runs these (the studio shows drawings inline; an exported SVG may be opened in
# one): event-handler attributes, and script URLs in any attribute, animation targets included.
_SCRIPT_URL = re.compile(r"(?:java|vb|live)script:", re.IGNORECASE)
_SVG = f"{{{SVG_NS}}}"
_NS_LENGTH = len(_SVG)
_STYLE = f"{{{SVG_NS}}}style"


class Fault(Exception):
    """A drawing that must not be drawn: says why, in the user's terms."""


class Script(Fault):
    """A drawing that would run a script in a browser; ``needle`` is the text that does it."""

    def __init__(self, message: str, needle: str):
        self.needle = needle
        super().__init__(message)


class Outside(Fault):
    """A drawing that refers to something outside itself."""

    def __init__(self, target: str):
        self.target = target
        super().__init__(f"the drawing refers to '{target[:80]}' outside itself; printshop "
                         "loads nothing from files or the network (use image('name.png') for "
                         "a picture in the template folder)")


def check_fragment(svg: str) -> None:
    """Check a template's output (SVG elements without an <svg> wrapper); raise a Fault.

    A fragment that passed lately is not checked again (a deck draws the same back, frame or
    icon card after card); the tree of one that passes is kept for take_tree()."""
    with _lock:
        if svg in _passed:
            _passed.move_to_end(svg)
            return
    root = _parse(f'<svg xmlns="{SVG_NS}" xmlns:xlink="{XLINK_NS}">{svg}</svg>')
    check(root)
    with _lock:
        _passed[svg] = None
        if len(_passed) > PASSED_KEPT:
            _passed.popitem(last=False)
        _keep(svg, root)


def passed(svg: str) -> bool:
    """Say whether this exact fragment passed check_fragment in this process (lately)."""
    return svg in _passed


def take_tree(svg: str) -> ElementTree.Element | None:
    """Return, once, the tree check_fragment parsed for a fragment that passed, if it was
    kept: its root is the check's wrapper, its children are the fragment's elements."""
    global _tree_chars
    with _lock:
        root = _trees.pop(svg, None)
        if root is not None:
            _tree_chars -= len(svg)
    return root


def parse_passed(svg: str) -> ElementTree.Element:
    """Parse a document that only wraps a fragment passed() vouches for in printshop's own
    <svg> viewports: the checks it passed hold for it (one level deeper, under viewBoxes
    that neither squash nor blow it up), so it is parsed without walking it again."""
    return _parse(svg)


PASSED_KEPT = 4096   # fragments remembered as checked (a share of a long deck has ~900)
# Characters of checked fragments whose trees are kept until drawn: a tree takes about nine
# bytes a character, so about 27 MB, some 1,900 poker cards (a share of a deck has ~900).
TREES_KEPT = 3_000_000
_passed: OrderedDict[str, None] = OrderedDict()
_trees: OrderedDict[str, ElementTree.Element] = OrderedDict()
_tree_chars = 0
_lock = threading.Lock()   # the studio builds in threads


def _keep(svg: str, root: ElementTree.Element) -> None:
    """Keep a checked fragment's tree, forgetting the oldest beyond TREES_KEPT characters."""
    global _tree_chars
    if "xlink:" in svg or len(svg) > TREES_KEPT:
        return   # a document around it declares no xlink prefix: parsed there, it fails
    if svg in _trees:
        _tree_chars -= len(svg)
    _trees[svg] = root
    _tree_chars += len(svg)
    while _tree_chars > TREES_KEPT:
        _tree_chars -= len(_trees.popitem(last=False)[0])


def parse_page(svg: str) -> ElementTree.Element:
    """Parse a whole page and check it: what the renderers will read."""
    root = _parse(svg)
    check(root)
    return root


def _parse(text: str) -> ElementTree.Element:
    if "<!" in text and re.search(r"<!(DOCTYPE|ENTITY)", text, re.IGNORECASE):
        raise Outside("<!DOCTYPE>")
    parser = ElementTree.XMLParser(target=ElementTree.TreeBuilder(insert_pis=True))
    try:
        return ElementTree.fromstring(text, parser)
    except ElementTree.ParseError as exc:
        raise Fault(f"the drawing is not well-formed SVG ({exc})") from None


def local(name) -> str:
    """Return a tag or attribute name without its namespace."""
    return name.rsplit("}", 1)[-1] if isinstance(name, str) else ""


def css_text(text: str) -> str:
    """Return CSS with comments removed and escapes decoded, as a CSS parser reads it."""
    if "/*" in text:
        text = _CSS_COMMENT.sub(" ", text)
    if "\\" in text:
        text = _CSS_ESCAPE.sub(_unescape, text)
    return text


def _unescape(match) -> str:
    hex_digits, char = match.group(1), match.group(2)
    if hex_digits:
        code = int(hex_digits, 16)
        return chr(code) if 0 < code <= 0x10FFFF and not 0xD800 <= code <= 0xDFFF else "\ufffd"
    return char or ""


def css_references(text: str) -> list[str]:
    """Return every url(...) target in CSS text; an @import counts as one."""
    text = css_text(text)
    at_rule = _AT_RULE.search(text)
    if at_rule:
        return [" ".join(at_rule.group().split())]
    return [next(g for g in m.groups() if g is not None) for m in _URL.finditer(text)]


def _allowed(target: str) -> bool:
    target = _SPACE.sub("", target)
    return target.startswith("#") and len(target) > 1 or bool(PICTURES.match(target))


def references(el) -> list[str]:
    """Return every reference an element makes: hrefs, url(...) paints, CSS, xml:base."""
    out = []
    for name, value in el.attrib.items():
        if name in _LINKS or name[0] == "{" and (name == XML_BASE or local(name) in _LINKS):
            out.append(value if name != XML_BASE else value or "xml:base")
        elif "(" in value or "\\" in value or "@" in value or name == "style":
            out.extend(css_references(value))
    if el.tag == _STYLE or local(el.tag) == "style":
        out.extend(css_references("".join(el.itertext())))
    return out


# The local targets of elements whose references were all allowed, by their attributes:
# cards of one template repeat the same attributes on every card. Bounded: emptied when full.
_REFERENCED: dict[tuple, tuple[str, ...]] = {}
REFERENCED_KEPT = 16384


def _targets(el, tag: str) -> tuple[str, ...]:
    """Return the ids an element refers to within the drawing; refuse any other reference."""
    key = None if tag == "style" else tuple(el.attrib.items())   # a style's text counts too
    if key is not None:
        known = _REFERENCED.get(key)
        if known is not None:
            return known
    _refuse_script(el, tag)
    found = []
    for target in references(el):
        if not _allowed(target):
            raise Outside(target.strip() or "an empty reference")
        if target.strip().startswith("#"):
            found.append(_SPACE.sub("", target)[1:])
        else:
            try:
                check_data_url(target)
            except PictureError as exc:
                raise Fault(str(exc)) from None
    if key is not None:
        if len(_REFERENCED) >= REFERENCED_KEPT:
            _REFERENCED.clear()
        _REFERENCED[key] = tuple(found)
    return tuple(found)


def _refuse_script(el, tag: str) -> None:
    """Refuse an event-handler attribute (onload=...) or a javascript: URL in any attribute."""
    for name, value in el.attrib.items():
        attr = local(name)
        if attr[:2].lower() == "on":
            raise Script(f"<{tag} {attr}=...>: event-handler attributes are not allowed in a "
                         "drawing (a browser would run them)", attr)
        if ":" in value and _SCRIPT_URL.search(_SPACE.sub("", value)):
            found = _SCRIPT_URL.search(value)
            raise Script(f"<{tag} {attr}='{value.strip()[:60]}'>: script URLs are not allowed "
                         "in a drawing", found.group() if found else attr)
        if attr == "attributeName" and value.strip()[:2].lower() == "on":
            raise Script(f"<{tag} attributeName='{value.strip()[:40]}'>: animating an "
                         "event-handler attribute is not allowed in a drawing", value.strip())


def check(root) -> None:
    """Refuse a parsed drawing that reaches outside itself or cannot be drawn."""
    ids: dict[str, ElementTree.Element] = {}
    links: dict[int, list[str]] = {}
    stack = [(root, _IDENTITY, 1)]
    while stack:
        el, matrix, depth = stack.pop()
        if el.tag is ElementTree.ProcessingInstruction:
            raise Outside(f"<?{(el.text or '').split(' ')[0]}?>")
        if not isinstance(el.tag, str):
            continue  # a comment
        tag = el.tag[_NS_LENGTH:] if el.tag.startswith(_SVG) else local(el.tag)
        if tag in FORBIDDEN:
            raise Fault(f"<{tag}> is not allowed in a drawing")
        if depth > MAX_DEPTH:
            raise Fault(f"the drawing nests elements more than {MAX_DEPTH} deep")
        attrib = el.attrib
        if attrib or tag == "style":
            found = _targets(el, tag)
            if found:
                links[id(el)] = found
            if "id" in attrib:
                ids.setdefault(attrib["id"], el)
            if "transform" in attrib or "viewBox" in attrib:
                matrix = _placed(el, tag, matrix)
        if len(el):
            stack.extend((child, matrix, depth + 1) for child in reversed(el))
    if links:
        _check_reuse(root, ids, links)


def _placed(el, tag: str, matrix: tuple) -> tuple:
    """Return the matrix an element's children are drawn with; refuse a degenerate one."""
    value = el.get("transform")
    if value:
        matrix = multiply(matrix, parse_transform(value))
        _check_matrix(matrix, f"transform '{value[:60]}'")
    box = el.get("viewBox")
    if box is not None and tag in ("svg", "symbol", "marker", "pattern", "view"):
        numbers = [float(n) for n in _NUMBER.findall(box)]
        if len(numbers) != 4 or not all(math.isfinite(n) for n in numbers) or \
                numbers[2] <= 0 or numbers[3] <= 0:
            raise Fault(f"viewBox '{box[:60]}': expected four numbers, the last two above 0")
        width, height = _length(el.get("width")), _length(el.get("height"))
        sx = width / numbers[2] if width is not None else 1.0
        sy = height / numbers[3] if height is not None else 1.0
        scaled = multiply(matrix, (sx, 0.0, 0.0, sy, -numbers[0] * sx, -numbers[1] * sy))
        _check_matrix(scaled, f"viewBox '{box[:60]}'")
        matrix = scaled
    return matrix


def _length(value) -> float | None:
    if value is None:
        return None
    match = _NUMBER.match(value.strip())
    if not match or value.strip()[match.end():] not in ("", "px", "mm"):
        return None  # percentages and other units: sized by the renderer
    number = float(match.group())
    return number if math.isfinite(number) and number > 0 else None


@lru_cache(maxsize=4096)
def parse_transform(value: str) -> tuple:
    """Return the matrix (a, b, c, d, e, f) of an SVG transform list; raise Fault if malformed."""
    matrix = _IDENTITY
    for name, args in _TRANSFORM.findall(value):
        a = [float(n) for n in _NUMBER.findall(args)]
        if name not in _ARITY or len(a) not in _ARITY[name]:
            raise Fault(f"transform '{value[:60]}': {name}() takes "
                        f"{' or '.join(map(str, _ARITY.get(name, (0,))))} numbers")
        if not all(math.isfinite(n) for n in a):
            raise Fault(f"transform '{value[:60]}': numbers must be finite")
        if name == "translate":
            step = (1.0, 0.0, 0.0, 1.0, a[0], a[1] if len(a) > 1 else 0.0)
        elif name == "scale":
            step = (a[0], 0.0, 0.0, a[1] if len(a) > 1 else a[0], 0.0, 0.0)
        elif name == "rotate":
            c, s = math.cos(math.radians(a[0])), math.sin(math.radians(a[0]))
            cx, cy = (a[1], a[2]) if len(a) == 3 else (0.0, 0.0)
            step = (c, s, -s, c, cx - c * cx + s * cy, cy - s * cx - c * cy)
        elif name == "matrix":
            step = tuple(a)
        elif name == "skewX":
            step = (1.0, 0.0, math.tan(math.radians(a[0])), 1.0, 0.0, 0.0)
        else:
            step = (1.0, math.tan(math.radians(a[0])), 0.0, 1.0, 0.0, 0.0)
        matrix = multiply(matrix, step)
    return matrix


def multiply(m: tuple, n: tuple) -> tuple:
    """Return m then n, as SVG composes a parent's matrix with a child's."""
    a, b, c, d, e, f = m
    a2, b2, c2, d2, e2, f2 = n
    return (a * a2 + c * b2, b * a2 + d * b2, a * c2 + c * d2, b * c2 + d * d2,
            a * e2 + c * f2 + e, b * e2 + d * f2 + f)


def _check_matrix(m: tuple, what: str) -> None:
    a, b, c, d, e, f = m
    det = a * d - b * c
    if not all(math.isfinite(v) for v in m) or not math.isfinite(det) or \
            max(abs(a), abs(b), abs(c), abs(d)) > MAX_SCALE or abs(e) > MAX_OFFSET or \
            abs(f) > MAX_OFFSET:
        raise Fault(f"{what} scales the drawing beyond any page; printshop draws scales "
                    f"from {1 / MAX_SCALE:g} to {MAX_SCALE:g}")
    if abs(det) < 1 / MAX_SCALE ** 2:
        raise Fault(f"{what} squashes the drawing flat; printshop draws scales from "
                    f"{1 / MAX_SCALE:g} to {MAX_SCALE:g}")


def _check_reuse(root, ids: dict, links: dict) -> None:
    """Refuse references that loop or copy in too much (cairosvg would recurse forever)."""
    size: dict[int, int] = {}
    height: dict[int, int] = {}
    active: set[int] = set()

    def visit(el, depth: int) -> None:
        key = id(el)
        if key in size:
            if depth + height[key] > MAX_DEPTH:
                raise Fault(f"the drawing nests elements more than {MAX_DEPTH} deep "
                            "(references followed)")
            return
        if depth > MAX_DEPTH:
            raise Fault(f"the drawing nests elements more than {MAX_DEPTH} deep "
                        "(references followed)")
        active.add(key)
        total, tallest = 1, 0
        targets = [ids.get(name) for name in links.get(key, ())]
        for child in [c for c in el if isinstance(c.tag, str)] + [t for t in targets if
                                                                   t is not None]:
            if id(child) in active:
                raise Fault(f"<{local(el.tag)}> refers to '#{child.get('id')}', which "
                            "contains it: drawing it would never end")
            visit(child, depth + 1)
            total += size[id(child)]
            tallest = max(tallest, height[id(child)])
            if total > MAX_REUSE:
                raise Fault(f"the drawing, with what its references copy in, holds more than "
                            f"{MAX_REUSE} elements")
        active.discard(key)
        size[key], height[key] = total, tallest + 1

    visit(root, 1)
