"""AWS calls of every endpoint of the writer (authoring.md), warm, beside the least the data model allows.

Each case prepares a fresh target (a write changes what it writes to), calls the endpoint once to warm its
container (the handler's import, the JWT secret, the clients), prepares again and records the second call: every
call's operation and table, which were issued together, and the round trips (``tests.support.round_trips``).
The numbers are the "Calls per request: the writer" table of docs/data-model.md. Every request starts with the
session's GetItem (the portal's boundary), and every write ends in one TransactWriteItems that carries its audit
entry (and, with an Idempotency-Key, the key's record).
"""

from __future__ import annotations

import itertools
import os
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest

from tests.support.authoring import Studio
from tests.support.call_recorder import Recorder
from tests.support.portal import Portal
from tests.support.round_trips import RoundTrips

World = dict[str, Any]
Prepare = Callable[[Studio, World], dict[str, Any]]
SESSION = {"GetItem:main": 1}
ACCESS = {"BatchGetItem:main": 1}  # membership + workspace (+ the caller's user, + the route's agent): one read
WRITE = {"TransactWriteItems:main": 1}
UNIQUE = itertools.count()


def unique(prefix: str) -> str:
    return f"{prefix} {next(UNIQUE)}"


@dataclass(frozen=True)
class Case:
    function: str
    prepare: Prepare
    calls: dict[str, int]  # beyond the session's GetItem
    batches: tuple[dict[str, int], ...] = ()  # the reads issued together, batch by batch
    status: int = 200
    admin: bool = False  # called by an admin, not the owner
    trips: int | None = None  # the round trips, where batches nest (a store's reads together inside a batch)


def with_calls(*parts: dict[str, int]) -> dict[str, int]:
    return dict(sum((Counter(p) for p in parts), Counter()))


def agent_id(st: Studio, w: World) -> dict[str, Any]:
    return {"agent_id": w["agent"]}


def fresh_brand(st: Studio, w: World) -> dict[str, Any]:
    return {"brand_id": st.brand(unique("Brand"))["id"]}


def fresh_workflow(st: Studio, w: World) -> dict[str, Any]:
    return {"workflow_id": st.workflow(unique("Flow"))["id"]}


def fresh_post(publish: bool) -> Prepare:
    return lambda st, w: {"agent_id": w["agent"], "post_id": st.post(w["agent"], publish=publish)["id"]}


def fresh_item(st: Studio, w: World) -> dict[str, Any]:
    return {"agent_id": w["agent"], "item_id": st.item(w["agent"], unique("Item").replace(" ", "-"))["id"]}


def fresh_object(st: Studio, w: World) -> dict[str, Any]:
    path = f"assets/{next(UNIQUE)}.png"
    st.put_object(path)
    return {"path": path}


def new_item(st: Studio, w: World) -> dict[str, Any]:
    key = f"projects/{w['agent']}/docs/{next(UNIQUE)}.pdf"
    st.put_object(key, b"%PDF", "application/pdf")
    return {"agent_id": w["agent"], "body": {"name": "Menu", "kind": "document", "r2Key": key}}


def named(field: str = "name") -> Callable[[Prepare], Prepare]:
    def prepare(target: Prepare) -> Prepare:
        return lambda st, w: target(st, w) | {"body": {field: unique("Changed")}}

    return prepare


def nothing(st: Studio, w: World) -> dict[str, Any]:
    return {}


