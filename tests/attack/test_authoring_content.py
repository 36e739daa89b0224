"""What an author writes, attacked over HTTP: posts and items naming another workspace's objects, documents and
bodies over their limits, markup in every text field, upload types a browser would run, and an
``Idempotency-Key`` reused by someone else.

Controls: media keys are agent-relative and looked up under the agent's own folder when a post is published
(``services/authoring/posts.py``), an item's ``r2Key`` must be under ``projects/<agentId>/`` and exist
(``services/authoring/items.py``), both follow the r2 path rules (``core/objects/paths.py``); documents are at most
64 KiB of compact JSON (``models/authoring/fields.py``) and a body at most 256 KiB (``core/http.py``); text is
stored as sent and served as JSON (the widget puts it in ``textContent``); upload types are an allowlist
(``UPLOAD_TYPES``); idempotency records are scoped to the caller (``services/authoring/writes.py``).

The author is A's owner in a workspace of its own made here (W, with one agent X), so the demo's data stays as
the other attack modules expect it; B is the demo's other workspace.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

import pytest

from core.objects.media_types import UPLOAD_TYPES
from tests.support.attack import Cast, Person, add_member, demo, portal, sign_in
from tests.support.load import upload_object
from tests.support.runner import LocalService, Reply
from tests.support.s3_post import JPEG, post_form, presign, s3_client
from tests.support.writer_attack import compact_size, names, sign_upload, stored
from tests.unit.objects.test_media_types import DOCUMENTS, MEDIA, RUNNABLE, TEXT

pytestmark = pytest.mark.attack

# Three classic payloads in one string (77 characters: it fits every text field, names included).
HOSTILE = '<script>alert(1)</script><img src=x onerror=alert(2)>"><svg onload=alert(3)>'
DOCUMENT_BYTES, BODY_BYTES = 64 * 1024, 256 * 1024


@dataclass(frozen=True)
class Studio:
    """W (a workspace of A's owner made for this module), its agent X with one image of its own, and W's key."""

    service: LocalService
    owner: Person
    workspace: str
    agent: str
    key: str
    b: dict[str, Any]  # the demo's workspace B (id, key, agents)

    @property
    def ws(self) -> str:
        return f"/api/workspaces/{self.workspace}"

    @property
    def x(self) -> str:
        return f"{self.ws}/agents/{self.agent}"

    def call(
        self, method: str, path: str, body: Any = None, who: Person | None = None, key: str | None = None
    ) -> Reply:
        """As ``who`` (the owner by default), with ``key`` as its ``Idempotency-Key``."""
        headers = {"Idempotency-Key": key} if key else {}
        return portal(self.service, method, path, (who or self.owner).jwt, body, **headers)


@pytest.fixture(scope="module")
def studio(service: LocalService, cast: Cast) -> Iterator[Studio]:
    owner = cast.owner_a
    created = portal(service, "POST", "/api/workspaces", owner.jwt, {"name": "Attack content"})
    assert created.status == 201, created.body
    workspace = created.json()["workspace"]["id"]
    agent = portal(service, "POST", f"/api/workspaces/{workspace}/agents", owner.jwt, {"name": "X"})
    assert agent.status == 201, agent.body
    agent_id = agent.json()["agent"]["id"]
    upload_object(service, owner.jwt, workspace, f"projects/{agent_id}/media/own.jpg", JPEG)
    minted = portal(service, "POST", f"/api/workspaces/{workspace}/keys", owner.jwt, {"name": "content attack"})
    assert minted.status == 201, minted.body
    yield Studio(service, owner, workspace, agent_id, minted.json()["key"]["key"], demo(service)[1])
    assert portal(service, "DELETE", f"/api/workspaces/{workspace}", owner.jwt).status == 200


@pytest.fixture(scope="module")
def b_object(service: LocalService, cast: Cast) -> str:
    """An object of B's agent (its path relative to the agent's folder), as B's owner sees it."""
    b = demo(service)[1]
    b_agent = b["agents"][0]["id"]
    items = portal(service, "GET", f"/api/workspaces/{b['id']}/agents/{b_agent}/items", cast.owner_b.jwt).json()
    r2_key = next(i["r2Key"] for i in items["items"] if i["r2Key"].endswith(".pdf"))
    assert portal(service, "GET", f"/api/workspaces/{b['id']}/objects/{r2_key}", cast.owner_b.jwt).status == 200
    return r2_key.removeprefix(f"projects/{b_agent}/")


