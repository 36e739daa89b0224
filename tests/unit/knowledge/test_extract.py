"""core.knowledge.extract: the text of every document type with where it stands, and every hostile document ending
as ExtractionFailed with a reason, fast (authoring.md, "Knowledge: what the agent reads")."""

from __future__ import annotations

import io
import json
import os
import random
import subprocess
import sys
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest

from core.knowledge import extract_office
from core.knowledge.extract import DOCUMENT_TYPES, PASSAGE_CHARS, ExtractionFailed, Passage, extract, is_document
from core.knowledge.extract_passages import TOO_SLOW
from tests.support.documents import (
    ODF_PRESENTATION,
    ODF_SPREADSHEET,
    ODF_TEXT,
    PDF_FONT,
    docx_bytes,
    encrypted_pdf,
    odf_bytes,
    odp_bytes,
    ods_bytes,
    odt_bytes,
    pdf_bytes,
    pdf_content,
    pdf_document,
    pdf_page,
    pptx_bytes,
    xlsx_bytes,
)

ROOT = Path(__file__).resolve().parents[3]
OOXML = "application/vnd.openxmlformats-officedocument."
PDF = "application/pdf"
DOCX = OOXML + "wordprocessingml.document"
XLSX = OOXML + "spreadsheetml.sheet"
PPTX = OOXML + "presentationml.presentation"
PLENTY = 10_000_000


def read(data: bytes, content_type: str, max_chars: int = PLENTY) -> list[Passage]:
    return extract(data, content_type, max_chars=max_chars)


class Ticks:
    """A clock that moves one tick each time it is read. The readers read their clock once per ``CHECK_EVERY`` units
    of the work they report (characters, cells, elements, PDF operators), so a deadline in ticks is a budget of
    work, the same on any machine under any load."""

    def __init__(self, now: float = 0.0) -> None:
        self.reads = 0
        self.now = now

    def __call__(self) -> float:
        self.reads += 1
        self.now += 1
        return self.now


# What a refusal may cost: this many reads of the clock, about a million characters of work at most.
WORK_TICKS = 64


def bounded(data: bytes, content_type: str, max_chars: int = PLENTY) -> list[Passage] | ExtractionFailed:
    """What ``extract`` makes of ``data`` (passages, or the refusal), once it got there within WORK_TICKS reads of
    its clock: neither refused for taking too long nor past that budget."""
    clock = Ticks()
    try:
        found: list[Passage] | ExtractionFailed = extract(
            data, content_type, max_chars=max_chars, deadline=float(WORK_TICKS), clock=clock
        )
    except ExtractionFailed as failed:
        found = failed
    assert not (isinstance(found, ExtractionFailed) and found.reason == TOO_SLOW), f"{clock.reads} clock reads"
    assert clock.reads <= WORK_TICKS
    return found


def refused(data: bytes, content_type: str, *, max_chars: int = PLENTY, clock: Ticks | None = None,
            deadline: float | None = None) -> str:  # fmt: skip
    """The reason ``extract`` gives for refusing ``data``, within WORK_TICKS reads of its clock (mostly one or two:
    a hostile document is refused from its directory, its first page, its first lines), or the reason it gives
    under the ``clock`` and ``deadline`` given."""
    if clock is None:
        found = bounded(data, content_type, max_chars)
        assert isinstance(found, ExtractionFailed), "read, not refused"
        reason = found.reason
    else:
        with pytest.raises(ExtractionFailed) as failed:
            extract(data, content_type, max_chars=max_chars, deadline=deadline, clock=clock)
        reason = failed.value.reason
    assert reason == str(ExtractionFailed(reason))
    return reason


def repacked(data: bytes, change: Callable[[str, bytes], bytes], extra: dict[str, bytes] | None = None) -> bytes:
    """A zip-based document with its members passed through ``change`` (name, content) and ``extra`` added."""
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as source, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as target:
        for member in source.infolist():
            target.writestr(member, change(member.filename, source.read(member.filename)))
        for name, content in (extra or {}).items():
            target.writestr(name, content)
    return out.getvalue()


def unchanged(_: str, content: bytes) -> bytes:
    return content


