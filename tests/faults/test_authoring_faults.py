"""The writer's post endpoints failed at every AWS call: create (published, with and without ``Idempotency-Key``),
publish (also in a cold container, whose first call reads the JWT secret from Secrets Manager), unpublish, an edit
that moves a published post (channels, category and ``createdAt``), delete. A failed knowledge-queue message (SQS,
after the write) still answers the write's success.

After the fault, and again after the client's retry of the same request (with the same key where there is one):
the agent's posts, filter copies, items and counters agree (``tests/support/feed_checks.py``: nothing
half-written); the answer is the clean one, matching what is stored, or a framed 5xx/409 (never a success that
did not happen); the audit log holds an entry exactly for each write each request made (told by the posts'
versions); a keyed create retried made exactly one post. The agents' deletion and purge and the upload signing are
in ``test_authoring_agent_faults.py``, which shares this module's helpers.
"""

from __future__ import annotations

import secrets
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from core.audit.store import AuditStore
from core.identity import portal_jwt
from core.identity.records import SessionRecord
from core.identity.store import UserStore
from core.platform import idempotency_store as idempotency_records
from core.platform import main_table
from core.platform import providers as platform_providers
from core.platform.ids import new_id, now_iso, sha256_hex
from core.platform.settings import get_settings
from core.posts.records import PostRecord
from core.posts.writer import post_view
from tests.support.fault_harness import World, framed_error, run_case, run_clean
from tests.support.fault_injection import Call, Fault
from tests.support.feed_checks import AgentContent, agent_problems, assert_agent_content, read_agent
from tests.support.lambdas import HttpResult, invoke
from tests.support.portal import Session, event_for
from tests.support.seed import Seeder

MEDIA = ("media/0.jpg", "media/1.jpg", "media/new.jpg")  # the posts' files (``Seeder.posts`` names media/<n>.jpg)
NEW_POST = {"key": "media/new.jpg", "kind": "image", "title": "New", "channels": ["instagram", "site"],
            "category": "launch", "publish": True}  # fmt: skip
MOVE = {"channels": ["news"], "category": "events", "createdAt": "2025-12-01T00:00:00Z"}


@dataclass(frozen=True)
class Desk:
    """A signed-in owner's workspace and agent: a published neighbour post (``post_00000``), the post under test
    (``post_00001``) when the scenario starts from one, an active and an inactive item, the posts' media."""

    owner: Session
    workspace_id: str
    agent_id: str
    idempotency_key: str | None = None
    versions: dict[str, int] = field(default_factory=dict)  # post id -> version, as arranged


@dataclass(frozen=True)
class Answer:
    request_id: str  # what the request's audit entries name
    result: HttpResult


class LaterClock:
    """``time`` for the idempotency records, moved past the in-progress lock (a client backing off)."""

    def time(self) -> float:
        return time.time() + idempotency_records.IN_PROGRESS_SECONDS + 1


def signed_in(world: World, email: str) -> Session:
    """A pro owner with a live session and its portal JWT, written straight to the table (sign-in is not under
    test, and its mail throttles would refuse a few hundred sign-ins from one test)."""
    user = world.portal.seed_user(email, plan="pro")
    token = secrets.token_urlsafe(32)
    session = SessionRecord(id=new_id("ses"), user_id=user.id, created_at=now_iso(), expires_at=int(time.time()) + 3600)
    UserStore(world.aws.dynamodb, get_settings().main_table).create_session(session, sha256_hex(token))
    return Session(
        user.id,
        user.email,
        f"session={token}",
        portal_jwt.issue(platform_providers.portal_secret(), user.id, session.id),
    )


def open_desk(world: World, *, post: str | None = None, idempotent: bool = False, media: tuple[str, ...] = ()) -> Desk:
    """``post``: None (no post under test), ``"draft"`` or ``"published"``; ``media``: files of the agent's folder."""
    owner = signed_in(world, f"{new_id('o').lower()}@example.com")
    user = world.portal.users.get(owner.user_id)
    assert user is not None  # just seeded
    seed = Seeder(world.aws.dynamodb)
    workspace = seed.workspace(user, "Desk")
    agent = seed.agent(workspace, slug="writer")
    count = 1 if post is None else 2
    posts = seed.posts(agent.id, count, channels=["instagram", "site"], category="launch",
                       published=lambda n: n == 0 or post == "published")  # fmt: skip
    seed.items(agent.id, [{}, {"active": False}])
    for name in media:
        world.aws.s3.put_object(Bucket=get_settings().content_bucket, Body=b"\xff\xd8\xff\xd9",
                                Key=f"workspaces/{workspace.id}/projects/{agent.id}/{name}")  # fmt: skip
    key = f"idem-{agent.id}" if idempotent else None
    return Desk(owner, workspace.id, agent.id, key, {p.id: p.version for p in posts})


