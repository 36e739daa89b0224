"""Members and invitations attacked over HTTP (authoring.md, "Members and invitations"; decisions.md, "Members and
invitations (issue 28, item 1)"): an invitation's token accepted by another address, used, revoked, expired or
guessed; an admin reaching for the owner's rights; a member inviting or reading what only managers read; the owner
leaving; a transfer to a non-member; invitations and acceptances raced; a removed member's JWT.

The same rules are checked in process by tests/integration/portal/test_invitations.py and test_members.py; here
each goes through the gateway and the functions' own containers of the suite's one runner. Who may call which route
across tenants (404 for strangers and other owners, 403 for members, nothing stored) is
test_authoring_tenancy.py's table, whose World holds an invitation and a member. Each test makes its own people and
workspace (``team``), so none depends on another's order.
"""

from __future__ import annotations

import hashlib
import secrets
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

from core.platform import main_table
from stack.template import Stack, load
from tests.support.attack import Cast, Person, accept, demo, invitation_token, invite, joined, portal, sign_in
from tests.support.runner import LocalService, Reply, invitation_links
from tests.support.writer_attack import VISITOR, stored

pytestmark = pytest.mark.attack

GONE = (404, "NOT_FOUND", "Invitation not found")


@dataclass(frozen=True)
class Team:
    """A workspace of its own: its owner, and the addresses this test may give out (``address(name)``)."""

    service: LocalService
    owner: Person
    workspace: str
    tag: str

    def address(self, name: str) -> str:
        return f"attack.{name}.{self.tag}@example.org"

    def path(self, suffix: str = "") -> str:
        return f"/api/workspaces/{self.workspace}{suffix}"

    def call(self, who: Person, method: str, suffix: str = "", body: Any = None) -> Reply:
        return portal(self.service, method, self.path(suffix), who.jwt, body)

    def join(self, name: str, role: str = "member") -> Person:
        return joined(self.service, self.owner.jwt, self.workspace, self.address(name), role)

    def members(self) -> dict[str, str]:
        """User id to role, as the owner lists them."""
        listed = self.call(self.owner, "GET", "/members")
        assert listed.status == 200, listed.body
        return {m["userId"]: m["role"] for m in listed.json()}

    def pending(self) -> list[str]:
        listed = self.call(self.owner, "GET", "/invitations")
        assert listed.status == 200, listed.body
        return [i["email"] for i in listed.json()["invitations"]]


@pytest.fixture
def team(service: LocalService) -> Team:
    tag = uuid.uuid4().hex[:10]
    owner = sign_in(service, f"attack.owner.{tag}@example.org")
    made = portal(service, "POST", "/api/workspaces", owner.jwt, {"name": f"Team {tag}"})
    assert made.status == 201, made.body
    return Team(service, owner, made.json()["workspace"]["id"], tag)


def refused(reply: Reply, status: int, code: str, error: str | None = None) -> bool:
    found = (reply.status, reply.json().get("code"))
    return found == (status, code) and (error is None or reply.json().get("error") == error)


def gone(reply: Reply) -> bool:
    return refused(reply, *GONE)


def guessed(service: LocalService, who: Person) -> Reply:
    """A token of the right shape that no invitation has: the answer every dead token must equal, byte for byte."""
    return accept(service, who.jwt, secrets.token_urlsafe(32))


# --- tokens


def test_another_address_cannot_accept_and_the_token_survives(service: LocalService, team: Team) -> None:
    assert invite(service, team.owner.jwt, team.workspace, team.address("invited")).status == 201
    token = invitation_token(service, team.address("invited"))
    other = sign_in(service, team.address("other"))
    before = stored(service)
    wrong = accept(service, other.jwt, token)
    assert gone(wrong) and wrong.body == guessed(service, other).body
    assert before.changes(stored(service)) == []  # the token is not used up, nothing is written
    invited = sign_in(service, team.address("invited"))
    assert accept(service, invited.jwt, token).json()["workspace"]["role"] == "member"
    assert other.user_id not in team.members()


