"""Passages out of a document's text: what every reader of ``core.knowledge.extract`` feeds, and its limits.

A reader hands over blocks (a paragraph, a table row) in document order with where they stand; ``Reading`` joins the
blocks of one place into passages of at most ``PASSAGE_CHARS`` characters, cutting a long block at a line, then a
sentence, then a word, and counts what it produced against the plan's budget and the deadline, so reading stops as
soon as either is spent. ``Table`` does the same for rows, repeating the header row at the top of each passage so a
passage of a price list still says which column is the price.
"""

from __future__ import annotations

import logging
import re
import time
import zipfile
import zlib
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass

PASSAGE_CHARS = 900
# The deadline is read at least once per this many units of work (a unit: about one character read, or one element,
# cell or PDF operator walked): inside a long line or paragraph too, not only between them. A clock read costs
# ~50 ns; 16,384 characters of the cheapest reading cost ~0.3 ms, so the check is free and the refusal prompt.
CHECK_EVERY = 16_384
# One paragraph, line, cell, element, value or PDF operator handled in Python costs about as much as this many
# characters read (a microsecond or so): what ``spend`` is given for each, on top of its characters.
ITEM_WORK = 16
TOO_SLOW = "The document took too long to read: upload it in smaller parts"
# Headings, sheet and section names stand in `where`, which a person reads in a list of sources: kept short.
WHERE_CHARS = 80

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Passage:
    text: str
    where: str


