"""What the client puts in a body: the arguments given, and ``null`` only where the caller asks a PATCH to clear."""

from __future__ import annotations

import json
from typing import Any

import httpx
from workspace_client import CLEAR, Portal

POST = {
    "id": "post_1", "key": "media/a.jpg", "kind": "image", "mediaType": "image", "isVideo": False, "title": None,
    "sub": None, "caption": "kept", "hashtags": [], "channels": [], "category": None, "width": None, "height": None,
    "pages": [], "poster": "", "playable": "", "createdAt": "2026-01-01T00:00:00.000Z", "status": "draft",
    "updatedAt": "2026-01-01T00:00:00.000Z",
}  # fmt: skip


def sent_by(call: Any) -> dict[str, Any]:
    bodies: list[dict[str, Any]] = []

    def answer(request: httpx.Request) -> httpx.Response:
        bodies.append(json.loads(request.content))
        return httpx.Response(200, json={"post": POST})

    call(Portal("https://p.test", token="jwt", transport=httpx.MockTransport(answer)))
    (body,) = bodies
    return body


def test_clear_is_sent_as_null_and_an_argument_not_given_is_not_sent() -> None:
    body = sent_by(lambda portal: portal.update_post("ws", "agent", "post_1", title=CLEAR, category=CLEAR, caption="x"))
    assert body == {"title": None, "category": None, "caption": "x"}
    assert sent_by(lambda portal: portal.update_post("ws", "agent", "post_1", caption="x")) == {"caption": "x"}
    assert repr(CLEAR) == "CLEAR"
