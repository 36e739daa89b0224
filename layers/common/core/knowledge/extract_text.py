"""Plain text, Markdown, CSV and JSON: read with the standard library only (``core.knowledge.extract``)."""

from __future__ import annotations

import codecs
import csv
import io
import json
import re

from core.knowledge.extract_passages import ITEM_WORK, WHERE_CHARS, ExtractionFailed, Reading, Table, short

# JSON deeper than this is not a document a person wrote; Python's own parser stops near 1,000 (RecursionError).
MAX_JSON_DEPTH = 64
NOT_TEXT = "The file is not readable text (it looks like a binary file): check that you uploaded the right file"
_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32"),  # before UTF-16 LE: its BOM starts with UTF-16 LE's
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF8, "utf-8-sig"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)
_SETEXT_UNDERLINE = re.compile(r" {0,3}(?:=+|-+)[ \t]*")
_FENCE = re.compile(r" {0,3}(```|~~~)")
_BLANK_LINES = re.compile(r"\n[ \t\r\f\v]*\n")


def decode(data: bytes) -> str:
    """The text of ``data``: by its byte-order mark; else UTF-8; else Windows-1252 (what Excel and Notepad wrote
    for years, so a legacy CSV keeps its accents); else UTF-8 with U+FFFD for what is not. Never raises."""
    for bom, codec in _BOMS:
        if data.startswith(bom):
            return data.decode(codec, errors="replace")
    sample = data[:4096]
    if len(sample) >= 16 and sample.count(0) > len(sample) // 4:  # UTF-16 without a mark: NULs in every other byte
        odd_nuls = sample[1::2].count(0)
        return data.decode("utf-16-le" if odd_nuls > sample[::2].count(0) else "utf-16-be", errors="replace")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        pass
    try:
        return data.decode("cp1252")
    except UnicodeDecodeError:
        return data.decode("utf-8", errors="replace")


def text_of(data: bytes) -> str:
    """``decode``, refusing bytes that are not text at all (an image or an archive declared as text)."""
    text = decode(data)
    sample = text[:4096]
    junk = sum(1 for c in sample if c == "\ufffd" or (c < " " and c not in "\t\n\r\f\v"))
    if junk > len(sample) // 20:
        raise ExtractionFailed(NOT_TEXT)
    return text


def read_plain(data: bytes, reading: Reading) -> None:
    text = text_of(data).replace("\r\n", "\n")
    start = 0  # paragraph by paragraph as found, not split all at once: the budget and the deadline stop early
    for gap in _BLANK_LINES.finditer(text):
        reading.block(text[start : gap.start()], "")
        start = gap.end()
    reading.block(text[start:], "")


def read_markdown(data: bytes, reading: Reading) -> None:
    """Paragraphs, each under its nearest heading ("section Opening hours"); code blocks kept as they are."""
    where, paragraph, fence = "", list[str](), ""

    def flush() -> None:
        reading.block("\n".join(paragraph), where)
        paragraph.clear()

    for line in text_of(data).splitlines():
        reading.spend(
            len(line) + ITEM_WORK
        )  # each line's work below is linear in it: spent before, checked every so often
        if fence:
            paragraph.append(line)
            fence = "" if line.strip().startswith(fence) else fence
        elif fenced := _FENCE.match(line):
            fence = fenced.group(1)
            paragraph.append(line)
        elif (heading := atx_heading(line)) is not None:
            flush()
            where = _section(heading)
            reading.block(heading, where)
        elif _SETEXT_UNDERLINE.fullmatch(line) and len(paragraph) == 1:
            title = paragraph.pop()
            where = _section(title)
            reading.block(title, where)
        elif line.strip():
            paragraph.append(line)
        else:
            flush()
    flush()