class ExtractionFailed(Exception):
    """A document that is not read, with ``reason`` in words its owner can act on."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def over_budget(max_chars: int) -> ExtractionFailed:
    return ExtractionFailed(
        f"The document has more text than the plan allows (room for {max(max_chars, 0):,} more characters): "
        "shorten it, remove other documents or move to a larger plan"
    )


def damaged(kind: str, fix: str) -> ExtractionFailed:
    return ExtractionFailed(f"The file is damaged or is not a valid {kind}: {fix}")


# What malformed input makes the standard library (and so the libraries on top of it) raise: XML syntax errors (lxml's
# and expat's are SyntaxErrors), a part missing (KeyError), a bad number or encoding (ValueError), inflating errors,
# and zipfile's NotImplementedError for a compression method or zip version it does not know.
PARSING_ERRORS: tuple[type[Exception], ...] = (
    SyntaxError, ValueError, LookupError, OSError, EOFError, zipfile.BadZipFile, zlib.error, NotImplementedError,
)  # fmt: skip


@contextmanager
def failing_as(kind: str, fix: str, expected: tuple[type[Exception], ...] = ()) -> Iterator[None]:
    """Whatever a library raises while reading ends as the document's ``damaged`` reason (``fix`` says what to do).

    The libraries raise a wide, partly undocumented range on malformed input, so from the owner's view any
    Exception is the file's fault; RecursionError (nesting) is said as such. One outside PARSING_ERRORS and the
    library's own ``expected`` is also logged with its traceback, so that a bug of ours does not pass unseen.
    """
    try:
        yield
    except ExtractionFailed:
        raise
    except RecursionError as error:
        raise ExtractionFailed(f"The {kind} is nested too deeply to read: {fix}") from error
    except MemoryError as error:  # a last resort: the size limits are meant to refuse such a file before this
        raise ExtractionFailed(f"The {kind} needs too much memory to read: split it into smaller files") from error
    except PARSING_ERRORS + expected as error:
        raise _xml_trouble(error, kind, fix) or damaged(kind, fix) from error
    except Exception as error:
        log.warning("reading a %s failed unexpectedly", kind, exc_info=True)
        raise damaged(kind, fix) from error


# The XML parsers' refusals, told apart by type or message (lxml raises one XMLSyntaxError class for all, and
# openpyxl wraps what it meets in a ValueError of its own): nesting past libxml2's depth limit, entity expansion
# past its amplification limit, and defusedxml's refusal of any entity declaration or external reference.
_TOO_DEEP = ("Excessive depth",)
_ENTITIES = ("amplification", "EntitiesForbidden", "DTDForbidden", "ExternalReferenceForbidden")


def _xml_trouble(error: BaseException, kind: str, fix: str) -> ExtractionFailed | None:
    seen: BaseException | None = error
    for _ in range(8):  # the chain of causes, bounded: a cycle is possible in principle
        if seen is None:
            return None
        said = f"{type(seen).__name__} {seen}"
        if any(word in said for word in _TOO_DEEP):
            return ExtractionFailed(f"The {kind} is nested too deeply to read: {fix}")
        if any(word in said for word in _ENTITIES):
            return ExtractionFailed(f"The {kind} declares XML entities, which are not read: {fix}")
        seen = seen.__cause__ or seen.__context__
    return None


_CONTROLS = re.compile(r"[\x00-\x08\x0e-\x1b\x7f-\x84\x86-\x9f\u200b\ufeff\ufffe\uffff]")
# A sentence ends at . ! ? or … (after any closing quotes or brackets) followed by a space.
_SENTENCE_END = re.compile(r"[.!?\u2026][\"'\u201d\u2019)\]]*\s")


def normalise(text: str) -> str:
    """Runs of spaces as one space, lines kept (a list of opening hours stays a list), empty lines and controls gone."""
    lines = (" ".join(line.split()) for line in _CONTROLS.sub(" ", text).splitlines())
    return "\n".join(line for line in lines if line)


def one_line(text: str) -> str:
    return " ".join(_CONTROLS.sub(" ", text).split())


def short(text: str) -> str:
    text = one_line(text)
    return text if len(text) <= WHERE_CHARS else text[: WHERE_CHARS - 1].rstrip() + "\u2026"


def split_long(text: str, limit: int) -> Iterator[str]:
    """``text`` in pieces of at most ``limit`` characters, each cut at the last line end, else sentence end, else
    space in its second half (so no piece is tiny), else hard.

    In time linear in ``text``: the text is walked by index (never re-sliced from the cut, which copied the rest of a
    huge paragraph once per piece), each search looks at one window of ``limit`` characters, and each piece moves
    on by more than half a window. A generator, so the caller meters and checks its deadline piece by piece.
    """
    start, end = 0, len(text)
    while end - start > limit:
        stop = start + limit + 1  # the window text[start:stop]
        half = start + limit // 2
        cut = text.rfind("\n", half, stop) + 1
        if not cut:
            ends = [m.end() for m in _SENTENCE_END.finditer(text, half, stop)]
            cut = ends[-1] if ends else text.rfind(" ", half, stop) + 1 or start + limit
        piece = text[start:cut].strip()
        if piece:
            yield piece
        # What is left is stripped, as its own string would be: spaces after the cut, and at the very end.
        start = cut
        while start < end and text[start].isspace():
            start += 1
        while end > start and text[end - 1].isspace():
            end -= 1
    if start < end:
        yield text[start:end] if start else text


# A block longer than this is normalised and cut in segments of at most this many characters, each ending after a
# line end, else at a space, else hard (a run of 65,536 characters without a space is no word anyone reads).
SEGMENT_CHARS = 4 * CHECK_EVERY


_JOINTS = ("", " ", "\n")  # how two segments' text meet: weakest first


def _segments(text: str) -> Iterator[tuple[str, str]]:
    """``text`` in segments, each with how its normalised text joins the one before: a line end, a space, or
    nothing (a hard cut inside a run without either)."""
    start, end, joint = 0, len(text), ""
    while end - start > SEGMENT_CHARS:
        stop = start + SEGMENT_CHARS
        if cut := text.rfind("\n", start, stop) + 1:
            following = "\n"
        elif cut := text.rfind(" ", start, stop) + 1:
            following = " "
        else:
            cut, following = stop, ""
        yield text[start:cut], joint
        start, joint = cut, following
    yield (text[start:] if start else text), joint


class Reading:
    """The passages of one document so far, against the characters left in the plan and the deadline.

    Every reader reports its work through ``spend`` (and ``block``, which spends what it is given): the ``clock`` is
    read whenever ``CHECK_EVERY`` units were spent since it was last read, so a deadline that passes in the middle of
    one huge line or paragraph stops the reading there. ``clock`` is ``time.monotonic`` unless a test injects one.
    """

    def __init__(self, *, max_chars: int, deadline: float | None, clock: Callable[[], float] | None = None) -> None:
        self.passages: list[Passage] = []
        self._max_chars = max_chars
        self._deadline = deadline
        self._clock = clock or time.monotonic
        self._unchecked = 0  # units spent since the clock was last read
        self._chars = 0
        self._where = ""
        self._parts: list[str] = []
        self._size = 0

    def check_time(self) -> None:
        self._unchecked = 0
        if self._deadline is not None and self._clock() > self._deadline:
            raise ExtractionFailed(TOO_SLOW)

    def spend(self, units: int) -> None:
        """``units`` of work done or about to be done: the deadline is checked once enough has accumulated."""
        self._unchecked += units
        if self._unchecked >= CHECK_EVERY:
            self.check_time()

    def block(self, text: str, where: str) -> None:
        """A paragraph (lines kept): joined with the blocks before it at the same place while the passage has room."""
        self.spend(ITEM_WORK)
        # A huge block is normalised and cut a segment at a time (each spent before its work): a deadline that
        # passes inside one 50 MB line is seen within a segment's work, not after the whole line. The last piece of
        # a segment waits for the next one's text, so pieces are cut as they would be from the whole block.
        pending, gap = "", ""
        for segment, joint in _segments(text):
            self.spend(len(segment))
            normal = normalise(segment)
            gap = max(gap, joint, key=_JOINTS.index)  # a segment that normalises to nothing: the stronger joint
            if not normal:
                continue
            pieces = list(split_long(pending + gap + normal if pending else normal, PASSAGE_CHARS))
            pending, gap = pieces.pop(), ""
            self._add(pieces, where)
        if pending:
            self._add([pending], where)

    def _add(self, pieces: list[str], where: str) -> None:
        for piece in pieces:
            if where != self._where:
                self.flush()
                self._where = where
            self.spend(len(piece))
            grown = self._size + len(piece) + (1 if self._parts else 0)
            if grown > PASSAGE_CHARS:
                self.flush()
                grown = len(piece)
            self._count(grown - self._size)
            self._parts.append(piece)
            self._size = grown

    def passage(self, text: str, where: str) -> None:
        """A passage already cut (``Table``'s): after the pending blocks."""
        self.flush()
        self._count(len(text))
        self.passages.append(Passage(text, where))

    def flush(self) -> None:
        if self._parts:
            self.passages.append(Passage("\n".join(self._parts), self._where))
            self._parts, self._size = [], 0

    def finish(self) -> list[Passage]:
        self.flush()
        return self.passages

    def _count(self, chars: int) -> None:
        # Counted as text is produced, not when a passage closes: reading stops at the first character too many.
        self._chars += chars
        if self._chars > self._max_chars:
            raise over_budget(self._max_chars)


_NUMBER = re.compile(r"[-+]?[$\u20ac\u00a3]?\s?\d[\d,.' ]*%?\s?(?:[$\u20ac\u00a3]|[A-Z]{3})?")


class Table:
    """Rows of a sheet or a CSV file into passages: a header row (its first row when no cell is a number) heads
    every passage, and ``where`` names the rows, e.g. "sheet Prices, rows 2-20" (``label`` "sheet Prices, ")."""

    def __init__(self, reading: Reading, label: str = "") -> None:
        self._reading = reading
        self._label = label
        self._header: tuple[int, str] | None = None
        self._seen = False
        self._lines: list[str] = []
        self._size = 0  # of the lines, each with its line end
        self._first = self._last = 0

    def row(self, number: int, cells: Sequence[str]) -> None:
        values = []
        for cell in cells:  # spent cell by cell: one row may hold a million cells
            self._reading.spend(len(cell) + ITEM_WORK)
            values.append(one_line(cell))
        while values and not values[-1]:
            values.pop()
        if not values:
            return
        line = " | ".join(values)
        if not self._seen:
            self._seen = True
            if len(line) <= PASSAGE_CHARS // 3 and all(not _NUMBER.fullmatch(v) for v in values if v):
                self._header = (number, line)
                return
        head = len(self._header[1]) + 1 if self._header else 0
        for piece in split_long(line, PASSAGE_CHARS - head):
            self._reading.spend(len(piece))
            if self._lines and head + self._size + len(piece) > PASSAGE_CHARS:
                self._flush()
            if not self._lines:
                self._first = number
            self._lines.append(piece)
            self._size += len(piece) + 1
            self._last = number

    def end(self) -> None:
        if not self._lines and self._header:  # a header and nothing under it: still text of the document
            number, line = self._header
            self._header = None
            self._first = self._last = number
            self._lines = [line]
        self._flush()

    def _flush(self) -> None:
        if not self._lines:
            return
        rows = f"row {self._first}" if self._first == self._last else f"rows {self._first}-{self._last}"
        text = "\n".join(([self._header[1]] if self._header else []) + self._lines)
        self._reading.passage(text, self._label + rows)
        self._lines, self._size = [], 0
