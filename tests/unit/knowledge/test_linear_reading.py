"""Every reader and the passage splitter in time linear in their input, the deadline checked inside one huge line
(issue 38, hole 1): a hostile document must not hold the knowledge worker, which reads everyone's documents.

No wall-clock here. The readers read their clock once per ``CHECK_EVERY`` units of work they report, so the
number of clock reads is the measure: ``Ticks``, a clock that moves one tick per read, put in place of the one the
readers read (the ``time`` of core.knowledge.extract_passages), counts them, and a deadline in ticks is a budget of
work. What a reader does inside one library call is not counted; where that was quadratic (the Markdown heading
pattern, the decimals of an Excel number format, python-docx's merged cells) the replacement is checked against the
old result and fed the input that was quadratic, at a size the old code could not finish (hours), and where it was
a library's own size (a PDF page) the size is bounded before the library sees it.
"""

from __future__ import annotations

import io
import json
import random
import re
import zipfile
import zlib
from collections.abc import Callable
from types import SimpleNamespace

import pytest

from core.knowledge import extract_passages, extract_pdf, extract_text
from core.knowledge.extract import ExtractionFailed, extract
from core.knowledge.extract_passages import CHECK_EVERY, ITEM_WORK, TOO_SLOW, WHERE_CHARS, Reading, split_long
from tests.support.documents import (
    ODF_TEXT,
    PDF_FONT,
    docx_bytes,
    odf_bytes,
    odt_bytes,
    pdf_document,
    pdf_page,
    pptx_bytes,
    xlsx_bytes,
)

OOXML = "application/vnd.openxmlformats-officedocument."
DOCX = OOXML + "wordprocessingml.document"
XLSX = OOXML + "spreadsheetml.sheet"
PPTX = OOXML + "presentationml.presentation"
PDF = "application/pdf"
MB = 1_000_000
PLENTY = 10**9


class Ticks:
    """A clock that moves one tick each time it is read."""

    def __init__(self) -> None:
        self.reads = 0

    def __call__(self) -> float:
        self.reads += 1
        return float(self.reads)


@pytest.fixture
def ticks(monkeypatch: pytest.MonkeyPatch) -> Callable[[], Ticks]:
    """A fresh ``Ticks`` per call, read by every ``Reading`` made after it (the readers' own clock, replaced)."""

    def fresh() -> Ticks:
        clock = Ticks()
        monkeypatch.setattr(extract_passages, "time", SimpleNamespace(monotonic=clock))
        return clock

    return fresh


def clock_reads(ticks: Callable[[], Ticks], data: bytes, content_type: str) -> int:
    """How often reading ``data`` whole reads the clock (a deadline that never comes: the reading goes to its end)."""
    clock = ticks()
    extract(data, content_type, max_chars=PLENTY, deadline=float("inf"))
    return clock.reads


# --- pathological documents, each one line, paragraph, row, cell, value or page of about ``size`` characters


def heading_spaces(size: int) -> bytes:
    return b"# x" + b" " * size + b"y\n"  # the reproduction: quadratic in the spaces under the old pattern


