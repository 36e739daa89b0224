"""The writer's 59 routes across tenants and roles, over HTTP: another workspace's owner aimed at workspace A's
ids (in A's workspace, and in its own with A's agent, post, item, brand, workflow ids, object paths, pending
invitation and member) gets 404, byte-identical to an unknown id, and nothing stored changes, nor anybody's credits;
A's member reads (200; the knowledge search and the preview too, the preview billed to A's owner) and may write
nothing (403), nor list invitations; a stranger gets 404 everywhere; a revoked, expired or forged portal JWT gets 401
on every route. (What membership's own rules refuse, over HTTP:
test_membership_attacks.py.)

Control: ``services/authoring/access.py`` (membership 404, then role 403, then the agent read in the same
BatchGetItem, whose key holds the workspace), and every post, item, brand and workflow looked up under the
workspace or agent that check read. Everything stored is compared before and after (``writer_attack.stored``:
every main-table item, every object version), so a write that answered 404 but wrote anyway would fail.
"""

from __future__ import annotations

import json
import time
from collections import defaultdict
from dataclasses import dataclass

import pytest

from stack.template import Stack, load
from tests.support.attack import Cast, claims_of, demo, forge, jwt_secret, portal, sign_in
from tests.support.runner import LocalService, Reply
from tests.support.writer_attack import READS, ROUTES, UNKNOWN, WRITES, Stored, World, stored, world_of

pytestmark = pytest.mark.attack

NOT_FOUND = (404, "NOT_FOUND")
# Routes of /api/workspaces/{workspaceId} older than the writer (tests/attack/test_portal_tenancy.py has them).
BEFORE_THE_WRITER = {("GET", ""), ("DELETE", ""), ("GET", "/members"), ("GET", "/brands"), ("GET", "/keys"),
                     ("POST", "/keys"), ("DELETE", "/keys/{keyId}")}  # fmt: skip
# A key's usage (issue 28): a World names no key; its roles and tenants are attacked in process by
# tests/integration/portal/test_usage.py (another workspace's key is 404) and authoring/test_who_may_write.py.
KEY_USAGE = {("GET", "/keys/{keyId}/usage")}
PLACEHOLDERS = {"{agent}": "{agentId}", "{post}": "{postId}", "{item}": "{itemId}", "{brand}": "{brandId}",
                "{workflow}": "{workflowId}", "{path}": "{path+}", "{thread}": "{threadKey}",
                "{invitation}": "{invitationId}", "{member}": "{userId}", "{answer}": "{answerId}",
                "{webhook}": "{webhookId}", "{delivery}": "{deliveryId}"}  # fmt: skip


@pytest.fixture(scope="module")
def a_world(service: LocalService, cast: Cast) -> World:
    """A's ids, as A's owner reads them: the barista agent, its newest post and first item, the default brand,
    the agent's workflow, an object of A, a pending invitation and a member (not the cast's) who joined by one."""
    first = demo(service)[0]
    return world_of(service, cast.owner_a.jwt, first["id"], first["agents"][0]["id"], "assets/logo.png",
                    tag="tenancy-a")  # fmt: skip


@pytest.fixture(scope="module")
def b_world(service: LocalService, cast: Cast) -> World:
    second = demo(service)[1]
    return world_of(service, cast.owner_b.jwt, second["id"], second["agents"][0]["id"], "assets/logo.png",
                    tag="tenancy-b")  # fmt: skip


def test_the_table_holds_every_route_of_the_writer() -> None:
    """Every route template.yaml gives /api/workspaces/{workspaceId}, but those older than the writer (and the
    fallback's ``ANY``, a 405), once: the members and invitations' six among them."""
    prefix = "/api/workspaces/{workspaceId}"
    routed = {(r.method, r.path.removeprefix(prefix)) for r in Stack(load()).routes("PortalApi")
              if r.path.startswith(prefix) and r.method != "ANY"}  # fmt: skip
    ours = []
    for route in ROUTES:
        path = route.template
        for short, long in PLACEHOLDERS.items():
            path = path.replace(short, long)
        ours.append((route.method, path))
    assert len(ours) == len(set(ours)) == 59 and (len(WRITES), len(READS)) == (37, 22)
    assert set(ours) == routed - BEFORE_THE_WRITER - KEY_USAGE


