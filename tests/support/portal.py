"""Helpers of the management-plane integration tests: sign-in end to end, seeding, isolated containers.

``portal`` drives the very handlers template.yaml routes to (``invoke``) with mail going to
an outbox directory, so a test signs a user in exactly as a browser would: magic link →
outbox → verify → session cookie → api-token → portal JWT.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

from core.identity.records import UserRecord
from core.identity.store import UserStore
from core.platform.ids import new_id, now_iso
from core.platform.settings import get_settings
from core.workspaces.records import MembershipRecord, WorkspaceRecord
from core.workspaces.store import WorkspaceStore
from tests.support.lambdas import HttpResult, LambdaContext, invoke, load_handler_module, sample_event, with_request

JSON = "application/json; charset=utf-8"


@dataclass(frozen=True)
class Session:
    """A signed-in user: the raw ``session=…`` cookie pair and a portal JWT."""

    user_id: str
    email: str
    cookie: str
    token: str


def event_for(
    function: str,
    *,
    token: str | None = None,
    params: dict[str, str] | None = None,
    body: Any = None,
    headers: dict[str, str | None] | None = None,
    method: str | None = None,
    query: dict[str, str] | None = None,
) -> dict[str, Any]:
    """The function's sample event with a bearer ``token`` (None: no Authorization header) and a JSON body."""
    raw = body if body is None or isinstance(body, str) else json.dumps(body)
    auth = {"Authorization": f"Bearer {token}" if token is not None else None}
    return with_request(
        sample_event(function), path_parameters=params, headers=auth | (headers or {}), method=method, body=raw,
        query=query,
    )  # fmt: skip


def invoke_isolated(function: str, event: dict[str, Any]) -> HttpResult:
    """``invoke`` in a fresh import of the handler, a container of its own, safe from several threads at once.

    The resolver (core.platform.rest.router) holds the current event on itself, so a fresh import of the module is
    a fresh resolver and two threads never read each other's event. (A Lambda container, and each of the runner's,
    serves one request at a time: only threads in one process through one module would meet it.)
    """
    module = load_handler_module(function, f"handler_{function}_{new_id('c')}")
    raw = module.lambda_handler(event, LambdaContext(function_name=function))
    headers = dict(raw.get("headers") or {}) | {
        k: ", ".join(v) for k, v in (raw.get("multiValueHeaders") or {}).items()
    }
    return HttpResult(status=raw["statusCode"], headers=headers, body=raw.get("body") or "")


