"""Uploads attacked over HTTP: paths the writer must not sign, then a valid ticket (a presigned S3 POST) bent into
storing what it does not allow, posted to the runner's S3 endpoint as a browser posts a form.

Controls: ``services/authoring/uploads.py`` (the r2 path rules and allowlist of ``core/objects/paths.py``, the
workspace's prefix prepended, a ``projects/<agentId>/`` path only for an agent of the workspace), and the POST
policy it signs (exact key, content type and size, a short expiry), which the runner checks as S3 does
(``local/aws/s3_post/policy.py``). Every refusal is checked against everything stored (``writer_attack.stored``:
every main-table item and every object version of the bucket), so "refused" also means "nothing signed, nothing
stored".

This module has a runner of its own, with upload URLs of one minute (``UPLOAD_URL_SECONDS=60``, the least the
setting allows), so a ticket can be seen to expire: it is signed before the other tests run and posted after.
"""

from __future__ import annotations

import base64
import json
import time
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any
from urllib.parse import quote

import pytest

from tests.support.attack import Person, demo, portal, sign_in
from tests.support.runner import LocalService, started_service
from tests.support.s3_post import error, post_form, presign, s3_client
from tests.support.writer_attack import names, object_body, sign_upload, stored
from tests.unit.objects.test_media_types import disposition_parameters

pytestmark = pytest.mark.attack

URL_SECONDS = 60
INVALID, PREFIX, FIELD = (400, "INVALID_PATH"), (403, "PREFIX_NOT_ALLOWED"), (400, "VALIDATION_ERROR")


@dataclass(frozen=True)
class Cast:
    owner_a: Person
    owner_b: Person
    a: dict[str, Any]  # the demo's workspaces: id, key, agents
    b: dict[str, Any]


@dataclass(frozen=True)
class Ticket:
    url: str
    fields: dict[str, str]
    path: str
    expires_at: str
    signed_at: float

    @property
    def key(self) -> str:
        return self.fields["key"]

    def policy(self) -> dict[str, Any]:
        decoded: dict[str, Any] = json.loads(base64.b64decode(self.fields["policy"]))
        return decoded


@pytest.fixture(scope="module")
def runner(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalService]:
    yield from started_service(
        tmp_path_factory.mktemp("upload-attack-state"), function_env={"UPLOAD_URL_SECONDS": str(URL_SECONDS)}
    )


@pytest.fixture(scope="module")
def cast(runner: LocalService) -> Cast:
    first, second = demo(runner)
    return Cast(sign_in(runner, first["ownerEmail"]), sign_in(runner, second["ownerEmail"]), first, second)


def ticket(runner: LocalService, person: Person, workspace: str, path: str, *, size: int = 10) -> Ticket:
    signed_at = time.time()
    reply = sign_upload(runner, person.jwt, workspace, path, size=size)
    assert reply.status == 201, reply.body
    answer = reply.json()
    return Ticket(answer["url"], answer["fields"], answer["path"], answer["expiresAt"], signed_at)


@pytest.fixture(scope="module", autouse=True)
def early_ticket(runner: LocalService, cast: Cast) -> Ticket:
    """Signed before this module's other tests, so its minute has run out by the last one."""
    return ticket(runner, cast.owner_a, cast.a["id"], "public/late.png")


# --- paths


