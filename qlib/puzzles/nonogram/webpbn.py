"""webpbn.com's XML puzzle format, as webpbn.com exports it and Jan Wolter's ``pbnsolve`` reads it.

A file holds a ``<puzzleset>`` with one or more ``<puzzle type="grid">`` elements
(<https://webpbn.com/pbn_fmt.html>)::

    <?xml version="1.0"?>
    <!DOCTYPE pbn SYSTEM "http://webpbn.com/pbn-0.3.dtd">
    <puzzleset>
    <puzzle type="grid" defaultcolor="black">
    <source>webpbn.com</source> <id>#1</id> <title>...</title> <author>...</author>
    <copyright>...</copyright>
    <color name="white" char=".">FFFFFF</color> <color name="black" char="X">000000</color>
    <clues type="columns"><line><count>2</count><count>1</count></line> ...</clues>
    <clues type="rows"> ... </clues>
    <solution type="goal"><image>|..XX.|...</image></solution>
    </puzzle>
    </puzzleset>

Read: the clues (a ``<line/>`` without counts is an all-white line), the title,
``author`` (else ``authorid``) as ``by``, ``copyright``, ``source`` and ``id`` as the
``catalogue`` (``"webpbn.com #1"``), each from the puzzle or else from the puzzleset,
and the ``goal`` image (rows between ``|``, one colour character per cell) as the
goal.  ``backgroundcolor`` (default ``white``) names the blank cells and
``defaultcolor`` (default ``black``) the colour of a ``<count>`` that names none; a
black-and-white puzzle has one colour besides the background, and a count without a
colour is a block of that colour even where ``defaultcolor`` names the background,
as some writers put it.  A second colour (a second non-background ``<color>``, or a
count of another colour) makes a colour puzzle, which is refused, as are the
``triddler`` type and a goal image with unknown cells.  Descriptions, notes and
saved solutions are ignored.

The text goes to expat directly, whose positions locate every error ("NAME, line
N, column M: ...").  Safe against entity expansion: an entity declaration (the
billion-laughs and external-entity attacks need one) is refused, an external DTD
such as webpbn's own ``pbn-0.3.dtd`` is never loaded, and an entity reference it
would have defined (``&copy;``) is read as the HTML entity of that name.
"""

from __future__ import annotations

import codecs
import html.entities
import re
from xml.parsers import expat

from .puzzle import BLACK, WHITE, Nonogram, NonogramError

_MAX_DIGITS = 6
_FORM = "expected a webpbn puzzle file: <puzzleset><puzzle>...</puzzle></puzzleset>"
_COLOUR = "a colour puzzle: qlib reads black-and-white nonograms only"


def looks_like_xml(text) -> bool:
    """Whether ``text`` (str or bytes) starts, after blank space and a byte-order mark, like XML ('<')."""
    if isinstance(text, bytes):
        if any(text.startswith(sig) for sig, enc in _SIGNATURES if enc.startswith(("utf-16", "utf-32"))):
            return True   # '<' in two or four bytes, or a BOM of UTF-16/32 (plain text is read as UTF-8)
        return text.removeprefix(b"\xef\xbb\xbf").lstrip(b" \t\r\n").startswith(b"<")
    return text.removeprefix("\ufeff").lstrip(" \t\r\n").startswith("<")


class _Node:
    """An element with the place of its start tag and of its first character of text."""

    __slots__ = ("tag", "attrib", "children", "parts", "line", "column", "text_at")

    def __init__(self, tag, attrib, line, column):
        self.tag, self.attrib, self.children, self.parts = tag, attrib, [], []
        self.line, self.column, self.text_at = line, column, None

    @property
    def text(self) -> str:
        return "".join(self.parts)

    def find_all(self, tag):
        return [child for child in self.children if child.tag == tag]

    def find(self, tag):
        return next((child for child in self.children if child.tag == tag), None)


#: Byte order marks, and the first bytes of "<?" in UTF-16 and UTF-32 without one (XML 1.0, appendix F).
_SIGNATURES = ((codecs.BOM_UTF32_LE, "utf-32"), (codecs.BOM_UTF32_BE, "utf-32"), (codecs.BOM_UTF8, "utf-8-sig"),
               (codecs.BOM_UTF16_LE, "utf-16"), (codecs.BOM_UTF16_BE, "utf-16"),
               (b"<\0\0\0", "utf-32-le"), (b"\0\0\0<", "utf-32-be"), (b"<\0?\0", "utf-16-le"), (b"\0<\0?", "utf-16-be"))