def one_paragraph(size: int) -> bytes:
    return b"lorem " * (size // 6)  # no line end, no sentence end: every piece cut at a space


def one_csv_row(size: int) -> bytes:
    return b"name,price\n" + b"a," * (size // 2) + b"a\n"


def one_json_value(size: int) -> bytes:
    return json.dumps({"notes": "word " * (size // 5)}).encode()


def pdf_with_content(stream: bytes) -> bytes:
    """A one-page PDF whose content stream is ``stream``, deflated (a small file, a large page)."""
    packed = zlib.compress(stream, 9)
    content = b"<< /Length %d /Filter /FlateDecode >>\nstream\n%s\nendstream" % (len(packed), packed)
    objects = [b"<< /Type /Catalog /Pages 2 0 R >>", b"<< /Type /Pages /Kids [5 0 R] /Count 1 >>", PDF_FONT, content]
    return pdf_document([*objects, pdf_page(2, 4, 3)])


def pdf_operators(count: int) -> bytes:
    return b"BT /F1 12 Tf 15 TL 72 760 Td\n" + b"(ab) Tj T*\n" * count + b"ET"


def empty_spans(size: int) -> str:
    return "<office:text><text:p>" + "<text:span/>" * (size // 12) + "x</text:p></office:text>"


LONG_LINES: list[tuple[str, str, Callable[[int], bytes]]] = [
    ("markdown-paragraph", "text/markdown", one_paragraph),
    ("plain-paragraph", "text/plain", one_paragraph),
    ("plain-sentences", "text/plain", lambda size: b"Word word. " * (size // 11)),
    ("csv-row", "text/csv", one_csv_row),
    ("json-value", "application/json", one_json_value),
    ("docx-paragraph", DOCX, lambda size: docx_bytes([(None, "lorem " * (size // 6))])),
    ("pptx-text-box", PPTX, lambda size: pptx_bytes(["lorem " * (size // 6)])),
    ("odt-paragraph", ODF_TEXT, lambda size: odt_bytes(["lorem " * (size // 6)])),
    ("odt-empty-spans", ODF_TEXT, lambda size: odf_bytes(ODF_TEXT, empty_spans(size))),
]


@pytest.mark.parametrize(("content_type", "build"), [c[1:] for c in LONG_LINES], ids=[c[0] for c in LONG_LINES])
def test_each_reader_checks_its_deadline_inside_one_long_line_and_its_work_grows_linearly(
    content_type: str, build: Callable[[int], bytes], ticks: Callable[[], Ticks]
) -> None:
    small, large = clock_reads(ticks, build(MB // 4), content_type), clock_reads(ticks, build(MB), content_type)
    # Inside the line: at least one read per 4 x CHECK_EVERY characters of it (before: one per line or block,
    # whatever its length, so a deadline passing in the line was seen only after it).
    assert large >= MB // (4 * CHECK_EVERY), (small, large)
    assert small >= MB // 4 // (4 * CHECK_EVERY), (small, large)
    # Linear: four times the input, at most four times the work (and a few reads of setting up).
    assert large <= 4 * small + 4, (small, large)


@pytest.mark.parametrize("content_type", ["text/markdown", "text/plain"])
def test_a_deadline_passing_inside_one_megabyte_line_stops_the_reading_within_a_few_checks(
    content_type: str, ticks: Callable[[], Ticks]
) -> None:
    data = one_paragraph(MB)
    clock = ticks()
    reading = Reading(max_chars=PLENTY, deadline=3.0)  # the third read is the last one before the deadline
    reader = extract_text.read_markdown if content_type == "text/markdown" else extract_text.read_plain
    with pytest.raises(ExtractionFailed) as failed:
        reader(data, reading)
    assert failed.value.reason == TOO_SLOW
    assert clock.reads == 4  # refused at the first read past the deadline
    # What was read by then: a few checks' worth of the line, not the line (before: the whole megabyte was read, and
    # nothing refused it, the line being the document's last).
    assert sum(len(p.text) for p in reading.finish()) <= 4 * CHECK_EVERY


def test_a_deadline_passing_inside_a_pdf_page_stops_it_mid_page(
    ticks: Callable[[], Ticks], monkeypatch: pytest.MonkeyPatch
) -> None:
    from pypdf import PageObject

    finished = []
    real = PageObject.extract_text

    def spied(self: PageObject, *args: object, **kwargs: object) -> str:
        text = real(self, *args, **kwargs)  # type: ignore[arg-type]
        finished.append(len(text))
        return text

    monkeypatch.setattr(PageObject, "extract_text", spied)
    data = pdf_with_content(pdf_operators(20_000))
    clock = ticks()
    with pytest.raises(ExtractionFailed) as failed:
        extract(data, PDF, max_chars=PLENTY, deadline=5.0)
    assert failed.value.reason == TOO_SLOW
    assert clock.reads == 6
    assert finished == []  # stopped inside the page, not after pypdf had read all of it


def test_a_pdf_page_whose_streams_inflate_past_the_bound_is_refused_before_pypdf_parses_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from pypdf.generic import ContentStream

    def no_parsing(*_: object, **__: object) -> None:
        raise AssertionError("the page's content was parsed")

    monkeypatch.setattr(ContentStream, "_parse_content_stream", no_parsing)
    stream = pdf_operators(extract_pdf.MAX_PAGE_CONTENT // 11 + 1)  # ~2 MB inflated, a few KB in the file
    data = pdf_with_content(stream)
    assert len(data) < 20_000 < extract_pdf.MAX_PAGE_CONTENT < len(stream)
    with pytest.raises(ExtractionFailed) as failed:
        extract(data, PDF, max_chars=PLENTY)
    assert failed.value.reason == "Page 1 of the PDF is too large to read: open it and save or print it again as PDF"


def test_a_pdf_page_walking_more_operators_than_the_bound_is_refused_when_it_passes_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(extract_pdf, "MAX_PAGE_OPERATORS", 100)
    walked = []
    real = Reading.spend

    def spend(self: Reading, units: int) -> None:
        walked.append(units)
        real(self, units)

    monkeypatch.setattr(Reading, "spend", spend)
    with pytest.raises(ExtractionFailed) as failed:
        extract(pdf_with_content(pdf_operators(1_000)), PDF, max_chars=PLENTY)
    assert failed.value.reason.startswith("Page 1 of the PDF is too large to read")
    assert walked.count(ITEM_WORK) == 100  # the 101st operator refused the page
    assert extract(pdf_with_content(pdf_operators(40)), PDF, max_chars=PLENTY)  # 85 operators: read


# --- the quadratic patterns, replaced: the same results, and the input that was quadratic, at a megabyte

OLD_ATX_HEADING = re.compile(r" {0,3}#{1,6}(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*")


def test_the_heading_parser_reads_every_line_as_the_pattern_it_replaced_did() -> None:
    rng = random.Random(38)  # noqa: S311 - reproducible lines, not a secret
    lines = ["#", "# a", "#a", "   # a", "    # a", "####### a", "# a #", "# a#", "# #", "### ###", "#\t a \t##\t ",
             "# a # b ##", "## ##", "# a  \\#", "#  ", "\t# a", "# a ## ##"]  # fmt: skip
    lines += ["".join(rng.choice(" \t#ab") for _ in range(rng.randint(0, 12))) for _ in range(20_000)]
    for line in lines:
        old = OLD_ATX_HEADING.fullmatch(line)
        assert extract_text.atx_heading(line) == (None if old is None else old.group(1) or ""), repr(line)


def test_a_heading_line_of_a_megabyte_of_spaces_reads_as_a_heading() -> None:
    # Under the old pattern this line took hours (the 120,000 spaces: two minutes).
    passages = extract(heading_spaces(MB), "text/markdown", max_chars=PLENTY)
    assert [(p.text, p.where) for p in passages] == [("x y", "section x y")]


def old_split_long(text: str, limit: int) -> list[str]:
    """split_long before: the rest of the text sliced off again after every piece (quadratic in a long paragraph)."""
    pieces = []
    while len(text) > limit:
        window = text[: limit + 1]
        half = limit // 2
        cut = window.rfind("\n", half) + 1
        if not cut:
            ends = [m.end() for m in re.finditer(r"[.!?\u2026][\"'\u201d\u2019)\]]*\s", window[half:])]
            cut = half + ends[-1] if ends else window.rfind(" ", half) + 1 or limit
        pieces.append(text[:cut].strip())
        text = text[cut:].strip()
    pieces.append(text)
    return [piece for piece in pieces if piece]


def test_the_passage_splitter_cuts_as_it_did_before() -> None:
    rng = random.Random(9)  # noqa: S311 - reproducible text
    tokens = ["word", "a", "x" * 40, " ", "  ", "\n", ". ", "! ", "?) ", "\u2026 ", "\t", "end.", "\u00e9t\u00e9"]
    for _ in range(600):
        text = "".join(rng.choice(tokens) for _ in range(rng.randint(0, 200)))
        for limit in (9, 30, 120):
            assert list(split_long(text, limit)) == old_split_long(text, limit), (text, limit)


class Counted(str):
    """A string that counts the characters of every slice taken of it (and of the strings made from it, which are
    Counted too): the work of a splitter that copies, observed."""

    copied = 0

    def __getitem__(self, key: object) -> Counted:
        part = Counted(str.__getitem__(self, key))  # type: ignore[index]
        Counted.copied += len(part)
        return part

    def strip(self, chars: str | None = None) -> Counted:
        stripped = Counted(str.strip(self, chars))
        Counted.copied += len(stripped)
        return stripped


def test_the_passage_splitter_copies_each_character_about_once() -> None:
    # Before: the rest of the text was sliced off again after every piece, a 25 MB paragraph copied ~14,000 times
    # over (40 s); at 1 MB, ~550 times its length.
    for size in (MB // 4, MB):
        Counted.copied = 0
        text = Counted("lorem ipsum " * (size // 12))
        pieces = list(split_long(text, 900))
        assert "".join(pieces).replace(" ", "") == text.replace(" ", "")
        assert Counted.copied <= 3 * len(text), Counted.copied / len(text)


def test_a_long_json_key_is_shortened_in_the_paths_below_it() -> None:
    def document(size: int) -> bytes:
        return json.dumps({"k" * size: {f"v{i}": i for i in range(1_000)}}).encode()

    passages = extract(document(MB), "application/json", max_chars=PLENTY)
    # Each of the thousand values' path was the megabyte key: a gigabyte copied, and a megabyte per source shown.
    assert len(passages) > 1 and {len(p.where) for p in passages} == {WHERE_CHARS}
    assert passages[0].where == "k" * (WHERE_CHARS - 1) + "\u2026"


def test_a_number_format_of_a_megabyte_reads_the_number_as_a_short_one_does() -> None:
    from openpyxl import Workbook, load_workbook  # type: ignore[import-untyped]

    book = Workbook()
    sheet = book.active
    sheet.append(["item", "price"])
    sheet.append(["cortado", 2.85])
    sheet["B2"].number_format = "0" * MB  # searched for decimals from every position: hours, before
    out = io.BytesIO()
    book.save(out)
    assert load_workbook(io.BytesIO(out.getvalue()))["Sheet"]["B2"].number_format == "0" * MB
    passages = extract(out.getvalue(), XLSX, max_chars=PLENTY)
    assert [(p.text, p.where) for p in passages] == [("item | price\ncortado | 2.85", "sheet Sheet, row 2")]
    short = extract(xlsx_bytes({"Sheet": [["item", "price"], ["cortado", 2.85]]}), XLSX, max_chars=PLENTY)
    assert passages == short


def merged_column_docx(rows: int) -> bytes:
    """A Word table of ``rows`` rows whose first column is one cell merged down all of them."""
    cell = "<w:tc><w:tcPr>{merge}</w:tcPr><w:p><w:r><w:t>{text}</w:t></w:r></w:p></w:tc>"
    body = "".join(
        "<w:tr>"
        + cell.format(merge='<w:vMerge w:val="restart"/>' if n == 0 else "<w:vMerge/>", text="Menu" if n == 0 else "")
        + cell.format(merge="", text=f"dish {n}")
        + "</w:tr>"
        for n in range(rows)
    )
    table = f"<w:tbl><w:tblGrid><w:gridCol/><w:gridCol/></w:tblGrid>{body}</w:tbl>".encode()
    source = docx_bytes([(None, "placeholder")])
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(source)) as old, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as new:
        for member in old.infolist():
            xml = old.read(member.filename)
            if member.filename == "word/document.xml":
                xml = re.sub(rb"<w:p>(?:(?!<w:p>).)*?placeholder.*?</w:p>", table, xml, count=1, flags=re.S)
            new.writestr(member, xml)
    return out.getvalue()


def test_a_column_merged_down_thousands_of_rows_reads_each_row_with_the_merged_text() -> None:
    # python-docx finds a merged cell's text by walking up one row at a time from every row: 2,000 rows was past
    # Python's recursion limit (refused as "nested too deeply"), and the walk quadratic below it.
    passages = extract(merged_column_docx(2_000), DOCX, max_chars=PLENTY)
    lines = "\n".join(p.text for p in passages).split("\n")
    assert lines == [f"Menu | dish {n}" for n in range(2_000)]


def test_a_cell_spanning_a_billion_columns_is_read_once() -> None:
    data = merged_column_docx(1)
    with zipfile.ZipFile(io.BytesIO(data)) as old:
        parts = {m.filename: old.read(m.filename) for m in old.infolist()}
    parts["word/document.xml"] = parts["word/document.xml"].replace(
        b'<w:vMerge w:val="restart"/>', b'<w:gridSpan w:val="1000000000"/>'
    )
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as new:
        for name, content in parts.items():
            new.writestr(name, content)
    assert [p.text for p in extract(out.getvalue(), DOCX, max_chars=PLENTY)] == ["Menu | dish 0"]


@pytest.mark.parametrize(
    "text",
    [
        "\n".join(f"Line {n} of the opening hours. Mon-Fri 7:00-18:00 and more words" for n in range(6_000)),
        " ".join(f"word{n % 97}." if n % 13 == 0 else f"word{n % 89}" for n in range(60_000)),
        "x" + " " * 300_000 + "y",
        "\n\n".join("Paragraph " + "lorem ipsum " * (n % 400) for n in range(900)),
    ],
    ids=["many-lines", "one-line-of-words", "spaces", "paragraphs"],
)
def test_a_huge_block_read_a_segment_at_a_time_gives_the_passages_of_the_whole_block(
    text: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert len(text) > 4 * extract_passages.SEGMENT_CHARS

    def passages() -> list[tuple[str, str]]:
        reading = Reading(max_chars=PLENTY, deadline=None)
        reading.block(text, "section A")
        return [(p.text, p.where) for p in reading.finish()]

    segmented = passages()
    monkeypatch.setattr(extract_passages, "SEGMENT_CHARS", 10**12)  # the whole block at once, as before
    assert segmented == passages()
