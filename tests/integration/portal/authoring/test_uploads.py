"""Uploads (authoring.md, "Objects and uploads"): a presigned S3 POST whose policy pins the exact key, the content
type and the size and expires within 15 minutes; paths refused exactly as ``/v1/r2`` refuses them; 402
STORAGE_LIMIT_REACHED over the plan's object size or its storage (stored objects plus signed, unlanded uploads),
exact under concurrent signings.

The policy is checked with the local runner's reading of S3's POST rules (``local.aws.s3_post.conditions``), and the
form posted for real to moto's S3 (``requests``, which moto intercepts in process).
"""

from __future__ import annotations

import base64
import json
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
import requests

from core.platform.settings import MIB, PLAN_LIMITS, PlanLimits, get_settings
from local.aws.s3_post.conditions import check_conditions, read_policy
from local.aws.s3_post.form import Refusal
from tests.support.authoring import Studio, at_once
from tests.support.portal import Portal, assert_error
from tests.support.r2 import get as r2_get
from tests.support.storage import landed
from tests.unit.objects.test_media_types import DOCUMENTS, MEDIA, TEXT

SIGN = "PortalUploadCreateFunction"
OBJECT_BYTES, STORAGE_BYTES = 100, 250


@pytest.fixture
def studio(portal: Portal) -> Studio:
    return Studio.open(portal)


@pytest.fixture
def small_plan(monkeypatch: pytest.MonkeyPatch) -> None:
    """The owner's plan (pro) stores objects of at most 100 bytes, 250 in all."""
    monkeypatch.setitem(PLAN_LIMITS, "pro", PLAN_LIMITS["pro"].model_copy(
        update={"object_bytes": OBJECT_BYTES, "storage_bytes": STORAGE_BYTES}))  # fmt: skip


def sign(studio: Studio, path: str, size: int, content_type: str = "image/png") -> Any:
    return studio.call(SIGN, body={"path": path, "contentType": content_type, "size": size})


def signed(studio: Studio, path: str, size: int, content_type: str = "image/png") -> dict[str, Any]:
    ticket: dict[str, Any] = studio.ok(SIGN, 201, body={"path": path, "contentType": content_type, "size": size})
    return ticket


def upload(ticket: dict[str, Any], body: bytes) -> requests.Response:
    """The browser's POST: the fields, then the file."""
    return requests.post(ticket["url"], data=ticket["fields"], files={"file": ("upload", body)}, timeout=10)


def s3_verdict(ticket: dict[str, Any], *, size: int, **changed: str) -> str:
    """What S3's POST rules say of this ticket's form (``changed`` fields swapped in) and a file of ``size``."""
    _, conditions = read_policy(ticket["fields"]["policy"])
    values = {name.lower(): value for name, value in (ticket["fields"] | changed).items()}
    try:
        check_conditions(conditions, values, {name: name for name in values}, bucket=get_settings().content_bucket,
                         size=size)  # fmt: skip
    except Refusal as refusal:
        return refusal.code
    return "ok"


