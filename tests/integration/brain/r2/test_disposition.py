"""What /v1/r2 lets a browser do with an object (authoring.md, "Objects and uploads"): every answer, errors included,
is ``X-Content-Type-Options: nosniff``; media and plain text are shown inline, and everything else (documents,
archives, octet-stream, and any type an object got by other means: HTML, SVG, XML, script) is
``Content-Disposition: attachment`` with the key's last segment as its name, so a navigation to it downloads it
rather than opening it as a page of the API's origin."""

from __future__ import annotations

from urllib.parse import quote, urlsplit

import pytest
import requests

from local.gateway.events import SAMPLE_WORKSPACE_ID
from tests.support.r2 import CAP, get, put
from tests.support.signed_urls import fetch, join, sign
from tests.unit.objects.test_media_types import DOCUMENTS, MEDIA, RUNNABLE, TEXT, disposition_parameters

pytestmark = pytest.mark.usefixtures("small_chunks")

BODY = b"<html><script>alert(document.domain)</script></html>"  # what any of them may hold: S3 never looks
INLINE = [*MEDIA, *TEXT, "text/plain; charset=utf-8"]
ATTACHED = [*DOCUMENTS, *RUNNABLE, "image/svg+xml; charset=utf-8", "text/html; charset=utf-8", "binary/octet-stream"]


def stored(aws, types: list[str], folder: str) -> dict[str, str]:
    """An object of each type, named ``<n>.bin`` under ``public/<folder>/``: {path: type}."""
    paths = {f"public/{folder}/{n}.bin": content_type for n, content_type in enumerate(types)}
    for path, content_type in paths.items():
        put(aws, SAMPLE_WORKSPACE_ID, path, BODY, ContentType=content_type)
    return paths


def answers(path: str) -> dict[str, tuple[int, str | None, str | None, str | None]]:
    """GET, HEAD and a part of ``path``: (status, Content-Type, Content-Disposition, X-Content-Type-Options)."""
    found = {}
    for name, method, headers in (
        ("get", "GET", None),
        ("head", "HEAD", None),
        ("part", "GET", {"Range": "bytes=0-5"}),
    ):
        result = get(path, method=method, headers=headers)
        found[name] = (result.status, result.header("Content-Type"), result.header("Content-Disposition"),
                       result.header("X-Content-Type-Options"))  # fmt: skip
    return found


def test_media_and_plain_text_are_shown_inline(tenant, aws) -> None:
    paths = stored(aws, INLINE, "inline")
    served = {path: answers(path) for path in paths}
    assert served == {path: {"get": (200, t, None, "nosniff"), "head": (200, t, None, "nosniff"),
                             "part": (206, t, None, "nosniff")} for path, t in paths.items()}  # fmt: skip


def test_everything_else_is_an_attachment_named_by_its_key(tenant, aws) -> None:
    """Documents, archives and octet-stream (uploadable), and what an object may hold only by other means: HTML,
    SVG, XML, script. A docx was served without ``Content-Disposition`` before the amended contract."""
    paths = stored(aws, ATTACHED, "attached")
    served = {path: answers(path) for path in paths}
    expected = {}
    for path, t in paths.items():
        disposition = f'attachment; filename="{path.rsplit("/", 1)[-1]}"'
        expected[path] = {"get": (200, t, disposition, "nosniff"), "head": (200, t, disposition, "nosniff"),
                          "part": (206, t, disposition, "nosniff")}  # fmt: skip
    assert served == expected


def test_an_inline_disposition_stored_with_a_document_is_not_passed_on(tenant, aws) -> None:
    for path, content_type in (("public/report.docx", DOCUMENTS[2]), ("public/page.html", "text/html")):
        put(aws, SAMPLE_WORKSPACE_ID, path, BODY, ContentType=content_type, ContentDisposition="inline")
        name = path.rsplit("/", 1)[-1]
        assert get(path).header("Content-Disposition") == f'attachment; filename="{name}"'
    # An image's own is passed on, as it always was.
    put(aws, SAMPLE_WORKSPACE_ID, "public/logo.png", b"png", ContentType="image/png", ContentDisposition="inline")
    assert get("public/logo.png").header("Content-Disposition") == "inline"


def test_an_object_without_a_type_is_an_attachment(tenant, aws) -> None:
    put(aws, SAMPLE_WORKSPACE_ID, "public/v1/app.js", b"alert(1)")  # S3's default: binary/octet-stream
    assert get("public/v1/app.js").header("Content-Disposition") == 'attachment; filename="app.js"'