_DECLARED = re.compile(rb"\s*<\?xml[^>]*?\bencoding\s*=\s*[\"']([^\"']*)[\"']")


def _decode(data: bytes, name: str) -> str:
    """``data`` as text, in the encoding its byte order mark or XML declaration names (else UTF-8): expat
    reads only single-byte encodings, and an unknown name must be an error that says where it stands."""
    encoding = next((enc for sig, enc in _SIGNATURES if data.startswith(sig)), None)
    if encoding is None:
        declared = _DECLARED.match(data)
        encoding = "utf-8"
        if declared:
            encoding = declared.group(1).decode("ascii", "replace")
            at = declared.start(1)
            line, column = data.count(b"\n", 0, at) + 1, at - data.rfind(b"\n", 0, at)
            where = f"{name}, line {line}, column {column}"
            try:
                codec = codecs.lookup(encoding)
            except LookupError:
                codec = None
            if codec is None or not codec._is_text_encoding:
                raise NonogramError(f"{where}: the XML declaration names the encoding {encoding!r}, which is no "
                                    "text encoding Python knows: expected one such as UTF-8 or ISO-8859-1")
            if codec.name.startswith(("utf-16", "utf-32")):   # the declaration was read as single bytes
                raise NonogramError(f"{where}: the XML declaration names {encoding!r}, but the file is written in "
                                    "single bytes: expected the encoding it is written in (such as UTF-8)")
    try:
        return data.decode(encoding).removeprefix("\ufeff")
    except UnicodeDecodeError as err:   # the place in characters, as in the text read so far
        before = data[:err.start].decode(encoding, "replace").removeprefix("\ufeff").split("\n")
        raise NonogramError(f"{name}, line {len(before)}, column {len(before[-1]) + 1}: byte 0x{data[err.start]:02x} "
                            f"is not {encoding}: expected the encoding the file declares (UTF-8 when it names none)"
                            ) from None


def _tree(data, name: str) -> _Node:
    """The element tree of ``data`` (str or bytes); malformed XML and entity declarations raise located."""
    if isinstance(data, (bytes, bytearray)):
        data = _decode(bytes(data), name)
    parser = expat.ParserCreate()
    parser.SetParamEntityParsing(expat.XML_PARAM_ENTITY_PARSING_NEVER)
    root, stack = [], []

    def here():
        return parser.CurrentLineNumber, parser.CurrentColumnNumber + 1

    def refuse(message):
        line, column = here()
        raise NonogramError(f"{name}, line {line}, column {column}: {message}")

    def start(tag, attrib):
        node = _Node(tag, attrib, *here())
        (stack[-1].children if stack else root).append(node)
        stack.append(node)

    def text(data):
        if stack:
            node = stack[-1]
            if node.text_at is None:
                node.text_at = here()
            node.parts.append(data)

    def skipped(entity, is_parameter):
        char = None if is_parameter else html.entities.html5.get(entity + ";")
        if char is None:
            refuse(f"the entity '&{entity};' is not defined: expected the entities of XML or HTML (&amp;, &copy;)")
        text(char)

    parser.StartElementHandler = start
    parser.EndElementHandler = lambda tag: stack.pop()
    parser.CharacterDataHandler = text
    parser.SkippedEntityHandler = skipped
    parser.EntityDeclHandler = lambda entity, *rest: refuse(
        f"an entity declaration (<!ENTITY {entity} ...>) is not read: a webpbn file declares no entities")
    parser.ExternalEntityRefHandler = lambda *args: refuse("an external entity is not read")
    try:
        parser.Parse(data, True)
    except expat.ExpatError as err:
        raise NonogramError(f"{name}, line {err.lineno}, column {err.offset + 1}: not well-formed XML "
                            f"({expat.ErrorString(err.code)}): {_FORM}") from None
    if not root:
        raise NonogramError(f"{name}, line 1, column 1: no element: {_FORM}")
    return root[0]


def parse_text(text: str, name: str = "<text>") -> Nonogram:
    """The one puzzle of a webpbn XML text (a puzzleset of several is an error: see :func:`parse_all`)."""
    return _one(_tree(text.removeprefix("\ufeff"), name), name)


