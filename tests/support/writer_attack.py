"""The writer (authoring.md) attacked over HTTP, for ``tests/attack/test_authoring_*.py``.

``ROUTES`` is each of the writer's 59 routes (every method and path of authoring.md the service has, with the
reads decisions.md adds, the six member and invitation routes, an agent's usage, the two POSTs that only read an
agent: its knowledge search and its preview, and issue 40's insights, ratings, unanswered questions and answers, and
issue 42's webhooks) once, with a valid body; a ``World`` is the ids a route names (a workspace, its agent, post,
item, brand, workflow, an object path, a pending invitation, a member, an answer, a webhook and a delivery), so one
route can be aimed at any mix of tenants' ids.
``stored`` reads everything the service keeps (every main-table item, every object version and delete marker of
the bucket) straight from the runner's moto, to prove an attack changed nothing; ``sign_upload`` asks for a
presigned POST.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, fields, replace
from string import Formatter
from typing import Any
from urllib.parse import quote

from stack.template import Stack, load
from tests.support.attack import invite, joined, portal
from tests.support.runner import LocalService, Reply, knowledge_settled


@dataclass(frozen=True)
class World:
    """The ids a writer's route can name; ``path`` is a workspace-relative object path."""

    workspace: str
    agent: str
    post: str
    item: str
    brand: str
    workflow: str
    path: str
    invitation: str  # a pending invitation's id
    member: str  # the user id of a plain member (``membership``: not one of the cast, whose requests are the attack)
    thread: str = "thr_attack"  # a stored conversation's thread key (read with ``VISITOR``)
    answer: str = "ans_01AAAAAAAAAAAAAAAAAAAAAAAA"  # one of the agent's answers (``world_of`` writes one)
    webhook: str = "whk_01AAAAAAAAAAAAAAAAAAAAAAAA"  # one of the workspace's webhooks (``world_of`` adds one)
    # A delivery: of nothing (a test event's would be attempted by the runner's worker while the attacks run, and
    # change what they must leave as it was); a delivery's tenancy: tests/integration/portal/webhooks.
    delivery: str = "dlv_01AAAAAAAAAAAAAAAAAAAAAAAA"

    def but(self, **ids: str) -> World:
        return replace(self, **ids)


# Well-formed ids of nothing (the shapes the service mints), for "as unknown as a missing one" comparisons.
UNKNOWN = World(
    workspace="ws_01AAAAAAAAAAAAAAAAAAAAAAAA", agent="prj_01AAAAAAAAAAAAAAAAAAAAAAAA",
    post="post_01AAAAAAAAAAAAAAAAAAAAAAAA", item="item_01AAAAAAAAAAAAAAAAAAAAAAAA",
    brand="brd_01AAAAAAAAAAAAAAAAAAAAAAAA", workflow="wf_01AAAAAAAAAAAAAAAAAAAAAAAA",
    path="assets/no-such-object.png", invitation="inv_01AAAAAAAAAAAAAAAAAAAAAAAA",
    member="usr_01AAAAAAAAAAAAAAAAAAAAAAAA", thread="thr_no-such-thread", answer="ans_01AAAAAAAAAAAAAAAAAAAAAAAA",
    webhook="whk_01AAAAAAAAAAAAAAAAAAAAAAAA", delivery="dlv_01AAAAAAAAAAAAAAAAAAAAAAAA",
)  # fmt: skip
VISITOR = "attack-visitor-000000000001"  # a chat visitor's ``client``, for the conversations' routes
ID_NAMES = tuple(f.name for f in fields(World) if f.name != "workspace")


@dataclass(frozen=True)
class Route:
    method: str
    template: str  # after /api/workspaces/{workspace}
    body: Callable[[World], Any] | None = None
    managers_only: bool = False  # a read for owners and admins (the audit log): a member is refused it too
    query: str = ""  # the query string a route needs (``?client=`` of the conversations' routes)
    body_names: frozenset[str] = frozenset()  # ids the body names (the transfer's ``userId``)
    reads: bool = False  # a POST that writes nothing (the knowledge search, the preview): members may make it too
    billed: bool = False  # a read billed to the workspace's owner (the preview, a streamed turn): see ``READ_BILLED``

    @property
    def write(self) -> bool:
        return self.method != "GET" and not self.reads

    @property
    def for_managers(self) -> bool:
        """Whether a member is refused it (403): every write, and the reads only owners and admins may make."""
        return self.write or self.managers_only

    @property
    def names(self) -> frozenset[str]:
        """The ids (besides the workspace) the path and the body name."""
        return frozenset(name for _, name, _, _ in Formatter().parse(self.template) if name) | self.body_names

    @property
    def label(self) -> str:
        return f"{self.method} {self.template or '/'}"

    def path(self, world: World) -> str:
        ids = {name: getattr(world, name) for name in ID_NAMES} | {"path": quote(world.path, safe="/")}
        return f"/api/workspaces/{quote(world.workspace, safe='')}" + self.template.format(**ids) + self.query

    def call(self, service: LocalService, world: World, jwt: str, **headers: str) -> Reply:
        body = self.body(world) if self.body else None
        return portal(service, self.method, self.path(world), jwt, body, **headers)