def noise(seed: int, size: int) -> bytes:
    return random.Random(seed).randbytes(size)  # noqa: S311 - reproducible junk, not a secret


# ---- what is a document ----


@pytest.mark.parametrize("content_type", sorted(DOCUMENT_TYPES))
def test_every_document_type_is_a_document_whatever_its_parameters_and_case(content_type: str) -> None:
    assert is_document(content_type)
    assert is_document(f"{content_type.upper()}; charset=utf-8")
    assert is_document(f"  {content_type} ; charset=UTF-8")


def test_the_document_types_are_the_specs_list() -> None:
    expected = {
        PDF, DOCX, XLSX, PPTX, "application/msword", "application/vnd.ms-excel", "application/vnd.ms-powerpoint",
        "application/vnd.oasis.opendocument.text", "application/vnd.oasis.opendocument.spreadsheet",
        "application/vnd.oasis.opendocument.presentation",
        "text/csv", "text/plain", "text/markdown", "application/json",
    }  # fmt: skip
    assert expected == DOCUMENT_TYPES


@pytest.mark.parametrize(
    "content_type",
    ["image/png", "image/jpeg", "video/mp4", "audio/mpeg", "audio/wav", "text/uri-list", "application/octet-stream",
     "text/html", "application/zip", "image/svg+xml", "application/pdf+x", "", ";", "pdf"],
)  # fmt: skip
def test_media_and_anything_else_is_not_a_document_and_reads_as_nothing(content_type: str) -> None:
    assert not is_document(content_type)
    assert read(b"Hello there", content_type) == []


# ---- each type: its text, where it stands ----


def test_a_pdf_reads_page_by_page() -> None:
    data = pdf_bytes(["Northwind Coffee (since 1998)\nWe roast on Mondays.", "", "Free Wi-Fi for guests."])
    assert read(data, PDF) == [
        Passage("Northwind Coffee (since 1998)\nWe roast on Mondays.", "page 1"),
        Passage("Free Wi-Fi for guests.", "page 3"),  # an empty page has no passage
    ]


def test_a_pdf_restricted_by_an_owner_password_only_opens_without_one_and_is_read() -> None:
    data = encrypted_pdf(["Printing is restricted, reading is not."], user_password="")
    assert read(data, PDF) == [Passage("Printing is restricted, reading is not.", "page 1")]


def test_a_word_document_reads_each_paragraph_under_its_nearest_heading() -> None:
    data = docx_bytes([(None, "Welcome to Northwind."), ("Milk and extras", "Oat milk costs 0.40 EUR extra."),
                       (None, "Decaf all day."), ("Loyalty card", "Every tenth coffee is free.")])  # fmt: skip
    assert read(data, DOCX) == [
        Passage("Welcome to Northwind.", ""),
        Passage("Milk and extras\nOat milk costs 0.40 EUR extra.\nDecaf all day.", "section Milk and extras"),
        Passage("Loyalty card\nEvery tenth coffee is free.", "section Loyalty card"),
    ]


def test_a_word_table_reads_row_by_row_and_a_merged_cell_once() -> None:
    import docx

    document = docx.Document()
    document.add_heading("Prices", level=2)
    table = document.add_table(rows=2, cols=3)
    for cell, text in zip(table.rows[0].cells, ["item", "small", "large"], strict=True):
        cell.text = text
    table.rows[1].cells[0].text = "espresso"
    table.rows[1].cells[1].merge(table.rows[1].cells[2]).text = "2.50"
    out = io.BytesIO()
    document.save(out)
    assert read(out.getvalue(), DOCX) == [Passage("Prices\nitem | small | large\nespresso | 2.50", "section Prices")]


def test_an_excel_workbook_reads_each_sheet_as_rows_under_its_header() -> None:
    from openpyxl import load_workbook  # type: ignore[import-untyped]

    data = xlsx_bytes({
        "Prices": [["item", "size", "price_eur"], ["cappuccino", "small", 3.2], [None], ["espresso", "large", 3]],
        "Notes": [["Closed on public holidays"]],
        "Empty": [],
    })  # fmt: skip
    book = load_workbook(io.BytesIO(data))
    book["Prices"]["C2"].number_format = "0.00"  # shown as 3.20, as Excel shows it
    out = io.BytesIO()
    book.save(out)
    assert read(out.getvalue(), XLSX) == [
        Passage("item | size | price_eur\ncappuccino | small | 3.20\nespresso | large | 3", "sheet Prices, rows 2-4"),
        Passage("Closed on public holidays", "sheet Notes, row 1"),
    ]


