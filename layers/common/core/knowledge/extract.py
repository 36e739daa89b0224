"""The text of an uploaded document, as passages that say where they stand (authoring.md, "Knowledge: what the
agent reads"): what the knowledge worker indexes for an agent.

Threat model. A document is its uploader's bytes, declared with a media type they chose: it may be damaged,
encrypted, mislabelled or built to hurt the reader. Every way it can fail ends as ``ExtractionFailed`` with a reason
its owner can act on, within bounded time and memory, never as another exception, a hang or a MemoryError:

- decompression bombs: a zip-based document (Word, Excel, PowerPoint, OpenDocument) is refused from its directory
  alone when its parts declare more than 200 MB unpacked, one part is compressed beyond any real document's ratio, or
  it has more than 10,000 parts (``extract_office.check_package``); PDF streams are bounded by pypdf (75 MB each);
- XML attacks: entities are never expanded (lxml with ``resolve_entities=False`` under python-docx and python-pptx,
  defusedxml under openpyxl and for OpenDocument); nesting deeper than 256 elements is refused (libxml2's limit, and
  the same bound here for OpenDocument), JSON deeper than 64 levels too;
- size: at most 2,000 PDF pages, and reading stops at the first character past the plan's budget (``max_chars``);
- time: every reader runs in time linear in its input (no backtracking pattern over an unbounded run, nothing
  re-sliced per piece), and the ``deadline`` is checked every ``CHECK_EVERY`` units of work (characters, cells,
  elements, PDF operators), inside one huge line or paragraph too. One library call (parsing one XML part, one PDF
  page's content stream) is not interrupted: the size limits bound it (a PDF page's content streams at
  ``extract_pdf.MAX_PAGE_CONTENT``), and the Lambda's timeout is the last word;
- encryption: an encrypted PDF or Office file is refused as password-protected (a PDF that opens without a
  password, restricted only in what it allows, is read); no password is ever tried;
- the text read is data: nothing here interprets it (the chat turn treats it as the model's data, never as
  instructions).

The readers' libraries (pypdf, python-docx, openpyxl, python-pptx, defusedxml) are the knowledge worker's
(functions/workers/knowledge/requirements.txt), not the shared layer's: each is imported inside the reader that needs
it, so importing this module, as any function may through the layer, loads none of them.
"""

from __future__ import annotations

from collections.abc import Callable

from core.knowledge import extract_odf, extract_office, extract_pdf, extract_text
from core.knowledge.extract_passages import PASSAGE_CHARS, ExtractionFailed, Passage, Reading, failing_as

__all__ = ["DOCUMENT_TYPES", "PASSAGE_CHARS", "ExtractionFailed", "Passage", "extract", "is_document"]

Reader = Callable[[bytes, Reading], None]
OOXML = "application/vnd.openxmlformats-officedocument."
ODF = "application/vnd.oasis.opendocument."
_READERS: dict[str, tuple[str, Reader]] = {
    "application/pdf": ("PDF", extract_pdf.read_pdf),
    OOXML + "wordprocessingml.document": ("Word document", extract_office.read_docx),
    OOXML + "spreadsheetml.sheet": ("Excel workbook", extract_office.read_xlsx),
    OOXML + "presentationml.presentation": ("PowerPoint presentation", extract_office.read_pptx),
    # The 97-2003 formats: refused with the way out, or read when they are in fact the newer format or CSV.
    "application/msword": ("Word document", lambda d, r: extract_office.read_legacy(d, r, extract_office.WORD)),
    "application/vnd.ms-excel": ("Excel workbook", lambda d, r: extract_office.read_legacy(d, r, extract_office.EXCEL)),
    "application/vnd.ms-powerpoint": (
        "PowerPoint presentation",
        lambda d, r: extract_office.read_legacy(d, r, extract_office.POWERPOINT),
    ),
    ODF + "text": ("OpenDocument text", lambda d, r: extract_odf.read_odf(d, r, extract_odf.ODF_TEXT)),
    ODF + "spreadsheet": (
        "OpenDocument spreadsheet",
        lambda d, r: extract_odf.read_odf(d, r, extract_odf.ODF_SPREADSHEET),
    ),
    ODF + "presentation": (
        "OpenDocument presentation",
        lambda d, r: extract_odf.read_odf(d, r, extract_odf.ODF_PRESENTATION),
    ),
    "text/csv": ("CSV file", extract_text.read_csv),
    "text/plain": ("text file", extract_text.read_plain),
    "text/markdown": ("Markdown file", extract_text.read_markdown),
    "application/json": ("JSON file", extract_text.read_json),
}
DOCUMENT_TYPES: frozenset[str] = frozenset(_READERS)


def essence(content_type: str) -> str:
    """``Text/Markdown; charset=utf-8`` is ``text/markdown``."""
    return content_type.split(";", 1)[0].strip().lower()


def is_document(content_type: str) -> bool:
    """Whether an object of this type is read (media, links and anything else are not: the item is 'skipped')."""
    return essence(content_type) in DOCUMENT_TYPES


def extract(
    data: bytes,
    content_type: str,
    *,
    max_chars: int,
    deadline: float | None = None,
    clock: Callable[[], float] | None = None,
) -> list[Passage]:
    """The passages of a document in document order; [] when it has no readable text, or is not a document.

    Raises ExtractionFailed for an encrypted, damaged or hostile document, one with more than ``max_chars``
    characters of text (reading stops there) and one still being read at ``deadline`` (a ``clock`` value:
    time.monotonic() unless given).
    """
    found = _READERS.get(essence(content_type))
    if found is None:
        return []
    kind, read = found
    reading = Reading(max_chars=max_chars, deadline=deadline, clock=clock)
    reading.check_time()
    with failing_as(kind, "check it opens, save it again and upload it"):
        read(data, reading)
    return reading.finish()
