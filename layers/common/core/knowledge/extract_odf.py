"""OpenDocument text, spreadsheet and presentation: ``content.xml`` streamed with defusedxml (imported only here).

Not odfpy: it builds the whole document as a DOM of Python objects (a large spreadsheet costs many times its size),
ships as a source distribution only and has not had a release since 2020. The text of an OpenDocument file is in
one XML part whose structure is simple (paragraphs, headings, tables, pages), so it is streamed here: defusedxml
refuses DTDs' entities (billion laughs, external entities), the nesting depth is bounded, and each paragraph, cell
and row is dropped from memory once read. Repeated rows and columns (``number-rows-repeated``: how a spreadsheet
says "the next million rows are empty") are counted, never expanded.
"""

from __future__ import annotations

import io
import zipfile
from collections.abc import Callable
from typing import TYPE_CHECKING

from core.knowledge.extract_office import Format, check_package
from core.knowledge.extract_passages import (
    ITEM_WORK,
    ExtractionFailed,
    Reading,
    Table,
    damaged,
    failing_as,
    one_line,
    short,
)

if TYPE_CHECKING:
    from xml.etree.ElementTree import Element

MAX_XML_DEPTH = 256  # libxml2's own limit, which the Office libraries' parser (lxml) applies
MAX_REPEAT = 64  # copies of one repeated non-empty cell shown in a row
ODF_TEXT = Format("OpenDocument text", ".odt", "")
ODF_SPREADSHEET = Format("OpenDocument spreadsheet", ".ods", "")
ODF_PRESENTATION = Format("OpenDocument presentation", ".odp", "")

_OFFICE = "{urn:oasis:names:tc:opendocument:xmlns:office:1.0}"
_TEXT = "{urn:oasis:names:tc:opendocument:xmlns:text:1.0}"
_TABLE = "{urn:oasis:names:tc:opendocument:xmlns:table:1.0}"
_DRAW = "{urn:oasis:names:tc:opendocument:xmlns:drawing:1.0}"
PARAGRAPHS = {_TEXT + "p", _TEXT + "h"}
CELLS = {_TABLE + "table-cell", _TABLE + "covered-table-cell"}
# Inside these, a paragraph is part of a larger text (a cell's, a paragraph's): its element is kept until that ends.
INLINE = PARAGRAPHS | CELLS | {_TEXT + "span", _TEXT + "a", _TEXT + "note", _TEXT + "note-body", _TEXT + "ruby"}
# Not the document's text: deleted text kept for change tracking, comments, form controls.
SKIPPED = {_TEXT + "tracked-changes", _OFFICE + "annotation", _OFFICE + "forms", _TEXT + "sequence-decls"}
SPACES = {_TEXT + "s": " ", _TEXT + "tab": " ", _TEXT + "line-break": "\n"}


def read_odf(data: bytes, reading: Reading, fmt: Format) -> None:
    names = check_package(data, fmt)
    fixing = f"open it and save it again as {fmt.extension}"
    if "content.xml" not in names:
        raise damaged(fmt.kind, fixing)
    from defusedxml.ElementTree import iterparse  # type: ignore[import-untyped]

    with failing_as(fmt.kind, fixing), zipfile.ZipFile(io.BytesIO(data)) as package:
        if "META-INF/manifest.xml" in names and b"encryption-data" in package.read("META-INF/manifest.xml"):
            raise ExtractionFailed(f"The {fmt.kind} is password-protected: save it without a password and upload it")
        walker = _Walker(reading, f"The {fmt.kind} is nested too deeply to read: {fixing}")
        with package.open("content.xml") as content:
            for event, element in iterparse(content, events=("start", "end")):
                if event == "start":
                    walker.start(element)
                else:
                    walker.end(element)
        walker.close()


