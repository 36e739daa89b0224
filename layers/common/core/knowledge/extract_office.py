"""Word, Excel and PowerPoint (Office Open XML) with python-docx, openpyxl and python-pptx, imported only here when
such a file is read; and the zip check every zip-based format (these and OpenDocument) passes first.

The zip check reads the archive's directory only: Python's zipfile never inflates a member past the size its
directory declares (it fails the CRC check instead), so the declared sizes bound what any library here can unpack.
"""

from __future__ import annotations

import datetime
import io
import re
import zipfile
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

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

MB = 1024 * 1024
MAX_UNPACKED = 200 * MB
# python-docx and python-pptx hold a part as an lxml tree, about 4 times its size: one XML part is bounded more
# tightly than the whole (openpyxl and the OpenDocument reader stream theirs).
MAX_TREE_PART = 64 * MB
MAX_MEMBERS = 10_000
# Real XML deflates 5-30 times, 20,000 identical paragraphs ~250 times, a run of zeros ~1,030 times (deflate's
# ceiling; bzip2 and lzma go far beyond): past MAX_RATIO a part is a bomb, whatever the sum says.
MAX_RATIO = 500
RATIO_FROM = MB  # small parts (a blank sheet, a few identical styles) may compress absurdly well, harmlessly
MAX_SHAPE_DEPTH = 16
CFB_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"  # an OLE compound file: Office 97-2003, or Office 2007+ encrypted


@dataclass(frozen=True)
class Format:
    kind: str  # "Word document": how a person calls it
    extension: str  # what to save it as, to be read
    legacy: str  # the same program's 97-2003 format, which the same container holds ("": none)


WORD = Format("Word document", ".docx", "Word 97-2003 (.doc)")
EXCEL = Format("Excel workbook", ".xlsx", "Excel 97-2003 (.xls)")
POWERPOINT = Format("PowerPoint presentation", ".pptx", "PowerPoint 97-2003 (.ppt)")


def fix(fmt: Format) -> str:
    return f"open it and save it again as {fmt.extension}"


def check_package(data: bytes, fmt: Format, *, max_part: int | None = None) -> list[str]:
    """The member names of a zip-based document, once its directory shows nothing hostile (``max_part``: the
    largest XML part, for the readers that hold a whole part in memory)."""
    if data.startswith(CFB_MAGIC):
        raise _old_or_protected(fmt) if fmt.legacy else damaged(fmt.kind, fix(fmt))
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as package:
            members = package.infolist()
    except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, ValueError, EOFError) as error:
        raise damaged(fmt.kind, fix(fmt)) from error
    if any(m.flag_bits & 0x1 for m in members):  # zip encryption: no Office app writes it, a zip tool may
        raise ExtractionFailed(f"The {fmt.kind} is password-protected: upload it without a password")
    if len(members) > MAX_MEMBERS:
        raise ExtractionFailed(f"The file holds more than {MAX_MEMBERS:,} parts: split it into smaller files")
    if sum(m.file_size for m in members) > MAX_UNPACKED:
        raise ExtractionFailed(
            f"The file expands to more than {MAX_UNPACKED // MB} MB when unpacked: split it into smaller files"
        )
    if max_part and any(m.file_size > max_part for m in members if m.filename.endswith((".xml", ".rels"))):
        raise ExtractionFailed(
            f"The {fmt.kind} has a part of more than {max_part // MB} MB unpacked: split it into smaller files"
        )
    for member in members:
        if member.file_size > RATIO_FROM and member.file_size > MAX_RATIO * max(member.compress_size, 1):
            raise ExtractionFailed(
                "The file is compressed to an implausible degree (a decompression bomb): it is not read"
            )
    return [m.filename for m in members]


def read_docx(data: bytes, reading: Reading) -> None:
    """Paragraphs and tables in body order; ``where`` names the nearest heading above ("section Opening hours")."""
    check_package(data, WORD, max_part=MAX_TREE_PART)
    import docx
    from docx.exceptions import PythonDocxError
    from docx.opc.exceptions import OpcError
    from docx.text.paragraph import Paragraph

    with failing_as(WORD.kind, fix(WORD), (PythonDocxError, OpcError)):
        document = docx.Document(io.BytesIO(data))
        headings = {s.style_id for s in document.styles if _is_heading(s.name or "")}
        where = ""
        for block in document.iter_inner_content():
            if isinstance(block, Paragraph):
                # The style's id from the XML: Paragraph.style resolves the default style by a scan of all the
                # styles for every unstyled paragraph (2 ms each: a minute for a long document).
                if block._p.style in headings and block.text.strip():
                    where = f"section {short(block.text)}"
                reading.block(block.text, where)
                continue
            _read_table(block, where, reading)


def _read_table(table: Any, where: str, reading: Reading) -> None:
    """Each row as "a | b | c", a cell spanning columns once, a cell merged down from the row above with that cell's
    text (as Word shows it).

    Not python-docx's ``row.cells``: it yields a spanning cell once per column it spans (a hostile ``gridSpan`` of a
    billion is a billion entries) and finds the cell a merge continues by walking up the rows, one row at a time,
    from every row (a column merged over a thousand rows: half a million steps). Here each row keeps the texts of
    the row above by grid column, so a merged cell costs one lookup.
    """
    from docx.table import _Cell

    above: dict[int, str] = {}
    for tr in table._tbl.tr_lst:
        reading.spend(ITEM_WORK)
        offset, texts, here = tr.grid_before, [], {}
        for tc in tr.tc_lst:
            reading.spend(ITEM_WORK)
            text = above.get(offset, "") if tc.vMerge == "continue" else one_line(_Cell(tc, table).text)
            here[offset] = text
            texts.append(text)
            offset += tc.grid_span
        above = here
        reading.block(" | ".join(texts), where)