def field_of(reply: Reply) -> str:
    """The field a 400 names (its message starts ``<field>: ``)."""
    assert (reply.status, reply.json()["code"]) == (400, "VALIDATION_ERROR"), reply.body
    return str(reply.json()["error"]).split(":", 1)[0]


def feed(studio: Studio, query: str = "") -> list[dict[str, Any]]:
    reply = studio.service.brain_get(f"/v1/agent/{studio.agent}/feed{query}", studio.key)
    assert reply.status == 200, reply.body
    assert reply.required_header("content-type").startswith("application/json")
    posts: list[dict[str, Any]] = reply.json()
    return posts


# --- media of another workspace


def test_a_post_cannot_publish_another_workspaces_object(studio: Studio, b_object: str) -> None:
    """Keys naming B's object, by traversal (the path rules refuse them at once) or as a name that exists only in
    B's agent's folder (refused when the post is published): 400 naming the field; no post reaches the feed."""
    b_id, b_agent = studio.b["id"], studio.b["agents"][0]["id"]
    traversals = [f"../../{b_id}/projects/{b_agent}/{b_object}", f"../{b_agent}/{b_object}",
                  f"/workspaces/{b_id}/projects/{b_agent}/{b_object}", f"media/..\\..\\{b_agent}\\{b_object}",
                  f"./{b_object}", f"media//{b_object}"]  # fmt: skip
    elsewhere = [b_object, f"workspaces/{b_id}/projects/{b_agent}/{b_object}", f"projects/{b_agent}/{b_object}"]
    found = {}
    before = stored(studio.service)
    for key in traversals:
        for field, body in (("key", {"key": key}), ("poster", {"poster": key}), ("playable", {"playable": key}),
                            ("pages.0.key", {"pages": [{"key": key}]})):  # fmt: skip
            sent: dict[str, Any] = {"key": "media/own.jpg", "kind": "image"} | body
            found[(key, field)] = field_of(studio.call("POST", f"{studio.x}/posts", sent))
    for key in elsewhere:
        for field, body in (("key", {"key": key}), ("poster", {"poster": key}),
                            ("pages.0.key", {"pages": [{"key": key}]})):  # fmt: skip
            sent = {"key": "media/own.jpg", "kind": "image", "publish": True} | body
            found[(key, field)] = field_of(studio.call("POST", f"{studio.x}/posts", sent))
    assert found == {case: case[1] for case in found}
    assert before.changes(stored(studio.service)) == []
    # As a draft it may name anything well formed; publishing it is refused, and it stays a draft.
    draft = studio.call("POST", f"{studio.x}/posts", {"key": b_object, "kind": "image", "title": "bait"})
    assert draft.status == 201, draft.body
    post = draft.json()["post"]
    assert field_of(studio.call("POST", f"{studio.x}/posts/{post['id']}/publish")) == "key"
    # A published post of X's own media cannot be moved onto B's either.
    own = studio.call("POST", f"{studio.x}/posts", {"key": "media/own.jpg", "kind": "image", "publish": True})
    assert own.status == 201, own.body
    assert field_of(studio.call("PATCH", f"{studio.x}/posts/{own.json()['post']['id']}", {"key": b_object})) == "key"
    listed = studio.call("GET", f"{studio.x}/posts?limit=200").json()["posts"]
    assert {(p["id"], p["status"], p["key"]) for p in listed} == {
        (post["id"], "draft", b_object), (own.json()["post"]["id"], "published", "media/own.jpg")}  # fmt: skip
    assert [p["id"] for p in feed(studio)] == [own.json()["post"]["id"]]
    # The read plane with W's key cannot reach B's object under any of those names either.
    for key in [b_object, f"projects/{b_agent}/{b_object}", f"workspaces/{b_id}/projects/{b_agent}/{b_object}"]:
        assert studio.service.brain_get(f"/v1/r2/projects/{studio.agent}/{quote(key)}", studio.key).status == 404


