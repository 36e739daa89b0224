"""The writer's endpoints driven in process (the handlers template.yaml routes, on moto), for the authoring tests.

``Studio`` wraps ``tests.support.portal.Portal``: a signed-in owner with a workspace, and one method per route
of authoring.md answering the handler's ``HttpResult``; ``put_object`` stores an object as a finished upload
would (in process there is no HTTP for a presigned POST: the runner's tests upload for real).

Every call gets a request id of its own (API Gateway's ``requestContext.requestId``), kept in ``request_ids``, so
a test can match an audit entry with the request that wrote it. ``call_in_container`` invokes a fresh import of
the handler (a container of its own: ``tests.support.portal.invoke_isolated``), for calls made from several threads
at once.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from core.audit.records import AuditRecord
from core.audit.store import AuditStore
from core.platform import main_table
from core.platform.settings import get_settings
from tests.support.lambdas import HttpResult, handler_module, invoke
from tests.support.portal import (
    Portal,
    Session,
    WorkerContext,
    assert_error,
    event_for,
    invoke_isolated,
    sqs_event,
    take_purge_messages,
)
from tests.support.s3_post import JPEG


@dataclass
class Studio:
    portal: Portal
    who: Session
    workspace_id: str
    request_ids: list[str] = field(default_factory=list)  # of every call made through this studio, in order

    @classmethod
    def open(cls, portal: Portal, email: str = "owner@example.com", *, plan: str = "pro", name: str = "Acme") -> Studio:
        who = portal.sign_in(email, plan=plan)
        return cls(portal, who, portal.create_workspace(who, name)["id"])

    def as_(self, who: Session) -> Studio:
        """The same workspace, called by another user."""
        return Studio(self.portal, who, self.workspace_id)

    def member(self, email: str = "member@example.com", role: str = "member") -> Studio:
        """The same workspace, called by a new user who is a member of it with ``role``."""
        who = self.portal.sign_in(email)
        self.portal.add_member(self.workspace_id, who.user_id, role)
        return self.as_(who)

    def stranger(self, email: str = "stranger@example.com") -> Studio:
        """The same workspace, called by a signed-in user who is not a member of it (with a workspace of its own)."""
        who = self.portal.sign_in(email, plan="pro")
        self.portal.create_workspace(who, "Elsewhere")
        return self.as_(who)

    def event(
        self,
        function: str,
        *,
        body: Any = None,
        query: dict[str, str] | None = None,
        key: str | None = None,
        headers: dict[str, str | None] | None = None,
        **ids: str,
    ) -> dict[str, Any]:
        """The function's event for this caller and workspace, with a request id of its own."""
        params = {"workspaceId": self.workspace_id} | {_camel(k): v for k, v in ids.items()}
        sent = (headers or {}) | ({"Idempotency-Key": key} if key else {})
        event = event_for(function, token=self.who.token, params=params, body=body, headers=sent or None, query=query)
        request_id = str(uuid.uuid4())
        event["requestContext"]["requestId"] = request_id
        self.request_ids.append(request_id)
        return event

    def call(self, function: str, **request: Any) -> HttpResult:
        return invoke(function, self.event(function, **request))

    def call_in_container(self, function: str, **request: Any) -> HttpResult:
        """``call`` in a container of its own (a fresh import of the handler): safe from several threads."""
        return invoke_isolated(function, self.event(function, **request))

    def ok(self, function: str, status: int = 200, **request: Any) -> Any:
        result = self.call(function, **request)
        assert result.status == status, result.body
        return result.json()

    @property
    def last_request_id(self) -> str:
        return self.request_ids[-1]

    # --- objects

    def put_object(self, path: str, body: bytes = JPEG, content_type: str = "image/jpeg") -> None:
        """``path`` (workspace-relative) stored as an upload would store it."""
        key = f"workspaces/{self.workspace_id}/{path}"
        self.portal.aws.s3.put_object(
            Bucket=get_settings().content_bucket, Key=key, Body=body, ContentType=content_type
        )

    def media(self, agent_id: str, *names: str) -> None:
        for name in names:
            self.put_object(f"projects/{agent_id}/{name}")

    def object_paths(self, under: str = "") -> list[str]:
        """Every current object's workspace-relative path under ``under``, read straight from the bucket."""
        root = f"workspaces/{self.workspace_id}/"
        pages = self.portal.aws.s3.get_paginator("list_objects_v2").paginate(
            Bucket=get_settings().content_bucket, Prefix=root + under
        )
        return sorted(o["Key"][len(root) :] for page in pages for o in page.get("Contents", []))

    # --- the resources most tests start from

    def agent(self, name: str = "Helper", **fields: Any) -> dict[str, Any]:
        return self.ok("PortalAgentCreateFunction", 201, body={"name": name} | fields)["agent"]

    def post(self, agent_id: str, **fields: Any) -> dict[str, Any]:
        body = {"key": "media/a.jpg", "kind": "image"} | fields
        return self.ok("PortalPostCreateFunction", 201, body=body, agent_id=agent_id)["post"]

    def brand(self, name: str = "Second", **fields: Any) -> dict[str, Any]:
        return self.ok("PortalBrandCreateFunction", 201, body={"name": name} | fields)["brand"]

    def workflow(self, name: str = "Flow", **fields: Any) -> dict[str, Any]:
        return self.ok("PortalWorkflowCreateFunction", 201, body={"name": name} | fields)["workflow"]

    def item(self, agent_id: str, name: str = "Menu", **fields: Any) -> dict[str, Any]:
        """An item on a new object ``projects/<agentId>/docs/<name>.pdf`` unless ``r2Key`` is given."""
        if "r2Key" not in fields:
            fields["r2Key"] = f"projects/{agent_id}/docs/{name.lower()}.pdf"
            self.put_object(fields["r2Key"], b"%PDF-1.7 menu", "application/pdf")
        body = {"name": name, "kind": "document"} | fields
        return self.ok("PortalItemCreateFunction", 201, body=body, agent_id=agent_id)["item"]

    def workspace(self) -> dict[str, Any]:
        return self.ok("PortalWorkspaceGetFunction")["workspace"]

    def brands(self) -> list[dict[str, Any]]:
        """GET …/brands: a bare list, default first (it predates the writer's envelopes)."""
        brands: list[dict[str, Any]] = self.ok("PortalBrandsListFunction")
        return brands

    def all_posts(self, agent_id: str, status: str | None = None) -> list[dict[str, Any]]:
        """Every post of the agent, newest first, through the portal's list (every page)."""
        found: list[dict[str, Any]] = []
        cursor = None
        while True:
            query = {"limit": "200"} | ({"status": status} if status else {}) | ({"cursor": cursor} if cursor else {})
            page = self.ok("PortalPostsListFunction", agent_id=agent_id, query=query)
            found += page["posts"]
            if (cursor := page["nextCursor"]) is None:
                return found

    # --- what a write left behind

    def audit(self, limit: int = 20) -> list[AuditRecord]:
        """The workspace's newest audit entries, newest first."""
        return AuditStore(self.portal.aws.dynamodb, get_settings().main_table).newest(self.workspace_id, limit)

    def partition(self, pk: str) -> list[str]:
        """The sort keys of a main-table partition, in order."""
        return partition_keys(self.portal, pk)

    def purge(self) -> list[dict[str, Any]]:
        """Every queued purge message, handed to the purge worker (as SQS would); the messages it handled."""
        messages = take_purge_messages(self.portal.aws.sqs)
        if messages:
            answer = handler_module("WorkspacePurgeFunction").lambda_handler(sqs_event(messages), WorkerContext())
            assert answer == {"batchItemFailures": []}, answer
        return messages


