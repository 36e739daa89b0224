"""PDF with pypdf (the knowledge worker's dependency, imported only here, when a PDF is read).

pypdf bounds what one stream may inflate to (75 MB, its ``Configuration``) and the size of arrays and dictionaries;
the page count is bounded here, from the declared ``/Count`` before the page tree is walked and again after.

One page is bounded too. pypdf parses a page's content stream in Python (about 1.5 s a MB here) and then walks its
operators (about 6 s a MB, the page's text growing by concatenation): one page of 75 MB inflated from a small file
would hold the worker for minutes. So the streams a page's text is read from (its contents, the forms it draws,
its fonts' ToUnicode maps) are inflated and summed first, and a page past ``MAX_PAGE_CONTENT`` is refused before
pypdf parses it; while its operators are walked, each one is spent on the reading (its deadline checked every few
thousand) and past ``MAX_PAGE_OPERATORS`` (a form drawn thousands of times) the page is refused.
"""

from __future__ import annotations

import io
import logging
import re
import warnings
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from core.knowledge.extract_passages import ITEM_WORK, ExtractionFailed, Reading, failing_as

if TYPE_CHECKING:
    from pypdf import PageObject, PdfReader

MAX_PAGES = 2_000
PROTECTED = "The PDF is password-protected: upload it without a password"
FIX = "open it and save or print it again as PDF"
_PARAGRAPHS = re.compile(r"\n[ \t]*\n")
MB = 1024 * 1024
# A page of dense text is tens of KB of content; a detailed vector drawing a few MB. Past this, one page's parsing
# alone (uninterrupted, inside pypdf) would take seconds.
MAX_PAGE_CONTENT = 2 * MB
MAX_PAGE_OPERATORS = 1_000_000  # operators walked for one page, forms' included (each form drawn counts again)
MAX_PAGE_OBJECTS = 10_000  # resources looked at for one page's streams
# What pypdf itself looks for before it reads a page's text: an operator that shows text or draws a form.
_TEXT_OPERATOR = re.compile(rb"T[jJ]|Do|['\"]")


def read_pdf(data: bytes, reading: Reading) -> None:
    from pypdf import PdfReader
    from pypdf.errors import DependencyError, FileNotDecryptedError, LimitReachedError, PyPdfError

    # pypdf warns (logging and warnings) about every irregularity it repairs: noise in the worker's log, where the
    # outcome is this item's status and reason.
    logging.getLogger("pypdf").setLevel(logging.CRITICAL)
    with warnings.catch_warnings(), failing_as("PDF", FIX, (PyPdfError,)):
        warnings.simplefilter("ignore")
        reader = PdfReader(io.BytesIO(data), strict=False)
        try:
            _open(reader)
        except (DependencyError, FileNotDecryptedError, NotImplementedError) as error:
            raise ExtractionFailed(PROTECTED) from error
        declared = _declared_pages(reader)
        if declared > MAX_PAGES or len(reader.pages) > MAX_PAGES:  # len() walks the tree: /Count may lie
            raise ExtractionFailed(f"The document has more than {MAX_PAGES:,} pages: split it into smaller files")
        for number, page in enumerate(reader.pages, start=1):
            reading.check_time()
            try:
                text = _page_text(page, reading, too_large(number))
            except LimitReachedError as error:
                raise too_large(number) from error
            for paragraph in _PARAGRAPHS.split(text or ""):
                reading.block(paragraph, f"page {number}")


def too_large(number: int) -> ExtractionFailed:
    return ExtractionFailed(f"Page {number} of the PDF is too large to read: {FIX}")


class _Stop(BaseException):
    """Raised from pypdf's operator callback to stop a page: a BaseException, because pypdf catches any Exception
    raised while it reads a form (logs it and goes on)."""

    def __init__(self, failure: ExtractionFailed) -> None:
        super().__init__(failure.reason)
        self.failure = failure


def _page_text(page: PageObject, reading: Reading, refusal: ExtractionFailed) -> str:
    """The page's text, once its streams are known to be within bounds, its operators spent on ``reading``."""
    contents = b""
    size = 0
    for index, stream in enumerate(_text_streams(page)):
        reading.check_time()
        data = stream.get_data()  # inflated once: pypdf keeps it for its own reading below
        size += len(data)
        if index == 0:
            contents = data
        if size > MAX_PAGE_CONTENT:
            raise refusal
    if not _TEXT_OPERATOR.search(contents):
        return ""  # no text and no form: pypdf would return nothing, without parsing it
    walked = 0

    def operator(*_: object) -> None:
        nonlocal walked
        walked += 1
        try:
            if walked > MAX_PAGE_OPERATORS:
                raise refusal
            reading.spend(ITEM_WORK)
        except ExtractionFailed as failed:
            raise _Stop(failed) from None

    try:
        return page.extract_text(visitor_operand_before=operator)
    except _Stop as stop:
        raise stop.failure from None


def _text_streams(page: PageObject) -> Iterator[Any]:
    """The streams pypdf reads for a page's text: its contents first (one stream, an array joined), then the forms
    it draws (and theirs) and its fonts' ToUnicode maps, each once."""
    from pypdf.generic import ArrayObject, ContentStream, DictionaryObject, StreamObject

    contents = _resolved(page.get("/Contents"))
    if isinstance(contents, ArrayObject):
        # pypdf joins an array of streams into one ContentStream: inflated once, counted once.
        yield ContentStream(contents, page.pdf, "bytes")
    elif isinstance(contents, StreamObject):
        yield contents
    seen: set[int] = set()
    pending = [_resolved(page.get("/Resources"))]
    while pending:
        resources = pending.pop()
        if not isinstance(resources, DictionaryObject) or id(resources) in seen:
            continue
        seen.add(id(resources))
        if len(seen) > MAX_PAGE_OBJECTS:
            raise ExtractionFailed(f"A page of the PDF uses too many resources to read: {FIX}")
        for entry in _values(resources.get("/XObject")):
            if isinstance(entry, StreamObject) and entry.get("/Subtype") == "/Form" and id(entry) not in seen:
                seen.add(id(entry))
                yield entry
                pending.append(_resolved(entry.get("/Resources")))
        for font in _values(resources.get("/Font")):
            mapping = _resolved(font.get("/ToUnicode")) if isinstance(font, DictionaryObject) else None
            if isinstance(mapping, StreamObject) and id(mapping) not in seen:
                seen.add(id(mapping))
                yield mapping


def _resolved(value: Any) -> Any:
    return value.get_object() if value is not None else None


def _values(dictionary: Any) -> list[Any]:
    """The resolved values of a resources dictionary (/XObject, /Font); [] if it is not one."""
    from pypdf.generic import DictionaryObject

    found = _resolved(dictionary)
    return [_resolved(v) for v in found.values()] if isinstance(found, DictionaryObject) else []


def _open(reader: PdfReader) -> None:
    """An encrypted PDF is read only when it opens with no password, as any viewer opens it (an owner password
    restricts printing or editing, not reading); no other password is tried."""
    from pypdf import PasswordType

    if reader.is_encrypted and reader.decrypt("") == PasswordType.NOT_DECRYPTED:
        raise ExtractionFailed(PROTECTED)


def _declared_pages(reader: PdfReader) -> int:
    """The page tree's own ``/Count``, read without walking it; 0 when it has none (the walk then decides)."""
    try:
        count = reader.root_object["/Pages"].get_object()["/Count"]  # type: ignore[index]
    except (KeyError, TypeError, AttributeError):
        return 0
    return int(count) if isinstance(count, int) else 0
