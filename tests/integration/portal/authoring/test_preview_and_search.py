"""Trying an agent before visitors do (authoring.md): ``POST …/knowledge/search`` (what a turn would retrieve, with
scores, unbilled) and ``POST …/preview`` (a streamed turn with a ``retrieval`` line, an optional behaviour override,
billed to the owner at the model's price, never stored as a conversation, 20 a minute per user), through their
handlers in process on moto, with the knowledge worker run on the queued messages."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import pytest

from core.platform import providers as platform_providers
from core.platform.settings import get_settings
from tests.integration.conftest import Clock
from tests.support.authoring import Studio
from tests.support.chat import balance, grant, llm_charges
from tests.support.knowledge import index_queued
from tests.support.lambdas import HttpResult, StreamedResult, invoke_streamed
from tests.support.ledger_checks import assert_consistent, entries, holds
from tests.support.portal import Portal, assert_error

SEARCH, PREVIEW = "PortalKnowledgeSearchFunction", "PortalAgentPreviewFunction"
NDJSON = "application/x-ndjson"
QUESTION = "What does a cortado cost?"
NOTHING_MATCHES = "Do you sell snowboards?"
FALLBACK = "Ask Ines at the counter, she knows every bean we roast."
DOCUMENTS = {  # name -> (file, text)
    "Price list": ("prices.txt", "A cortado costs 2.85 EUR. A flat white costs 3.40 EUR."),
    "Winter menu": ("winter.txt", "In winter our cortado with cinnamon costs 3.10 EUR, from December to February."),
    "Opening hours": ("hours.txt", "Mon-Fri 7:00-18:00. Sat-Sun 8:00-16:00."),
}
DEPLOYMENT = json.dumps([
    {"id": "offline", "name": "Offline", "provider": "offline", "creditsPerTurn": 1, "default": True},
    {"id": "offline-plus", "name": "Offline Plus", "provider": "offline", "creditsPerTurn": 3},
    {"id": "offline-max", "name": "Offline Max", "provider": "offline", "creditsPerTurn": 5, "plans": ["business"]},
])  # fmt: skip
PASSAGE_KEYS = {"text", "where", "score", "source"}
SOURCE_KEYS = {"itemId", "postId", "answerId", "name", "r2Key"}


@pytest.fixture(autouse=True)
def offline_models(lambda_environment: None, monkeypatch: pytest.MonkeyPatch) -> None:
    """The local runner's models (and a business-only one), answered by the offline model without delay."""
    monkeypatch.setenv("CHAT_MODEL", "offline")
    monkeypatch.setenv("CHAT_MODELS", DEPLOYMENT)
    monkeypatch.setenv("OFFLINE_MODEL_DELAY_MS", "0")
    platform_providers.reset()


@dataclass
class Shop:
    studio: Studio
    agent_id: str
    items: dict[str, dict[str, Any]]  # by name

    def search(self, body: Any, *, studio: Studio | None = None, agent_id: str | None = None) -> HttpResult:
        return (studio or self.studio).call(SEARCH, agent_id=agent_id or self.agent_id, body=body)

    def preview(self, body: Any, *, studio: Studio | None = None, agent_id: str | None = None) -> StreamedResult:
        event = (studio or self.studio).event(PREVIEW, agent_id=agent_id or self.agent_id, body=body)
        return invoke_streamed(PREVIEW, event)


@pytest.fixture
def shop(portal: Portal) -> Shop:
    studio = Studio.open(portal)
    agent_id = studio.agent("Barista")["id"]
    items = {}
    for name, (file, text) in DOCUMENTS.items():
        key = f"projects/{agent_id}/notes/{file}"
        studio.put_object(key, text.encode(), "text/plain")
        items[name] = studio.item(agent_id, name, r2Key=key, kind="document")
    assert index_queued(portal) >= 1
    grant(portal.aws, studio.who.user_id, 20)
    return Shop(studio, agent_id, items)


def streamed_preview(result: StreamedResult) -> tuple[list[dict[str, Any]], str]:
    """A complete preview: start, retrieval, delta…, sources, done, each line its own chunk."""
    assert result.status == 200, result.body
    assert (result.header("Content-Type"), result.header("Cache-Control")) == (NDJSON, "no-store")
    assert all(chunk.endswith(b"\n") and chunk.count(b"\n") == 1 for chunk in result.chunks), result.chunks
    lines = result.lines()
    start, retrieval, *deltas, sources, done = lines
    assert start["type"] == "start" and start["turnId"].startswith("turn_")
    assert retrieval["type"] == "retrieval" and set(retrieval) == {"type", "passages"}
    for passage in retrieval["passages"]:
        assert set(passage) == PASSAGE_KEYS | {"used"} and set(passage["source"]) == SOURCE_KEYS
        assert isinstance(passage["score"], float) and passage["score"] > 0 and passage["source"]["answerId"] is None
    assert deltas and all(line["type"] == "delta" for line in deltas)
    assert (sources["type"], done["type"]) == ("sources", "done")
    return lines, "".join(line["text"] for line in deltas)