HEAD = {"HeadObject:s3": 1}
BESIDE = {"BatchGetItem:main": 1, "GetItem:main": 1}  # the access check and the record a write starts from
CASES: dict[str, Case] = {  # the objects' cases first: later cases add objects to the agent's folder
    "objects-list (5 objects)": Case("PortalObjectsListFunction", nothing,
                                     with_calls(ACCESS, {"ListObjectsV2:s3": 1, "HeadObject:s3": 5}),
                                     ({"BatchGetItem:main": 1, "ListObjectsV2:s3": 1}, {"HeadObject:s3": 5})),
    "object-get": Case("PortalObjectGetFunction", lambda st, w: {"path": "assets/logo.png"},
                       with_calls(ACCESS, HEAD), ({"BatchGetItem:main": 1, "HeadObject:s3": 1},)),
    "object-delete": Case("PortalObjectDeleteFunction", fresh_object,
                          # + the storage counter letting go of the key: its record read, then one transaction
                          with_calls(ACCESS, HEAD, {"DeleteObject:s3": 1}, WRITE, {"GetItem:main": 1}, WRITE),
                          ({"BatchGetItem:main": 1, "HeadObject:s3": 1},)),
    "workspace-update": Case("PortalWorkspaceUpdateFunction", named()(nothing), with_calls(ACCESS, WRITE)),
    "brand-create": Case("PortalBrandCreateFunction", lambda st, w: {"body": {"name": unique("Brand")}},
                         with_calls(ACCESS, WRITE), status=201),
    "brand-create, default": Case("PortalBrandCreateFunction",
                                  lambda st, w: {"body": {"name": unique("Brand"), "isDefault": True}},
                                  with_calls(ACCESS, WRITE), status=201),
    "brand-create, with an Idempotency-Key": Case("PortalBrandCreateFunction", lambda st, w: {
        "body": {"name": unique("Brand")}, "key": unique("key")}, with_calls(ACCESS, {"UpdateItem:main": 1}, WRITE),
        status=201),
    "brand-create, replayed": Case("PortalBrandCreateFunction", lambda st, w: {
        "body": {"name": "Replayed"}, "key": "replayed"}, with_calls(ACCESS, {"UpdateItem:main": 1}),
        status=201),
    "brand-update": Case("PortalBrandUpdateFunction", named()(fresh_brand), with_calls(ACCESS, {"GetItem:main": 1},
                         WRITE), ({"BatchGetItem:main": 1, "GetItem:main": 1},)),
    "brand-delete": Case("PortalBrandDeleteFunction", fresh_brand, with_calls(ACCESS, {"GetItem:main": 1}, WRITE),
                         (BESIDE,)),
    "workflows-list": Case("PortalWorkflowsListFunction", nothing, with_calls(ACCESS, {"Query:main": 1}),
                           ({"BatchGetItem:main": 1, "Query:main": 1},)),
    "workflow-create": Case("PortalWorkflowCreateFunction", lambda st, w: {"body": {"name": unique("Flow")}},
                            with_calls(ACCESS, WRITE), status=201),
    "workflow-update": Case("PortalWorkflowUpdateFunction", named()(fresh_workflow),
                            with_calls(ACCESS, {"GetItem:main": 1}, WRITE), (BESIDE,)),
    "workflow-delete": Case("PortalWorkflowDeleteFunction", fresh_workflow,
                            with_calls(ACCESS, {"GetItem:main": 1}, WRITE), (BESIDE,)),
    # The agents and their counters items (``COUNTS#``): two Queries issued together with the access check.
    "agents-list": Case("PortalAgentsListFunction", nothing, with_calls(ACCESS, {"Query:main": 2}),
                        ({"BatchGetItem:main": 1, "Query:main": 2},)),
    "agent-create": Case("PortalAgentCreateFunction", lambda st, w: {"body": {"name": unique("Agent")}},
                         with_calls(ACCESS, WRITE), status=201),
    "agent-create, by an admin": Case("PortalAgentCreateFunction", lambda st, w: {"body": {"name": unique("Agent")}},
                                      with_calls(ACCESS, {"GetItem:main": 1}, WRITE), status=201, admin=True),
    "agent-get": Case("PortalAgentGetFunction", agent_id, ACCESS),
    "agent-update": Case("PortalAgentUpdateFunction", named()(agent_id), with_calls(ACCESS, WRITE)),
    "agent-delete": Case("PortalAgentDeleteFunction", lambda st, w: {"agent_id": st.agent(unique("Doomed"))["id"]},
                         with_calls(ACCESS, {"BatchGetItem:main": 1}, WRITE, {"SendMessage:": 1}),
                         ({"BatchGetItem:main": 2},)),  # the agent read with its counters item, beside the check
    "wrap-put": Case("PortalAgentWrapPutFunction", named("greeting")(agent_id), with_calls(ACCESS, WRITE)),
    "wrap-get": Case("PortalAgentWrapGetFunction", agent_id, ACCESS),
    "site-put": Case("PortalAgentSitePutFunction", lambda st, w: {"agent_id": w["agent"],
                                                                   "body": {"pages": [unique("page")]}},
                     with_calls(ACCESS, WRITE, {"SendMessage:": 1})),
    "site-get": Case("PortalAgentSiteGetFunction", agent_id, ACCESS),
    "posts-list": Case("PortalPostsListFunction", agent_id, with_calls(ACCESS, {"Query:main": 2}),
                       ({"BatchGetItem:main": 1, "Query:main": 2},)),
    "posts-list, published": Case("PortalPostsListFunction",
                                  lambda st, w: {"agent_id": w["agent"], "query": {"status": "published"}},
                                  with_calls(ACCESS, {"Query:main": 1}), ({"BatchGetItem:main": 1, "Query:main": 1},)),
    "post-create, draft": Case("PortalPostCreateFunction", lambda st, w: {"agent_id": w["agent"], "body": {
        "key": "media/a.jpg", "kind": "image"}}, with_calls(ACCESS, WRITE), status=201),
    "post-create, published (3 media keys, 2 objects)": Case("PortalPostCreateFunction", lambda st, w: {
        "agent_id": w["agent"], "body": {"key": "media/v.mp4", "kind": "video", "poster": "media/a.jpg",
                                         "playable": "media/v.mp4", "publish": True, "channels": ["site"]}},
        with_calls(ACCESS, {"HeadObject:s3": 2}, WRITE, {"SendMessage:": 1}),
        ({"BatchGetItem:main": 1, "HeadObject:s3": 2},), status=201),
    "post-update": Case("PortalPostUpdateFunction", named("title")(fresh_post(False)),
                        with_calls(ACCESS, {"GetItem:main": 1}, WRITE), ({"BatchGetItem:main": 1, "GetItem:main": 1},)),
    "post-update, a published post's new key": Case("PortalPostUpdateFunction", lambda st, w: fresh_post(True)(st, w)
                                                    | {"body": {"key": "media/b.jpg"}},
        with_calls(ACCESS, {"GetItem:main": 1}, HEAD, WRITE, {"SendMessage:": 1}), (BESIDE,)),
    "post-publish": Case("PortalPostPublishFunction", fresh_post(False), with_calls(ACCESS, {"GetItem:main": 1},
                         HEAD, WRITE, {"SendMessage:": 1}), (BESIDE,)),
    "post-unpublish": Case("PortalPostUnpublishFunction", fresh_post(True), with_calls(ACCESS, {"GetItem:main": 1},
                           WRITE, {"SendMessage:": 1}), ({"BatchGetItem:main": 1, "GetItem:main": 1},)),
    "post-delete": Case("PortalPostDeleteFunction", fresh_post(True), with_calls(ACCESS, {"GetItem:main": 1}, WRITE,
                        {"SendMessage:": 1}), (BESIDE,)),
    # issue 43: the places of a page (each range asked) and the agent's ordered mark beside the access check, then
    # the page's items; the store's reads issued together inside the batch beside the check (3 round trips)
    "items-list": Case("PortalItemsListFunction", agent_id,
                       # the access check beside the places' Queries, then the page's items: nested batches
                       with_calls(ACCESS, {"BatchGetItem:main": 2, "Query:main": 2}), trips=3),
    "item-create": Case("PortalItemCreateFunction", new_item, with_calls(ACCESS, HEAD, WRITE, {"SendMessage:": 1}),
                        ({"BatchGetItem:main": 1, "HeadObject:s3": 1},), status=201),
    "item-update": Case("PortalItemUpdateFunction", named()(fresh_item), with_calls(ACCESS, {"BatchGetItem:main": 1},
                        WRITE, {"SendMessage:": 1}), ({"BatchGetItem:main": 2},)),
    "item-delete": Case("PortalItemDeleteFunction", fresh_item, with_calls(ACCESS, {"BatchGetItem:main": 1}, WRITE,
                        {"SendMessage:": 1}), ({"BatchGetItem:main": 2},)),
    "upload-create": Case("PortalUploadCreateFunction", lambda st, w: {"body": {
        "path": f"assets/{next(UNIQUE)}.png", "contentType": "image/png", "size": 10}},
        # The storage counter and the outstanding tickets (one Query), then the kept records of the paths they and
        # this upload name (one BatchGetItem): no listing of the bucket, whatever it holds (issue 43)
        with_calls(ACCESS, {"Query:main": 1, "BatchGetItem:main": 1}, WRITE), status=201),
}  # fmt: skip