def send(world: World, desk: Desk, function: str, *, body: Any = None, **params: str) -> Answer:
    """One request of the owner's, with a request id of its own (so its audit entries can be told apart)."""
    headers: dict[str, str | None] = {"Idempotency-Key": desk.idempotency_key}
    event = event_for(function, token=desk.owner.token, body=body, headers=headers,
                      params={"workspaceId": desk.workspace_id} | params)  # fmt: skip
    request_id = new_id("req")
    event["requestContext"]["requestId"] = request_id
    return Answer(request_id, invoke(function, event))


def audited(world: World, desk: Desk, request_id: str) -> Counter[tuple[str, str]]:
    """(action, target) of each audit entry the request wrote."""
    entries = AuditStore(world.aws.dynamodb, get_settings().main_table).newest(desk.workspace_id, 200)
    return Counter((e.action, e.target) for e in entries if e.request_id == request_id)


def refused(result: HttpResult, fault: Fault | None, *, also: tuple[int, ...] = ()) -> None:
    """A framed 5xx or 409 (``also``: other statuses the scenario's lost races may answer), only under a fault."""
    body = framed_error(result)
    assert fault is not None, f"a clean run answered {result.status} {body}"
    assert result.status >= 500 or result.status in (409, *also), f"{result.status} {body} under {fault.name}"


def retried(world: World, again: Any) -> Answer:
    """The client's retry; after a 409 (a keyed first attempt still "in progress"), once more past its lock."""
    answer: Answer = again()
    if answer.result.status == 409:
        framed_error(answer.result)
        world.monkeypatch.setattr(idempotency_records, "time", LaterClock())
        answer = again()
    return answer


def observed(world: World, desk: Desk) -> AgentContent:
    """The agent's content, once the checker has found it consistent."""
    return assert_agent_content(world.aws.dynamodb, desk.agent_id, workspace_id=desk.workspace_id)


def versions(content: AgentContent) -> dict[str, int]:
    """Post id -> version of the canonical posts."""
    return {post_id: post["version"] for post_id, post in content.canonical.items()}


def post_writes(action: str, before: dict[str, int], after: dict[str, int]) -> Counter[tuple[str, str]]:
    """The writes that happened between two readings: a create is one (plus any later move), a delete one, and
    every move one step of the post's version."""
    made = Counter[tuple[str, str]]()
    for post_id in before.keys() | after.keys():
        count = after.get(post_id, -1) - before.get(post_id, -1) if post_id in after else 1
        made[(action, f"post:{post_id}")] += count
    return +made


EDITS = ("post.publish", "post.unpublish", "post.update")  # a create always makes a post, a delete's retry is 404


@dataclass(frozen=True)
class PostScenario:
    name: str
    function: str
    action: str
    status: int
    start: str | None  # the post under test as arranged: None (created by the act), "draft" or "published"
    body: dict[str, Any] | None = None
    idempotent: bool = False
    media: tuple[str, ...] = ()  # what publishing checks (an edit of a published post checks only keys it changes)
    cold: bool = False  # the container reads the portal's JWT secret first (fault_harness.arranged)

    def arrange(self, world: World) -> Desk:
        return open_desk(world, post=self.start, idempotent=self.idempotent, media=self.media)

    def request(self, world: World, desk: Desk) -> Answer:
        ids = {"agentId": desk.agent_id} | ({"postId": "post_00001"} if self.start else {})
        return send(world, desk, self.function, body=self.body, **ids)

    def act(self, world: World, desk: Desk) -> Answer:
        return self.request(world, desk)

    def verify(self, world: World, desk: Desk, first: Answer, fault: Fault | None) -> None:
        content = observed(world, desk)
        self.check_answer(content, first.result, fault)
        if fault is not None and fault.service == "sqs":
            # The knowledge queue's message is sent after the write is done: losing it loses no write
            # (core.platform.jobs.reread_agent), so the client is told the write happened.
            assert first.result.status == self.status, f"a done write answered {first.result.status} under {fault}"
        after = versions(content)
        assert audited(world, desk, first.request_id) == self.entries(first.result, desk.versions, after), "audit"
        retry = retried(world, lambda: self.request(world, desk))
        content = observed(world, desk)
        if self.action == "post.delete" and "post_00001" not in after:
            framed_error(retry.result)
            assert retry.result.status == 404, retry.result.body  # deleted by the first attempt: gone, no entry
        else:
            self.check_answer(content, retry.result, None)
        final = versions(content)
        assert audited(world, desk, retry.request_id) == self.entries(retry.result, after, final), "audit of the retry"
        new = final.keys() - desk.versions.keys()
        if self.idempotent:
            assert len(new) == 1, f"a retried keyed create made {len(new)} posts"
            made = [a.result.json()["post"]["id"] for a in (first, retry) if a.result.status == 201]
            assert set(made) == new, f"answered {made}, stored {new}"

    def entries(self, result: HttpResult, before: dict[str, int], after: dict[str, int]) -> Counter[tuple[str, str]]:
        """The audit entries a request wrote: one per version it moved, or, for an edit answered with nothing left
        to change (the retry of one that applied), its entry alone (writes.py)."""
        made = post_writes(self.action, before, after)
        if not made and result.status == self.status and self.action in EDITS:
            made[(self.action, "post:post_00001")] = 1
        return made

    def check_answer(self, content: AgentContent, result: HttpResult, fault: Fault | None) -> None:
        """The clean answer, saying what is stored; else a framed 5xx or 409."""
        if result.status != self.status:
            refused(result, fault)
            return
        if self.action == "post.delete":
            assert result.json() == {} and "post_00001" not in content.canonical, "a delete that did not happen"
            return
        said = result.json()["post"]
        stored = content.canonical.get(said["id"])
        assert stored is not None, f"answered post {said['id']}, which is not stored"
        assert said == post_view(PostRecord.model_validate(stored)).wire(), "the answer is not what is stored"

    def hole(self, calls: list[Call], position: int, fault: Fault) -> str | None:
        return None


