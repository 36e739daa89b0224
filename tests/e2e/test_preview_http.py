"""Trying an agent over real HTTP through the runner (authoring.md, "Trying an agent before visitors do"): documents
uploaded with presigned POSTs and indexed by the runner's worker; ``POST …/knowledge/search`` answering the passages
with scores, unbilled; ``POST …/preview`` streamed by the portal's gateway line by line, its ``retrieval`` line
after ``start`` listing the passages with scores, billed to the owner at the model's price (the runner's two offline
models), a behaviour override for that turn only, never listed among the conversations."""

from __future__ import annotations

import http.client
import json
from typing import Any
from urllib.parse import urlsplit

import pytest

from tests.e2e.test_knowledge_http import items_when, ops, upload
from tests.support.runner import LocalService, portal, sign_in

pytestmark = pytest.mark.e2e

EMAIL = "preview.e2e@example.org"
QUESTION = "What does a cortado cost?"
FALLBACK = "Ask Ines at the counter, she knows every bean we roast."
FILES = {  # name -> (path under the agent's folder, text)
    "Price list": ("notes/prices.txt", b"A cortado costs 2.85 EUR. A flat white costs 3.40 EUR.\n"),
    "Winter menu": ("notes/winter.txt", b"In winter our cortado with cinnamon costs 3.10 EUR.\n"),
    "Opening hours": ("notes/hours.txt", b"Mon-Fri 7:00-18:00\nSat-Sun 8:00-16:00\n"),
}


def preview(service: LocalService, jwt: str, where: str, body: dict[str, Any]) -> tuple[int, list[bytes]]:
    """The preview's status and its body as the socket gave it, line by line."""
    url = urlsplit(service.portal)
    assert url.hostname and url.port
    connection = http.client.HTTPConnection(url.hostname, url.port, timeout=30)
    try:
        connection.request("POST", f"{where}/preview", body=json.dumps(body).encode(),
                           headers={"Authorization": f"Bearer {jwt}", "Content-Type": "application/json"})  # fmt: skip
        answer = connection.getresponse()
        if answer.status != 200:
            return answer.status, [answer.read()]
        assert answer.getheader("Content-Type") == "application/x-ndjson"
        lines = []
        while line := answer.readline():
            lines.append(line)
        return answer.status, lines
    finally:
        connection.close()


def events(lines: list[bytes]) -> list[dict[str, Any]]:
    assert all(line.endswith(b"\n") for line in lines)
    return [json.loads(line) for line in lines]


def indexed(found: dict[str, Any]) -> bool:
    return len(found) == len(FILES) and all(item["index"]["status"] == "indexed" for item in found.values())


def test_search_and_preview_show_the_passages_with_scores_and_bill_the_owner(service: LocalService) -> None:
    _, jwt = sign_in(service, EMAIL)
    ops(service, "set-plan", "--email", EMAIL, "--plan", "pro")
    ops(service, "grant", "--email", EMAIL, "--credits", "10", "--ref-id", "preview-e2e")
    workspace = portal(service, "POST", "/api/workspaces", jwt, {"name": "Preview E2E"}).json()["workspace"]["id"]
    assert portal(service, "PATCH", f"/api/workspaces/{workspace}", jwt, {"storeConversations": True}).status == 200
    agent_id = portal(service, "POST", f"/api/workspaces/{workspace}/agents", jwt, {"name": "Barista"}).json()["agent"][
        "id"
    ]
    where = f"/api/workspaces/{workspace}/agents/{agent_id}"
    for name, (path, body) in FILES.items():
        upload(service, jwt, workspace, f"projects/{agent_id}/{path}", (body, "text/plain"))
        made = portal(service, "POST", f"{where}/items", jwt,
                      {"name": name, "kind": "document", "r2Key": f"projects/{agent_id}/{path}"})  # fmt: skip
        assert made.status == 201, made.json()
    items = items_when(
        service, jwt, where, lambda found: all(i["index"]["status"] == "indexed" for i in found.values())
    )

    # The search: the turn's ranking, best first, with scores and sources; unbilled.
    searched = portal(service, "POST", f"{where}/knowledge/search", jwt, {"query": QUESTION, "limit": 2})
    assert searched.status == 200, searched.body
    passages = searched.json()["passages"]
    assert [p["source"]["name"] for p in passages] == ["Price list", "Winter menu"]
    assert passages[0]["score"] > passages[1]["score"] > 0
    assert passages[0]["source"] == {"itemId": items["Price list"]["id"], "postId": None, "answerId": None,
                                     "name": "Price list", "r2Key": items["Price list"]["r2Key"]}  # fmt: skip
    balance = portal(service, "GET", "/api/credits/balance", jwt).json()["balance"]
    assert balance == {"available": 10, "held": 0, "total": 10}

    # The preview: start, retrieval (the same ranking), the reply quoting the best passage, sources, done; 1 credit.
    status, lines = preview(service, jwt, where, {"prompt": QUESTION})
    assert status == 200, lines
    streamed = events(lines)
    start, retrieval, *_, sources, done = streamed
    assert (start["type"], retrieval["type"], sources["type"], done["type"]) == (
        "start",
        "retrieval",
        "sources",
        "done",
    )
    used = [p for p in retrieval["passages"] if p["used"]]
    assert [(p["text"], p["score"]) for p in used[:2]] == [(p["text"], p["score"]) for p in passages]
    assert "2.85 EUR" in "".join(e.get("text", "") for e in streamed if e["type"] == "delta")
    assert sources["sources"][0]["itemId"] == items["Price list"]["id"] and done["usage"]["credits"] == 1

    # An override for that turn only: the dearer model and a fallback, word for word; nothing saved.
    override = {"model": "offline-plus", "fallback": FALLBACK}
    status, lines = preview(service, jwt, where, {"prompt": "Do you sell snowboards?", "behaviour": override})
    streamed = events(lines)
    assert status == 200 and streamed[-1]["usage"]["credits"] == 3
    assert "".join(e.get("text", "") for e in streamed if e["type"] == "delta") == FALLBACK
    behaviour = portal(service, "GET", where, jwt).json()["agent"]["behaviour"]
    assert (behaviour["model"], behaviour["fallback"]) == (None, "")

    # Billed to the owner at each model's price, named as previews; never listed among the conversations.
    history = portal(service, "GET", "/api/credits/history?refType=llm", jwt).json()["entries"]
    assert sorted((e["amountCredits"], e["description"]) for e in history) == [
        (-3, "Preview of Barista · offline-plus"), (-1, "Preview of Barista · offline")]  # fmt: skip
    assert portal(service, "GET", "/api/credits/balance", jwt).json()["balance"]["available"] == 6
    assert portal(service, "GET", f"{where}/conversations", jwt).json()["threads"] == []

    # A refusal is plain JSON and free: a model the deployment does not list.
    status, refused = preview(service, jwt, where, {"prompt": QUESTION, "behaviour": {"model": "gpt-9"}})
    assert status == 400 and json.loads(refused[0])["error"].startswith("behaviour.model:")
    assert portal(service, "GET", "/api/credits/balance", jwt).json()["balance"]["available"] == 6
