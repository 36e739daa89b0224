"""What the client puts in a body: the arguments given, and ``null`` only where the caller asks a PATCH to clear."""

from __future__ import annotations

import json
from typing import Any

import httpx
from workspace_client import CLEAR, Portal
from workspace_client._generated.models_portal import BehaviourPatch

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


def test_a_nested_field_set_to_none_is_sent_as_null_and_one_not_given_is_not_sent() -> None:
    """An agent's behaviour: ``{"model": null}`` puts the model back to the deployment's default (issue 39), so a
    None the caller set inside ``behaviour`` must reach the service, and a field not given must not."""
    behaviour = {"instructions": "", "model": None, "temperature": 0.3, "maxReplyTokens": 512, "knowledgeOnly": True,
                 "fallback": ""}  # fmt: skip
    agent = {"agent": {"id": "prj_1", "slug": "barista", "name": "Barista", "brandId": "brd_1",
                       "activeWorkflowId": "wf_1", "postCount": 0, "itemCount": 0, "behaviour": behaviour,
                       "createdAt": POST["createdAt"], "updatedAt": POST["createdAt"]}}  # fmt: skip
    bodies: list[dict[str, Any]] = []

    def answer(request: httpx.Request) -> httpx.Response:
        bodies.append(json.loads(request.content))
        return httpx.Response(200, json=agent)

    portal = Portal("https://p.test", token="jwt", transport=httpx.MockTransport(answer))
    portal.update_agent("ws", "prj_1", behaviour=BehaviourPatch(model=None, temperature=0.5))
    portal.update_agent("ws", "prj_1", name="Barista", behaviour=BehaviourPatch(fallback="Ask at the counter."))
    assert bodies == [{"behaviour": {"model": None, "temperature": 0.5}},
                      {"name": "Barista", "behaviour": {"fallback": "Ask at the counter."}}]  # fmt: skip