def test_an_item_cannot_point_at_another_workspaces_object(studio: Studio, b_object: str) -> None:
    b_id, b_agent = studio.b["id"], studio.b["agents"][0]["id"]
    keys = [f"projects/{b_agent}/{b_object}", f"workspaces/{b_id}/projects/{b_agent}/{b_object}",
            f"/workspaces/{b_id}/projects/{b_agent}/{b_object}",
            f"projects/{studio.agent}/../../projects/{b_agent}/{b_object}",
            f"projects/{studio.agent}/../{b_agent}/{b_object}", f"projects/{studio.agent}/{b_object}",
            f"projects/{studio.agent}/..%2F{b_agent}%2F{b_object}"]  # fmt: skip
    item = studio.call("POST", f"{studio.x}/items", {"name": "Own", "kind": "image",
                                                     "r2Key": f"projects/{studio.agent}/media/own.jpg"})  # fmt: skip
    assert item.status == 201, item.body
    assert (item.json()["item"]["mimeType"], item.json()["item"]["size"]) == ("image/jpeg", len(JPEG))
    before = stored(studio.service)
    created = {key: field_of(studio.call("POST", f"{studio.x}/items", {"name": "Bait", "kind": "document",
                                                                      "r2Key": key})) for key in keys}  # fmt: skip
    moved = {key: field_of(studio.call("PATCH", f"{studio.x}/items/{item.json()['item']['id']}", {"r2Key": key}))
             for key in keys}  # fmt: skip
    assert created == moved == dict.fromkeys(keys, "r2Key")
    assert before.changes(stored(studio.service)) == []
    served = studio.service.brain_get(f"/v1/agent/{studio.agent}/items", studio.key).json()
    assert [i["r2Key"] for i in served] == [f"projects/{studio.agent}/media/own.jpg"]


# --- sizes


def padded(document: dict[str, Any], size: int, field: str = "x") -> dict[str, Any]:
    """``document`` with a string ``field`` making it exactly ``size`` bytes of compact JSON."""
    base = compact_size(document | {field: ""})
    return document | {field: "a" * (size - base)}


def raw_body(document: dict[str, Any], size: int) -> bytes:
    """``document`` as JSON followed by spaces (valid JSON) to exactly ``size`` bytes."""
    data = json.dumps(document).encode()
    return data + b" " * (size - len(data))


def send_document(studio: Studio, method: str, path: str, member: str | None, document: dict[str, Any]) -> Reply:
    """``document`` as the body, or as its ``member``."""
    return studio.call(method, path, document if member is None else {member: document})


def test_documents_over_64_kib_are_refused(studio: Studio) -> None:
    """Wrap, site, suggestions and ``wrapConfig``: exactly 64 KiB of compact JSON is taken, one byte more is 400
    naming the document, and what was stored stays."""
    workflow = studio.call("POST", f"{studio.ws}/workflows", {"name": "Sized"}).json()["workflow"]["id"]
    routes: dict[
        str, tuple[str, str, str | None, dict[str, Any]]
    ] = {  # the route, the document's field in the body (None: the body is the document), the field named
        "wrap": ("PUT", f"{studio.x}/wrap", None, {"greeting": "hi"}),
        "site": ("PUT", f"{studio.x}/site", None, {"pages": []}),
        "suggestions": ("PATCH", f"{studio.ws}/workflows/{workflow}", "suggestions", {"list": []}),
        "wrapConfig": ("PATCH", studio.ws, "wrapConfig", {"banner": "hi"}),
    }
    for name, (method, path, member, document) in routes.items():
        assert send_document(studio, method, path, member, padded(document, DOCUMENT_BYTES)).status == 200, name
    before = stored(studio.service)
    found = {}
    for name, (method, path, member, document) in routes.items():
        over = send_document(studio, method, path, member, padded(document, DOCUMENT_BYTES + 1))
        found[name] = (over.status, over.json()["code"], field_of(over))
    assert found == {name: (400, "VALIDATION_ERROR", "body" if member is None else member)
                     for name, (_, _, member, _) in routes.items()}  # fmt: skip
    created = studio.call("POST", f"{studio.ws}/workflows", {"name": "Big", "suggestions": padded({}, 65537)})
    assert field_of(created) == "suggestions"
    assert before.changes(stored(studio.service)) == []  # every document as stored at exactly 64 KiB