POSTS = "PortalPost{}Function"
SCENARIOS = [
    PostScenario("post-create", POSTS.format("Create"), "post.create", 201, None, NEW_POST, media=MEDIA[2:]),
    PostScenario("post-create-idem", POSTS.format("Create"), "post.create", 201, None, NEW_POST, True, MEDIA[2:]),
    PostScenario("post-publish", POSTS.format("Publish"), "post.publish", 200, "draft", media=MEDIA[1:2]),
    PostScenario("post-unpublish", POSTS.format("Unpublish"), "post.unpublish", 200, "published"),
    PostScenario("post-move", POSTS.format("Update"), "post.update", 200, "published", MOVE),
    PostScenario("post-delete", POSTS.format("Delete"), "post.delete", 200, "published"),
    # A cold container: the JWT's check reads the signing secret from Secrets Manager first.
    PostScenario(
        "post-publish-cold", POSTS.format("Publish"), "post.publish", 200, "draft", media=MEDIA[1:2], cold=True
    ),
]


def test_clean_run(world: World, scenario: Any) -> None:
    run_clean(world, scenario)


def test_fault(world: World, case: Any) -> None:
    run_case(world, case)


def test_the_checker_names_what_is_half_written(world: World) -> None:
    """The checker itself: a consistent agent passes; each kind of damage is named on a line of its own."""
    desk = open_desk(world, post="published")
    table, db = get_settings().main_table, world.aws.dynamodb
    content = assert_agent_content(db, desk.agent_id)  # the workspace found by the agent id alone
    post = content.canonical["post_00001"]
    row = main_table.post(desk.agent_id, post["createdAt"], "post_00001")
    copy = main_table.feed_filter_copies(desk.agent_id, post["createdAt"], "post_00001", ["site"], None)[0]
    db.delete_item(TableName=table, Key={k: {"S": v} for k, v in copy.items()})
    db.update_item(TableName=table, Key={k: {"S": v} for k, v in row.items()}, UpdateExpression="SET version = :v",
                   ExpressionAttributeValues={":v": {"N": "7"}})  # fmt: skip
    stray = main_table.post(desk.agent_id, "2020-01-01T00:00:00.000Z", "post_gone", published=False)
    db.put_item(TableName=table, Item={k: {"S": v} for k, v in stray.items()})
    db.update_item(
        TableName=table,
        Key={k: {"S": v} for k, v in main_table.agent(desk.workspace_id, desk.agent_id).items()},
        UpdateExpression="ADD itemCount :one",
        ExpressionAttributeValues={":one": {"N": "1"}},
    )
    problems = agent_problems(read_agent(db, desk.agent_id, workspace_id=desk.workspace_id))
    assert problems == [
        f"post post_00001: row {row['sk']} differs: version: 7 (canonical 0)",
        f"stray row {stray['sk']}: post post_gone has no canonical item",
        f"post post_00001: missing copy {copy['sk']}",
        "agent itemCount is 3, but it has 2 items",
    ], problems