def test_a_long_sheet_is_cut_into_passages_each_headed_by_the_header_row() -> None:
    rows = [["item", "price"]] + [[f"item number {i}", i] for i in range(200)]
    passages = read(xlsx_bytes({"Menu": rows}), XLSX)
    assert len(passages) > 2
    assert all(p.text.startswith("item | price\n") and len(p.text) <= PASSAGE_CHARS for p in passages)
    assert passages[0].where.startswith("sheet Menu, rows 2-")
    assert passages[-1].where.endswith("-201")
    assert sum(p.text.count("\n") for p in passages) == 200  # every row once


def test_a_powerpoint_deck_reads_slide_by_slide_with_its_notes() -> None:
    from pptx import Presentation

    deck = Presentation(io.BytesIO(pptx_bytes(["Welcome\nWe roast on Mondays", "Prices\nSmall cappuccino 3.20"])))
    deck.slides[1].notes_slide.notes_text_frame.text = "Mention the loyalty card."
    out = io.BytesIO()
    deck.save(out)
    assert read(out.getvalue(), PPTX) == [
        Passage("Welcome\nWe roast on Mondays", "slide 1"),
        Passage("Prices\nSmall cappuccino 3.20\nMention the loyalty card.", "slide 2"),
    ]


def test_an_opendocument_text_reads_under_its_headings() -> None:
    data = odt_bytes(["Welcome.", "# Opening hours", "Monday to Friday 8-18.", "Saturday 9-14."])
    assert read(data, ODF_TEXT) == [
        Passage("Welcome.", ""),
        Passage("Opening hours\nMonday to Friday 8-18.\nSaturday 9-14.", "section Opening hours"),
    ]


def test_an_opendocument_paragraph_keeps_its_spans_spaces_and_line_breaks() -> None:
    body = (
        "<office:text><text:p>Open <text:span>daily</text:span><text:s text:c='3'/>from 8."
        "<text:line-break/>Closed on holidays.<office:annotation><text:p>a comment</text:p></office:annotation>"
        "</text:p></office:text>"
    )
    assert read(odf_bytes(ODF_TEXT, body), ODF_TEXT) == [Passage("Open daily from 8.\nClosed on holidays.", "")]


def test_an_opendocument_spreadsheet_reads_rows_counting_repeated_ones_without_expanding_them() -> None:
    data = ods_bytes({"Prices": [["item", "price"], ["latte", 3.5]], "More": [["note"]]})
    assert read(data, ODF_SPREADSHEET) == [
        Passage("item | price\nlatte | 3.5", "sheet Prices, row 2"),
        Passage("note", "sheet More, row 1"),
    ]
    # A million empty rows of 16,384 columns, said in one element each, then one row: counted, never expanded.
    body = (
        '<office:spreadsheet><table:table table:name="S"><table:table-row table:number-rows-repeated="1048000">'
        '<table:table-cell table:number-columns-repeated="16384"/></table:table-row>'
        "<table:table-row><table:table-cell><text:p>the end</text:p></table:table-cell></table:table-row>"
        "</table:table></office:spreadsheet>"
    )
    assert read(odf_bytes(ODF_SPREADSHEET, body), ODF_SPREADSHEET) == [Passage("the end", "sheet S, row 1048001")]


def test_an_opendocument_presentation_reads_slide_by_slide() -> None:
    assert read(odp_bytes(["Welcome\nto Northwind", "Free Wi-Fi"]), ODF_PRESENTATION) == [
        Passage("Welcome\nto Northwind", "slide 1"),
        Passage("Free Wi-Fi", "slide 2"),
    ]