def refused_paths(a: dict[str, Any], b: dict[str, Any]) -> dict[str, tuple[int, str]]:
    """Each path the writer must not sign, with the refusal it gets (``/v1/r2``'s own for a path the read plane
    would refuse as well)."""
    b_id, b_agent, a_agent = b["id"], b["agents"][0]["id"], a["agents"][0]["id"]
    return {
        "../x.png": INVALID,
        f"public/../../{b_id}/public/x.png": INVALID,
        f"public/../../../workspaces/{b_id}/public/x.png": INVALID,
        "public/./x.png": INVALID,
        "./public/x.png": INVALID,
        "public//x.png": INVALID,
        "public/": INVALID,
        "public/x.png/": INVALID,
        "public/x.png/.": INVALID,
        "public\\x.png": INVALID,
        f"public\\..\\..\\{b_id}\\public\\x.png": INVALID,
        "public/a\x00.png": INVALID,
        "public/a\x1b[2J.png": INVALID,
        "public/a\r\nX-Injected: 1.png": INVALID,
        "public/a\tb.png": INVALID,
        "public/a\x7f.png": INVALID,
        "/public/x.png": INVALID,
        f"/workspaces/{b_id}/public/x.png": INVALID,
        "public/" + "\u00e9" * 447: INVALID,  # 454 characters, 901 bytes of UTF-8: over S3's share of the key
        f"workspaces/{b_id}/public/x.png": PREFIX,
        f"%2e%2e/{b_id}/public/x.png": PREFIX,
        f"%2E%2E%2F{b_id}%2Fpublic%2Fx.png": PREFIX,
        f"public%2F..%2F..%2F{b_id}%2Fpublic%2Fx.png": PREFIX,
        f"%2Fworkspaces%2F{b_id}%2Fpublic%2Fx.png": PREFIX,
        "private/x.png": PREFIX,
        "billing/x.png": PREFIX,
        f"conversations/{a_agent}/x.json": PREFIX,
        "PUBLIC/x.png": PREFIX,
        "publicx/x.png": PREFIX,
        "\uff0e\uff0e/x.png": PREFIX,  # full-width dots are not dots, and not a prefix either
        f"projects/{b_agent}/x.png": FIELD,  # another workspace's agent: as unknown as one that does not exist
        "projects/prj_01AAAAAAAAAAAAAAAAAAAAAAAA/x.png": FIELD,
        "projects/../x.png": INVALID,
        "projects/x.png": FIELD,
        f"projects/{a_agent}": FIELD,
        "public/" + "a" * 894: FIELD,  # 901 characters
        "": FIELD,
    }


def test_paths_off_the_rules_are_refused_and_nothing_is_signed(runner: LocalService, cast: Cast) -> None:
    cases = refused_paths(cast.a, cast.b)
    before = stored(runner)
    found, bodies = {}, {}
    for path, _ in cases.items():
        reply = sign_upload(runner, cast.owner_a.jwt, cast.a["id"], path)
        found[path] = (reply.status, reply.json()["code"])
        bodies[path] = reply.body
    assert found == cases
    assert before.changes(stored(runner)) == []  # no upload record, no audit entry, no object
    # Another workspace's agent folder is refused exactly as an unknown agent's: nothing says it exists.
    b_agent = cast.b["agents"][0]["id"]
    assert bodies[f"projects/{b_agent}/x.png"] == bodies["projects/prj_01AAAAAAAAAAAAAAAAAAAAAAAA/x.png"]


def test_another_owner_cannot_sign_into_as_workspace(runner: LocalService, cast: Cast) -> None:
    """B's owner asking A's workspace for a ticket, or its own for A's agent's folder: 404 / 400, nothing signed."""
    a_agent = cast.a["agents"][0]["id"]
    before = stored(runner)
    into_a = sign_upload(runner, cast.owner_b.jwt, cast.a["id"], f"projects/{a_agent}/media/img-01.jpg")
    assert (into_a.status, into_a.json()["code"]) == (404, "NOT_FOUND")
    own = sign_upload(runner, cast.owner_b.jwt, cast.b["id"], f"projects/{a_agent}/media/img-01.jpg")
    assert (own.status, own.json()["code"]) == FIELD
    assert before.changes(stored(runner)) == []


def own_storage_counted(changes: list[str], workspace_id: str) -> list[str]:
    """The changes less the uploader's own storage counter and its key records (issue 43: S3's event moves them), which
    must be the uploading workspace's and no other's."""
    own = (f"item ('WS#{workspace_id}', 'STORAGE')", f"item ('WS#{workspace_id}#OBJECTS', ")
    storage = [c for c in changes if "'STORAGE')" in c or "#OBJECTS', " in c]
    assert all(c.startswith(own) for c in storage), storage
    return [c for c in changes if c not in storage]


