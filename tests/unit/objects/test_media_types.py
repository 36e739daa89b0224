"""core.objects.media_types: the strict form of an upload's declared type (the amended contract's allowlist, never
a type a browser runs, in any spelling), the type a stored object is served with, and its disposition."""

from __future__ import annotations

import re
from urllib.parse import unquote

import pytest

from core.objects.media_types import (
    INLINE_TYPES,
    UNKNOWN,
    UPLOAD_TYPES,
    attachment,
    content_disposition,
    served_type,
    shown_inline,
    upload_type_problem,
)


@pytest.mark.parametrize(
    "declared",
    [
        "image/png",
        "IMAGE/PNG",
        "text/markdown; charset=utf-8",
        "text/plain;charset=UTF-8",
        "text/csv; charset=us-ascii",
    ],
)
def test_allowed_types_in_their_plain_form_are_taken(declared: str) -> None:
    assert upload_type_problem(declared) is None


@pytest.mark.parametrize(
    "declared",
    [
        "text/plain;\r\ncharset=utf-8", "text/plain;\tcharset=utf-8", "text/plain;\x1ccharset=utf-8",
        "text/plain;\x85charset=utf-8", "text/plain;\u3000charset=utf-8", "text/plain;  charset=utf-8",
        "text/mar\u212adown", "text/plain; chars\u017fet=utf-8", "text/plain; charset=utf-8\n", " text/plain",
        "text/html", "image/png; charset=utf-8; a=b",
    ],
)  # fmt: skip
def test_types_http_cannot_carry_or_the_allowlist_lacks_are_refused(declared: str) -> None:
    """Issue 25, hole 3: ``\\s`` and a case-insensitive match without re.ASCII let these through."""
    assert upload_type_problem(declared) is not None


@pytest.mark.parametrize(
    ("stored", "served"),
    [
        ("image/png", "image/png"), ("text/plain; charset=utf-8", "text/plain; charset=utf-8"),
        ("application/vnd.ms-excel", "application/vnd.ms-excel"), (None, UNKNOWN), ("", UNKNOWN),
        ("text/plain;\r\ncharset=utf-8", UNKNOWN), ("text/plain;\x1ccharset=utf-8", UNKNOWN),
        ("text/plain;\u3000charset=utf-8", UNKNOWN), ("=?UTF-8?q?text/plain=3B=0D=0A?=", UNKNOWN),
        ("text/html\r\nSet-Cookie: a=b", UNKNOWN), ("image", UNKNOWN),
    ],
)  # fmt: skip
def test_a_stored_type_is_served_only_when_a_header_can_carry_it_as_it_is(stored: str | None, served: str) -> None:
    assert served_type(stored) == served


# --- the amended contract (authoring.md, "Objects and uploads"): documents too, never a page a browser runs

MEDIA = [
    "image/jpeg", "image/png", "image/gif", "image/webp", "image/avif", "video/mp4", "video/webm", "video/quicktime",
    "audio/mpeg", "audio/mp4", "audio/aac", "audio/ogg", "audio/wav", "audio/webm",
]  # fmt: skip
TEXT = ["text/plain", "text/markdown", "text/csv", "text/uri-list"]
DOCUMENTS = [
    "application/pdf", "application/json",
    "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
    "application/vnd.openxmlformats-officedocument.presentationml.presentation",
    "application/msword", "application/vnd.ms-excel", "application/vnd.ms-powerpoint",
    "application/vnd.oasis.opendocument.text", "application/vnd.oasis.opendocument.spreadsheet",
    "application/vnd.oasis.opendocument.presentation",
    "application/epub+zip", "application/zip", "application/octet-stream",
]  # fmt: skip
# What a browser runs (or may run) as a page of the origin that serves it: markup, SVG, XML of any kind, script,
# and the old plug-in and multipart types.
RUNNABLE = [
    "text/html", "application/xhtml+xml", "image/svg+xml", "image/svg", "text/xml", "application/xml",
    "application/xslt+xml", "text/xsl", "application/rss+xml", "application/atom+xml", "application/mathml+xml",
    "application/vnd.ms-excel+xml", "application/vnd.openxmlformats-officedocument.wordprocessingml.document+xml",
    "text/javascript", "application/javascript", "application/x-javascript", "application/ecmascript",
    "text/ecmascript", "text/jscript", "text/x-javascript", "application/x-ecmascript", "text/vbscript",
    "application/x-shockwave-flash", "multipart/x-mixed-replace", "multipart/form-data", "text/x-component",
    "message/rfc822", "application/x-msdownload", "application/hta", "text/cache-manifest",
]  # fmt: skip