def parse_bytes(data: bytes, name: str = "<bytes>") -> Nonogram:
    """The one puzzle of a webpbn XML file's bytes (in the encoding its XML declaration names, else UTF-8)."""
    return _one(_tree(data, name), name)


def parse_all(data, name: str = "<text>") -> list[Nonogram]:
    """Every puzzle of a webpbn puzzleset (``data``: the text or the bytes of the file), in order."""
    if isinstance(data, str):
        data = data.removeprefix("\ufeff")
    root = _tree(data, name)
    return [_puzzle(node, root, name) for node in _puzzles(root, name)]


def _puzzles(root: _Node, name: str) -> list[_Node]:
    if root.tag != "puzzleset":
        _fail(name, root, f"the root element is <{root.tag}>: {_FORM}")
    puzzles = root.find_all("puzzle")
    if not puzzles:
        _fail(name, root, "the <puzzleset> holds no <puzzle>: expected one")
    return puzzles


def _one(root: _Node, name: str) -> Nonogram:
    puzzles = _puzzles(root, name)
    if len(puzzles) > 1:
        _fail(name, puzzles[1], f"the <puzzleset> holds {len(puzzles)} puzzles: expected one "
                                "(nonogram.parse_pack reads them all)")
    return _puzzle(puzzles[0], root, name)


def _place(node: _Node, index: int) -> tuple[int, int]:
    """Line and column of ``node.text[index]`` (an entity reference before it counts as one character)."""
    if node.text_at is None:
        return node.line, node.column
    line, column = node.text_at
    text = node.text
    newlines = text.count("\n", 0, index)
    if not newlines:
        return line, column + index
    return line + newlines, index - text.rfind("\n", 0, index)


def _fail(name: str, node: _Node, message: str, index: int | None = None):
    """Raise at ``node``'s start tag, or at character ``index`` of its text."""
    line, column = (node.line, node.column) if index is None else _place(node, index)
    raise NonogramError(f"{name}, line {line}, column {column}: {message}")


def _value(node) -> str | None:
    """An element's text with its blank space collapsed (a .non value is one line), or None."""
    if node is None:
        return None
    return " ".join(node.text.split()) or None


def _puzzle(node: _Node, puzzleset: _Node, name: str) -> Nonogram:
    shape = node.attrib.get("type", "grid")
    if shape != "grid":
        _fail(name, node, f"a puzzle of type {shape!r}: qlib reads grid nonograms only (type=\"grid\")")
    background = node.attrib.get("backgroundcolor", "white")
    chars = {"white": ".", "black": "X"}            # pbnsolve's two predefined colours; <color> redefines
    inks = []                                       # (name, element) of the colours besides the background
    for colour in node.find_all("color"):
        colour_name = colour.attrib.get("name")
        if not colour_name:
            _fail(name, colour, "a <color> without a name: expected <color name=\"...\" char=\"X\">RGB</color>")
        chars[colour_name] = colour.attrib.get("char", chars.get(colour_name, ""))
        if colour_name != background and all(colour_name != seen for seen, _ in inks):
            inks.append((colour_name, colour))
    if len(inks) > 1:
        _fail(name, inks[1][1], f"{_COLOUR} (a second colour {inks[1][0]!r} besides {inks[0][0]!r} and the "
                                f"background {background!r})")
    # the one colour besides the background, which every count has (defaultcolor can name no other)
    ink = inks[0][0] if inks else next(c for c in (node.attrib.get("defaultcolor", "black"), "black", "white")
                                       if c != background)

    clues = {}
    for section in node.find_all("clues"):
        kind = section.attrib.get("type")
        if kind not in ("rows", "columns"):
            _fail(name, section, f"<clues type={kind!r}>: expected type \"rows\" or \"columns\"")
        if kind in clues:
            _fail(name, section, f"a second <clues type=\"{kind}\"> (the first is at line {clues[kind][0].line})")
        clues[kind] = (section, [_line(line, ink, background, chars, name) for line in section.find_all("line")])
    for kind in ("columns", "rows"):
        if kind not in clues:
            _fail(name, node, f"the puzzle has no <clues type=\"{kind}\">: expected the clues of its {kind}")
        if not clues[kind][1]:
            _fail(name, clues[kind][0], f"<clues type=\"{kind}\"> holds no <line>: expected one per {kind[:-1]}")
    (row_node, rows), (column_node, columns) = clues["rows"], clues["columns"]
    for section, lines, length, what in ((row_node, rows, len(columns), "row"),
                                         (column_node, columns, len(rows), "column")):
        for line, (clue, place) in zip(section.find_all("line"), lines):
            needed = sum(clue) + max(len(clue) - 1, 0)
            if needed > length:
                _fail(name, line, f"the {what} clue {','.join(map(str, clue))} needs {needed} cells (blocks plus "
                                  f"one gap between each), but a {what} has only {length}")
    row_total, column_total = sum(sum(c) for c, _ in rows), sum(sum(c) for c, _ in columns)
    if row_total != column_total:
        _fail(name, column_node, f"the row clues count {row_total} black cells but the column clues count "
                                 f"{column_total}")

    metadata = {}
    source = _value(node.find("source")) or _value(puzzleset.find("source"))
    number = _value(node.find("id"))
    catalogue = " ".join(part for part in (source, number) if part)
    if catalogue:
        metadata["catalogue"] = catalogue

    def inherited(tag):
        return _value(node.find(tag)) or _value(puzzleset.find(tag))

    author = inherited("author") or inherited("authorid")
    if author:
        metadata["by"] = author
    if inherited("copyright"):
        metadata["copyright"] = inherited("copyright")
    goal = None
    for solution in node.find_all("solution"):
        if solution.attrib.get("type", "goal") == "goal":
            goal = _goal(solution, len(rows), len(columns), chars.get(ink, "X"), chars.get(background, "."), name)
            break
    return Nonogram(tuple(c for c, _ in rows), tuple(c for c, _ in columns), inherited("title"), metadata, goal)