def test_percent_encodings_in_a_json_path_are_literal_names_in_the_workspace(runner: LocalService, cast: Cast) -> None:
    """A JSON body is not URL-decoded: ``%2e%2e`` and ``%2F`` in a path that starts with an allowed prefix are
    characters of one object's name under A's folder (S3 keys are not paths), as ``%252e`` is on ``/v1/r2``.
    The signed key is exactly A's prefix and that name; the file lands there and nowhere else."""
    b_id = cast.b["id"]
    for path in (f"public/%2e%2e/%2e%2e/{b_id}/public/x.png", f"public/a%2F..%2F..%2F{b_id}%2Fx.png"):
        signed = ticket(runner, cast.owner_a, cast.a["id"], path)
        assert signed.path == path and signed.key == f"workspaces/{cast.a['id']}/{path}"
        assert {"key": signed.key} in signed.policy()["conditions"]
        before = stored(runner)
        assert post_form(signed.url, signed.fields, b"0123456789").status_code == 204
        added = own_storage_counted(before.changes(stored(runner)), cast.a["id"])
        assert len(added) == 1 and added[0].startswith(f"object version ('{signed.key}', "), added


def test_a_c1_control_character_in_a_path_is_refused(runner: LocalService, cast: Cast) -> None:
    before = stored(runner)
    found = {path: sign_upload(runner, cast.owner_a.jwt, cast.a["id"], path).status
             for path in ("public/a\u0085.png", "public/a\u009b2J.png", "public/a\u0080.png")}  # fmt: skip
    assert found == dict.fromkeys(found, 400)
    assert before.changes(stored(runner)) == []


def test_a_control_character_at_either_end_of_a_path_is_refused(runner: LocalService, cast: Cast) -> None:
    before = stored(runner)
    found = {path: sign_upload(runner, cast.owner_a.jwt, cast.a["id"], path).status
             for path in ("public/x.png\n", "\tpublic/x.png", "public/x.png\r\n", " \x0bpublic/x.png")}  # fmt: skip
    assert found == dict.fromkeys(found, 400)
    assert before.changes(stored(runner)) == []


# --- a valid ticket, bent


def b64(document: dict[str, Any]) -> str:
    return base64.b64encode(json.dumps(document).encode()).decode()