def test_bodies_over_256_kib_are_413(studio: Studio) -> None:
    """Every route that takes a body: one byte over 256 KiB is 413 before anything is read or written; exactly
    256 KiB is read (and refused for its size as a document: 400)."""
    bodies: dict[str, dict[str, Any]] = {
        f"PUT {studio.x}/wrap": {"greeting": "hi"},
        f"PUT {studio.x}/site": {"pages": []},
        f"PATCH {studio.ws}": {"name": "W"},
        f"POST {studio.ws}/workflows": {"name": "Big"},
        f"POST {studio.ws}/brands": {"name": "Big"},
        f"POST {studio.ws}/agents": {"name": "Big"},
        f"POST {studio.x}/posts": {"key": "media/own.jpg", "kind": "image"},
        f"POST {studio.x}/items": {"name": "Big", "kind": "image", "r2Key": f"projects/{studio.agent}/media/own.jpg"},
        f"POST {studio.ws}/uploads": {"path": "public/big.png", "contentType": "image/png", "size": 10},
    }
    before = stored(studio.service)
    found = {}
    for route, document in bodies.items():
        method, path = route.split(" ", 1)
        reply = studio.service.request(method, studio.service.portal + path, body=raw_body(document, BODY_BYTES + 1),
                                       headers={"Authorization": f"Bearer {studio.owner.jwt}"})  # fmt: skip
        found[route] = (reply.status, reply.json()["code"])
    assert found == dict.fromkeys(bodies, (413, "PAYLOAD_TOO_LARGE"))
    assert before.changes(stored(studio.service)) == []
    exactly = studio.service.request("PUT", studio.service.portal + f"{studio.x}/wrap",
                                     body=json.dumps(padded({}, BODY_BYTES - 8, "greeting")).encode(),
                                     headers={"Authorization": f"Bearer {studio.owner.jwt}"})  # fmt: skip
    assert (exactly.status, field_of(exactly)) == (400, "body")


# --- markup is text