def _line(line: _Node, ink: str, background: str, chars: dict, name: str):
    """The clue of a ``<line>`` and the element."""
    numbers = []
    for count in line.children:
        if count.tag != "count":
            _fail(name, count, f"unexpected <{count.tag}> in a <line>: expected <count> elements")
        colour = count.attrib.get("color", ink)
        if colour == background:
            _fail(name, count, f"a count in the background colour {background!r}: expected a block of {ink!r}")
        if colour != ink:
            what = (f"a second colour besides {ink!r}" if colour in chars else
                    f"which no <color> defines; the puzzle's colour is {ink!r}")
            _fail(name, count, f"{_COLOUR} (a block of {colour!r}, {what})")
        raw = count.text
        text = raw.strip()
        if not re.fullmatch(r"[0-9]+", text) or len(text) > _MAX_DIGITS or int(text) == 0:
            shown = text if len(text) <= 20 else text[:20] + "..."
            _fail(name, count, f"expected a block length (a positive whole number of at most {_MAX_DIGITS} "
                               f"digits) in <count>, got {shown!r}", len(raw) - len(raw.lstrip()) if text else None)
        numbers.append(int(text))
    return tuple(numbers), line


def _goal(solution: _Node, height: int, width: int, ink: str, blank: str, name: str) -> tuple[str, ...]:
    image = solution.find("image")
    if image is None:
        _fail(name, solution, "a <solution> without an <image>: expected the goal's rows, |X..X|")
    text = image.text

    def fail(index, message):
        _fail(name, image, message, index)

    rows, index = [], 0
    for raw in text.split("\n"):
        stripped = raw.strip()
        at = index + len(raw) - len(raw.lstrip())
        index += len(raw) + 1
        if not stripped:
            continue
        if len(stripped) < 2 or stripped[0] != "|" or stripped[-1] != "|":
            fail(at, f"expected a row of the goal between '|' and '|', got {stripped[:20]!r}")
        cells = stripped[1:-1]
        for k, ch in enumerate(cells):
            if ch not in (ink, blank):
                fail(at + 1 + k, f"unexpected {ch!r} in the goal: expected {ink!r} (black) or {blank!r} (white)")
        if len(cells) != width:
            fail(at, f"a goal row of {len(cells)} cells: expected {width}, the number of columns")
        rows.append("".join(BLACK if ch == ink else WHITE for ch in cells))
    if len(rows) != height:
        fail(len(text.rstrip()), f"the goal has {len(rows)} rows: expected {height}, the number of rows")
    return tuple(rows)