def test_a_csv_file_reads_its_records_under_the_header_with_the_delimiter_sniffed() -> None:
    assert read(b"item,price_eur\nsmall,3.20\nlarge,4.50\n", "text/csv; charset=utf-8") == [
        Passage("item | price_eur\nsmall | 3.20\nlarge | 4.50", "rows 2-3")
    ]
    # Excel where the decimal mark is a comma: semicolons, and a quoted field over two lines is one record.
    data = 'item;price\r\n"flat\r\nwhite";3,80\r\nmocha;4,10\r\n'.encode("cp1252")
    assert read(data, "text/csv") == [Passage("item | price\nflat white | 3,80\nmocha | 4,10", "rows 2-3")]


def test_a_csv_without_a_header_row_reads_every_row() -> None:
    assert read(b"espresso,2.50\nlatte,3.50\n", "text/csv") == [Passage("espresso | 2.50\nlatte | 3.50", "rows 1-2")]


def test_plain_text_reads_paragraph_by_paragraph_with_whitespace_normalised() -> None:
    data = b"Opening hours\r\nMon-Fri   8-18\r\n\r\n\r\n\tSaturday 9-14  \n\x00\n"
    assert read(data, "text/plain") == [Passage("Opening hours\nMon-Fri 8-18\nSaturday 9-14", "")]


@pytest.mark.parametrize(
    ("data", "text"),
    [
        ("Caf\u00e9 cr\u00e8me".encode("utf-16"), "Caf\u00e9 cr\u00e8me"),  # a byte-order mark
        ("Caf\u00e9 cr\u00e8me".encode("utf-16-le"), "Caf\u00e9 cr\u00e8me"),  # none: every other byte NUL
        ("\ufeffCaf\u00e9 cr\u00e8me".encode(), "Caf\u00e9 cr\u00e8me"),  # UTF-8 with a BOM
        ("Caf\u00e9 cr\u00e8me \u20ac".encode("cp1252"), "Caf\u00e9 cr\u00e8me \u20ac"),  # legacy Windows text
        (b"Caf\xc3\xa9 cr\xc3\xa8me " * 9 + b"\x81", "Caf\u00e9 cr\u00e8me " * 9 + "\ufffd"),  # one bad byte
    ],
)
def test_text_in_any_encoding_is_decoded_and_bytes_that_are_not_utf_8_never_crash(data: bytes, text: str) -> None:
    assert read(data, "text/plain") == [Passage(text, "")]


def test_markdown_reads_each_paragraph_under_its_nearest_heading_and_keeps_code_blocks() -> None:
    data = (
        b"Intro line\n\n# Opening hours #\nMon-Fri 8-18\n\nSaturday 9-14\n\nWi-Fi\n-----\nFree for guests.\n\n"
        b"```\n# not a heading\n```\n"
    )
    assert read(data, "text/markdown") == [
        Passage("Intro line", ""),
        Passage("Opening hours\nMon-Fri 8-18\nSaturday 9-14", "section Opening hours"),
        Passage("Wi-Fi\nFree for guests.\n```\n# not a heading\n```", "section Wi-Fi"),
    ]


def test_json_reads_each_value_with_its_key_grouped_by_the_key_path_that_holds_it() -> None:
    document = {
        "name": "Northwind Coffee",
        "hours": {"monday": "8-18", "sunday": None},
        "faq": [{"q": "Wi-Fi?", "a": "Free for guests"}, "Dogs welcome"],
        "open": True,
        "seats": 24,
    }
    assert read(json.dumps(document).encode(), "application/json") == [
        Passage("name: Northwind Coffee", ""),
        Passage("monday: 8-18", "hours"),
        Passage("q: Wi-Fi?\na: Free for guests", "faq[0]"),
        Passage("Dogs welcome", "faq"),
        Passage("open: true\nseats: 24", ""),
    ]
    assert read(b'"just a string"', "application/json") == [Passage("just a string", "")]


def test_a_long_paragraph_is_cut_at_sentence_ends_into_passages_that_keep_all_its_text() -> None:
    sentence = "Our beans are roasted on site every Monday morning by Anna."
    data = " ".join([sentence] * 60).encode()
    passages = read(data, "text/plain")
    assert len(passages) > 3
    assert all(len(p.text) <= PASSAGE_CHARS and p.text.endswith("Anna.") for p in passages)
    assert " ".join(p.text for p in passages) == data.decode()
    # Without a sentence end or a space, cut hard: never a passage over the size.
    unbroken = read(b"x" * (PASSAGE_CHARS * 2 + 5), "text/plain")
    assert [len(p.text) for p in unbroken] == [PASSAGE_CHARS, PASSAGE_CHARS, 5]