def test_markup_in_every_text_field_is_stored_and_served_as_the_same_text(studio: Studio) -> None:
    """``HOSTILE`` in every text field of a workspace, brand, workflow, agent, wrap, site, post and item: each
    write answers it back unchanged, the portal reads it back unchanged, and so does the read plane (JSON, for
    the widget's ``textContent``). Slugs, which are handles, refuse it."""
    text = HOSTILE
    workspace = studio.call("PATCH", studio.ws, {"name": text, "wrapConfig": {"banner": text, text: [text]}})
    assert workspace.status == 200, workspace.body
    brand = studio.call("POST", f"{studio.ws}/brands", {"name": text, "fontFamily": text})
    assert brand.status == 201, brand.body
    suggestions = [{"title": text, "prompt": text}]
    workflow = studio.call("POST", f"{studio.ws}/workflows", {"name": text, "suggestions": suggestions})
    assert workflow.status == 201, workflow.body
    agent = studio.call("PATCH", studio.x, {"name": text, "brandId": brand.json()["brand"]["id"],
                                            "activeWorkflowId": workflow.json()["workflow"]["id"]})  # fmt: skip
    assert agent.status == 200, agent.body
    wrap = {"greeting": text, "theme": {"fontFamily": text, "primary": text}, text: {"nested": [text]}}
    site = {"pages": [{"id": "home", "path": "/", "title": text}], "sections": [{"type": "text", "body": text}]}
    assert studio.call("PUT", f"{studio.x}/wrap", wrap).json() == {"wrap": wrap}
    assert studio.call("PUT", f"{studio.x}/site", site).json() == {"site": site}
    post_fields = {"title": text, "sub": text, "caption": text, "hashtags": [text], "channels": [text],
                   "category": text}  # fmt: skip
    post = studio.call("POST", f"{studio.x}/posts",
                       {"key": "media/own.jpg", "kind": "image", "publish": True} | post_fields)  # fmt: skip
    assert post.status == 201, post.body
    item = studio.call("POST", f"{studio.x}/items", {"name": text, "kind": "image", "folder": text,
                                                     "r2Key": f"projects/{studio.agent}/media/own.jpg"})  # fmt: skip
    assert item.status == 201, item.body
    # The writes' own answers.
    assert {k: workspace.json()["workspace"][k] for k in ("name", "wrapConfig")} == {
        "name": text, "wrapConfig": {"banner": text, text: [text]}}  # fmt: skip
    assert (brand.json()["brand"]["name"], brand.json()["brand"]["fontFamily"]) == (text, text)
    assert (workflow.json()["workflow"]["name"], workflow.json()["workflow"]["suggestions"]) == (text, suggestions)
    assert agent.json()["agent"]["name"] == text
    assert {k: post.json()["post"][k] for k in post_fields} == post_fields
    assert (item.json()["item"]["name"], item.json()["item"]["folder"]) == (text, text)
    # The portal's reads.
    assert studio.call("GET", studio.ws).json()["workspace"]["name"] == text
    assert studio.call("GET", studio.x).json()["agent"]["name"] == text
    assert studio.call("GET", f"{studio.x}/wrap").json() == {"wrap": wrap}
    assert studio.call("GET", f"{studio.x}/site").json() == {"site": site}
    listed = studio.call("GET", f"{studio.x}/posts?limit=200").json()["posts"]
    assert [{k: p[k] for k in post_fields} for p in listed if p["id"] == post.json()["post"]["id"]] == [post_fields]
    # The read plane: the agent (and its brand), the feed and its filtered views, items, wrap, site, suggestions.
    brain = studio.service
    metadata = brain.brain_get(f"/v1/agent/{studio.agent}", studio.key).json()
    assert (metadata["name"], metadata["brand"]["name"]) == (text, text)
    for query in ("", f"?channel={quote(text)}", f"?category={quote(text)}",
                  f"?channel={quote(text)}&category={quote(text)}"):  # fmt: skip
        served = [p for p in feed(studio, query) if p["id"] == post.json()["post"]["id"]]
        assert [{k: p[k] for k in post_fields} for p in served] == [post_fields], query
    items = brain.brain_get(f"/v1/agent/{studio.agent}/items", studio.key).json()
    assert [(i["name"], i["folder"]) for i in items if i["id"] == item.json()["item"]["id"]] == [(text, text)]
    for document, sent in (("wrap", wrap), ("site", site)):  # the read plane adds defaults (a wrap's layout)
        served = brain.brain_get(f"/v1/agent/{studio.agent}/{document}", studio.key).json()
        assert {name: served.get(name) for name in sent} == sent, document
    assert brain.brain_get(f"/v1/agent/{studio.agent}/suggestions", studio.key).json() == {"suggestions": suggestions}
    for route, body in ((f"POST {studio.ws}/agents", {"name": "Slugged", "slug": text}),
                        (f"POST {studio.ws}/brands", {"name": "Slugged", "slug": text}),
                        (f"PATCH {studio.x}", {"slug": text})):  # fmt: skip
        method, path = route.split(" ", 1)
        assert field_of(studio.call(method, path, body)) == "slug", route


def test_c1_control_characters_in_free_text_are_refused(studio: Studio) -> None:
    before = stored(studio.service)
    found = {}
    for field in ("title", "sub", "caption", "category"):
        for control in ("\u0085", "\u009b"):
            body = {"key": "media/own.jpg", "kind": "image", field: f"a{control}2J"}
            reply = studio.call("POST", f"{studio.x}/posts", body)
            found[(field, control)] = (reply.status, field_of(reply) if reply.status == 400 else "")
    assert found == {case: (400, case[0]) for case in found}
    assert before.changes(stored(studio.service)) == []


# Types HTTP cannot carry in a header, each once signed and stored (issue 25, hole 3): CR LF, C0 and C1 controls and
# Unicode spaces where the parameter's space goes, and a Kelvin sign (U+212A) that lowercases to an ASCII "k".
UNSENDABLE_TYPES = [
    "text/plain;\r\ncharset=utf-8", "text/plain;\ncharset=utf-8", "text/plain;\tcharset=utf-8",
    "text/plain;\x1ccharset=utf-8", "text/plain;\x0bcharset=utf-8", "text/plain;\x85charset=utf-8",
    "text/plain;\u3000charset=utf-8", "text/plain;\u00a0charset=utf-8", "text/plain;\u2028charset=utf-8",
    "text/mar\u212adown", "text/plain; chars\u017fet=utf-8", "text/plain; charset=utf-8\r\n",
]  # fmt: skip