class Portal:
    def __init__(self, aws: Any, outbox: Path):
        self.aws = aws
        self.outbox = outbox

    # --- plumbing

    def call(self, function: str, **request: Any) -> HttpResult:
        return invoke(function, event_for(function, **request))

    @property
    def repo(self) -> WorkspaceStore:
        return WorkspaceStore(self.aws.dynamodb, get_settings().main_table)

    @property
    def users(self) -> UserStore:
        return UserStore(self.aws.dynamodb, get_settings().main_table)

    def mails(self, to: str | None = None) -> list[dict[str, Any]]:
        found = [json.loads(p.read_text()) for p in sorted(self.outbox.glob("*.json"))] if self.outbox.exists() else []
        return [m for m in found if to is None or m["to"] == to]

    # --- sign-in

    def request_link(self, email: str) -> str:
        """POST magic-link; the token of the link that arrived in the outbox."""
        to = email.strip().lower()
        before = len(self.mails(to))
        sent = self.call("PortalMagicLinkFunction", body={"email": email})
        assert (sent.status, sent.json()) == (202, {"sent": True}), sent.body
        mails = self.mails(to)
        assert len(mails) == before + 1
        return parse_qs(urlsplit(mails[-1]["link"]).query)["token"][0]

    def verify(self, token: str) -> HttpResult:
        return self.call("PortalMagicLinkVerifyFunction", body={"token": token})

    def api_token(self, cookie: str | None) -> HttpResult:
        return self.call("PortalApiTokenFunction", headers={"Cookie": cookie})

    def sign_in(self, email: str, *, plan: str | None = None) -> Session:
        verified = self.verify(self.request_link(email))
        assert verified.status == 200, verified.body
        set_cookie = verified.header("Set-Cookie")
        assert set_cookie, verified.headers
        cookie = set_cookie.split(";", 1)[0]
        minted = self.api_token(cookie)
        assert minted.status == 200, minted.body
        session = Session(verified.json()["user"]["id"], email.lower(), cookie, minted.json()["token"])
        if plan:
            self.users.set_plan(session.user_id, plan)
        return session

    # --- workspaces and keys through the API

    def create_workspace(self, who: Session, name: str = "Acme", **headers: str) -> dict[str, Any]:
        created = self.call("PortalWorkspacesCreateFunction", token=who.token, body={"name": name}, headers=headers)
        assert created.status == 201, created.body
        return created.json()["workspace"]

    def mint_key(self, who: Session, workspace_id: str, name: str = "server", **fields: Any) -> dict[str, Any]:
        minted = self.call(
            "PortalKeysMintFunction",
            token=who.token,
            params={"workspaceId": workspace_id},
            body={"name": name} | fields,
        )
        assert minted.status == 201, minted.body
        return minted.json()["key"]

    def whoami(self, key: str) -> HttpResult:
        """GET /v1/agent/_whoami on the read plane with ``key``."""
        event = with_request(sample_event("BrainWhoAmIFunction"), headers={"Authorization": f"Bearer {key}"})
        return invoke("BrainWhoAmIFunction", event)

    # --- seeding straight into the table

    def add_member(self, workspace_id: str, user_id: str, role: str = "member") -> None:
        member = MembershipRecord(
            id=new_id("mem"), workspace_id=workspace_id, user_id=user_id, role=role, created_at=now_iso()
        )
        self.repo.put_member(member)

    def seed_user(self, email: str, *, plan: str = "free") -> UserRecord:
        user = UserRecord(
            id=new_id("usr"), email=email, name=email.split("@", maxsplit=1)[0], plan=plan, created_at=now_iso()
        )
        self.users.create(user)  # the sign-in path: user, e-mail claim and its index in one transaction
        return user

    def workspace_record(self, workspace_id: str) -> WorkspaceRecord:
        found = self.repo.get(workspace_id)
        assert found is not None
        return found


def assert_error(result: HttpResult, status: int, code: str) -> None:
    """An ``{error, code}`` body with ``status``, a human message and the JSON content type."""
    assert (result.status, result.header("Content-Type")) == (status, JSON), result.body
    body = result.json()
    assert set(body) == {"error", "code"} and body["code"] == code, body
    assert isinstance(body["error"], str) and body["error"]


@dataclass
class WorkerContext:
    """A Lambda context for the purge worker: ``remaining`` says how many ms are left on each call."""

    remaining: Any = lambda: 900_000
    function_name: str = "WorkspacePurgeFunction"
    aws_request_id: str = "00000000-0000-4000-8000-000000000001"
    invoked_function_arn: str = "arn:aws:lambda:us-east-1:123456789012:function:WorkspacePurgeFunction"
    memory_limit_in_mb: int = 512

    def get_remaining_time_in_millis(self) -> int:
        return self.remaining()


def take_messages(sqs: Any, url: str) -> list[dict[str, Any]]:
    """Every message on the queue at ``url``, removed from it (as the SQS event source does once handled)."""
    taken: list[dict[str, Any]] = []
    while batch := sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10, AttributeNames=["All"]).get("Messages"):
        taken += batch
        for message in batch:
            sqs.delete_message(QueueUrl=url, ReceiptHandle=message["ReceiptHandle"])
    return taken


def take_purge_messages(sqs: Any) -> list[dict[str, Any]]:
    """Every message on the purge queue, removed from it."""
    return take_messages(sqs, get_settings().purge_queue_url)


def sqs_event(messages: list[dict[str, Any]], url: str | None = None) -> dict[str, Any]:
    """The event Lambda's SQS event source delivers for ``messages`` of the queue at ``url`` (the purge queue's)."""
    arn = "arn:aws:sqs:us-east-1:123456789012:" + (url or get_settings().purge_queue_url).rsplit("/", 1)[1]
    return {"Records": [
        {"messageId": m["MessageId"], "receiptHandle": m["ReceiptHandle"], "body": m["Body"],
         "attributes": m.get("Attributes", {}), "messageAttributes": {}, "md5OfBody": m["MD5OfBody"],
         "eventSource": "aws:sqs", "eventSourceARN": arn, "awsRegion": "us-east-1"}
        for m in messages
    ]}  # fmt: skip