@pytest.mark.parametrize(
    ("data", "content_type"),
    [
        (b"", "text/plain"),
        (b" \n\t\r\n", "text/markdown"),
        (b"", "text/csv"),
        (b"{}", "application/json"),
        (b"[null, {}]", "application/json"),
        (pdf_bytes([""]), PDF),
        (docx_bytes([]), DOCX),
        (xlsx_bytes({"Empty": []}), XLSX),
        (pptx_bytes([]), PPTX),
        (odt_bytes([]), ODF_TEXT),
    ],
)
def test_a_document_with_nothing_readable_reads_as_no_passage(data: bytes, content_type: str) -> None:
    assert read(data, content_type) == []


# ---- legacy Office types ----


@pytest.mark.parametrize(
    ("content_type", "extension"),
    [
        ("application/msword", ".docx"),
        ("application/vnd.ms-excel", ".xlsx"),
        ("application/vnd.ms-powerpoint", ".pptx"),
    ],
)
def test_a_97_2003_office_file_is_refused_with_the_format_to_save_it_as(content_type: str, extension: str) -> None:
    legacy = extract_office.CFB_MAGIC + bytes(4096)
    reason = refused(legacy, content_type)
    assert "97-2003" in reason and f"save it as {extension}" in reason


def test_a_file_declared_in_a_97_2003_type_is_read_as_what_it_really_is() -> None:
    word = docx_bytes([("Menu", "Espresso 2.50")])
    assert read(word, "application/msword") == read(word, DOCX) != []
    # Windows declares a .csv file as Excel's.
    assert read(b"item,price\nmocha,4.10\n", "application/vnd.ms-excel") == [
        Passage("item | price\nmocha | 4.10", "row 2")
    ]


# ---- hostile documents ----

ZIP_BASED = [
    (DOCX, lambda: docx_bytes([("Heading", "text")])),
    (XLSX, lambda: xlsx_bytes({"Sheet": [["a", "b"], [1, 2]]})),
    (PPTX, lambda: pptx_bytes(["Title\nbody"])),
    (ODF_TEXT, lambda: odt_bytes(["text"])),
    (ODF_SPREADSHEET, lambda: ods_bytes({"S": [["a"]]})),
    (ODF_PRESENTATION, lambda: odp_bytes(["slide"])),
]
ZIP_IDS = ["docx", "xlsx", "pptx", "odt", "ods", "odp"]
ALL_TYPES = [(PDF, lambda: pdf_bytes(["Page one", "Page two"])), *ZIP_BASED]
ALL_IDS = ["pdf", *ZIP_IDS]


@pytest.mark.parametrize(("content_type", "build"), ZIP_BASED, ids=ZIP_IDS)
def test_a_zip_bomb_is_refused_from_the_zips_directory(content_type: str, build: Callable[[], bytes]) -> None:
    bomb = repacked(build(), unchanged, {"customXml/item9.xml": bytes(20 * 1024 * 1024)})  # 20 MB of zeros: ~20 kB
    assert len(bomb) < 100_000
    assert "decompression bomb" in refused(bomb, content_type)


@pytest.mark.parametrize(("content_type", "build"), ZIP_BASED, ids=ZIP_IDS)
def test_a_document_declaring_more_than_200_mb_unpacked_is_refused(
    content_type: str, build: Callable[[], bytes]
) -> None:
    # The directory says what a member unpacks to, and zipfile never inflates past it: that is the figure checked.
    out = io.BytesIO(build())
    with zipfile.ZipFile(out, "a") as package:
        package.writestr("media/big.bin", b"incompressible enough")
        package.getinfo("media/big.bin").file_size = 201 * 1024 * 1024
    assert "expands to more than 200 MB when unpacked" in refused(out.getvalue(), content_type)