# The spellings the test below tries on every type of the allowlist (the amended contract's, documents included):
# a runnable type or a header carried after an allowed one, a second parameter, a charset a browser may decode
# markup from, a wildcard of its kind, a NUL.
SMUGGLED = ["{}; text/html", "{}, text/html", "{}\r\nX-Injected: 1", "{}; charset=utf-8; a=b", "{};charset=utf-7",
            "{}\x00html", "{}+xml"]  # fmt: skip


def test_upload_types_a_browser_would_run_are_refused(studio: Studio) -> None:
    """``/v1/r2`` serves an object with its type: HTML, SVG, XML and script are never signed, in any spelling,
    nor carried past the rule by any type of the (longer) allowlist; nor is a type that a header cannot carry."""
    types = ["text/html", "text/html; charset=utf-8", "TEXT/HTML", " text/html", "image/svg+xml", "image/svg",
             "application/xhtml+xml", "application/javascript", "text/javascript", "application/x-javascript",
             "application/ecmascript", "text/xml", "application/xml",
             "multipart/form-data", "image/png; text/html", "image/png, text/html", "image/png\r\nX-Injected: 1",
             "image/png; charset=utf-8; a=b", "image/png;charset=utf-7", "image/*", "",
             "text/plain\x00html"]  # fmt: skip
    # Over HTTP, the wiring: every runnable type as it is and in one other spelling, and each smuggling spelling after a
    # document type and a media type. tests/unit/objects/test_media_types.py holds the whole matrix (every runnable
    # type in 19 spellings, every allowed one with 15 smuggling suffixes) on the function the upload calls.
    other = (str.upper, lambda t: f"{t}; charset=utf-8", lambda t: f" {t}")
    types += [form for n, runnable in enumerate(RUNNABLE) for form in (runnable, other[n % 3](runnable))]
    documents = ("application/vnd.openxmlformats-officedocument.wordprocessingml.document", "image/png")
    types += [spelling.format(allowed) for allowed in documents for spelling in SMUGGLED]
    types += [f"{kind}/*" for kind in sorted({t.split("/", 1)[0] for t in UPLOAD_TYPES})]
    types += UNSENDABLE_TYPES
    types = list(dict.fromkeys(types))
    before = stored(studio.service)
    found = {}
    for content_type in types:
        reply = sign_upload(
            studio.service, studio.owner.jwt, studio.workspace, "public/page", content_type=content_type
        )
        found[content_type] = (reply.status, field_of(reply) if reply.status == 400 else reply.body)
    assert found == dict.fromkeys(types, (400, "contentType"))
    assert before.changes(stored(studio.service)) == []


def test_every_type_of_the_amended_contract_is_signed(studio: Studio) -> None:
    """Documents too (a Word, Excel or octet-stream upload was a 400 before): each type of the contract is signed,
    the ticket pinning it as sent."""
    found = {}
    for n, content_type in enumerate(MEDIA + TEXT + DOCUMENTS):
        reply = sign_upload(
            studio.service, studio.owner.jwt, studio.workspace, f"public/types/{n}", content_type=content_type
        )
        found[content_type] = (reply.status, reply.json().get("fields", {}).get("Content-Type"))
    assert found == {t: (201, t) for t in MEDIA + TEXT + DOCUMENTS}


# --- Idempotency-Key