ROUTES: tuple[Route, ...] = (
    Route("PATCH", "", lambda w: {"name": "Taken over"}),
    Route("POST", "/brands", lambda w: {"name": "Planted brand"}),
    Route("PATCH", "/brands/{brand}", lambda w: {"name": "Renamed brand"}),
    Route("DELETE", "/brands/{brand}"),
    Route("GET", "/workflows"),
    Route("POST", "/workflows", lambda w: {"name": "Planted flow"}),
    Route("PATCH", "/workflows/{workflow}", lambda w: {"suggestions": ["planted"]}),
    Route("DELETE", "/workflows/{workflow}"),
    Route("GET", "/agents"),
    Route("POST", "/agents", lambda w: {"name": "Planted agent"}),
    Route("GET", "/agents/{agent}"),
    Route("PATCH", "/agents/{agent}", lambda w: {"name": "Renamed agent"}),
    Route("DELETE", "/agents/{agent}"),
    Route("PUT", "/agents/{agent}/wrap", lambda w: {"greeting": "Planted greeting"}),
    Route("GET", "/agents/{agent}/wrap"),
    Route("PUT", "/agents/{agent}/site", lambda w: {"pages": [{"id": "planted"}]}),
    Route("GET", "/agents/{agent}/site"),
    Route("GET", "/agents/{agent}/posts"),
    Route("POST", "/agents/{agent}/posts", lambda w: {"key": "media/img-01.jpg", "kind": "image", "title": "Planted"}),
    Route("PATCH", "/agents/{agent}/posts/{post}", lambda w: {"title": "Rewritten"}),
    Route("POST", "/agents/{agent}/posts/{post}/publish"),
    Route("POST", "/agents/{agent}/posts/{post}/unpublish"),
    Route("DELETE", "/agents/{agent}/posts/{post}"),
    Route("GET", "/agents/{agent}/items"),
    Route("POST", "/agents/{agent}/items",
          lambda w: {"name": "Planted item", "kind": "image", "r2Key": f"projects/{w.agent}/media/img-01.jpg"}),
    Route("PATCH", "/agents/{agent}/items/{item}", lambda w: {"name": "Renamed item", "active": False}),
    Route("DELETE", "/agents/{agent}/items/{item}"),
    Route("POST", "/uploads", lambda w: {"path": "public/planted.png", "contentType": "image/png", "size": 10}),
    Route("GET", "/objects"),
    Route("GET", "/objects/{path}"),
    Route("DELETE", "/objects/{path}"),
    Route("GET", "/audit", managers_only=True),
    Route("GET", "/agents/{agent}/conversations", managers_only=True),
    Route("GET", "/agents/{agent}/conversations/{thread}", managers_only=True, query=f"?client={VISITOR}"),
    Route("DELETE", "/agents/{agent}/conversations", query=f"?client={VISITOR}"),
    Route("POST", "/invitations", lambda w: {"email": "attack.planted.invitee@example.org", "role": "member"}),
    Route("GET", "/invitations", managers_only=True),
    Route("DELETE", "/invitations/{invitation}"),
    Route("PATCH", "/members/{member}", lambda w: {"role": "admin"}),
    Route("DELETE", "/members/{member}"),
    Route("POST", "/transfer", lambda w: {"userId": w.member}, body_names=frozenset({"member"})),
    Route("GET", "/agents/{agent}/usage", managers_only=True),
    Route("POST", "/agents/{agent}/knowledge/search", lambda w: {"query": "opening hours"}, reads=True),
    Route("POST", "/agents/{agent}/preview", lambda w: {"prompt": "When are you open?"}, reads=True, billed=True),
    Route("GET", "/agents/{agent}/insights", managers_only=True),
    Route("GET", "/agents/{agent}/feedback", managers_only=True),
    Route("GET", "/agents/{agent}/unanswered", managers_only=True),
    Route("GET", "/agents/{agent}/answers"),
    Route("POST", "/agents/{agent}/answers", lambda w: {"question": "Planted question?", "answer": "Planted answer."}),
    Route("PATCH", "/agents/{agent}/answers/{answer}", lambda w: {"answer": "Rewritten answer."}),
    Route("DELETE", "/agents/{agent}/answers/{answer}"),
    Route("GET", "/webhooks", managers_only=True),
    Route("POST", "/webhooks", lambda w: {"url": "https://93.184.215.14/planted", "events": ["*"]}),
    Route("PATCH", "/webhooks/{webhook}", lambda w: {"url": "https://93.184.215.14/taken-over"}),
    Route("DELETE", "/webhooks/{webhook}"),
    Route("POST", "/webhooks/{webhook}/rotate"),
    Route("POST", "/webhooks/{webhook}/test"),
    Route("GET", "/webhooks/{webhook}/deliveries", managers_only=True),
    Route("POST", "/webhooks/{webhook}/deliveries/{delivery}/retry"),
)  # fmt: skip
WRITES = tuple(route for route in ROUTES if route.write)
READS = tuple(route for route in ROUTES if not route.write)