def test_a_ticket_stores_only_the_file_it_was_signed_for(runner: LocalService, cast: Cast) -> None:
    """One ticket for ``public/ticket.png`` (image/png, 10 bytes), posted as a browser would with one thing
    changed each time: each is S3's refusal, and nothing lands anywhere (the whole bucket and table compared)."""
    signed = ticket(runner, cast.owner_a, cast.a["id"], "public/ticket.png")
    url, fields, good = signed.url, signed.fields, b"0123456789"
    a_id, b_id, bucket = cast.a["id"], cast.b["id"], names(runner)[1]
    attacker_bucket = "attacker-uploads"
    runner.aws("s3").create_bucket(Bucket=attacker_bucket)
    policy = signed.policy()
    wider = policy | {"conditions": [c if not isinstance(c, list) else ["content-length-range", 0, 10**9]
                                     for c in policy["conditions"]]}  # fmt: skip
    later = policy | {"expiration": "2099-01-01T00:00:00Z"}
    to_b = {**policy, "conditions": [{"key": f"workspaces/{b_id}/public/x.png"} if isinstance(c, dict) and "key" in c
                                     else c for c in policy["conditions"]]}  # fmt: skip
    guessed = presign(s3_client(url.rsplit("/", 1)[0], secret="guessed"), bucket, signed.key, "image/png", 10)
    other = ticket(runner, cast.owner_b, b_id, "public/other.png")
    flipped = ("0" if fields["x-amz-signature"][0] != "0" else "1") + fields["x-amz-signature"][1:]
    without = {name: value for name, value in fields.items() if name != "x-amz-signature"}
    no_type = {name: value for name, value in fields.items() if name != "Content-Type"}
    # name: (url, fields, file, expected status, S3 code)
    cases: dict[str, tuple[str, dict[str, str], bytes | None, int, str]] = {
        "larger": (url, fields, good + b"!", 400, "EntityTooLarge"),
        "much larger": (url, fields, good * 100_000, 400, "EntityTooLarge"),
        "smaller": (url, fields, good[:-1], 400, "EntityTooSmall"),
        "empty": (url, fields, b"", 400, "EntityTooSmall"),
        "no file": (url, fields, None, 400, "InvalidArgument"),
        "type text/html": (url, fields | {"Content-Type": "text/html"}, good, 403, "AccessDenied"),
        "type image/svg+xml": (url, fields | {"Content-Type": "image/svg+xml"}, good, 403, "AccessDenied"),
        "type image/png;html": (url, fields | {"Content-Type": "image/png; text/html"}, good, 403, "AccessDenied"),
        "no type": (url, no_type, good, 403, "AccessDenied"),
        "key in B": (url, fields | {"key": f"workspaces/{b_id}/public/ticket.png"}, good, 403, "AccessDenied"),
        "key beside": (url, fields | {"key": f"workspaces/{a_id}/public/other.png"}, good, 403, "AccessDenied"),
        "key under": (url, fields | {"key": signed.key + "/x"}, good, 403, "AccessDenied"),
        "key ${filename}": (url, fields | {"key": f"workspaces/{a_id}/public/${{filename}}"}, good, 403,
                            "AccessDenied"),
        "key traversal": (url, fields | {"key": f"{signed.key}/../../../{b_id}/x.png"}, good, 403, "AccessDenied"),
        "other bucket": (url.replace(f"/{bucket}", f"/{attacker_bucket}"), fields, good, 403, "AccessDenied"),
        "acl": (url, fields | {"acl": "public-read"}, good, 403, "AccessDenied"),
        "metadata": (url, fields | {"x-amz-meta-owner": "mallory"}, good, 403, "AccessDenied"),
        "redirect": (url, fields | {"success_action_redirect": "https://evil.example/"}, good, 403, "AccessDenied"),
        "disposition": (url, fields | {"Content-Disposition": "inline; filename=x.html"}, good, 403, "AccessDenied"),
        "cache-control": (url, fields | {"Cache-Control": "public, max-age=31536000"}, good, 403, "AccessDenied"),
        "website redirect": (url, fields | {"x-amz-website-redirect-location": "/evil"}, good, 403, "AccessDenied"),
        "tagging": (url, fields | {"tagging": "<Tagging/>"}, good, 403, "AccessDenied"),
        "signature flipped": (url, fields | {"x-amz-signature": flipped}, good, 403, "SignatureDoesNotMatch"),
        "signature missing": (url, without, good, 400, "InvalidArgument"),
        "policy wider": (url, fields | {"policy": b64(wider)}, good * 100, 403, "SignatureDoesNotMatch"),
        "policy later": (url, fields | {"policy": b64(later)}, good, 403, "SignatureDoesNotMatch"),
        "policy to B": (url, fields | {"policy": b64(to_b), "key": f"workspaces/{b_id}/public/x.png"}, good, 403,
                        "SignatureDoesNotMatch"),
        "B's policy": (url, fields | {"policy": other.fields["policy"]}, good, 403, "SignatureDoesNotMatch"),
        "guessed secret": (url, fields | {"policy": guessed["fields"]["policy"],
                                          "x-amz-signature": guessed["fields"]["x-amz-signature"]}, good, 403,
                           "SignatureDoesNotMatch"),
        "unknown access key": (url, fields | {"x-amz-credential": "AKIAMALLORY" + fields["x-amz-credential"][5:]},
                               good, 403, "InvalidAccessKeyId"),
        "date moved": (url, fields | {"x-amz-date": "20991231T000000Z"}, good, 403, "AccessDenied"),
    }  # fmt: skip
    before = stored(runner)
    found = {}
    for name, (target, sent, file, _, _) in cases.items():
        answer = post_form(target, sent, file)
        found[name] = (answer.status_code, error(answer).code if answer.status_code >= 300 else "")
    assert found == {name: (status, code) for name, (_, _, _, status, code) in cases.items()}
    assert before.changes(stored(runner)) == []
    assert runner.aws("s3").list_objects_v2(Bucket=attacker_bucket)["KeyCount"] == 0
    # And the ticket itself still works: its file, at its key, of its type.
    assert post_form(url, fields, good).status_code == 204
    assert object_body(runner, signed.key) == good
    head = runner.aws("s3").head_object(Bucket=bucket, Key=signed.key)
    assert (head["ContentType"], head["ContentLength"]) == ("image/png", 10)