# --- knowledge search


def test_search_lists_what_a_turn_would_retrieve_with_scores_best_first(shop: Shop, aws: Any) -> None:
    found = shop.search({"query": QUESTION})
    assert found.status == 200, found.body
    passages = found.json()["passages"]
    assert [p["source"]["name"] for p in passages][:2] == ["Price list", "Winter menu"]
    assert "Opening hours" not in {p["source"]["name"] for p in passages}  # no term of the question in it
    scores = [p["score"] for p in passages]
    assert scores == sorted(scores, reverse=True) and all(s > 0 for s in scores)
    price = shop.items["Price list"]
    assert passages[0] == {
        "text": DOCUMENTS["Price list"][1], "where": passages[0]["where"], "score": scores[0],
        "source": {"itemId": price["id"], "postId": None, "answerId": None, "name": "Price list",
                   "r2Key": price["r2Key"]},
    }  # fmt: skip
    assert balance(aws, shop.studio.who.user_id) == (20, 0) and llm_charges(aws, shop.studio.who.user_id) == []


def test_search_limit_is_honoured_and_defaults_to_six(shop: Shop) -> None:
    question = "cortado winter hours flat white cinnamon Sat"  # a term of every document
    assert len(shop.search({"query": question}).json()["passages"]) == 3
    assert len(shop.search({"query": question, "limit": 1}).json()["passages"]) == 1
    assert len(shop.search({"query": question, "limit": 20}).json()["passages"]) == 3


def test_search_of_an_agent_not_indexed_is_empty(shop: Shop) -> None:
    other = shop.studio.agent("Empty")["id"]
    found = shop.search({"query": QUESTION}, agent_id=other)
    assert (found.status, found.json()) == (200, {"passages": []})


def test_search_never_shows_a_deactivated_document_even_before_the_rebuild(shop: Shop) -> None:
    price = shop.items["Price list"]
    shop.studio.ok("PortalItemUpdateFunction", agent_id=shop.agent_id, item_id=price["id"], body={"active": False})
    names = [p["source"]["name"] for p in shop.search({"query": QUESTION}).json()["passages"]]
    assert names and "Price list" not in names  # the index still holds it: the item's own read keeps it out


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({}, "query"), ({"query": "   "}, "query"), ({"query": "x" * 4001}, "query"), ({"query": 5}, "query"),
        ({"query": QUESTION, "limit": 0}, "limit"), ({"query": QUESTION, "limit": 21}, "limit"),
        ({"query": QUESTION, "limit": "6"}, "limit"), ({"query": QUESTION, "limit": True}, "limit"),
        ({"query": QUESTION, "client": "v1_abcdefabcdefabcd"}, "client"),
    ],
)  # fmt: skip
def test_a_bad_search_is_400_naming_the_field(shop: Shop, body: dict[str, Any], field: str) -> None:
    refused = shop.search(body)
    assert_error(refused, 400, "VALIDATION_ERROR")
    assert refused.json()["error"].startswith(f"{field}:"), refused.json()


def test_members_search_strangers_and_other_workspaces_agents_are_404(shop: Shop, portal: Portal) -> None:
    member = shop.studio.member()
    assert shop.search({"query": QUESTION}, studio=member).status == 200
    stranger = shop.studio.stranger()
    assert_error(shop.search({"query": QUESTION}, studio=stranger), 404, "NOT_FOUND")
    assert_error(shop.search({"limit": 99}, studio=stranger), 404, "NOT_FOUND")  # before the body's 400
    # The stranger's own workspace, naming this workspace's agent: the same 404, nothing of it read back.
    own = Studio(portal, stranger.who, portal.create_workspace(stranger.who, "Mine")["id"])
    assert_error(shop.search({"query": QUESTION}, studio=own), 404, "NOT_FOUND")


# --- preview


