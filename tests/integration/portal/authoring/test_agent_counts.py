"""An agent's counters on a small item beside it (``WS#<ws>`` / ``COUNTS#<agentId>``, core.platform.agent_counts_store).

A post, item or answer write moves (or, for an edit, checks) that item, never the agent's item with its wrap and site
documents: its write units are the same beside a 64 KiB site document as beside none (measured with the benches'
meter, bench/dynamo_meter.py, which bills a transaction's Update or ConditionCheck by the item's size as DynamoDB
does). The counts stay exact under concurrent writes and a deletion racing them; an agent written before counters
items (its counts on its own item) is read as it was and adopted by its first write, its counts carried over once.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from bench.dynamo_meter import Meter
from core.answers.records import MAX_ANSWERS
from core.platform import main_table
from core.platform import providers as platform_providers
from core.platform.dynamo import from_item, to_item
from core.platform.settings import get_settings
from core.posts.write_store import PostStore
from tests.support.authoring import Studio, at_once
from tests.support.core_clients import wrap_core_clients
from tests.support.feed_checks import assert_agent_content
from tests.support.iam_check import calling
from tests.support.portal import Portal, assert_error

AGENT_GET, AGENTS_LIST = "PortalAgentGetFunction", "PortalAgentsListFunction"
SITE_LIMIT = 64 * 1024


@pytest.fixture
def studio(portal: Portal) -> Studio:
    return Studio.open(portal)


class Unjudged:
    """The meter's size probes, run inside a handler's call: the test's reads, judged by no function's policy."""

    def __init__(self, client: Any):
        self._client = client

    def __getattr__(self, name: str) -> Any:
        call = getattr(self._client, name)

        def unjudged(**request: Any) -> Any:
            token = calling.set(None)
            try:
                return call(**request)
            finally:
                calling.reset(token)

        return unjudged


@pytest.fixture
def meter(portal: Portal, monkeypatch: pytest.MonkeyPatch) -> Iterator[Meter]:
    """The benches' meter on every client the handlers build (its size probes use the test's own client)."""
    found = Meter(Unjudged(portal.aws.dynamodb))

    hooked: set[int] = set()

    def attach(client: Any) -> Any:  # once per client: the layer's clients are cached, asked for on each use
        if id(client) not in hooked:
            hooked.add(id(client))
            found.attach(client.meta)
        return client

    wrap_core_clients(attach, monkeypatch)
    platform_providers.reset()
    yield found
    platform_providers.reset()


def site_of(size: int) -> dict[str, Any]:
    """A site document of about ``size`` bytes of JSON (the API's limit is 64 KiB)."""
    return {"pages": [{"title": "Home", "body": "x" * (size - 40)}]}


def raw(studio: Studio, key: dict[str, str]) -> dict[str, Any] | None:
    found = studio.portal.aws.dynamodb.get_item(TableName=get_settings().main_table, Key=to_item(key),
                                                ConsistentRead=True)  # fmt: skip
    return from_item(found["Item"]) if "Item" in found else None


def counts(studio: Studio, agent_id: str) -> tuple[int, int]:
    """The agent's counts as the portal shows them, by its get and by its list (which must agree)."""
    got = studio.ok(AGENT_GET, agent_id=agent_id)["agent"]
    listed = next(a for a in studio.ok(AGENTS_LIST)["agents"] if a["id"] == agent_id)
    assert (listed["postCount"], listed["itemCount"]) == (got["postCount"], got["itemCount"])
    return got["postCount"], got["itemCount"]


def writes_of(studio: Studio, meter: Meter, agent_id: str) -> dict[str, float]:
    """The write units each kind of post and item write of ``agent_id`` costs (each request metered alone)."""
    studio.media(agent_id, "media/a.jpg")
    spent: dict[str, float] = {}

    def metered(label: str, function: str, status: int = 200, **request: Any) -> Any:
        meter.reset()
        answer = studio.ok(function, status, agent_id=agent_id, **request)
        spent[label] = meter.reset().wru
        return answer

    post = metered("post create", "PortalPostCreateFunction", 201, body={"key": "media/a.jpg", "kind": "image"})
    ids = {"post_id": post["post"]["id"]}
    metered("post edit", "PortalPostUpdateFunction", body={"title": "Edited"}, **ids)
    metered("post publish", "PortalPostPublishFunction", **ids)
    metered("post delete", "PortalPostDeleteFunction", **ids)
    item = studio.item(agent_id)
    metered("item edit", "PortalItemUpdateFunction", body={"name": "Edited"}, item_id=item["id"])
    metered("item delete", "PortalItemDeleteFunction", item_id=item["id"])
    return spent


def test_a_post_or_item_write_costs_the_same_beside_a_64_kib_site_document(studio: Studio, meter: Meter) -> None:
    """Two agents alike but for their site document (a few bytes; just under 64 KiB): every post and item write
    costs the same write units on both. Before the counters item, the counter's Update and the edit's
    ConditionCheck were billed by the agent's size: about 150 WRU a post write beside the big document."""
    small, big = studio.agent("Small"), studio.agent("Big")
    studio.ok("PortalAgentSitePutFunction", agent_id=small["id"], body=site_of(100))
    studio.ok("PortalAgentSitePutFunction", agent_id=big["id"], body=site_of(SITE_LIMIT - 200))
    assert len(str(raw(studio, main_table.agent(studio.workspace_id, big["id"])))) > SITE_LIMIT - 300
    beside_small, beside_big = writes_of(studio, meter, small["id"]), writes_of(studio, meter, big["id"])
    assert beside_big == beside_small
    assert beside_big["post create"] < 40, beside_big  # the post's own items, its audit entry and the counter
    assert counts(studio, small["id"]) == counts(studio, big["id"]) == (0, 0)


def test_counts_stay_exact_under_concurrent_writes(studio: Studio) -> None:
    agent = studio.agent("Busy")
    studio.media(agent["id"], "media/a.jpg")
    for n in range(3):
        studio.put_object(f"projects/{agent['id']}/docs/d{n}.pdf", b"%PDF-1.4 d", "application/pdf")

    def write(n: int) -> int:
        if n < 9:
            body: dict[str, Any] = {"key": "media/a.jpg", "kind": "image", "publish": n % 2 == 0, "channels": ["site"]}
            return studio.call_in_container("PortalPostCreateFunction", agent_id=agent["id"], body=body).status
        name = f"d{n - 9}"
        body = {"name": name, "kind": "document", "r2Key": f"projects/{agent['id']}/docs/{name}.pdf"}
        return studio.call_in_container("PortalItemCreateFunction", agent_id=agent["id"], body=body).status

    assert at_once(12, write) == [201] * 12
    assert counts(studio, agent["id"]) == (9, 3)
    assert_agent_content(studio.portal.aws.dynamodb, agent["id"], workspace_id=studio.workspace_id)


def test_a_deletion_racing_post_writes_stops_them_and_takes_the_counters(studio: Studio) -> None:
    """Writes that land before the deletion are the purge's to drain; none lands after it (404), and the counters
    item goes with the agent: nothing counts for a deleted agent."""
    agent = studio.agent("Doomed")
    studio.media(agent["id"], "media/a.jpg")
    counts_key = main_table.agent_counts(studio.workspace_id, agent["id"])
    assert raw(studio, counts_key) is not None  # made with the agent

    def write(n: int) -> int:
        if n == 4:
            return studio.call_in_container("PortalAgentDeleteFunction", agent_id=agent["id"]).status
        body = {"key": "media/a.jpg", "kind": "image", "publish": True, "channels": ["site"]}
        return studio.call_in_container("PortalPostCreateFunction", agent_id=agent["id"], body=body).status

    answers = at_once(9, write)
    assert answers[4] == 200 and set(answers) <= {200, 201, 404}, answers
    assert raw(studio, counts_key) is None and raw(studio, main_table.agent(studio.workspace_id, agent["id"])) is None
    after = studio.call("PortalPostCreateFunction", agent_id=agent["id"], body={"key": "media/a.jpg", "kind": "image"})
    assert_error(after, 404, "NOT_FOUND")
    assert raw(studio, counts_key) is None  # a refused write makes no counters item
    studio.purge()
    assert_agent_content(studio.portal.aws.dynamodb, agent["id"], workspace_id=studio.workspace_id)
    assert not [sk for sk in studio.partition(f"WS#{studio.workspace_id}") if sk.startswith("COUNTS#")]


def make_old(studio: Studio, agent_id: str, **carried: int) -> None:
    """The agent as written before counters items: no counters item, its counts on its own item."""
    db, table = studio.portal.aws.dynamodb, get_settings().main_table
    db.delete_item(TableName=table, Key=to_item(main_table.agent_counts(studio.workspace_id, agent_id)))
    names = ", ".join(f"{name} = :{name}" for name in carried)
    db.update_item(TableName=table, Key=to_item(main_table.agent(studio.workspace_id, agent_id)),
                   UpdateExpression=f"SET {names}", ExpressionAttributeValues=to_item({f":{k}": v for k, v in
                                                                                       carried.items()}))  # fmt: skip


def test_an_agent_older_than_its_counters_item_is_read_as_it_was_and_adopted_by_its_first_write(studio: Studio) -> None:
    agent = studio.agent("Old")
    studio.media(agent["id"], "media/a.jpg")
    first = studio.post(agent["id"])
    studio.post(agent["id"])
    studio.item(agent["id"])
    make_old(studio, agent["id"], postCount=2, itemCount=1)
    agent_key, counts_key = (main_table.agent(studio.workspace_id, agent["id"]),
                             main_table.agent_counts(studio.workspace_id, agent["id"]))  # fmt: skip
    assert counts(studio, agent["id"]) == (2, 1)  # read from the agent itself
    # An edit (which only checks that the agent exists) adopts it: its counts move to the counters item, once.
    studio.ok("PortalPostUpdateFunction", agent_id=agent["id"], post_id=first["id"], body={"title": "Edited"})
    assert {k: raw(studio, counts_key)[k] for k in ("postCount", "itemCount")} == {"postCount": 2, "itemCount": 1}  # type: ignore[index]
    assert "postCount" not in raw(studio, agent_key) and "itemCount" not in raw(studio, agent_key)  # type: ignore[operator]
    assert counts(studio, agent["id"]) == (2, 1)
    studio.post(agent["id"])
    assert counts(studio, agent["id"]) == (3, 1)
    assert_agent_content(studio.portal.aws.dynamodb, agent["id"], workspace_id=studio.workspace_id)


def test_concurrent_first_writes_of_an_old_agent_adopt_it_once(studio: Studio) -> None:
    agent = studio.agent("Old")
    studio.media(agent["id"], "media/a.jpg")
    for _ in range(3):
        studio.post(agent["id"])
    make_old(studio, agent["id"], postCount=3)

    def write(_: int) -> int:
        body = {"key": "media/a.jpg", "kind": "image"}
        return studio.call_in_container("PortalPostCreateFunction", agent_id=agent["id"], body=body).status

    assert at_once(6, write) == [201] * 6
    assert counts(studio, agent["id"]) == (9, 0)
    assert_agent_content(studio.portal.aws.dynamodb, agent["id"], workspace_id=studio.workspace_id)


def test_an_old_agent_carries_its_answer_count_to_the_cap(studio: Studio) -> None:
    agent = studio.agent("Old")
    make_old(studio, agent["id"], answerCount=MAX_ANSWERS - 1)
    create = "PortalAnswerCreateFunction"
    studio.ok(create, 201, agent_id=agent["id"], body={"question": "The last one?", "answer": "Yes."})
    full = studio.call(create, agent_id=agent["id"], body={"question": "One more?", "answer": "No."})
    assert_error(full, 409, "CONFLICT")


def test_an_old_agent_deleted_under_its_first_write_takes_none(studio: Studio, monkeypatch: pytest.MonkeyPatch) -> None:
    """The deletion lands between the write's access check and its transaction (made there by wrapping the store's
    create): the write finds no counters item, the adoption finds no agent, and the answer is a 404 that leaves no
    counters item and no post behind."""
    agent = studio.agent("Old")
    studio.media(agent["id"], "media/a.jpg")
    make_old(studio, agent["id"], postCount=0)
    real, done = PostStore.create, list[int]()

    def deleted_first(self: Any, *args: Any, **kwargs: Any) -> Any:
        done.append(studio.call("PortalAgentDeleteFunction", agent_id=agent["id"]).status)
        return real(self, *args, **kwargs)

    monkeypatch.setattr(PostStore, "create", deleted_first)
    answer = studio.call("PortalPostCreateFunction", agent_id=agent["id"], body={"key": "media/a.jpg", "kind": "image"})
    assert done == [200]
    assert_error(answer, 404, "NOT_FOUND")
    assert raw(studio, main_table.agent_counts(studio.workspace_id, agent["id"])) is None
    assert studio.partition(main_table.posts_partition(agent["id"])) == []