@dataclass(frozen=True)
class Attempts:
    """Every route's answer to every caller of the scenarios below (``replies[scenario][route label]``), and what
    was stored before the first and after the last."""

    replies: dict[str, dict[str, Reply]]
    before: Stored
    after: Stored
    credits: tuple[dict[str, dict[str, int]], dict[str, dict[str, int]]]  # each caller's balance, before and after

    def statuses(self, scenario: str) -> dict[str, tuple[int, str | None]]:
        return {label: (r.status, r.json().get("code")) for label, r in self.replies[scenario].items()}

    def leaks(self, scenario: str, unknown: str) -> list[str]:
        """Routes whose answer in ``scenario`` is not byte-identical to the ``unknown`` one's."""
        known, guessed = self.replies[scenario], self.replies[unknown]
        return [label for label in known if known[label].body != guessed[label].body]


def bad_tokens(service: LocalService, cast: Cast) -> dict[str, tuple[str, str]]:
    """A's owner's own claims, each made useless (with the code each gets): its session logged out, expired
    (validly signed), signed with another secret or with ``alg: none``, or naming another user's session."""
    owner = sign_in(service, demo(service)[0]["ownerEmail"])  # a session of its own, to log out
    assert service.request("POST", f"{service.portal}/api/auth/logout", headers={"Cookie": owner.cookie}).status == 200
    genuine, now = claims_of(service, cast.owner_a.jwt), int(time.time())
    other = claims_of(service, sign_in(service, "attack.writer.sid@example.org").jwt)
    return {
        "logged-out": (owner.jwt, "UNAUTHORIZED"),
        "expired": (forge(genuine | {"iat": now - 7200, "exp": now - 3600}, jwt_secret(service)), "TOKEN_EXPIRED"),
        "other-secret": (forge(genuine, "not-the-secret-" * 4), "UNAUTHORIZED"),
        "alg-none": (forge(genuine, "", algorithm="none"), "UNAUTHORIZED"),
        "other-session": (forge(genuine | {"sid": other["sid"]}, jwt_secret(service)), "UNAUTHORIZED"),
    }


@pytest.fixture(scope="module")
def tokens(service: LocalService, cast: Cast) -> dict[str, tuple[str, str]]:
    return bad_tokens(service, cast)


@pytest.fixture(scope="module")
def attempts(
    service: LocalService, cast: Cast, a_world: World, b_world: World, tokens: dict[str, tuple[str, str]]
) -> Attempts:
    """Each route called by every caller in turn (route after route: the runner keeps a bounded number of warm
    containers, so visiting the 59 functions once each keeps the module's cold starts to 59). The preview is billed to
    A's owner when it answers: A's owner and member try it in a test of their own, so every attempt here is one that
    must charge nobody."""
    stranger = sign_in(service, "attack.writer.stranger@example.org")
    # B's own workspace naming A's ids (an object of A's agent for a path, A's invitation and member), then B's agent
    # with A's post and item.
    b_with_a_ids = b_world.but(
        agent=a_world.agent, post=a_world.post, item=a_world.item, brand=a_world.brand, workflow=a_world.workflow,
        path=f"projects/{a_world.agent}/media/img-01.jpg", invitation=a_world.invitation, member=a_world.member,
        answer=a_world.answer, webhook=a_world.webhook,
    )  # fmt: skip
    b_agent_a_posts = b_world.but(post=a_world.post, item=a_world.item, answer=a_world.answer)
    replies: dict[str, dict[str, Reply]] = defaultdict(dict)
    payers = {"a-owner": cast.owner_a.jwt, "b-owner": cast.owner_b.jwt, "member": cast.member_a.jwt,
              "stranger": stranger.jwt}  # fmt: skip
    credits_before = {who: balance(service, jwt) for who, jwt in payers.items()}
    before = stored(service)
    for route in ROUTES:
        own_ids = {name: getattr(UNKNOWN, name) for name in route.names}
        callers: dict[str, tuple[World, str]] = {
            "b-owner": (a_world, cast.owner_b.jwt),
            "b-owner-unknown-workspace": (a_world.but(workspace=UNKNOWN.workspace), cast.owner_b.jwt),
            "stranger": (a_world, stranger.jwt),
            "stranger-unknown-workspace": (a_world.but(workspace=UNKNOWN.workspace), stranger.jwt),
        } | {f"token-{name}": (a_world, token) for name, (token, _) in tokens.items()}
        if not route.billed:
            callers["member"] = (a_world, cast.member_a.jwt)
        if not route.write and not route.billed:
            callers["owner"] = (a_world, cast.owner_a.jwt)
        if route.names:
            callers["b-owner-own-workspace"] = (b_with_a_ids, cast.owner_b.jwt)
            callers["b-owner-own-workspace-unknown"] = (b_world.but(**own_ids), cast.owner_b.jwt)
        if route.names & {"post", "item", "answer"}:
            named = {name: getattr(UNKNOWN, name) for name in route.names & {"post", "item", "answer"}}
            callers["b-owner-own-agent"] = (b_agent_a_posts, cast.owner_b.jwt)
            callers["b-owner-own-agent-unknown"] = (b_world.but(**named), cast.owner_b.jwt)
        for scenario, (world, jwt) in callers.items():
            replies[scenario][route.label] = route.call(service, world, jwt)
    after = stored(service)
    return Attempts(
        dict(replies), before, after, (credits_before, {who: balance(service, jwt) for who, jwt in payers.items()})
    )