def test_the_policy_pins_the_key_the_type_and_the_size(studio: Studio) -> None:
    before = datetime.now(UTC)
    ticket = signed(studio, "assets/logo.png", 5)
    assert set(ticket) == {"url", "fields", "path", "expiresAt"} and ticket["path"] == "assets/logo.png"
    key = f"workspaces/{studio.workspace_id}/assets/logo.png"
    assert ticket["fields"]["key"] == key and ticket["fields"]["Content-Type"] == "image/png"
    policy = json.loads(base64.b64decode(ticket["fields"]["policy"]))
    assert {"key": key} in policy["conditions"] and {"Content-Type": "image/png"} in policy["conditions"]
    assert ["content-length-range", 5, 5] in policy["conditions"]
    assert {"bucket": get_settings().content_bucket} in policy["conditions"]
    assert not [c for c in policy["conditions"] if isinstance(c, list) and c[0] == "starts-with"]
    expiration = datetime.fromisoformat(policy["expiration"])
    assert before < expiration <= before + timedelta(minutes=15, seconds=1)
    expires_at = datetime.fromisoformat(ticket["expiresAt"])
    assert abs(expires_at - expiration) < timedelta(seconds=2) and ticket["expiresAt"].endswith("Z")
    # S3's rules: only this key, this type and exactly five bytes.
    assert s3_verdict(ticket, size=5) == "ok"
    assert s3_verdict(ticket, size=6) == "EntityTooLarge" and s3_verdict(ticket, size=4) == "EntityTooSmall"
    assert s3_verdict(ticket, size=5, key=key.replace("logo", "other")) == "AccessDenied"
    assert s3_verdict(ticket, size=5, **{"Content-Type": "text/html"}) == "AccessDenied"
    # And the form works: the object lands where it was signed, with its type.
    assert upload(ticket, b"12345").status_code == 204
    listed = studio.ok("PortalObjectsListFunction")["objects"]
    assert [(o["path"], o["size"], o["contentType"]) for o in listed] == [("assets/logo.png", 5, "image/png")]


def test_a_path_is_refused_exactly_as_the_read_plane_refuses_it(studio: Studio) -> None:
    key = studio.portal.mint_key(studio.who, studio.workspace_id)["key"]
    cases = {  # the path as JSON sends it: (as the URL carries it, the code both answer)
        "../etc/passwd": ("../etc/passwd", "INVALID_PATH"),
        "/assets/a.png": ("/assets/a.png", "INVALID_PATH"),
        "assets//a.png": ("assets//a.png", "INVALID_PATH"),
        "assets/./a.png": ("assets/./a.png", "INVALID_PATH"),
        "assets/../a.png": ("assets/%2e%2e/a.png", "INVALID_PATH"),
        "assets\\a.png": ("assets%5ca.png", "INVALID_PATH"),
        "assets/a\x01.png": ("assets/a%01.png", "INVALID_PATH"),
        "assets/": ("assets/", "INVALID_PATH"),
        "conversations/thr_1/turn.json": ("conversations/thr_1/turn.json", "PREFIX_NOT_ALLOWED"),
        "private/a.png": ("private/a.png", "PREFIX_NOT_ALLOWED"),
        "billing/a.png": ("billing/a.png", "PREFIX_NOT_ALLOWED"),
        "assetsx/a.png": ("assetsx/a.png", "PREFIX_NOT_ALLOWED"),
    }
    found: dict[str, tuple[int, str, int, str]] = {}
    entries = studio.audit()
    for path, (url_path, _) in cases.items():
        writer = sign(studio, path, 5)
        reader = r2_get(url_path, headers={"Authorization": f"Bearer {key}"})
        found[path] = (writer.status, writer.json()["code"], reader.status, reader.json()["code"])
    assert found == {path: ((400, code, 400, code) if code == "INVALID_PATH" else (403, code, 403, code))
                     for path, (_, code) in cases.items()}  # fmt: skip
    assert studio.audit() == entries and studio.object_paths() == []


def test_a_projects_path_names_an_agent_of_this_workspace(studio: Studio) -> None:
    mine = studio.agent("Mine")
    rival = Studio(studio.portal, studio.who, studio.portal.create_workspace(studio.who, "Rival")["id"])
    theirs = rival.agent("Theirs")
    for path in (f"projects/{theirs['id']}/a.png", "projects/prj_01NOSUCH/a.png", f"projects/{mine['id']}",
                 "projects/not an id/a.png", f"projects/{mine['id']}x/a.png"):  # fmt: skip
        refused = sign(studio, path, 5)
        assert_error(refused, 400, "VALIDATION_ERROR")
        assert refused.json()["error"].startswith("path: "), path
    assert signed(studio, f"projects/{mine['id']}/media/a.png", 5)["path"] == f"projects/{mine['id']}/media/a.png"


