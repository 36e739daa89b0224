"""Real documents built in memory for the knowledge tests: PDF, Word, Excel, PowerPoint and OpenDocument.

The Office formats are written by the libraries that read them (python-docx, openpyxl, python-pptx: the knowledge
worker's, installed in the dev venv); PDF and OpenDocument are written by hand, small and valid, so a test can also
build the malformed variants next to them (``pdf_document``, ``odf_bytes``).
"""

from __future__ import annotations

import io
import zipfile
from collections.abc import Sequence
from typing import Any

PDF_FONT = b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"


def pdf_document(objects: Sequence[bytes]) -> bytes:
    """A PDF whose objects are ``objects`` (object 1 first, object 1 the catalog), with a correct xref table."""
    out = io.BytesIO()
    out.write(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(out.tell())
        out.write(b"%d 0 obj\n%s\nendobj\n" % (number, body))
    xref = out.tell()
    out.write(b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1))
    out.write(b"".join(b"%010d 00000 n \n" % offset for offset in offsets))
    out.write(b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref))
    return out.getvalue()


def pdf_content(text: str) -> bytes:
    """A content stream object showing ``text`` in Helvetica, one PDF line per line of ``text`` ('' is a gap)."""
    lines = b"".join(b"(%s) Tj T*\n" % _pdf_string(line) for line in text.split("\n"))
    stream = b"BT /F1 12 Tf 15 TL 72 760 Td\n" + lines + b"ET"
    return b"<< /Length %d >>\nstream\n%s\nendstream" % (len(stream), stream)


def pdf_page(parent: int, content: int, font: int) -> bytes:
    return (
        b"<< /Type /Page /Parent %d 0 R /MediaBox [0 0 612 792] /Contents %d 0 R "
        b"/Resources << /Font << /F1 %d 0 R >> >> >>" % (parent, content, font)
    )


def pdf_bytes(pages: list[str]) -> bytes:
    """A valid PDF with one page per string (lines split on '\\n'), text drawn in Helvetica."""
    # Objects: 1 catalog, 2 page tree, 3 font, then each page and its content stream.
    first = 4
    kids = b" ".join(b"%d 0 R" % (first + 2 * i) for i in range(len(pages)))
    objects = [b"<< /Type /Catalog /Pages 2 0 R >>", b"<< /Type /Pages /Kids [%s] /Count %d >>" % (kids, len(pages))]
    objects.append(PDF_FONT)
    for i, text in enumerate(pages):
        objects += [pdf_page(2, first + 2 * i + 1, 3), pdf_content(text)]
    return pdf_document(objects)


def _pdf_string(text: str) -> bytes:
    # Latin-1 covers Helvetica's standard encoding for the Western text the tests use; escape what a literal needs.
    raw = text.encode("latin-1")
    return raw.replace(b"\\", b"\\\\").replace(b"(", b"\\(").replace(b")", b"\\)")


def encrypted_pdf(pages: list[str], *, user_password: str, owner_password: str = "owner") -> bytes:  # noqa: S107
    """``pdf_bytes(pages)`` encrypted by pypdf (AES-256); an empty user password opens without asking."""
    from pypdf import PdfReader, PdfWriter

    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(pdf_bytes(pages))))
    writer.encrypt(user_password=user_password, owner_password=owner_password, algorithm="AES-256")
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def docx_bytes(paragraphs: list[tuple[str | None, str]]) -> bytes:
    """A Word document: for each (heading, text), the heading (style 'Heading 1') when given, then the paragraph."""
    import docx

    document = docx.Document()
    for heading, text in paragraphs:
        if heading is not None:
            document.add_heading(heading, level=1)
        if text:
            document.add_paragraph(text)
    out = io.BytesIO()
    document.save(out)
    return out.getvalue()


def xlsx_bytes(sheets: dict[str, list[list[Any]]]) -> bytes:
    """An Excel workbook with one sheet per entry, rows written from A1 (None leaves a cell empty)."""
    from openpyxl import Workbook  # type: ignore[import-untyped]

    book = Workbook()
    book.remove(book.active)
    for name, rows in sheets.items():
        sheet = book.create_sheet(name)
        for row in rows:
            sheet.append(row)
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