@pytest.mark.parametrize(
    "name",
    ['a"; filename="evil.html', "r\u00e9sum\u00e9 final.pdf", "\u8ba1\u5212.xlsx", "a%22b;c=d,e.zip", "\u202egpj.exe"],
)
def test_no_key_bends_the_attachments_header(tenant, aws, name: str) -> None:
    """The key's name is in the header as a plain ``filename`` of safe ASCII and, when it has more, an RFC 8187
    ``filename*`` that reads back as the name exactly: one parameter each, whatever the key holds."""
    path = f"public/names/{name}"
    put(aws, SAMPLE_WORKSPACE_ID, path, BODY, ContentType="application/octet-stream")
    result = get(raw_path=f"/v1/r2/{quote(path)}")
    assert result.status == 200, result.body
    header = result.header("Content-Disposition") or ""
    assert header.isascii() and header.isprintable()
    kind, parameters = disposition_parameters(header)
    assert kind == "attachment" and set(parameters) <= {"filename", "filename*"}
    assert parameters.get("filename*", parameters["filename"]) == name


def test_a_signed_url_serves_the_same_headers(tenant, aws, as_function) -> None:
    as_function("BrainR2Function")  # the environment the template gives it (the signing secret's name)
    put(aws, SAMPLE_WORKSPACE_ID, "media/deck.pptx", BODY, ContentType=DOCUMENTS[4])
    put(aws, SAMPLE_WORKSPACE_ID, "media/cover.png", b"png", ContentType="image/png")
    deck, cover = sign(tenant.key, "media/deck.pptx", "media/cover.png")
    found = fetch(deck)
    assert (found.status, found.header("Content-Disposition")) == (200, 'attachment; filename="deck.pptx"')
    assert found.header("X-Content-Type-Options") == "nosniff"
    shown = fetch(cover)
    assert (shown.status, shown.header("Content-Disposition"), shown.header("X-Content-Type-Options")) == (
        200, None, "nosniff")  # fmt: skip


def test_a_document_too_large_for_one_answer_is_an_attachment_at_s3_too(
    tenant, aws, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The 307's presigned URL carries the disposition as a signed override, so S3 answers it so."""
    from core.platform import providers as platform_providers

    monkeypatch.setenv("R2_MAX_RESPONSE_BYTES", str(CAP))
    platform_providers.reset()
    big = b"x" * (CAP + 1)
    put(aws, SAMPLE_WORKSPACE_ID, "public/big.zip", big, ContentType="application/zip")
    put(aws, SAMPLE_WORKSPACE_ID, "public/big.mp4", big, ContentType="video/mp4")
    document, video = get("public/big.zip"), get("public/big.mp4")
    assert (document.status, video.status) == (307, 307)
    assert document.header("X-Content-Type-Options") == video.header("X-Content-Type-Options") == "nosniff"
    assert "response-content-disposition" in urlsplit(document.header("Location") or "").query
    assert "response-content-disposition" not in urlsplit(video.header("Location") or "").query
    followed = requests.get(document.header("Location") or "", timeout=10)  # moto serves the presigned URL
    assert (followed.status_code, followed.headers.get("Content-Disposition")) == (
        200, 'attachment; filename="big.zip"')  # fmt: skip
    assert "Content-Disposition" not in requests.get(video.header("Location") or "", timeout=10).headers


def test_every_error_is_nosniff_too(tenant, aws, as_function) -> None:
    """A refused credential, a bad signature, a bad path, a prefix off the allowlist, a missing object: their JSON
    bodies echo nothing a browser should sniff, and none was ``nosniff`` before (only r2's own answers were)."""
    as_function("BrainR2Function")
    put(aws, SAMPLE_WORKSPACE_ID, "public/there.png", b"png", ContentType="image/png")
    errors = {
        "not found": get("public/not-there.docx"),
        "not found (HEAD)": get("public/not-there.docx", method="HEAD"),
        "bad path": get(raw_path="/v1/r2/public/%2e%2e/private/x"),
        "no key": get(raw_path="/v1/r2"),
        "prefix": get("private/x.html"),
        "unknown key": get("public/there.png", headers={"Authorization": "Bearer sk_ws_unknown"}),
        "no credential": get("public/there.png", headers={"Authorization": None}),
        "bad signature": fetch(join("/v1/r2/public/there.png", {"expires": "4102444800", "kid": "k", "sig": "x"})),
    }
    found = {name: (result.status, result.header("X-Content-Type-Options")) for name, result in errors.items()}
    assert found == {
        "not found": (404, "nosniff"), "not found (HEAD)": (404, "nosniff"), "bad path": (400, "nosniff"),
        "no key": (400, "nosniff"), "prefix": (403, "nosniff"), "unknown key": (401, "nosniff"),
        "no credential": (401, "nosniff"), "bad signature": (403, "nosniff"),
    }  # fmt: skip
    assert all(result.header("X-Content-Type-Options") is not None for result in errors.values())