def test_nothing_stored_changed(attempts: Attempts) -> None:
    """After every attempt of this module's table (about 530 requests): every main-table item and every object
    version and delete marker of the bucket as before, A's and B's alike."""
    assert attempts.before.changes(attempts.after) == []
    assert attempts.credits[1] == attempts.credits[0]  # no refused preview held nor charged anybody anything


def test_another_owner_on_as_workspace_is_not_found(attempts: Attempts) -> None:
    """B's owner, every route, A's workspace id and A's ids: 404 byte-identical to an unknown workspace."""
    assert attempts.statuses("b-owner") == {route.label: NOT_FOUND for route in ROUTES}
    assert attempts.leaks("b-owner", "b-owner-unknown-workspace") == []


def test_another_owner_in_its_own_workspace_cannot_reach_as_ids(attempts: Attempts) -> None:
    """B's owner in B's own workspace (where it may write) naming A's agent, post, item, brand, workflow, webhook and
    an object of A's agent, A's pending invitation and A's member (removed, promoted, or given B by transfer): 404,
    byte-identical to ids that do not exist; then B's own agent with A's post and item."""
    own = attempts.statuses("b-owner-own-workspace")
    assert len(own) == 46 and own == dict.fromkeys(own, NOT_FOUND)
    assert attempts.leaks("b-owner-own-workspace", "b-owner-own-workspace-unknown") == []
    own_agent = attempts.statuses("b-owner-own-agent")
    assert len(own_agent) == 8 and own_agent == dict.fromkeys(own_agent, NOT_FOUND)
    assert attempts.leaks("b-owner-own-agent", "b-owner-own-agent-unknown") == []