def test_an_idempotency_key_is_the_callers_own(service: LocalService, studio: Studio) -> None:
    """The same ``Idempotency-Key`` and body from another caller is a write of its own (a different answer), never
    a replay of the first caller's; a member gets its 403, a stranger its 404; the first caller still gets its
    replay, and another body from it is 409."""
    admin = sign_in(service, f"attack.idem.admin.{uuid.uuid4().hex[:8]}@example.org")
    member = sign_in(service, f"attack.idem.member.{uuid.uuid4().hex[:8]}@example.org")
    add_member(service, studio.workspace, admin.user_id, "admin")
    add_member(service, studio.workspace, member.user_id, "member")
    b_owner, b_id = sign_in(service, demo(service)[1]["ownerEmail"]), studio.b["id"]
    key = f"attack-{uuid.uuid4()}"
    flow = {"name": "Idempotent"}
    first = studio.call("POST", f"{studio.ws}/workflows", flow, key=key)
    assert first.status == 201, first.body
    by_admin = studio.call("POST", f"{studio.ws}/workflows", flow, admin, key=key)
    assert by_admin.status == 201 and by_admin.json()["workflow"]["id"] != first.json()["workflow"]["id"]
    refused = studio.call("POST", f"{studio.ws}/workflows", flow, member, key=key)
    assert (refused.status, refused.json()["code"]) == (403, "FORBIDDEN")
    stranger = studio.call("POST", f"{studio.ws}/workflows", flow, b_owner, key=key)
    assert (stranger.status, stranger.json()["code"]) == (404, "NOT_FOUND")
    in_b = portal(service, "POST", f"/api/workspaces/{b_id}/workflows", b_owner.jwt, flow, **{"Idempotency-Key": key})
    assert in_b.status == 201 and in_b.json()["workflow"]["id"] not in {
        first.json()["workflow"]["id"], by_admin.json()["workflow"]["id"]}  # fmt: skip
    # Each caller's retry replays its own answer; another body from the first caller is a conflict.
    assert studio.call("POST", f"{studio.ws}/workflows", flow, key=key).body == first.body
    assert studio.call("POST", f"{studio.ws}/workflows", flow, admin, key=key).body == by_admin.body
    other = studio.call("POST", f"{studio.ws}/workflows", {"name": "Another"}, key=key)
    assert (other.status, other.json()["code"]) == (409, "CONFLICT")
    names = [w["id"] for w in studio.call("GET", f"{studio.ws}/workflows").json()["workflows"]]
    assert names.count(first.json()["workflow"]["id"]) == names.count(by_admin.json()["workflow"]["id"]) == 1
    # An upload ticket is a credential: the owner's is never handed to the member or the stranger by its key.
    ticket_key = {"Idempotency-Key": f"attack-{uuid.uuid4()}"}  # the same on every signing below
    signed = sign_upload(service, studio.owner.jwt, studio.workspace, "public/idem.png", headers=ticket_key)
    assert signed.status == 201, signed.body
    for person, expected in ((member, (403, "FORBIDDEN")), (b_owner, (404, "NOT_FOUND"))):
        reply = sign_upload(service, person.jwt, studio.workspace, "public/idem.png", headers=ticket_key)
        assert (reply.status, reply.json()["code"]) == expected
        assert signed.json()["fields"]["x-amz-signature"] not in reply.body.decode()
    own = sign_upload(service, b_owner.jwt, b_id, "public/idem.png", headers=ticket_key)
    assert own.status == 201 and own.json()["fields"]["key"] == f"workspaces/{b_id}/public/idem.png"
    assert own.json()["fields"]["x-amz-signature"] != signed.json()["fields"]["x-amz-signature"]