REFUSED: list[tuple[dict[str, Any], str]] = [  # (body, the field the 400 names)
    ({"path": "assets/a.png", "contentType": "text/html", "size": 5}, "contentType"),
    ({"path": "assets/a.png", "contentType": "image/svg+xml", "size": 5}, "contentType"),
    ({"path": "assets/a.png", "contentType": "application/javascript", "size": 5}, "contentType"),
    ({"path": "assets/a.png", "contentType": "image/png; charset=latin1", "size": 5}, "contentType"),
    ({"path": "assets/a.png", "contentType": "image/png", "size": -1}, "size"),
    ({"path": "assets/a.png", "contentType": "image/png", "size": "5"}, "size"),
    ({"path": "assets/a.png", "contentType": "image/png", "size": 5 * 1024**3 + 1}, "size"),
    ({"path": "", "contentType": "image/png", "size": 5}, "path"),
    ({"path": "a" * 901, "contentType": "image/png", "size": 5}, "path"),
    ({"contentType": "image/png", "size": 5}, "path"),
    ({"path": "assets/a.png", "size": 5}, "contentType"),
    ({"path": "assets/a.png", "contentType": "image/png"}, "size"),
    ({"path": "assets/a.png", "contentType": "image/png", "size": 5, "key": "x"}, "key"),
]


def test_a_bad_body_is_refused_naming_the_field(studio: Studio) -> None:
    named = {}
    for body, field in REFUSED:
        refused = studio.call(SIGN, body=body)
        assert_error(refused, 400, "VALIDATION_ERROR")
        named[field] = refused.json()["error"].split(": ", 1)[0]
    assert named == {field: field for _, field in REFUSED}
    assert studio.ok(SIGN, 201, body={"path": "assets/a.md", "contentType": "text/markdown; charset=utf-8",
                                      "size": 0})["path"] == "assets/a.md"  # fmt: skip


def test_every_type_of_the_contract_is_signed_and_served_as_it_should_be(studio: Studio) -> None:
    """The amended contract's types: media, text, PDF, JSON, office documents (Word, Excel, PowerPoint,
    OpenDocument), EPUB, ZIP and octet-stream are signed (a Word, Excel or octet-stream file was a 400 before), each
    ticket pinning its type; what lands is served by ``/v1/r2`` as signed, with ``nosniff``, and as an attachment
    unless it is media or text."""
    key = studio.portal.mint_key(studio.who, studio.workspace_id)["key"]
    paths = {f"assets/types/{n}.bin": content_type for n, content_type in enumerate(MEDIA + TEXT + DOCUMENTS)}
    found, served = {}, {}
    for path, content_type in paths.items():
        reply = sign(studio, path, 3, content_type)
        ticket = reply.json()
        found[content_type] = (reply.status, ticket.get("fields", {}).get("Content-Type"))
        if reply.status != 201:
            continue
        assert s3_verdict(ticket, size=3, **{"Content-Type": "text/html"}) == "AccessDenied"
        assert upload(ticket, b"abc").status_code == 204, path
        read = r2_get(path, headers={"Authorization": f"Bearer {key}"})
        served[content_type] = (read.status, read.header("Content-Type"), read.header("Content-Disposition"),
                                read.header("X-Content-Type-Options"), read.body)  # fmt: skip
    assert found == {t: (201, t) for t in paths.values()}
    name = {t: path.rsplit("/", 1)[-1] for path, t in paths.items()}
    assert served == {t: (200, t, None if t in MEDIA + TEXT else f'attachment; filename="{name[t]}"', "nosniff",
                          b"abc") for t in paths.values()}  # fmt: skip


# --- the plan's limits


@pytest.mark.usefixtures("small_plan")
def test_an_object_over_the_plans_size_is_refused(studio: Studio) -> None:
    refused = sign(studio, "assets/big.png", OBJECT_BYTES + 1)
    assert_error(refused, 402, "STORAGE_LIMIT_REACHED")
    assert refused.json()["error"].startswith("size: ")
    assert signed(studio, "assets/fits.png", OBJECT_BYTES)["path"] == "assets/fits.png"