def atx_heading(line: str) -> str | None:
    """The text of an ATX heading line ("## Opening hours ##" -> "Opening hours"), None if ``line`` is not one.

    Up to three spaces, one to six #, then the end or a space or tab; the text is the rest without the spaces or tabs
    around it and without a closing run of # after a space or tab. Written out rather than as the pattern
    ``" {0,3}#{1,6}(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*"`` it replaces (same result, tests/unit/knowledge), whose lazy
    group retried the tail at every character: time growing with the square of a run of spaces ("# x", 120,000
    spaces, "y" took two minutes). Here every step is one linear pass over the line.
    """
    indent = len(line) - len(line.lstrip(" "))
    if indent > 3:
        return None
    marks = len(line) - indent - len(line[indent:].lstrip("#"))
    rest = line[indent + marks :]
    if not 1 <= marks <= 6 or (rest and rest[0] not in " \t"):
        return None
    text = rest.strip(" \t")  # the spaces after the marks, and those at the end of the line
    closing = text.rstrip("#")
    if len(closing) < len(text) and closing[-1:] in (" ", "\t"):  # a closing run of # after a space or tab
        text = closing.rstrip(" \t")
    return text


def _section(heading: str) -> str:
    return f"section {short(heading)}" if heading.strip() else ""


def read_csv(data: bytes, reading: Reading) -> None:
    """Rows as "a | b | c" lines under the header row, ``where`` "rows 2-40" (records, as a spreadsheet numbers
    them); the delimiter is sniffed among , ; tab and |, as Excel writes ; where the decimal mark is a comma."""
    text = text_of(data)
    try:
        dialect: type[csv.Dialect] | csv.Dialect = csv.Sniffer().sniff(text[:4096], delimiters=",;\t|")
    except csv.Error:
        dialect = csv.excel
    table = Table(reading)
    rows = csv.reader(io.StringIO(text, newline=""), dialect)
    try:
        for number, row in enumerate(rows, start=1):
            table.row(number, row)
    except csv.Error as error:
        raise ExtractionFailed(f"The file is damaged or is not valid CSV (record {rows.line_num}: {error})") from error
    table.end()


def read_json(data: bytes, reading: Reading) -> None:
    """Each value as "key: value", grouped by the object or list holding it, whose key path is ``where``
    ("menu.drinks[2]"; "" at the top level). Strings, numbers and booleans are read; nulls are not."""
    try:
        document = json.loads(text_of(data))
    except RecursionError as error:
        raise _too_deep() from error
    except ValueError as error:  # JSONDecodeError, and integers too long to convert
        raise ExtractionFailed(f"The file is not valid JSON ({error}): check it in a JSON validator") from error
    # Depth-first in document order, with a stack rather than recursion: the depth is checked, not the interpreter's.
    stack: list[tuple[str, str, str, object, int]] = [("", "", "", document, 0)]  # path, where, key, value, depth
    while stack:
        path, where, key, value, depth = stack.pop()
        reading.spend(ITEM_WORK)  # a million empty lists hold no text, and are still work
        if isinstance(value, dict | list):
            if depth >= MAX_JSON_DEPTH:
                raise _too_deep()
            # Each key is shortened in the path: a path is copied into every child's, so a 10 MB key above a million
            # values would be copied a million times (and a person reads the path in a list of sources).
            children = (
                [(f"{path}.{_in_path(str(k))}" if path else _in_path(str(k)), str(k), v) for k, v in value.items()]
                if isinstance(value, dict)
                else [(f"{path}[{i}]", "", v) for i, v in enumerate(value)]
            )
            stack.extend((p, path, k, v, depth + 1) for p, k, v in reversed(children))
        elif value is not None:
            shown = ("true" if value else "false") if isinstance(value, bool) else str(value)
            reading.block(f"{key}: {shown}" if key else shown, where)


def _in_path(key: str) -> str:
    return key if len(key) <= WHERE_CHARS else key[: WHERE_CHARS - 1] + "\u2026"


def _too_deep() -> ExtractionFailed:
    return ExtractionFailed(f"The JSON file is nested more than {MAX_JSON_DEPTH} levels deep: flatten it")