def spellings(type_: str) -> list[str]:
    """Every way the attack tests spell a type: as is, upper case, with a charset, padded, with a parameter, as a
    list, with a header smuggled after it, with a NUL, a wildcard."""
    return [
        type_, type_.upper(), type_.title(), f"{type_}; charset=utf-8", f"{type_};charset=UTF-8", f" {type_}",
        f"{type_} ", f"{type_}\t", f"{type_};", f"{type_}; a=b", f"{type_}\r\nX-Injected: 1", f"{type_}\n",
        f"{type_}\x00", f"{type_}, image/png", f"image/png, {type_}", f"image/png; {type_}", f"image/png;{type_}",
        f"application/octet-stream; {type_}", f"{type_.split('/', maxsplit=1)[0]}/*",
    ]  # fmt: skip


def smuggled(allowed: str) -> list[str]:
    """An allowed type carrying a runnable one (or a header) past it."""
    return [
        f"{allowed}; text/html", f"{allowed},text/html", f"{allowed}, text/html", f"{allowed} text/html",
        f"{allowed}; charset=utf-8; a=text/html", f"{allowed};charset=utf-7", f"{allowed}; charset=utf-8 ",
        f"{allowed}\r\nContent-Type: text/html", f"{allowed}\r\n", f"{allowed}\x00text/html", f"{allowed}+xml",
        f"{allowed}/html", f"text/html; {allowed}", f" {allowed}", f"{allowed}; name=page.html",
    ]  # fmt: skip


@pytest.mark.parametrize("declared", MEDIA + TEXT + DOCUMENTS)
def test_every_type_of_the_contract_is_taken_in_its_plain_forms(declared: str) -> None:
    for form in (declared, declared.upper(), f"{declared}; charset=utf-8", f"{declared};charset=us-ascii"):
        assert upload_type_problem(form) is None, form


def test_the_allowlist_is_the_contracts_and_no_more() -> None:
    assert set(UPLOAD_TYPES) == set(MEDIA + TEXT + DOCUMENTS)
    assert set(INLINE_TYPES) == set(MEDIA + TEXT) and set(UPLOAD_TYPES) >= INLINE_TYPES
    assert not set(RUNNABLE) & set(UPLOAD_TYPES)


@pytest.mark.parametrize("runnable", RUNNABLE)
def test_a_runnable_type_is_refused_in_every_spelling(runnable: str) -> None:
    taken = [form for form in spellings(runnable) if upload_type_problem(form) is None]
    assert taken == []


@pytest.mark.parametrize("allowed", UPLOAD_TYPES)
def test_no_allowed_type_carries_another_past_the_rule(allowed: str) -> None:
    taken = [form for form in smuggled(allowed) if upload_type_problem(form) is None]
    assert taken == []


@pytest.mark.parametrize(
    ("served", "inline"),
    [*((t, True) for t in MEDIA + TEXT), *((t, False) for t in DOCUMENTS + RUNNABLE),
     ("IMAGE/PNG", True), ("text/plain; charset=utf-8", True), ("text/csv;charset=us-ascii", True),
     ("image/svg+xml; charset=utf-8", False), ("text/html; charset=utf-8", False), ("image/x-icon", False),
     ("video/ogg", False), ("text/rtf", False), ("binary/octet-stream", False), (UNKNOWN, False)],
)  # fmt: skip
def test_only_media_and_plain_text_are_shown_inline(served: str, inline: bool) -> None:
    assert shown_inline(served) is inline
    disposition = content_disposition(served, "public/docs/report.bin", "inline")
    assert disposition == ("inline" if inline else 'attachment; filename="report.bin"')