def test_used_revoked_expired_and_guessed_tokens_are_one_404(service: LocalService, team: Team) -> None:
    """Each dead token answers exactly as a guessed one, to the address it was mailed to (and the used one to
    another address too): a token's fate is never told apart from its absence."""
    member = team.join("used")
    used = invitation_token(service, team.address("used"))
    revoked_to = sign_in(service, team.address("revoked"))
    invitation = invite(service, team.owner.jwt, team.workspace, team.address("revoked")).json()["invitation"]
    revoked = invitation_token(service, team.address("revoked"))
    assert team.call(team.owner, "DELETE", f"/invitations/{invitation['id']}").status == 200
    late = sign_in(service, team.address("late"))
    assert invite(service, team.owner.jwt, team.workspace, team.address("late")).status == 201
    expired = invitation_token(service, team.address("late"))
    expire(service, team.workspace, team.address("late"), expired)
    assert team.pending() == []  # an expired invitation is not pending

    for who, token in ((member, used), (revoked_to, revoked), (late, expired), (late, used)):
        answer = accept(service, who.jwt, token)
        assert gone(answer) and answer.body == guessed(service, who).body, answer.body
    assert set(team.members()) == {team.owner.user_id, member.user_id}


def expire(service: LocalService, workspace: str, email: str, token: str) -> None:
    """Move an invitation's expiry (and its token's: both carry it, as the TTL) a second into the past, in the
    runner's table: seven days are not waited for."""
    table, past = Stack(load()).physical_name("MainTable"), {":past": {"N": str(int(time.time()) - 1)}}
    digest = hashlib.sha256(token.encode()).hexdigest()
    for key in (main_table.invitation(workspace, email), main_table.invitation_token(digest)):
        service.aws("dynamodb").update_item(
            TableName=table, Key={k: {"S": v} for k, v in key.items()}, UpdateExpression="SET expiresAt = :past",
            ConditionExpression="attribute_exists(pk)", ExpressionAttributeValues=past,
        )  # fmt: skip


@pytest.mark.parametrize("lost", ["removed", "demoted"])
def test_an_ex_admins_invitation_of_their_own_second_address_does_not_bring_them_back(
    service: LocalService, team: Team, lost: str
) -> None:
    """Issue 38, hole 3: an admin invites an address they control, is removed (or made a member), then accepts:
    refused as a revoked invitation is (the same bytes as a guessed token), nothing joined, and audited."""
    admin = team.join("admin", "admin")
    alt = sign_in(service, team.address("alt"))
    made = invite(service, admin.jwt, team.workspace, team.address("alt"))
    assert made.status == 201, made.body
    token = invitation_token(service, team.address("alt"))
    if lost == "removed":
        assert team.call(team.owner, "DELETE", f"/members/{admin.user_id}").status == 200
    else:
        assert team.call(team.owner, "PATCH", f"/members/{admin.user_id}", {"role": "member"}).status == 200
    answer = accept(service, alt.jwt, token)
    assert gone(answer) and answer.body == guessed(service, alt).body, answer.body
    assert alt.user_id not in team.members() and team.pending() == []
    audit = team.call(team.owner, "GET", "/audit").json()["entries"]
    assert (audit[0]["action"], audit[0]["target"]) == (
        "invitation.void",
        f"invitation:{made.json()['invitation']['id']}",
    )


# --- roles