def test_a_ticket_used_twice_overwrites_its_own_key_and_nothing_else(runner: LocalService, cast: Cast) -> None:
    """S3 lets a POST policy be used again until it expires (as the runner does): the second file replaces the
    first at the same key (one more version). Nothing else is written, and neither post touches the table."""
    signed = ticket(runner, cast.owner_a, cast.a["id"], "public/twice.png")
    before = stored(runner)
    assert post_form(signed.url, signed.fields, b"first-one!").status_code == 204
    assert post_form(signed.url, signed.fields, b"second-one").status_code == 204
    added = own_storage_counted(before.changes(stored(runner)), cast.a["id"])
    assert len(added) == 2 and all(line.startswith(f"object version ('{signed.key}', ") for line in added), added
    assert object_body(runner, signed.key) == b"second-one"


def test_a_filename_variable_in_a_path_cannot_widen_the_ticket(runner: LocalService, cast: Cast) -> None:
    """A ticket must pin one key. Signed for ``public/${filename}``, it takes any key under ``public/``: the
    file's own name (S3 puts it in place of ``${filename}``) or a key field the client rewrote. The storage counted
    at signing is one file's; names the path rules refuse (``..``, ``.``, empty segments) land where the API can
    neither read nor delete them (``DELETE …/objects/{path}`` answers 400 INVALID_PATH for them)."""
    a_id = cast.a["id"]
    before = stored(runner)
    reply = sign_upload(runner, cast.owner_a.jwt, a_id, "public/${filename}")
    if reply.status == 201:
        signed = reply.json()
        for name in ("one.png", ".."):
            post_form(signed["url"], signed["fields"], b"0123456789", filename=name)
        for key in ("public/deeper/two.png", "public/./x/../three.png", "public//four.png"):
            post_form(signed["url"], signed["fields"] | {"key": f"workspaces/{a_id}/{key}"}, b"0123456789")
    landed = {key for key in stored(runner).objects() - before.objects() if key.startswith(f"workspaces/{a_id}/")}
    assert landed <= {f"workspaces/{a_id}/public/${{filename}}"}, sorted(landed)


def test_html_bytes_under_an_image_type_are_served_as_that_type_and_not_sniffed(
    runner: LocalService, cast: Cast
) -> None:
    """S3 does not look inside a file: a ticket for image/png takes any 10 bytes, markup included. The read
    plane serves it with its signed type and ``nosniff``, so a browser never runs it as a page of the API."""
    markup = b"<script>1</"
    signed = ticket(runner, cast.owner_a, cast.a["id"], "public/sniff.png", size=len(markup))
    assert post_form(signed.url, signed.fields, markup).status_code == 204
    served = runner.brain_get("/v1/r2/public/sniff.png", cast.a["key"])
    assert served.status == 200 and served.body == markup
    assert (served.header("content-type"), served.header("x-content-type-options")) == ("image/png", "nosniff")


# Documents of the amended contract, each holding markup (S3 never looks), under a name a browser would take for a
# page, or one that tries to end Content-Disposition's filename and add its own parameter.
DOCUMENT_NAMES = {
    "public/docs/page.html": "application/octet-stream",
    "public/docs/report.docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    "public/docs/sheet.xls": "application/vnd.ms-excel",
    "public/docs/book.epub": "application/epub+zip",
    "public/docs/site.zip": "application/zip",
    "public/docs/paper.pdf": "application/pdf",
    "public/docs/data.json": "application/json",
    'public/docs/a"; filename="evil.html': "application/msword",
    "public/docs/r\u00e9sum\u00e9 %22final%22.odt": "application/vnd.oasis.opendocument.text",
}