def world_of(service: LocalService, jwt: str, workspace: str, agent: str, path: str, *, tag: str) -> World:
    """The ids of ``workspace`` as its owner (``jwt``) sees them: ``agent``'s newest post and first item, the
    default brand, the agent's active workflow, ``path``, and the invitation and member ``membership`` makes."""
    ws = f"/api/workspaces/{workspace}"
    agent_record = portal(service, "GET", f"{ws}/agents/{agent}", jwt).json()["agent"]
    posts = portal(service, "GET", f"{ws}/agents/{agent}/posts?limit=1", jwt).json()["posts"]
    items = portal(service, "GET", f"{ws}/agents/{agent}/items", jwt).json()["items"]
    brand = portal(service, "GET", ws, jwt).json()["workspace"]["defaultBrandId"]
    invitation, member = membership(service, jwt, workspace, tag)
    answer = portal(service, "POST", f"{ws}/agents/{agent}/answers", jwt,
                    {"question": f"Is there wifi ({tag})?", "answer": "Yes: ask at the bar."})  # fmt: skip
    assert answer.status == 201, answer.body
    # Its one event is an agent's deletion, which no attack makes: nothing is delivered while they run.
    webhook = portal(service, "POST", f"{ws}/webhooks", jwt,
                     {"url": f"https://93.184.215.14/{tag}", "events": ["agent.deleted"]})  # fmt: skip
    assert webhook.status == 201, webhook.body
    return World(workspace, agent, posts[0]["id"], items[0]["id"], brand, agent_record["activeWorkflowId"], path,
                 invitation, member, answer=answer.json()["answer"]["id"],
                 webhook=webhook.json()["webhook"]["id"])  # fmt: skip


def membership(service: LocalService, jwt: str, workspace: str, tag: str) -> tuple[str, str]:
    """A pending invitation (to an address no one signs in with) and a plain member who joined by invitation, both
    made over HTTP by the workspace's owner (``jwt``); ``tag`` keeps their addresses apart: their ids."""
    pending = invite(service, jwt, workspace, f"attack.{tag}.invitee@example.org")
    assert pending.status == 201, pending.body
    member = joined(service, jwt, workspace, f"attack.{tag}.member@example.org")
    return pending.json()["invitation"]["id"], member.user_id


# --- what the service stores


@dataclass(frozen=True)
class Stored:
    """Every main-table item (by key) and every object version and delete marker of the content bucket."""

    items: dict[tuple[str, str], dict[str, Any]]
    versions: frozenset[tuple[str, str, str, int]]  # (key, version id, etag, size)
    markers: frozenset[tuple[str, str]]

    def changes(self, after: Stored) -> list[str]:
        """What ``after`` holds that differs from this (empty when nothing changed), for an assertion message."""
        found = [f"item {key} {'added' if key not in self.items else 'changed'}" for key, item in after.items.items()
                 if self.items.get(key) != item]  # fmt: skip
        found += [f"item {key} removed" for key in self.items.keys() - after.items.keys()]
        found += [f"object version {v[:2]} added" for v in after.versions - self.versions]
        found += [f"object version {v[:2]} removed" for v in self.versions - after.versions]
        found += [f"delete marker {m} added" for m in after.markers - self.markers]
        return found + [f"delete marker {m} removed" for m in self.markers - after.markers]

    def objects(self) -> set[str]:
        return {key for key, _, _, _ in self.versions}


def names(service: LocalService) -> tuple[str, str]:
    stack = Stack(load())
    return stack.physical_name("MainTable"), stack.physical_name("ContentBucket")


def stored(service: LocalService) -> Stored:
    """Everything the service holds, once the knowledge worker has read what the writes so far queued (it writes
    items' index states and its own objects in the background: not a change an attack made)."""
    knowledge_settled(service)
    table, bucket = names(service)
    items = {(item["pk"]["S"], item["sk"]["S"]): item for item in service.table_items(table)}
    versions, markers = set(), set()
    for page in service.aws("s3").get_paginator("list_object_versions").paginate(Bucket=bucket):
        versions |= {(v["Key"], v["VersionId"], v["ETag"], v["Size"]) for v in page.get("Versions", [])}
        markers |= {(m["Key"], m["VersionId"]) for m in page.get("DeleteMarkers", [])}
    return Stored(items, frozenset(versions), frozenset(markers))


def object_body(service: LocalService, key: str) -> bytes:
    return service.aws("s3").get_object(Bucket=names(service)[1], Key=key)["Body"].read()


# --- uploads


def sign_upload(
    service: LocalService, jwt: str, workspace: str, path: str, *, content_type: str = "image/png", size: int = 10,
    headers: dict[str, str] | None = None,
) -> Reply:  # fmt: skip
    body = {"path": path, "contentType": content_type, "size": size}
    return portal(service, "POST", f"/api/workspaces/{workspace}/uploads", jwt, body, **(headers or {}))


def compact_size(document: Any) -> int:
    """A document's size as the service measures it (compact JSON, UTF-8)."""
    return len(json.dumps(document, separators=(",", ":"), ensure_ascii=False).encode())