def test_an_admin_reaches_for_no_owners_right(service: LocalService, team: Team) -> None:
    """An admin may not make an owner (nor an admin), take or give the workspace, remove another admin or the owner,
    or invite an admin; nothing stored changes."""
    admin, other_admin, member = team.join("admin", "admin"), team.join("admin2", "admin"), team.join("member")
    before, roles = stored(service), team.members()
    assert refused(team.call(admin, "PATCH", f"/members/{member.user_id}", {"role": "owner"}), 403, "FORBIDDEN")
    assert refused(team.call(admin, "PATCH", f"/members/{member.user_id}", {"role": "admin"}), 403, "FORBIDDEN")
    assert refused(team.call(admin, "PATCH", f"/members/{admin.user_id}", {"role": "owner"}), 403, "FORBIDDEN")
    assert refused(team.call(admin, "POST", "/transfer", {"userId": admin.user_id}), 403, "FORBIDDEN")
    assert refused(team.call(admin, "POST", "/transfer", {"userId": other_admin.user_id}), 403, "FORBIDDEN")
    assert refused(team.call(admin, "DELETE", f"/members/{other_admin.user_id}"), 403, "FORBIDDEN")
    assert refused(team.call(admin, "DELETE", f"/members/{team.owner.user_id}"), 409, "CONFLICT")
    assert refused(invite(service, admin.jwt, team.workspace, team.address("new-admin"), "admin"), 403, "FORBIDDEN")
    # The owner's own role is not a role to change, even by the owner: ownership moves by transfer only.
    own_role = team.call(team.owner, "PATCH", f"/members/{team.owner.user_id}", {"role": "member"})
    assert refused(own_role, 409, "CONFLICT")
    assert before.changes(stored(service)) == [] and team.members() == roles


def test_a_member_invites_no_one_and_reads_neither_the_audit_nor_the_conversations(
    service: LocalService, cast: Cast
) -> None:
    """A's plain member, on A's real agent (so the refusal is the role's, not a missing agent's): 403; the owner,
    on the same routes, is answered."""
    first = demo(service)[0]
    ws, agent = f"/api/workspaces/{first['id']}", first["agents"][0]["id"]
    reads = ["/invitations", "/audit", f"/agents/{agent}/conversations",
             f"/agents/{agent}/conversations/thr_attack?client={VISITOR}"]  # fmt: skip
    before = stored(service)
    planted = invite(service, cast.member_a.jwt, first["id"], "attack.member.invitee@example.org")
    assert refused(planted, 403, "FORBIDDEN")
    for suffix in reads:
        assert refused(portal(service, "GET", ws + suffix, cast.member_a.jwt), 403, "FORBIDDEN"), suffix
    erased = portal(service, "DELETE", f"{ws}/agents/{agent}/conversations?client={VISITOR}", cast.member_a.jwt)
    assert refused(erased, 403, "FORBIDDEN")
    assert before.changes(stored(service)) == []
    for suffix in reads[:3]:
        assert portal(service, "GET", ws + suffix, cast.owner_a.jwt).status == 200, suffix


def test_the_owner_never_leaves(service: LocalService, team: Team) -> None:
    """Alone or not, the owner's leave is 409 (ownership moves by transfer first), and the workspace keeps them."""
    assert refused(team.call(team.owner, "DELETE", f"/members/{team.owner.user_id}"), 409, "CONFLICT")
    admin = team.join("admin", "admin")
    assert refused(team.call(team.owner, "DELETE", f"/members/{team.owner.user_id}"), 409, "CONFLICT")
    assert team.members() == {team.owner.user_id: "owner", admin.user_id: "admin"}


def test_a_transfer_to_a_non_member_is_404_as_to_no_one(service: LocalService, team: Team, cast: Cast) -> None:
    """A signed-in stranger, another workspace's owner, a removed member: 404, byte-identical to an unknown id; a
    plain member 409 (an admin only). The owner stays."""
    stranger = sign_in(service, team.address("stranger"))
    removed = team.join("removed")
    assert team.call(team.owner, "DELETE", f"/members/{removed.user_id}").status == 200
    member = team.join("member")
    unknown = team.call(team.owner, "POST", "/transfer", {"userId": "usr_01AAAAAAAAAAAAAAAAAAAAAAAA"})
    assert refused(unknown, 404, "NOT_FOUND")
    for outsider in (stranger, cast.owner_b, removed):
        answer = team.call(team.owner, "POST", "/transfer", {"userId": outsider.user_id})
        assert answer.body == unknown.body, outsider.email
    assert refused(team.call(team.owner, "POST", "/transfer", {"userId": member.user_id}), 409, "CONFLICT")
    owner = team.call(team.owner, "GET").json()["workspace"]["ownerId"]
    assert owner == team.owner.user_id and team.members()[team.owner.user_id] == "owner"