def test_an_object_stored_with_a_type_http_cannot_carry_is_still_read_listed_and_deleted(studio: Studio) -> None:
    """Issue 25, hole 3: objects stored before the rule above (written here straight to the runner's S3, with a
    POST policy of its own) answered 500 on ``/v1/r2`` GET and HEAD, on the portal's object GET and DELETE, and
    on every listing of their folder. Each is served as ``application/octet-stream`` (a browser only downloads
    it), listed with that type, and can be deleted."""
    service, folder = studio.service, "public/unsendable"
    bucket, s3 = names(service)[1], s3_client(service.aws("s3").meta.endpoint_url)  # signing as the functions do
    paths = {f"{folder}/{n}.txt": content_type for n, content_type in enumerate(UNSENDABLE_TYPES)}
    for path, content_type in paths.items():
        form = presign(s3, bucket, f"workspaces/{studio.workspace}/{path}", content_type, 3)
        assert post_form(form["url"], form["fields"], b"abc").status_code == 204, path
    served, heads, looked_up = {}, {}, {}
    for path in paths:
        got = service.brain_get(f"/v1/r2/{path}", studio.key)
        served[path] = (got.status, got.header("content-type"), got.body, got.header("x-content-type-options"))
        head = service.request(
            "HEAD", f"{service.brain}/v1/r2/{path}", headers={"Authorization": f"Bearer {studio.key}"}
        )
        heads[path] = (head.status, head.header("content-type"))
        found = studio.call("GET", f"{studio.ws}/objects/{path}")
        looked_up[path] = (found.status, found.json()["object"]["contentType"] if found.status == 200 else found.body)
    unknown = "application/octet-stream"
    assert served == dict.fromkeys(paths, (200, unknown, b"abc", "nosniff"))
    assert heads == dict.fromkeys(paths, (200, unknown))
    assert looked_up == dict.fromkeys(paths, (200, unknown))
    listed = studio.call("GET", f"{studio.ws}/objects?prefix={folder}/&limit=200")
    assert listed.status == 200, listed.body
    assert {o["path"]: o["contentType"] for o in listed.json()["objects"]} == dict.fromkeys(paths, unknown)
    deleted = {path: studio.call("DELETE", f"{studio.ws}/objects/{path}").status for path in paths}
    assert deleted == dict.fromkeys(paths, 200)
    assert studio.call("GET", f"{studio.ws}/objects?prefix={folder}/").json()["objects"] == []


# --- numbers


def test_a_number_too_large_for_a_double_is_a_400_naming_its_field(studio: Studio) -> None:
    """Issue 25, hole 4: ``1e400`` parses as infinity, which the NaN/Infinity rule did not see: the wrap, site,
    suggestions and ``wrapConfig`` were stored with it and answered ``Infinity`` (not JSON; the read plane
    answered ``null``). Every body is refused, naming the field, and nothing is stored."""
    workflow = studio.call("POST", f"{studio.ws}/workflows", {"name": "Numbers"}).json()["workflow"]["id"]
    wrap = f"{studio.x}/wrap"
    cases = {  # route, raw body, the field named
        "wrap": ("PUT", wrap, '{"greeting": "hi", "n": 1e400}', "n"),
        "wrap negative": ("PUT", wrap, '{"greeting": "hi", "theme": {"scale": -1E+400}}', "theme.scale"),
        "wrap in a list": ("PUT", wrap, '{"greeting": "hi", "steps": [1, 2.5, 9e999]}', "steps.2"),
        "site": ("PUT", f"{studio.x}/site", '{"pages": [{"id": "home", "weight": 1e309}]}', "pages.0.weight"),
        "suggestions": ("PATCH", f"{studio.ws}/workflows/{workflow}", '{"suggestions": {"score": 1e400}}',
                        "suggestions.score"),
        "wrapConfig": ("PATCH", studio.ws, '{"wrapConfig": {"ratio": 1e400}}', "wrapConfig.ratio"),
        "post": ("POST", f"{studio.x}/posts", '{"key": "media/own.jpg", "kind": "image", "width": 1e400}', "width"),
        "upload": ("POST", f"{studio.ws}/uploads", '{"path": "public/n.png", "contentType": "image/png", '
                   '"size": 1e400}', "size"),
    }  # fmt: skip
    before = stored(studio.service)
    found = {}
    for name, (method, path, body, _) in cases.items():
        reply = studio.service.request(method, studio.service.portal + path, body=body.encode(),
                                       headers={"Authorization": f"Bearer {studio.owner.jwt}"})  # fmt: skip
        found[name] = (reply.status, field_of(reply) if reply.status == 400 else reply.body)
    assert found == {name: (400, field) for name, (_, _, _, field) in cases.items()}
    assert before.changes(stored(studio.service)) == []
    chat = studio.service.request(
        "POST", f"{studio.service.brain}/v1/agent/{studio.agent}/chat", body=b'{"prompt": "hi", "temperature": 1e400}',
        headers={"Authorization": f"Bearer {studio.key}", "Content-Type": "application/json"},
    )  # fmt: skip
    assert (chat.status, field_of(chat)) == (400, "temperature")