def _is_heading(style_name: str) -> bool:
    """Word's built-in names are stored in English whatever the language of the app ("heading 1", "Title")."""
    name = style_name.lower()
    return name.startswith("heading") or name == "title"


def read_xlsx(data: bytes, reading: Reading) -> None:
    """Each worksheet's rows (values, not formulas: the last values Excel saved) as a ``Table``."""
    check_package(data, EXCEL)
    from openpyxl import load_workbook  # type: ignore[import-untyped]
    from openpyxl.utils.exceptions import InvalidFileException  # type: ignore[import-untyped]

    with failing_as(EXCEL.kind, fix(EXCEL), (InvalidFileException,)):
        book = load_workbook(io.BytesIO(data), read_only=True, data_only=True)
        try:
            for sheet in book.worksheets:
                # The declared dimensions are the file's word: a hostile A1:XFD1048576 would pad every row.
                sheet.reset_dimensions()
                table = Table(reading, f"sheet {short(sheet.title)}, ")
                for index, row in enumerate(sheet.iter_rows(), start=1):
                    number = next((c.row for c in row if getattr(c, "row", None)), index)
                    table.row(number, [_cell_text(c.value, getattr(c, "number_format", "")) for c in row])
                table.end()
        finally:
            book.close()


# Not "[#0,]*\.(0+)": searched (not matched), a leading run that may be empty is retried from every position of a
# long run of zeros. The decimals are the first "." followed by zeros either way.
_DECIMALS = re.compile(r"\.(0+)")
# Excel's own limit on a number format's length: a longer one, from a hostile file, is read only that far (the
# format is looked at for every number of the sheet).
FORMAT_CHARS = 255


def _cell_text(value: object, number_format: str | None) -> str:
    """A cell as its sheet shows it, near enough: 3.2 formatted "0.00" reads "3.20", a date without a time as a date."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, int | float):  # 3.00 is stored as 3: its format gives the decimals back
        shown = (number_format or "")[:FORMAT_CHARS]
        decimals = _DECIMALS.search(shown)
        places = len(decimals.group(1)) if decimals else None
        if "%" in shown:
            return f"{value * 100:.{places or 0}f}%"
        if places is not None:
            return f"{value:.{places}f}"
        return str(value) if isinstance(value, int) else f"{value:.15g}"  # 0.1 + 0.2 reads 0.3, as in Excel
    if isinstance(value, datetime.datetime) and value.time() == datetime.time():
        return value.date().isoformat()
    if isinstance(value, datetime.date | datetime.time):
        return value.isoformat()
    return str(value)


def read_pptx(data: bytes, reading: Reading) -> None:
    """Each slide's text boxes, tables and speaker notes, ``where`` "slide 3"."""
    check_package(data, POWERPOINT, max_part=MAX_TREE_PART)
    from pptx import Presentation
    from pptx.exc import PythonPptxError

    with failing_as(POWERPOINT.kind, fix(POWERPOINT), (PythonPptxError,)):
        for number, slide in enumerate(Presentation(io.BytesIO(data)).slides, start=1):
            where = f"slide {number}"
            for text in _shape_texts(slide.shapes, 0):
                reading.block(text, where)
            if slide.has_notes_slide and slide.notes_slide.notes_text_frame is not None:
                reading.block(slide.notes_slide.notes_text_frame.text, where)


def _shape_texts(shapes: Iterable[Any], depth: int) -> Iterator[str]:
    """The text of each shape in z-order (a title first, as PowerPoint lists it), group shapes' members within."""
    from pptx.shapes.group import GroupShape

    if depth > MAX_SHAPE_DEPTH:
        raise ExtractionFailed("The PowerPoint presentation is nested too deeply to read: save it again as .pptx")
    for shape in shapes:
        if isinstance(shape, GroupShape):
            yield from _shape_texts(shape.shapes, depth + 1)
        elif shape.has_text_frame:
            yield shape.text_frame.text
        elif getattr(shape, "has_table", False):
            for row in shape.table.rows:
                yield " | ".join(one_line(cell.text) for cell in row.cells)


def read_legacy(data: bytes, reading: Reading, fmt: Format) -> None:
    """A file declared as Word, Excel or PowerPoint 97-2003. Often it is not: a browser names the type after the
    extension, and Windows calls a .csv file Excel's. A zip is read as the newer format, text as CSV; the binary
    97-2003 format itself is refused with the way out (no well-kept Python library reads it)."""
    from core.knowledge.extract_text import read_csv

    readers = {WORD: read_docx, EXCEL: read_xlsx, POWERPOINT: read_pptx}
    if data.startswith(b"PK\x03\x04"):
        readers[fmt](data, reading)
    elif fmt is EXCEL and not data.startswith(CFB_MAGIC):
        read_csv(data, reading)
    else:
        raise _old_or_protected(fmt)


def _old_or_protected(fmt: Format) -> ExtractionFailed:
    """An OLE compound file: a 97-2003 document, or an Office 2007+ one encrypted with a password (which only the
    password tells apart)."""
    return ExtractionFailed(
        f"The file is in the old {fmt.legacy} format or is password-protected: open it and save it as "
        f"{fmt.extension} without a password, then upload that"
    )