def test_a_preview_streams_the_retrieval_with_scores_and_is_billed_to_the_owner(shop: Shop, aws: Any) -> None:
    owner = shop.studio.who.user_id
    lines, reply = streamed_preview(shop.preview({"prompt": QUESTION}))
    retrieval, sources = lines[1]["passages"], lines[-2]["sources"]
    assert "2.85 EUR" in reply  # the offline model quotes the best passage
    used = [p for p in retrieval if p["used"]]
    assert [p["source"]["name"] for p in used][:2] == ["Price list", "Winter menu"]
    # Each source the turn names is a passage the retrieval shows it used, in the same order.
    assert [s["itemId"] for s in sources] == list(dict.fromkeys(p["source"]["itemId"] for p in used))
    assert [p["score"] for p in retrieval] == sorted((p["score"] for p in retrieval), reverse=True)
    # The same ranking as the search.
    searched = shop.search({"query": QUESTION}).json()["passages"]
    assert [(p["text"], p["score"]) for p in used] == [(p["text"], p["score"]) for p in searched][: len(used)]
    assert lines[-1]["usage"]["credits"] == 1
    assert llm_charges(aws, owner) == [(-1, lines[0]["turnId"])]
    (entry,) = entries(aws.dynamodb, owner, "llm")
    assert entry["description"] == "Preview of Barista · offline"
    assert balance(aws, owner) == (19, 0)
    assert_consistent(aws.dynamodb, owner)


def test_a_preview_is_never_stored_as_a_conversation(shop: Shop, aws: Any) -> None:
    shop.studio.ok("PortalWorkspaceUpdateFunction", body={"storeConversations": True})
    lines, _ = streamed_preview(shop.preview({"prompt": QUESTION, "history": [{"role": "user", "content": "Hi"}]}))
    listed = shop.studio.ok("PortalConversationsListFunction", agent_id=shop.agent_id)
    assert listed["threads"] == []
    turn_id = lines[0]["turnId"]
    scan = aws.dynamodb.scan(TableName=get_settings().main_table)["Items"]
    assert not [item for item in scan if turn_id in json.dumps(item)]  # nothing of the turn anywhere in the table


def test_a_member_previews_and_the_owner_pays(shop: Shop, aws: Any) -> None:
    member = shop.studio.member()
    lines, _ = streamed_preview(shop.preview({"prompt": QUESTION}, studio=member))
    assert llm_charges(aws, shop.studio.who.user_id) == [(-1, lines[0]["turnId"])]
    assert llm_charges(aws, member.who.user_id) == []


def test_the_behaviour_override_holds_for_that_turn_only(shop: Shop, aws: Any) -> None:
    _, reply = streamed_preview(shop.preview({"prompt": NOTHING_MATCHES, "behaviour": {"fallback": FALLBACK}}))
    assert reply == FALLBACK  # word for word
    saved = shop.studio.ok("PortalAgentGetFunction", agent_id=shop.agent_id)["agent"]["behaviour"]
    assert saved["fallback"] == ""  # nothing was saved
    _, reply = streamed_preview(shop.preview({"prompt": NOTHING_MATCHES}))
    assert reply != FALLBACK


def test_the_override_over_the_saved_behaviour_field_by_field_and_null_its_default(shop: Shop) -> None:
    shop.studio.ok("PortalAgentUpdateFunction", agent_id=shop.agent_id,
                   body={"behaviour": {"fallback": FALLBACK, "maxReplyTokens": 64}})  # fmt: skip
    _, reply = streamed_preview(shop.preview({"prompt": NOTHING_MATCHES, "behaviour": {"maxReplyTokens": 100}}))
    assert reply == FALLBACK  # the saved fallback stays where the override says nothing of it
    _, reply = streamed_preview(shop.preview({"prompt": NOTHING_MATCHES, "behaviour": {"fallback": None}}))
    assert reply != FALLBACK  # null: its default ("" = the service's own sentence) for this turn


def test_an_override_model_is_billed_its_price(shop: Shop, aws: Any) -> None:
    lines, _ = streamed_preview(shop.preview({"prompt": QUESTION, "behaviour": {"model": "offline-plus"}}))
    assert lines[-1]["usage"]["credits"] == 3
    (entry,) = entries(aws.dynamodb, shop.studio.who.user_id, "llm")
    assert (entry["amountCredits"], entry["description"]) == (-3, "Preview of Barista · offline-plus")