def world(portal: Portal) -> tuple[Studio, World]:
    studio = Studio.open(portal)
    agent = studio.agent("Barista")
    studio.media(agent["id"], "media/a.jpg", "media/b.jpg", "media/v.mp4")
    studio.put_object("assets/logo.png")
    studio.put_object("conversations/x/turn.json")  # never listed: no HeadObject for it
    for n in range(2):
        studio.post(agent["id"], publish=n == 0)
    studio.item(agent["id"])
    return studio, {"agent": agent["id"]}


Measured = tuple[dict[str, int], list[dict[str, int]], int]  # every call, the batches, the round trips


def test_authoring_calls(portal: Portal, recorder: Recorder, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every case in one workspace (one loop, so a failure lists every endpoint whose calls changed)."""
    studio, state = world(portal)
    admin = studio.member("admin@example.com", role="admin")
    rounds = RoundTrips(recorder).attach(monkeypatch)
    found: dict[str, Measured] = {}
    for case, spec in CASES.items():
        caller = admin if spec.admin else studio
        warm = caller.call(spec.function, **spec.prepare(studio, state))  # a warm container
        assert warm.status == spec.status, (case, warm.body)
        request = spec.prepare(studio, state)
        rounds.reset()
        with recorder.record():
            result = caller.call(spec.function, **request)
        assert result.status == spec.status, (case, result.body)
        calls = dict(Counter(str(c) for c in recorder.calls))
        # Where batches nest, which calls fall in the inner batch depends on the threads' timing: only the count holds.
        batches = [] if spec.trips else [dict(b) for b in rounds.batches()]
        found[case] = (calls, batches, rounds.count())
    if os.environ.get("MEASURE"):
        print("\n".join(f"MEASURED {case}: {measured}" for case, measured in found.items()))
    expected = {}
    for case, spec in CASES.items():
        calls = dict(Counter(SESSION) + Counter(spec.calls))
        round_trips = spec.trips or sum(calls.values()) - sum(sum(batch.values()) - 1 for batch in spec.batches)
        expected[case] = (calls, [] if spec.trips else [dict(b) for b in spec.batches], round_trips)
    assert found == expected