def test_another_owner_cannot_point_its_workspace_at_as_brand_or_workflow(
    service: LocalService, cast: Cast, a_world: World, b_world: World
) -> None:
    """Bodies naming A's brand or workflow in B's workspace are refused exactly as an unknown id (400 naming the
    field), so they neither attach A's brand to B's agent nor confirm the id exists."""
    ws, agent = f"/api/workspaces/{b_world.workspace}", f"/api/workspaces/{b_world.workspace}/agents/{b_world.agent}"
    attempts = [("POST", f"{ws}/agents", {"name": "Borrower", "brandId": "{brand}"}),
                ("POST", f"{ws}/agents", {"name": "Borrower", "activeWorkflowId": "{workflow}"}),
                ("PATCH", agent, {"brandId": "{brand}"}), ("PATCH", agent, {"activeWorkflowId": "{workflow}"}),
                ("PATCH", ws, {"defaultBrandId": "{brand}"}),
                ("PATCH", ws, {"defaultWorkflowId": "{workflow}"})]  # fmt: skip
    before = stored(service)
    for method, path, template in attempts:
        sent = {k: v.format(brand=a_world.brand, workflow=a_world.workflow) for k, v in template.items()}
        guess = {k: v.format(brand=UNKNOWN.brand, workflow=UNKNOWN.workflow) for k, v in template.items()}
        reply = portal(service, method, path, cast.owner_b.jwt, sent)
        field = next(k for k, v in template.items() if v.startswith("{"))
        assert (reply.status, reply.json()["code"]) == (400, "VALIDATION_ERROR"), (method, path, reply.body)
        assert reply.json()["error"].startswith(f"{field}: "), reply.body
        assert reply.body == portal(service, method, path, cast.owner_b.jwt, guess).body
    assert before.changes(stored(service)) == []


def test_a_member_reads_everything_but_the_audit_and_writes_nothing(attempts: Attempts) -> None:
    """A plain member of A: every read but the managers' (the audit log, the conversations, the invitations) is the
    owner's answer; every write, the members' and invitations' too (naming another member), 403."""
    statuses = attempts.statuses("member")
    assert statuses == {route.label: (403, "FORBIDDEN") if route.for_managers else (200, None) for route in ROUTES
                        if not route.billed}  # fmt: skip
    # What a member reads is what the owner reads (but an object's presigned URL, made afresh for each caller).
    member, owner = attempts.replies["member"], attempts.replies["owner"]
    fresh, read = "GET /objects/{path}", [label for label in owner if statuses[label] == (200, None)]
    differ = [label for label in read if label != fresh and member[label].json() != owner[label].json()]
    assert differ == []
    assert member[fresh].json()["object"] == owner[fresh].json()["object"]


def balance(service: LocalService, jwt: str) -> dict[str, int]:
    reply = portal(service, "GET", "/api/credits/balance", jwt)
    assert reply.status == 200, reply.body
    return reply.json()["balance"]


def test_as_owner_and_member_preview_billed_to_as_owner(
    service: LocalService, cast: Cast, a_world: World, attempts: Attempts
) -> None:
    """The preview (after the module's attempts, which it would change): A's owner's and member's are the same
    stream, and each is billed to A's owner, never to the member; nothing in the main table or bucket changes."""
    (route,) = [route for route in ROUTES if route.billed]
    before = stored(service)
    owner_before, member_before = balance(service, cast.owner_a.jwt), balance(service, cast.member_a.jwt)
    streams = []
    for jwt in (cast.owner_a.jwt, cast.member_a.jwt):
        reply = route.call(service, a_world, jwt)
        assert (reply.status, reply.header("content-type")) == (200, "application/x-ndjson"), reply.body
        lines = [json.loads(line) for line in reply.body.splitlines()]
        assert [lines[0]["type"], lines[-1]["type"]] == ["start", "done"], lines
        streams.append([{k: v for k, v in line.items() if k not in {"turnId", "threadKey"}} for line in lines])
    assert streams[0] == streams[1]
    spent = owner_before["available"] - balance(service, cast.owner_a.jwt)["available"]
    assert spent > 0 and spent % 2 == 0  # two turns at the one model's price
    assert balance(service, cast.member_a.jwt) == member_before
    assert before.changes(stored(service)) == []


def test_a_signed_in_stranger_gets_404_everywhere(attempts: Attempts) -> None:
    assert attempts.statuses("stranger") == {route.label: NOT_FOUND for route in ROUTES}
    assert attempts.leaks("stranger", "stranger-unknown-workspace") == []


@pytest.mark.parametrize("token", ["logged-out", "expired", "other-secret", "alg-none", "other-session"])
def test_revoked_expired_and_forged_portal_tokens_get_401_everywhere(
    attempts: Attempts, tokens: dict[str, tuple[str, str]], token: str
) -> None:
    code = tokens[token][1]
    assert attempts.statuses(f"token-{token}") == {route.label: (401, code) for route in ROUTES}