def test_a_document_of_more_than_10_000_parts_is_refused() -> None:
    parts = {f"extra/part{i}.xml": b"" for i in range(extract_office.MAX_MEMBERS)}
    assert "more than 10,000 parts" in refused(repacked(docx_bytes([(None, "x")]), unchanged, parts), DOCX)


def test_a_word_part_too_large_to_hold_in_memory_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(extract_office, "MAX_TREE_PART", 1024)
    data = docx_bytes([(None, "A sentence long enough. " * 100)])
    assert "has a part of more than" in refused(data, DOCX)


@pytest.mark.parametrize(
    ("content_type", "member", "before"),
    [
        (DOCX, "word/document.xml", b"<w:body>"),
        (PPTX, "ppt/slides/slide1.xml", b"<p:spTree>"),
        (XLSX, "xl/workbook.xml", b"<sheets>"),
    ],
    ids=["docx", "pptx", "xlsx"],
)
def test_xml_nested_100_000_deep_in_an_office_file_is_refused(content_type: str, member: str, before: bytes) -> None:
    build = dict(ZIP_BASED)[content_type]
    deep = repacked(build(), lambda name, xml: xml.replace(before, before + b"<x>" * 100_000 + b"</x>" * 100_000)
                    if name == member else xml)  # fmt: skip
    assert "nested too deeply" in refused(deep, content_type)


def test_xml_nested_100_000_deep_in_an_excel_sheet_is_streamed_past_within_bounds() -> None:
    # openpyxl streams a sheet and skips the elements it does not know: the sheet's cells are still read.
    data = xlsx_bytes({"Sheet": [["a", "b"], [1, 2]]})
    nested = b"<sheetData>" + b"<x>" * 100_000 + b"</x>" * 100_000
    deep = repacked(data, lambda name, xml: xml.replace(b"<sheetData>", nested) if "sheet1" in name else xml)
    assert bounded(deep, XLSX) == [Passage("a | b\n1 | 2", "sheet Sheet, row 2")]


@pytest.mark.parametrize("content_type", [ODF_TEXT, ODF_SPREADSHEET, ODF_PRESENTATION])
def test_xml_nested_100_000_deep_in_an_opendocument_file_is_refused(content_type: str) -> None:
    deep = odf_bytes(content_type, "<office:text>" + "<text:section>" * 100_000 + "</text:section>" * 100_000)
    assert "nested too deeply" in refused(deep, content_type)


LAUGHS = "".join(
    f'<!ENTITY {name} "{("&" + previous + ";") * 10 if previous else "ha" * 5}">'
    for previous, name in zip(["", *"abcdefgh"], "abcdefghi", strict=True)
)


def test_xml_entities_are_never_expanded() -> None:
    doctype = f"<!DOCTYPE x [{LAUGHS}]>".encode()
    word = repacked(
        docx_bytes([(None, "placeholder")]),
        lambda name, xml: xml.replace(b"?>", b"?>" + doctype, 1).replace(b">placeholder<", b">&i;<")
        if name == "word/document.xml" else xml,
    )  # fmt: skip
    assert "declares XML entities" in refused(word, DOCX)
    sheet = repacked(xlsx_bytes({"S": [["placeholder"]]}), lambda n, xml: doctype + xml if "sheet1" in n else xml)
    assert "declares XML entities" in refused(sheet, XLSX)
    odt = odf_bytes(ODF_TEXT, "", content=f'<?xml version="1.0"?><!DOCTYPE x [{LAUGHS}]><x>&i;</x>')
    assert "declares XML entities" in refused(odt, ODF_TEXT)


@pytest.mark.parametrize("content_type", [DOCX, XLSX, PPTX, "application/msword"])
def test_an_encrypted_office_file_is_refused_as_protected(content_type: str) -> None:
    # Office 2007+ encrypts a document into an OLE compound file, which is also the 97-2003 formats' container.
    encrypted = extract_office.CFB_MAGIC + noise(7, 8192)
    assert "password-protected" in refused(encrypted, content_type)


def test_an_encrypted_opendocument_file_is_refused_as_protected() -> None:
    data = odt_bytes(["secret"])
    encrypted = b"><manifest:encryption-data/></manifest:file-entry>"
    locked = repacked(data, lambda name, xml: xml.replace(b"/>", encrypted, 1) if name.startswith("META-INF") else xml)
    assert refused(locked, ODF_TEXT).startswith("The OpenDocument text is password-protected")