def test_refusals_give_sizes_in_mb_and_name_the_plan(studio: Studio, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 41: a refusal named raw bytes and no plan ("at most 26214400 bytes"); the code stays."""
    refused = sign(studio, "assets/film.mp4", 600 * MIB, "video/mp4")  # the owner's plan is pro: 500 MB objects
    assert_error(refused, 402, "STORAGE_LIMIT_REACHED")
    said = refused.json()["error"]
    assert said.startswith("size: 600.0 MB is over the pro plan's object size of 500.0 MB."), said
    assert "set-plan" in said  # how the plan is raised
    monkeypatch.setitem(PLAN_LIMITS, "pro", PLAN_LIMITS["pro"].model_copy(
        update={"object_bytes": 30 * MIB, "storage_bytes": 40 * MIB}))  # fmt: skip
    signed(studio, "assets/a.mp4", 25 * MIB, "video/mp4")
    refused = sign(studio, "assets/b.mp4", 31 * MIB + MIB // 2, "video/mp4")
    assert refused.json()["error"].startswith("size: 31.5 MB is over the pro plan's object size of 30.0 MB.")
    refused = sign(studio, "assets/b.mp4", 25 * MIB, "video/mp4")
    assert_error(refused, 402, "STORAGE_LIMIT_REACHED")
    assert refused.json()["error"].startswith("size: the workspace would hold 50.0 MB, over the pro plan's storage "
                                              "of 40.0 MB."), refused.json()  # fmt: skip


@pytest.mark.usefixtures("small_plan")
def test_storage_counts_stored_objects_and_signed_uploads_once_each(studio: Studio) -> None:
    studio.put_object("assets/a.png", b"a" * 100, "image/png")  # stored: 100
    landed(studio.portal.aws.s3, studio.workspace_id, "assets/a.png")  # S3's notification counts it
    b = signed(studio, "assets/b.png", 100)  # signed, not landed: 200
    assert_error(sign(studio, "assets/c.png", 60), 402, "STORAGE_LIMIT_REACHED")  # 260 > 250
    signed(studio, "assets/c.png", 50)  # 250: exactly the plan
    assert_error(sign(studio, "assets/d.png", 1), 402, "STORAGE_LIMIT_REACHED")
    signed(studio, "assets/c.png", 50)  # c signed again: one object stays at a path, so c counts 50 once
    big_a = signed(studio, "assets/a.png", 100)  # a replaced by as much: nothing more
    assert upload(b, b"b" * 100).status_code == 204  # b lands: counted once, by the counter
    landed(studio.portal.aws.s3, studio.workspace_id, "assets/b.png")
    studio.ok("PortalObjectDeleteFunction", path="assets/a.png")  # a's object goes, but not its re-signing,
    # which now adds its 100 over nothing: b 100 (landed) + c 50 + a 100 = 250.
    assert_error(sign(studio, "assets/d.png", 1), 402, "STORAGE_LIMIT_REACHED")
    small_a = signed(studio, "assets/a.png", 0)  # a signed again, smaller: a's 100-byte ticket can still store,
    assert_error(sign(studio, "assets/d.png", 1), 402, "STORAGE_LIMIT_REACHED")  # so it frees nothing (issue 25)
    assert upload(small_a, b"").status_code == 204  # the empty a lands: the 100-byte ticket can still replace it
    landed(studio.portal.aws.s3, studio.workspace_id, "assets/a.png")
    assert_error(sign(studio, "assets/d.png", 1), 402, "STORAGE_LIMIT_REACHED")
    assert upload(big_a, b"a" * 100).status_code == 204  # and it does: 250, as counted all along
    landed(studio.portal.aws.s3, studio.workspace_id, "assets/a.png")
    assert_error(sign(studio, "assets/d.png", 1), 402, "STORAGE_LIMIT_REACHED")
    studio.ok("PortalObjectDeleteFunction", path="assets/b.png")  # b's landed 100 bytes go (its ticket only
    assert signed(studio, "assets/d.png", 0)["path"] == "assets/d.png"  # stores them again): 0 more fits, 1 not
    assert_error(sign(studio, "assets/e.png", 1), 402, "STORAGE_LIMIT_REACHED")


@pytest.mark.usefixtures("small_plan")
def test_concurrent_signings_cannot_together_exceed_the_storage(studio: Studio) -> None:
    studio.put_object("assets/stored.png", b"s" * 10, "image/png")  # 240 left: four of 60
    landed(studio.portal.aws.s3, studio.workspace_id, "assets/stored.png")
    studio.ok("PortalObjectsListFunction")  # a warm container

    def attempt(n: int) -> tuple[int, str]:
        answer = studio.call_in_container(SIGN, body={"path": f"assets/{n}.png", "contentType": "image/png",
                                                      "size": 60})  # fmt: skip
        return answer.status, answer.json().get("code", "")

    results = at_once(8, attempt)
    granted = [r for r in results if r[0] == 201]
    assert set(results) <= {(201, ""), (402, "STORAGE_LIMIT_REACHED"), (409, "CONFLICT")}, results
    assert 10 + 60 * len(granted) <= STORAGE_BYTES and granted, results
    if (409, "CONFLICT") not in results:  # none gave up on the line: exactly what fits was granted
        assert len(granted) == 4, results
    signable = (STORAGE_BYTES - 10 - 60 * len(granted)) // 60
    for n in range(signable):
        signed(studio, f"assets/late-{n}.png", 60)
    assert_error(sign(studio, "assets/over.png", 60), 402, "STORAGE_LIMIT_REACHED")


def test_signings_that_all_fit_are_all_granted_however_many_race(studio: Studio) -> None:
    """A publish signs its uploads several at a time: when every one fits the plan, none may be refused for losing
    the race to the workspace's storage counter (a fresh clone's CLI publish once got a 409 CONFLICT here)."""
    studio.ok("PortalObjectsListFunction")  # a warm container

    def attempt(n: int) -> tuple[int, str]:
        answer = studio.call_in_container(SIGN, body={"path": f"assets/{n}.png", "contentType": "image/png",
                                                      "size": 60})  # fmt: skip
        return answer.status, answer.json().get("code", "")

    assert at_once(32, attempt) == [(201, "")] * 32


@pytest.mark.usefixtures("small_plan")
def test_a_signing_that_never_gets_its_turn_gives_up_by_its_time_bound(studio: Studio) -> None:
    """A signing whose every turn is lost (another signing always wrote the counter first) is refused once its time
    bound is over, however many turns that was, and reserves nothing: the plan's 250 bytes still take four of 60."""
    from core.objects import upload_store, uploads

    tries: list[int] = []

    def lose(self: upload_store.UploadStore, *args: Any, **kwargs: Any) -> bool:
        tries.append(1)
        return False

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(uploads, "SIGNING_SECONDS", 0.3)
        patch.setattr(upload_store.UploadStore, "reserve", lose)
        assert_error(sign(studio, "assets/lost.png", 60), 409, "CONFLICT")
    assert len(tries) >= 2  # it took turns until the bound, not once
    for n in range(4):
        signed(studio, f"assets/{n}.png", 60)
    assert_error(sign(studio, "assets/over.png", 60), 402, "STORAGE_LIMIT_REACHED")


def test_the_plan_is_the_owners(portal: Portal, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(PLAN_LIMITS, "free", PlanLimits.model_validate(PLAN_LIMITS["free"].model_dump() | {
        "object_bytes": 10}))  # fmt: skip
    studio = Studio.open(portal, plan="free")
    admin = studio.member("admin@example.com", role="admin")
    portal.users.set_plan(admin.who.user_id, "business")
    assert_error(sign(admin, "assets/a.png", 11), 402, "STORAGE_LIMIT_REACHED")
    assert signed(admin, "assets/a.png", 10)["path"] == "assets/a.png"