def test_documents_are_served_as_attachments_and_never_sniffed(runner: LocalService, cast: Cast) -> None:
    """The amended contract takes documents, archives and octet-stream: a ticket for any of them stores any bytes,
    markup included. The read plane serves each with its signed type, ``nosniff`` and ``Content-Disposition:
    attachment`` named by the key (a plain ``filename`` of safe ASCII, the exact name in ``filename*``), so a
    browser downloads it rather than opening it at the API's origin, whatever the key's name holds."""
    markup = b"<html><script>alert(document.domain)</script></html>"
    for path, content_type in DOCUMENT_NAMES.items():
        reply = sign_upload(runner, cast.owner_a.jwt, cast.a["id"], path, content_type=content_type, size=len(markup))
        assert reply.status == 201, reply.body
        assert post_form(reply.json()["url"], reply.json()["fields"], markup).status_code == 204, path
    served = {}
    for path in DOCUMENT_NAMES:
        got = runner.brain_get(f"/v1/r2/{quote(path)}", cast.a["key"])
        disposition = got.header("content-disposition") or ""
        kind, parameters = disposition_parameters(disposition)
        served[path] = (got.status, got.header("content-type"), got.header("x-content-type-options"), got.body,
                        kind, parameters.get("filename*", parameters.get("filename")),
                        disposition.isascii() and disposition.isprintable())  # fmt: skip
    assert served == {path: (200, content_type, "nosniff", markup, "attachment", path.rsplit("/", 1)[-1], True)
                      for path, content_type in DOCUMENT_NAMES.items()}  # fmt: skip


def test_a_ticket_past_its_expiry_stores_nothing(runner: LocalService, cast: Cast, early_ticket: Ticket) -> None:
    """The module's first ticket, a minute old now (``UPLOAD_URL_SECONDS=60``): S3 refuses it, nothing lands."""
    expires = datetime.fromisoformat(early_ticket.expires_at)
    assert abs(expires.timestamp() - (early_ticket.signed_at + URL_SECONDS)) < 5
    assert abs(datetime.fromisoformat(early_ticket.policy()["expiration"]).timestamp() - expires.timestamp()) <= 1
    time.sleep(max(0.0, expires.timestamp() + 1 - time.time()))
    before = stored(runner)
    late = post_form(early_ticket.url, early_ticket.fields, b"0123456789")
    refused = error(late)
    assert (refused.status, refused.code) == (403, "AccessDenied") and "expired" in refused.message
    assert before.changes(stored(runner)) == []
    # A ticket signed now still works: the refusal was the expiry, not the form.
    fresh = ticket(runner, cast.owner_a, cast.a["id"], "public/late.png")
    assert post_form(fresh.url, fresh.fields, b"0123456789").status_code == 204
    assert datetime.now(UTC) < datetime.fromisoformat(fresh.expires_at)


# --- storage


def test_signing_a_path_again_frees_nothing_while_its_first_ticket_can_store(runner: LocalService) -> None:
    """Issue 25, hole 1, as found: on the free plan (500 MiB), ``public/old.png`` signed at 1 MiB, then 499 MiB of
    other paths, then ``old.png`` again at 0 B. The new signing replaced the first one's reservation, so 1 MiB more
    was granted (``extra.png``), while the first ticket could still store its 1 MiB: 501 MiB stored, and each
    round freed everything again. Every ticket counts until it expires or its object is seen."""
    mib = 1024 * 1024
    owner = sign_in(runner, "storage.hole@attack.example")
    created = portal(runner, "POST", "/api/workspaces", owner.jwt, {"name": "Storage hole"})
    assert created.status == 201, created.body
    workspace = created.json()["workspace"]["id"]
    first = ticket(runner, owner, workspace, "public/old.png", size=mib)
    for n in range(19):  # the free plan's objects are at most 25 MiB: 19 of them and one of 24 MiB fill it
        ticket(runner, owner, workspace, f"public/fill-{n}.png", size=25 * mib)
    ticket(runner, owner, workspace, "public/fill-last.png", size=24 * mib)
    full = sign_upload(runner, owner.jwt, workspace, "public/one-more.png", size=1)
    assert (full.status, full.json()["code"]) == (402, "STORAGE_LIMIT_REACHED")
    ticket(runner, owner, workspace, "public/old.png", size=0)  # fits: old.png holds at most 1 MiB either way
    extra = sign_upload(runner, owner.jwt, workspace, "public/extra.png", size=mib)
    assert (extra.status, extra.json()["code"]) == (402, "STORAGE_LIMIT_REACHED"), extra.body
    assert post_form(first.url, first.fields, b"o" * mib).status_code == 204  # the first ticket still stores