@pytest.mark.parametrize(
    ("behaviour", "refusal"),
    [
        ({"model": "gpt-9"}, (400, "VALIDATION_ERROR", "behaviour.model:")),
        ({"model": "offline-max"}, (402, "PLAN_LIMIT_REACHED", "The pro plan does not offer the model offline-max")),
        ({"temperature": 1.5}, (400, "VALIDATION_ERROR", "behaviour.temperature:")),
        ({"maxReplyTokens": 63}, (400, "VALIDATION_ERROR", "behaviour.maxReplyTokens:")),
        ({"instructions": "x" * 8001}, (400, "VALIDATION_ERROR", "behaviour.instructions:")),
        ({"instructions": "be kind\x00"}, (400, "VALIDATION_ERROR", "behaviour.instructions:")),
        ({"fallback": "y" * 501}, (400, "VALIDATION_ERROR", "behaviour.fallback:")),
        ({"tone": "dry"}, (400, "VALIDATION_ERROR", "behaviour.tone:")),
    ],
)
def test_a_bad_override_is_refused_before_anything_is_held(
    shop: Shop, aws: Any, behaviour: dict[str, Any], refusal: tuple[int, str, str]
) -> None:
    status, code, said = refusal
    refused = shop.preview({"prompt": QUESTION, "behaviour": behaviour})
    assert (refused.status, refused.header("Content-Type")) == (status, "application/json; charset=utf-8")
    body = refused.json()
    assert body["code"] == code and body["error"].startswith(said), body
    assert balance(aws, shop.studio.who.user_id) == (20, 0) and holds(aws.dynamodb, shop.studio.who.user_id) == []


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({}, "prompt"), ({"prompt": " "}, "prompt"), ({"prompt": QUESTION, "client": "v1_abcdefabcdefabcd"}, "client"),
        ({"prompt": QUESTION, "threadKey": "thr_1"}, "threadKey"), ({"prompt": QUESTION, "history": "hi"}, "history"),
        ({"prompt": QUESTION, "history": [{"content": "x" * 32_001}]}, "history"),
    ],
)  # fmt: skip
def test_a_bad_preview_body_is_400_naming_the_field(shop: Shop, body: dict[str, Any], field: str) -> None:
    refused = shop.preview(body)
    assert refused.status == 400 and refused.json()["code"] == "VALIDATION_ERROR", refused.body
    assert refused.json()["error"].startswith(f"{field}:"), refused.json()


def test_strangers_and_other_workspaces_agents_get_404_and_hold_nothing(shop: Shop, portal: Portal, aws: Any) -> None:
    stranger = shop.studio.stranger()
    grant(aws, stranger.who.user_id, 5)
    own = Studio(portal, stranger.who, portal.create_workspace(stranger.who, "Mine")["id"])
    for studio in (stranger, own):  # this workspace, or the stranger's own naming this workspace's agent
        refused = shop.preview({"prompt": QUESTION}, studio=studio)
        assert (refused.status, refused.json()["code"]) == (404, "NOT_FOUND")
        refused = shop.preview({"prompt": QUESTION, "behaviour": {"model": "offline-max"}}, studio=studio)
        assert (refused.status, refused.json()["code"]) == (404, "NOT_FOUND")  # the plan's 402 would tell more
    for account in (shop.studio.who.user_id, stranger.who.user_id):
        assert holds(aws.dynamodb, account) == [] and llm_charges(aws, account) == []


def test_an_owner_without_credits_gets_402_before_the_stream(shop: Shop, portal: Portal, aws: Any) -> None:
    poor = Studio.open(portal, "poor@example.com")
    agent_id = poor.agent("Barista")["id"]
    refused = shop.preview({"prompt": QUESTION}, studio=poor, agent_id=agent_id)
    assert (refused.status, refused.json()["code"]) == (402, "INSUFFICIENT_CREDITS")


def test_twenty_previews_a_minute_per_user_over_every_workspace(shop: Shop, portal: Portal, aws: Any,
                                                               clock: Clock) -> None:  # fmt: skip
    second = Studio(portal, shop.studio.who, portal.create_workspace(shop.studio.who, "Second")["id"])
    second_agent = second.agent("Roaster")["id"]
    grant(aws, shop.studio.who.user_id, 10)
    for n in range(20):  # ten in each workspace: one budget
        where = {"studio": second, "agent_id": second_agent} if n % 2 else {}
        streamed_preview(shop.preview({"prompt": QUESTION}, **where))
    for where in ({}, {"studio": second, "agent_id": second_agent}):
        refused = shop.preview({"prompt": QUESTION}, **where)
        assert (refused.status, refused.json()["code"]) == (429, "RATE_LIMITED")
        assert refused.header("Retry-After") is not None and int(refused.header("Retry-After") or 0) >= 1
    # Another user of the same workspace has a budget of their own.
    streamed_preview(shop.preview({"prompt": QUESTION}, studio=shop.studio.member()))
    assert balance(aws, shop.studio.who.user_id) == (30 - 21, 0)  # the refused ones held nothing
    clock.now += 61  # the window has passed: previews again
    streamed_preview(shop.preview({"prompt": QUESTION}))