def pptx_bytes(slides: list[str]) -> bytes:
    """A PowerPoint deck, one 'Title and Content' slide per string: its first line the title, the rest the body."""
    from pptx import Presentation

    deck = Presentation()
    for text in slides:
        slide = deck.slides.add_slide(deck.slide_layouts[1])
        title, _, body = text.partition("\n")
        slide.shapes.title.text = title
        slide.placeholders[1].text = body
    out = io.BytesIO()
    deck.save(out)
    return out.getvalue()


ODF_NAMESPACES = (
    'xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" '
    'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" '
    'xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" '
    'xmlns:draw="urn:oasis:names:tc:opendocument:xmlns:drawing:1.0" '
    'xmlns:presentation="urn:oasis:names:tc:opendocument:xmlns:presentation:1.0" '
    'xmlns:svg="urn:oasis:names:tc:opendocument:xmlns:svg-compatible:1.0"'
)
ODF_TEXT = "application/vnd.oasis.opendocument.text"
ODF_SPREADSHEET = "application/vnd.oasis.opendocument.spreadsheet"
ODF_PRESENTATION = "application/vnd.oasis.opendocument.presentation"


def odf_bytes(mimetype: str, body: str, *, content: str | None = None) -> bytes:
    """An OpenDocument package: ``mimetype`` stored first (as the format requires), ``content.xml`` whose
    office:body holds ``body`` (or ``content`` verbatim), and the manifest."""
    xml = content or (
        f'<?xml version="1.0" encoding="UTF-8"?>\n<office:document-content {ODF_NAMESPACES} office:version="1.3">'
        f"<office:body>{body}</office:body></office:document-content>"
    )
    manifest = (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0" manifest:version="1.3">'
        f'<manifest:file-entry manifest:full-path="/" manifest:media-type="{mimetype}"/>'
        '<manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml"/>'
        "</manifest:manifest>"
    )
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as package:
        package.writestr("mimetype", mimetype, compress_type=zipfile.ZIP_STORED)
        package.writestr("content.xml", xml, compress_type=zipfile.ZIP_DEFLATED)
        package.writestr("META-INF/manifest.xml", manifest, compress_type=zipfile.ZIP_DEFLATED)
    return out.getvalue()


def odt_bytes(paragraphs: list[str]) -> bytes:
    """An OpenDocument text: one paragraph per string; one starting with '# ' is a heading (outline level 1)."""
    parts = []
    for paragraph in paragraphs:
        if paragraph.startswith("# "):
            parts.append(f'<text:h text:outline-level="1">{_xml(paragraph[2:])}</text:h>')
        else:
            parts.append(f"<text:p>{_xml(paragraph)}</text:p>")
    return odf_bytes(ODF_TEXT, f"<office:text>{''.join(parts)}</office:text>")


def ods_bytes(sheets: dict[str, list[list[Any]]]) -> bytes:
    """An OpenDocument spreadsheet with one table per entry (None leaves a cell empty)."""
    tables = []
    for name, rows in sheets.items():
        xml_rows = "".join(
            "<table:table-row>" + "".join(_ods_cell(value) for value in row) + "</table:table-row>" for row in rows
        )
        tables.append(f'<table:table table:name="{_xml(name)}">{xml_rows}</table:table>')
    return odf_bytes(ODF_SPREADSHEET, f"<office:spreadsheet>{''.join(tables)}</office:spreadsheet>")


def odp_bytes(slides: list[str]) -> bytes:
    """An OpenDocument presentation, one page per string, each line a paragraph of one text box."""
    pages = []
    for number, text in enumerate(slides, start=1):
        paragraphs = "".join(f"<text:p>{_xml(line)}</text:p>" for line in text.split("\n"))
        pages.append(
            f'<draw:page draw:name="page{number}"><draw:frame svg:width="20cm" svg:height="5cm">'
            f"<draw:text-box>{paragraphs}</draw:text-box></draw:frame></draw:page>"
        )
    return odf_bytes(ODF_PRESENTATION, f"<office:presentation>{''.join(pages)}</office:presentation>")


def _ods_cell(value: Any) -> str:
    if value is None:
        return "<table:table-cell/>"
    if isinstance(value, int | float):
        number = f'office:value-type="float" office:value="{value}"'
        return f"<table:table-cell {number}><text:p>{value}</text:p></table:table-cell>"
    return f'<table:table-cell office:value-type="string"><text:p>{_xml(str(value))}</text:p></table:table-cell>'


def _xml(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")