# --- races


def test_concurrent_invitations_of_one_address_leave_one_pending_with_one_live_token(
    service: LocalService, team: Team
) -> None:
    email = team.address("raced")
    spellings = [email, email.upper(), email, email.title()]  # one address however it is written
    with ThreadPoolExecutor(len(spellings)) as pool:
        answers = list(pool.map(lambda sent: invite(service, team.owner.jwt, team.workspace, sent), spellings))
    assert [a.status for a in answers] == [201] * len(spellings), [a.body for a in answers]
    assert len({a.json()["invitation"]["id"] for a in answers}) == 1
    assert team.pending() == [email]
    table = Stack(load()).physical_name("MainTable")
    pages = service.aws("dynamodb").get_paginator("scan").paginate(
        TableName=table, FilterExpression="begins_with(pk, :token) AND email = :email",
        ExpressionAttributeValues={":token": {"S": "INVITETOKEN#"}, ":email": {"S": email}},
    )  # fmt: skip
    tokens = [item for page in pages for item in page["Items"]]
    assert len(tokens) == 1  # each renewal deleted the token it replaced
    who = sign_in(service, email)
    links = invitation_links(service, email)  # one mailed by each request, in whatever order they finished
    joins = [accept(service, who.jwt, parse_qs(urlsplit(link).query)["token"][0]).status for link in links]
    assert len(links) == len(spellings) and sorted(joins) == [200] + [404] * (len(spellings) - 1)
    assert team.members()[who.user_id] == "member"


def test_concurrent_accepts_make_one_member(service: LocalService, team: Team) -> None:
    email = team.address("twin")
    who = sign_in(service, email)
    assert invite(service, team.owner.jwt, team.workspace, email, "admin").status == 201
    token = invitation_token(service, email)
    with ThreadPoolExecutor(4) as pool:
        answers = list(pool.map(lambda _: accept(service, who.jwt, token), range(4)))
    statuses = sorted(a.status for a in answers)
    assert statuses.count(200) == 1 and set(statuses) <= {200, 404, 409}, [a.body for a in answers]
    assert team.members() == {team.owner.user_id: "owner", who.user_id: "admin"}
    listed = portal(service, "GET", "/api/workspaces", who.jwt).json()
    assert [(w["id"], w["memberCount"]) for w in listed] == [(team.workspace, 2)]
    audit = team.call(team.owner, "GET", "/audit").json()["entries"]
    assert [e["action"] for e in audit].count("member.join") == 1


# --- a removed member


def test_a_removed_members_jwt_loses_the_workspace_on_its_next_request(service: LocalService, team: Team) -> None:
    member = team.join("removed")
    assert team.call(member, "GET").status == 200
    assert team.call(team.owner, "DELETE", f"/members/{member.user_id}").status == 200
    for suffix in ("", "/members", "/agents", "/brands", "/workflows", "/objects"):  # the same JWT, at once
        assert refused(team.call(member, "GET", suffix), 404, "NOT_FOUND", "Workspace not found"), suffix
    assert refused(team.call(member, "DELETE", f"/members/{member.user_id}"), 404, "NOT_FOUND")  # nothing to leave
    assert portal(service, "GET", "/api/workspaces", member.jwt).json() == []
    assert gone(accept(service, member.jwt, invitation_token(service, team.address("removed"))))  # no way back in
    assert member.user_id not in team.members()