def test_a_type_shown_inline_keeps_the_objects_own_disposition_or_none() -> None:
    assert content_disposition("image/png", "public/a.png", None) is None
    assert content_disposition("text/plain", "public/a.txt", 'attachment; filename="a.txt"') == (
        'attachment; filename="a.txt"'
    )


# RFC 6266's grammar: a type, then "; name=value" parameters, a value a token or a quoted string.
_PARAMETER = re.compile(r'; *([!#$%&\'*+.^_`|~0-9A-Za-z-]+)=("(?:[^"\\]|\\.)*"|[!#$%&\'*+.^_`|~0-9A-Za-z-]+)')


def disposition_parameters(header: str) -> tuple[str, dict[str, str]]:
    """The header read as RFC 6266 has a client read it: its type and its parameters, each once, the whole header
    consumed (nothing left over a parameter could hide in); ``filename*`` decoded (RFC 8187)."""
    kind, _, rest = header.partition(";")
    found = [(m.group(1), m.group(2)) for m in _PARAMETER.finditer(";" + rest)]
    assert "".join(f"; {name}={value}" for name, value in found) == ";" + rest, header
    parameters = {name.lower(): value.strip('"') for name, value in found}
    assert len(parameters) == len(found), header
    if "filename*" in parameters:
        charset, _, encoded = parameters["filename*"].partition("''")
        parameters["filename*"] = unquote(encoded, encoding=charset, errors="strict")
    return kind, parameters


@pytest.mark.parametrize(
    ("path", "header"),
    [
        ("public/Q3 report.docx", 'attachment; filename="Q3 report.docx"'),
        ("projects/prj_1/docs/a.b-c_d~e.xlsx", 'attachment; filename="a.b-c_d~e.xlsx"'),
        ("public/r\u00e9sum\u00e9.pdf", "attachment; filename=\"r_sum_.pdf\"; filename*=UTF-8''r%C3%A9sum%C3%A9.pdf"),
        ("public/\u8ba1\u5212.pptx", "attachment; filename=\"__.pptx\"; filename*=UTF-8''%E8%AE%A1%E5%88%92.pptx"),
        ('public/a"; filename="evil.html', "attachment; filename=\"a__ filename__evil.html\"; "
                                           "filename*=UTF-8''a%22%3B%20filename%3D%22evil.html"),
        ("public/a\\b%22c.zip", "attachment; filename=\"a_b_22c.zip\"; filename*=UTF-8''a%5Cb%2522c.zip"),
        ("public/x\r\nSet-Cookie: a=b.zip", "attachment; filename=\"x__Set-Cookie_ a_b.zip\"; "
                                            "filename*=UTF-8''x%0D%0ASet-Cookie%3A%20a%3Db.zip"),
        ("public/\u202egpj.exe", "attachment; filename=\"_gpj.exe\"; filename*=UTF-8''%E2%80%AEgpj.exe"),
    ],
)  # fmt: skip
def test_an_attachment_is_named_by_the_keys_last_segment_and_no_key_can_bend_the_header(path: str, header: str) -> None:
    """The plain ``filename`` keeps only characters a quoted string needs no escape for (no ``"``, ``\\``, ``%``,
    ``;``, control or non-ASCII), ``filename*`` carries the name exactly; a header of printable ASCII."""
    assert attachment(path) == header
    assert header.isascii() and header.isprintable()
    kind, parameters = disposition_parameters(header)
    name = path.rsplit("/", 1)[-1]
    assert (kind, parameters.get("filename*", parameters["filename"])) == ("attachment", name)
    assert set(parameters) <= {"filename", "filename*"}
