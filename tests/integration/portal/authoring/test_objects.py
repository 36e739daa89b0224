"""A workspace's objects (authoring.md, "Objects and uploads"): listed a page at a time with cursors (only what the
r2 allowlist lets the read plane serve), downloaded through a working presigned URL, deleted."""

from __future__ import annotations

import base64
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
import requests

from tests.support.authoring import Studio
from tests.support.portal import Portal, assert_error

LIST, GET, DELETE = "PortalObjectsListFunction", "PortalObjectGetFunction", "PortalObjectDeleteFunction"
SERVED = ["assets/a.png", "assets/b/c.txt", "media/clip.mp4", "projects/prj_1/x.jpg", "public/index.json"]
HIDDEN = ["billing/invoice.pdf", "conversations/prj_1/thr_1/turn_1.json", "private/notes.txt", "zz/other.bin"]


@pytest.fixture
def studio(portal: Portal) -> Studio:
    studio = Studio.open(portal)
    for path in sorted(SERVED + HIDDEN):
        studio.put_object(path, path.encode(), "text/plain; charset=utf-8" if path.endswith(".txt") else "image/png")
    rival = Studio(portal, studio.who, portal.create_workspace(studio.who, "Rival")["id"])
    rival.put_object("assets/theirs.png")
    return studio


def pages(studio: Studio, **query: str) -> list[list[dict[str, Any]]]:
    """Every page of the listing, following ``nextCursor``."""
    found, cursor = [], None
    while True:
        page = studio.ok(LIST, query=query | ({"cursor": cursor} if cursor else {}))
        assert set(page) == {"objects", "nextCursor"}
        found.append(page["objects"])
        if (cursor := page["nextCursor"]) is None:
            return found


def test_the_listing_pages_through_the_served_objects_only(studio: Studio) -> None:
    everything = [o for page in pages(studio) for o in page]
    assert [o["path"] for o in everything] == SERVED
    first = everything[0]
    assert first == {"path": "assets/a.png", "size": len(b"assets/a.png"), "contentType": "image/png",
                     "etag": first["etag"], "updatedAt": first["updatedAt"]}  # fmt: skip
    assert first["etag"].startswith('"') and first["updatedAt"].endswith("Z")
    assert everything[1]["contentType"] == "text/plain; charset=utf-8"
    paged = pages(studio, limit="2")
    assert len(paged) >= 3 and all(len(page) <= 2 for page in paged)
    assert [o for page in paged for o in page] == everything
    assert [o["path"] for page in pages(studio, prefix="assets/") for o in page] == ["assets/a.png", "assets/b/c.txt"]
    assert [o["path"] for page in pages(studio, prefix="assets/b") for o in page] == ["assets/b/c.txt"]
    for hidden in ("conversations/", "private", "billing/invoice.pdf", "zz/"):
        assert pages(studio, prefix=hidden) == [[]], hidden  # never listed, whatever the prefix


def test_a_bad_query_is_refused_naming_the_parameter(studio: Studio) -> None:
    for query, field in [({"limit": "0"}, "limit"), ({"limit": "201"}, "limit"), ({"limit": "ten"}, "limit"),
                         ({"prefix": "../"}, "prefix"), ({"prefix": "/assets"}, "prefix"),
                         ({"prefix": "a//b"}, "prefix"), ({"cursor": ""}, "cursor")]:  # fmt: skip
        refused = studio.call(LIST, query=query)
        assert_error(refused, 400, "VALIDATION_ERROR")
        assert refused.json()["error"].startswith(f"{field}: "), query


def b64(text: str) -> str:
    return base64.urlsafe_b64encode(text.encode()).decode().rstrip("=")


def test_a_cursor_that_is_not_one_is_a_400(studio: Studio) -> None:
    for cursor in ("not-a-cursor", "////", b64("../private/notes.txt"), b64("conversations/prj_1/thr_1/turn_1.json"),
                   b64("assets/a.png") + "=", "x" * 2049):  # fmt: skip
        refused = studio.call(LIST, query={"cursor": cursor})
        assert_error(refused, 400, "VALIDATION_ERROR")
        assert refused.json()["error"].startswith("cursor: "), cursor
    stranger = studio.stranger()
    assert_error(stranger.call(LIST, query={"cursor": "not-a-cursor"}), 404, "NOT_FOUND")


def test_a_cursor_never_names_a_hidden_object(studio: Studio) -> None:
    cursors, cursor, seen = [], None, []
    while True:
        page = studio.ok(LIST, query={"limit": "1"} | ({"cursor": cursor} if cursor else {}))
        seen += [o["path"] for o in page["objects"]]
        if (cursor := page["nextCursor"]) is None:
            break
        cursors.append(base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode())
    assert seen == SERVED
    assert not [c for c in cursors if any(c.startswith(h) for h in HIDDEN)], cursors
    assert "billing/\U0010ffff" in cursors  # a hidden object last on its page: the cursor is past its folder


def test_a_download_answers_the_object_and_a_working_url(studio: Studio) -> None:
    before = datetime.now(UTC)
    answer = studio.ok(GET, path="assets/b/c.txt")
    assert set(answer) == {"object", "url", "expiresAt"}
    listed = next(o for page in pages(studio) for o in page if o["path"] == "assets/b/c.txt")
    assert answer["object"] == listed
    expires = datetime.fromisoformat(answer["expiresAt"])
    assert before + timedelta(minutes=4) < expires <= before + timedelta(minutes=5, seconds=1)
    fetched = requests.get(answer["url"], timeout=10)
    assert (fetched.status_code, fetched.content) == (200, b"assets/b/c.txt")
    assert fetched.headers["Content-Type"] == "text/plain; charset=utf-8"


def test_a_download_is_refused_as_the_read_plane_refuses(studio: Studio) -> None:
    assert_error(studio.call(GET, path="assets/none.png"), 404, "NOT_FOUND")
    assert_error(studio.call(GET, path="private/notes.txt"), 403, "PREFIX_NOT_ALLOWED")  # it exists
    assert_error(studio.call(GET, path="conversations/prj_1/thr_1/turn_1.json"), 403, "PREFIX_NOT_ALLOWED")
    for bad in ("assets/%2e%2e/private/notes.txt", "assets//a.png", "assets/a%00.png"):
        assert_error(studio.call(GET, path=bad), 400, "INVALID_PATH")


def test_deleting_an_object(studio: Studio) -> None:
    assert studio.ok(DELETE, path="assets/a.png") == {}
    entry = studio.audit(1)[0]
    assert (entry.action, entry.target, entry.request_id) == ("object.delete", "object:assets/a.png",
                                                              studio.last_request_id)  # fmt: skip
    assert "assets/a.png" not in studio.object_paths()
    assert_error(studio.call(GET, path="assets/a.png"), 404, "NOT_FOUND")
    assert_error(studio.call(DELETE, path="assets/a.png"), 404, "NOT_FOUND")
    assert_error(studio.call(DELETE, path="private/notes.txt"), 403, "PREFIX_NOT_ALLOWED")
    assert_error(studio.call(DELETE, path="assets/%2e%2e/private/notes.txt"), 400, "INVALID_PATH")
    assert studio.object_paths() == sorted(set(SERVED + HIDDEN) - {"assets/a.png"})
    assert len(studio.audit()) == len(studio.audit(100)) and studio.audit(1) == [entry]