def partition_keys(portal: Portal, pk: str) -> list[str]:
    query: dict[str, Any] = {"TableName": get_settings().main_table, "KeyConditionExpression": "pk = :pk",
                             "ExpressionAttributeValues": {":pk": {"S": pk}}}  # fmt: skip
    keys: list[str] = []
    while True:
        page = portal.aws.dynamodb.query(**query)
        keys += [item["sk"]["S"] for item in page["Items"]]
        if "LastEvaluatedKey" not in page:
            return keys
        query["ExclusiveStartKey"] = page["LastEvaluatedKey"]


def agent_partitions(portal: Portal, agent_id: str) -> dict[str, list[str]]:
    """The sort keys of an agent's posts, filter copies and items."""
    return {
        "posts": partition_keys(portal, main_table.posts_partition(agent_id)),
        "filters": partition_keys(portal, main_table.feed_filters_partition(agent_id)),
        "items": partition_keys(portal, main_table.items_partition(agent_id)),
    }


def at_once[T](count: int, attempt: Callable[[int], T]) -> list[T]:
    """``attempt(0..count-1)`` from ``count`` threads at once (each should call ``Studio.call_in_container``)."""
    with ThreadPoolExecutor(count) as pool:
        return list(pool.map(attempt, range(count)))


def fields_named_by_refusals(
    studio: Studio, create: str, update: str, refused: list[tuple[dict[str, Any], str]], **target: str
) -> dict[str, str]:
    """Each body of ``refused`` sent to ``create`` and (when not empty) to ``update`` of ``target``: every answer a
    400 ``VALIDATION_ERROR``; the field each message names, by case (``{"create name": "create name", …}``)."""
    named: dict[str, str] = {}
    for body, field_name in refused:
        for verb, function, ids in (("create", create, {}), ("update", update, target)):
            if verb == "update" and not body:
                continue
            answer = studio.call(function, **ids, body=body)
            assert_error(answer, 400, "VALIDATION_ERROR")
            named[f"{verb} {field_name}"] = f"{verb} " + answer.json()["error"].split(": ", 1)[0]
    return named


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part.title() for part in rest)