def test_a_pdf_with_a_password_to_open_it_is_refused_without_trying_any() -> None:
    data = encrypted_pdf(["Secret menu"], user_password="s3cret")
    assert refused(data, PDF) == "The PDF is password-protected: upload it without a password"


def _many_pages(count: int, declared: int) -> bytes:
    """A PDF of ``count`` pages sharing one content stream (cheap to build), declaring ``declared`` pages."""
    first = 5
    kids = b" ".join(b"%d 0 R" % (first + i) for i in range(count))
    objects = [b"<< /Type /Catalog /Pages 2 0 R >>", b"<< /Type /Pages /Kids [%s] /Count %d >>" % (kids, declared)]
    objects += [PDF_FONT, pdf_content("Same page")]
    objects += [pdf_page(2, 4, 3)] * count
    return pdf_document(objects)


@pytest.mark.parametrize("declared", [2_001, 1], ids=["declared", "lying-count"])
def test_a_pdf_of_more_than_2000_pages_is_refused_before_its_pages_are_read(
    declared: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pypdf import PageObject

    def no_reading(*_: object, **__: object) -> str:
        raise AssertionError("a page was read")

    monkeypatch.setattr(PageObject, "extract_text", no_reading)
    assert refused(_many_pages(2_001, declared), PDF) == (
        "The document has more than 2,000 pages: split it into smaller files"
    )


def test_a_pdf_of_as_many_pages_as_the_limit_is_read(monkeypatch: pytest.MonkeyPatch) -> None:
    from core.knowledge import extract_pdf

    monkeypatch.setattr(extract_pdf, "MAX_PAGES", 3)
    assert read(_many_pages(3, 3), PDF) == [Passage("Same page", f"page {n}") for n in (1, 2, 3)]
    assert "more than 3 pages" in refused(_many_pages(4, 3), PDF)


@pytest.mark.parametrize(("content_type", "build"), ALL_TYPES, ids=ALL_IDS)
def test_a_truncated_document_is_refused_as_damaged(content_type: str, build: Callable[[], bytes]) -> None:
    data = build()
    for cut in (len(data) // 2, len(data) - 30, 100):
        assert refused(data[:cut], content_type).startswith("The file is damaged or is not a valid ")


def test_a_pdf_with_a_broken_object_is_refused_as_damaged() -> None:
    data = pdf_bytes(["Hello"]).replace(b"/Type /Pages /Kids", b"/Type /Pages /Kids 7 0 R /X")
    assert refused(data, PDF).startswith("The file is damaged or is not a valid PDF")


@pytest.mark.parametrize(("content_type", "build"), ALL_TYPES, ids=ALL_IDS)
def test_garbage_bytes_are_refused_as_damaged(content_type: str, build: Callable[[], bytes]) -> None:
    del build
    for garbage in (noise(1, 5000), b"", b"PK\x03\x04" + bytes(200), b"%PDF-1.7\n" + bytes(200)):
        assert refused(garbage, content_type).startswith("The file is damaged or is not a valid ")


@pytest.mark.parametrize(("content_type", "build"), ALL_TYPES, ids=ALL_IDS)
def test_a_document_with_random_bytes_changed_is_read_or_refused_never_anything_else(
    content_type: str, build: Callable[[], bytes]
) -> None:
    """Seeded mutations: of the file's bytes, and of its XML parts repacked into a valid zip (so they get parsed)."""
    rng, data, outcomes = random.Random(11), build(), set()  # noqa: S311 - reproducible mutations
    for attempt in range(30):
        if attempt % 2 and content_type != PDF:

            def flipped(_name: str, part: bytes) -> bytes:
                mutable = bytearray(part)
                for _ in range(rng.randint(1, 4) if part else 0):
                    mutable[rng.randrange(len(mutable))] = rng.randrange(256)
                return bytes(mutable)

            mutated = repacked(data, flipped)
        else:
            mutable = bytearray(data)
            for _ in range(rng.randint(1, 8)):
                mutable[rng.randrange(len(mutable))] = rng.randrange(256)
            mutated = bytes(mutable)
        outcomes.add(type(bounded(mutated, content_type)).__name__)
    assert outcomes <= {"list", "ExtractionFailed"} and "ExtractionFailed" in outcomes


@pytest.mark.parametrize("content_type", ["text/plain", "text/markdown", "text/csv", "application/json"])
def test_binary_bytes_declared_as_text_are_refused(content_type: str) -> None:
    assert refused(noise(2, 5000), content_type).startswith("The file is not readable text")


@pytest.mark.parametrize("depth", [100_000, 65])
def test_json_nested_too_deep_is_refused(depth: int) -> None:
    nested = b"[" * depth + b"]" * depth
    assert refused(nested, "application/json") == "The JSON file is nested more than 64 levels deep: flatten it"
    assert read(b"[" * 64 + b'"deep"' + b"]" * 64, "application/json") == [Passage("deep", "[0]" * 63)]


def test_json_that_does_not_parse_is_refused_with_where_it_breaks() -> None:
    reason = refused(b'{"name": "Northwind",\n "hours": }', "application/json")
    assert reason.startswith("The file is not valid JSON (Expecting value: line 2")


def test_a_csv_field_over_the_csv_modules_limit_is_refused() -> None:
    reason = refused(b'a,"' + b"x" * 200_000 + b'"\n', "text/csv")
    assert reason.startswith("The file is damaged or is not valid CSV (record 1: field larger than field limit")


# ---- the plan's budget and the deadline ----


def test_text_up_to_the_budget_is_read_and_one_character_more_is_refused() -> None:
    data = b"Espresso 2.50\n\nLatte 3.50"
    assert sum(len(p.text) for p in read(data, "text/plain")) == len("Espresso 2.50\nLatte 3.50") == 24
    assert read(data, "text/plain", max_chars=24) == [Passage("Espresso 2.50\nLatte 3.50", "")]
    reason = refused(data, "text/plain", max_chars=23)
    assert "more text than the plan allows (room for 23 more characters)" in reason
    assert "more text than the plan allows" in refused(data, "text/plain", max_chars=0)
    assert read(b"", "text/plain", max_chars=0) == []


def test_reading_stops_at_the_page_where_the_budget_runs_out(monkeypatch: pytest.MonkeyPatch) -> None:
    from pypdf import PageObject

    pages_read = []
    real = PageObject.extract_text

    def counting(self: PageObject, *args: object, **kwargs: object) -> str:
        pages_read.append(self)
        return real(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(PageObject, "extract_text", counting)
    data = pdf_bytes([f"Page {n}: " + "coffee " * 50 for n in range(300)])
    assert "more text than the plan allows" in refused(data, PDF, max_chars=1_000)
    assert len(pages_read) == 3  # 357 characters a page: the third one is too many


def test_a_deadline_already_past_refuses_before_reading() -> None:
    clock = Ticks(now=100.0)
    reason = refused(docx_bytes([(None, "text")]), DOCX, clock=clock, deadline=99.0)
    assert reason == "The document took too long to read: upload it in smaller parts"
    assert clock.reads == 1  # the first look at the clock: nothing was read


def test_a_deadline_passing_while_reading_stops_the_reading() -> None:
    data = b"\n\n".join(b"Paragraph %d of a very long text." % i for i in range(200_000))
    clock = Ticks()
    reason = refused(data, "text/plain", max_chars=10**9, clock=clock, deadline=10.0)
    assert reason == "The document took too long to read: upload it in smaller parts"
    # Refused at the first look past the deadline: ten checks' worth of the 7 MB read, not all of it.
    assert clock.reads == 11


# ---- the layer stays light ----


def test_importing_extract_loads_none_of_the_document_libraries() -> None:
    code = (
        "import json, sys\nimport core.knowledge.extract\n"
        "print(json.dumps(sorted({m.split('.')[0] for m in sys.modules})))"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT / "layers" / "common")}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    loaded = set(json.loads(out.stdout))
    assert "core" in loaded
    assert loaded.isdisjoint({"pypdf", "docx", "openpyxl", "pptx", "lxml", "defusedxml", "PIL", "xlsxwriter"})
