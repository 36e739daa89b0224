"""PDF with pypdf (the knowledge worker's dependency, imported only here, when a PDF is read).

pypdf bounds what one stream may inflate to (75 MB, its ``Configuration``) and the size of arrays and dictionaries;
the page count is bounded here, from the declared ``/Count`` before the page tree is walked and again after.
"""

from __future__ import annotations

import io
import logging
import re
import warnings
from typing import TYPE_CHECKING

from core.knowledge.extract_passages import ExtractionFailed, Reading, failing_as

if TYPE_CHECKING:
    from pypdf import PdfReader

MAX_PAGES = 2_000
PROTECTED = "The PDF is password-protected: upload it without a password"
FIX = "open it and save or print it again as PDF"
_PARAGRAPHS = re.compile(r"\n[ \t]*\n")


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
                text = page.extract_text()
            except LimitReachedError as error:
                raise ExtractionFailed(f"Page {number} of the PDF is too large to read: {FIX}") from error
            for paragraph in _PARAGRAPHS.split(text or ""):
                reading.block(paragraph, f"page {number}")


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