class _Walker:
    """The elements of content.xml as iterparse meets them: blocks to ``reading`` in document order."""

    def __init__(self, reading: Reading, too_deep: str) -> None:
        self._reading = reading
        self._too_deep = too_deep
        self._open: list[Element] = []
        self._skipping = 0  # depth inside a SKIPPED element
        self._cells = 0  # depth of open table cells (a table may sit in a cell)
        self._body = ""  # "text", "spreadsheet" or "presentation": office:body's child
        self._section = ""
        self._slide = 0
        self._table: Table | None = None
        self._row: list[str] = []
        self._row_number = 0

    def start(self, element: Element) -> None:
        # Spent per element: ten million empty spans in one paragraph are work before the paragraph's text is.
        self._reading.spend(ITEM_WORK)
        if len(self._open) >= MAX_XML_DEPTH:
            raise ExtractionFailed(self._too_deep)
        self._open.append(element)
        tag = element.tag
        if self._skipping or tag in SKIPPED:
            self._skipping += 1
        elif tag.startswith(_OFFICE) and tag[len(_OFFICE) :] in ("text", "spreadsheet", "presentation"):
            self._body = tag[len(_OFFICE) :]
        elif tag == _DRAW + "page":
            self._slide += 1
        elif tag in CELLS:
            self._cells += 1
        elif tag == _TABLE + "table" and not self._cells:
            self._row_number = 0
            if self._body == "spreadsheet":
                self._table = Table(self._reading, f"sheet {short(element.get(_TABLE + 'name') or '')}, ")

    def end(self, element: Element) -> None:
        self._open.pop()
        tag = element.tag
        if self._skipping:
            self._skipping -= 1
            if not self._skipping:
                self._drop(element)
            return
        if tag in PARAGRAPHS and not self._cells:
            text = _text(element, self._reading.spend)
            if tag == _TEXT + "h" and self._body == "text" and text.strip():
                self._section = f"section {short(text)}"
            self._reading.block(text, self._where())
            self._drop(element)
        elif tag in CELLS:
            self._cells -= 1
            if not self._cells:
                text = one_line(_text(element, self._reading.spend))
                self._row.extend([text] * min(_count(element, "number-columns-repeated"), MAX_REPEAT))
                self._drop(element)
        elif tag == _TABLE + "table-row" and not self._cells:
            first = self._row_number + 1
            self._row_number += _count(element, "number-rows-repeated")  # identical rows: read once
            if self._table is not None:
                self._table.row(first, self._row)
            else:
                self._reading.block(" | ".join(self._row).strip(" |"), self._where())
            self._row = []
            self._drop(element)
        elif tag == _TABLE + "table" and not self._cells and self._table is not None:
            self._table.end()
            self._table = None
        elif tag == _DRAW + "page":
            self._drop(element)

    def close(self) -> None:
        if self._table is not None:
            self._table.end()

    def _where(self) -> str:
        if self._body == "presentation":
            return f"slide {self._slide}" if self._slide else ""
        return self._section if self._body == "text" else ""

    def _drop(self, element: Element) -> None:
        """Forget what was read: the element's content, and the parent's finished children unless the parent's own
        text is still to be read."""
        tail = element.tail
        element.clear()
        element.tail = tail
        if self._open and self._open[-1].tag not in INLINE:
            del self._open[-1][:]


def _text(element: Element, spend: Callable[[int], None]) -> str:
    """The text of a paragraph, cell or frame: spans joined, text:s / text:tab / text:line-break as spaces and line
    ends, each inner paragraph on its own line. The depth is bounded by MAX_XML_DEPTH, so recursion is safe."""
    parts: list[str] = []

    def walk(node: Element) -> None:
        spend(ITEM_WORK)
        if node.tag in SPACES:
            parts.append(SPACES[node.tag])
        elif node.tag not in SKIPPED:
            parts.append(node.text or "")
            for child in node:
                walk(child)
                parts.append(child.tail or "")
            if node.tag in PARAGRAPHS:
                parts.append("\n")

    walk(element)
    return "".join(parts)


def _count(element: Element, attribute: str) -> int:
    try:
        return max(1, min(int(element.get(_TABLE + attribute) or 1), 1 << 24))
    except ValueError:
        return 1
