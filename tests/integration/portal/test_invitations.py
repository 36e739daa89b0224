"""Invitations (authoring.md, "Members and invitations"): owners and admins invite an address, the link is mailed
(the outbox, locally), the invitee signed in with that address accepts it and joins in the invited role; pending
invitations are listed and revoked; every write is in the audit log (never the token)."""

from __future__ import annotations

import hashlib
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

from core.identity import mail
from core.platform import main_table
from core.platform.settings import get_settings
from core.workspaces import invitation_store, invitations
from tests.support.authoring import Studio
from tests.support.members import (
    ACCEPT,
    INVITATIONS,
    INVITE,
    REMOVE,
    REVOKE,
    ROLE,
    TRANSFER,
    accept,
    invite,
    joined,
    link_token,
    member_ids,
)
from tests.support.portal import Portal, assert_error


class Clock:
    def __init__(self, at: float) -> None:
        self.at = at

    def time(self) -> float:
        return self.at


@pytest.fixture
def studio(portal: Portal) -> Studio:
    return Studio.open(portal)


def item(portal: Portal, key: dict[str, str]) -> dict[str, Any] | None:
    found = portal.aws.dynamodb.get_item(TableName=get_settings().main_table, Key={k: {"S": v} for k, v in key.items()})
    return found.get("Item")


def test_an_invitation_is_made_mailed_listed_and_accepted(studio: Studio) -> None:
    invitation = invite(studio, "  New.Person@Example.com ", "member")
    assert set(invitation) == {"id", "email", "role", "invitedBy", "createdAt", "expiresAt"}
    assert invitation["id"].startswith("inv_") and invitation["email"] == "new.person@example.com"
    assert (invitation["role"], invitation["invitedBy"]) == ("member", studio.who.user_id)
    created = time.mktime(time.strptime(invitation["createdAt"][:19], "%Y-%m-%dT%H:%M:%S"))
    expires = time.mktime(time.strptime(invitation["expiresAt"][:19], "%Y-%m-%dT%H:%M:%S"))
    assert 7 * 86400 - 2 <= expires - created <= 7 * 86400 + 1
    mail = studio.portal.mails("new.person@example.com")[-1]
    token = link_token(studio.portal, "new.person@example.com")
    assert mail["link"] == f"{get_settings().portal_app_url.rstrip('/')}/invitations?token={token}"
    assert token in mail["text"] and "Acme" in mail["text"]
    assert studio.ok(INVITATIONS) == {"invitations": [invitation], "nextCursor": None}
    # Only the hash is stored: neither the invitation nor any item holds the token.
    digest = hashlib.sha256(token.encode()).hexdigest()
    stored = item(studio.portal, main_table.invitation(studio.workspace_id, "new.person@example.com"))
    assert stored is not None and stored["tokenHash"]["S"] == digest and token not in str(stored)
    assert item(studio.portal, main_table.invitation_token(digest)) is not None

    who = studio.portal.sign_in("new.person@example.com")
    answer = accept(studio.portal, who, token)
    assert answer.status == 200, answer.body
    workspace = answer.json()["workspace"]
    assert (workspace["id"], workspace["role"], workspace["memberCount"]) == (studio.workspace_id, "member", 2)
    listed = studio.portal.call("PortalWorkspacesListFunction", token=who.token).json()
    assert listed == [workspace]  # as GET /api/workspaces lists it, to the joiner
    assert member_ids(studio) == {studio.who.user_id: "owner", who.user_id: "member"}
    assert studio.ok(INVITATIONS) == {"invitations": [], "nextCursor": None}
    assert item(studio.portal, main_table.invitation_token(digest)) is None  # used up
    # The joiner reads what a member reads.
    assert studio.as_(who).ok("PortalWorkspaceGetFunction")["workspace"]["id"] == studio.workspace_id
    actions = [(e.action, e.actor_id, e.target) for e in studio.audit()]
    assert actions[:2] == [("member.join", who.user_id, f"user:{who.user_id}"),
                           ("member.invite", studio.who.user_id, f"invitation:{invitation['id']}")]  # fmt: skip
    assert all(token not in repr(e) for e in studio.audit())


def test_a_used_token_works_once(studio: Studio) -> None:
    member = joined(studio, "once@example.com")
    again = accept(studio.portal, member.who, link_token(studio.portal, "once@example.com"))
    assert_error(again, 404, "NOT_FOUND")


def test_an_admin_invitation_makes_an_admin(studio: Studio) -> None:
    admin = joined(studio, "admin@example.com", "admin")
    assert member_ids(studio)[admin.who.user_id] == "admin"
    assert studio.audit(1)[0].action == "member.join"


def test_inviting_again_renews_the_one_invitation(studio: Studio) -> None:
    first = invite(studio, "twice@example.com", "member")
    old_token = link_token(studio.portal, "twice@example.com")
    time.sleep(0.002)
    second = invite(studio, "TWICE@example.com", "admin")
    new_token = link_token(studio.portal, "twice@example.com")
    assert second["id"] == first["id"] and second["role"] == "admin" and new_token != old_token
    assert second["createdAt"] >= first["createdAt"]
    assert studio.ok(INVITATIONS) == {"invitations": [second], "nextCursor": None}
    who = studio.portal.sign_in("twice@example.com")
    assert_error(accept(studio.portal, who, old_token), 404, "NOT_FOUND")  # the renewed one's link is dead
    assert accept(studio.portal, who, new_token).json()["workspace"]["role"] == "admin"


def test_inviting_a_member_or_the_owner_is_a_conflict(studio: Studio) -> None:
    joined(studio, "in@example.com")
    for email in ("in@example.com", "IN@example.com", "owner@example.com"):
        assert_error(studio.call(INVITE, body={"email": email, "role": "member"}), 409, "CONFLICT")
    assert studio.ok(INVITATIONS) == {"invitations": [], "nextCursor": None}


def test_an_admin_invites_members_but_not_admins(studio: Studio) -> None:
    admin = joined(studio, "admin@example.com", "admin")
    assert invite(admin, "x@example.com")["invitedBy"] == admin.who.user_id
    assert_error(admin.call(INVITE, body={"email": "y@example.com", "role": "admin"}), 403, "FORBIDDEN")
    assert [i["email"] for i in admin.ok(INVITATIONS)["invitations"]] == ["x@example.com"]


def test_a_member_may_not_invite_list_or_revoke_and_a_stranger_finds_nothing(studio: Studio) -> None:
    invitation = invite(studio, "x@example.com")
    member, stranger = joined(studio, "m@example.com"), studio.stranger()
    for caller, status, code in ((member, 403, "FORBIDDEN"), (stranger, 404, "NOT_FOUND")):
        assert_error(caller.call(INVITE, body={"email": "y@example.com", "role": "member"}), status, code)
        assert_error(caller.call(INVITE, body={"unknown": 1}), status, code)  # the role before the body
        assert_error(caller.call(INVITATIONS), status, code)
        assert_error(caller.call(REVOKE, invitation_id=invitation["id"]), status, code)
    assert [i["id"] for i in studio.ok(INVITATIONS)["invitations"]] == [invitation["id"]]


@pytest.mark.parametrize("body", [
    {"email": "not-an-address", "role": "member"},
    {"email": "a@example.com", "role": "owner"},
    {"email": "a@example.com"},
    {"role": "member"},
    {"email": "a@example.com", "role": "member", "extra": 1},
    {"email": 5, "role": "member"},
    {"email": "a" * 250 + "@example.com", "role": "member"},
    [],
])  # fmt: skip
def test_a_bad_invitation_is_a_400(studio: Studio, body: Any) -> None:
    assert_error(studio.call(INVITE, body=body), 400, "VALIDATION_ERROR")
    assert studio.ok(INVITATIONS) == {"invitations": [], "nextCursor": None}


def test_revoking_kills_the_link(studio: Studio) -> None:
    invitation = invite(studio, "gone@example.com")
    token = link_token(studio.portal, "gone@example.com")
    assert studio.ok(REVOKE, invitation_id=invitation["id"]) == {}
    assert studio.ok(INVITATIONS) == {"invitations": [], "nextCursor": None}
    assert_error(studio.call(REVOKE, invitation_id=invitation["id"]), 404, "NOT_FOUND")
    assert_error(studio.call(REVOKE, invitation_id="inv_01AAAAAAAAAAAAAAAAAAAAAAAA"), 404, "NOT_FOUND")
    who = studio.portal.sign_in("gone@example.com")
    assert_error(accept(studio.portal, who, token), 404, "NOT_FOUND")
    assert studio.audit(1)[0].action == "invitation.revoke"
    assert studio.audit(1)[0].target == f"invitation:{invitation['id']}"


def test_an_expired_invitation_is_not_pending_and_its_link_is_dead(studio: Studio, monkeypatch: Any) -> None:
    invitation = invite(studio, "late@example.com")
    token = link_token(studio.portal, "late@example.com")
    later = Clock(time.time() + 7 * 86400 + 5)  # the invitations' clock only: sessions still live
    monkeypatch.setattr(invitations, "time", later)
    monkeypatch.setattr(invitation_store, "time", later)
    assert studio.ok(INVITATIONS) == {"invitations": [], "nextCursor": None}
    assert_error(studio.call(REVOKE, invitation_id=invitation["id"]), 404, "NOT_FOUND")
    who = studio.portal.sign_in("late@example.com")
    assert_error(accept(studio.portal, who, token), 404, "NOT_FOUND")
    # Inviting again renews it, with a new week.
    renewed = invite(studio, "late@example.com")
    assert renewed["id"] == invitation["id"] and studio.ok(INVITATIONS) == {
        "invitations": [renewed],
        "nextCursor": None,
    }


def test_another_address_cannot_accept(studio: Studio) -> None:
    invite(studio, "invited@example.com")
    token = link_token(studio.portal, "invited@example.com")
    other = studio.portal.sign_in("other@example.com")
    unknown = accept(studio.portal, other, "x" * 43)
    wrong = accept(studio.portal, other, token)
    assert_error(wrong, 404, "NOT_FOUND")
    assert wrong.body == unknown.body
    # The token survives: the invited address still joins with it.
    who = studio.portal.sign_in("invited@example.com")
    assert accept(studio.portal, who, token).status == 200


@pytest.mark.parametrize("body", [{}, {"token": ""}, {"token": 5}, {"token": "x" * 129}, {"token": "a", "b": 1}])
def test_a_bad_accept_is_a_400(studio: Studio, body: Any) -> None:
    who = studio.portal.sign_in("someone@example.com")
    assert_error(studio.portal.call(ACCEPT, token=who.token, body=body), 400, "VALIDATION_ERROR")


def test_accepting_needs_a_portal_jwt(studio: Studio) -> None:
    invite(studio, "x@example.com")
    token = link_token(studio.portal, "x@example.com")
    assert_error(studio.portal.call(ACCEPT, body={"token": token}), 401, "UNAUTHORIZED")


def test_a_member_accepting_again_is_a_conflict_and_keeps_the_token(studio: Studio) -> None:
    member = joined(studio, "m@example.com")
    # A second invitation cannot be made for a member; one made before they joined by another route can.
    studio.portal.add_member(studio.workspace_id, studio.portal.sign_in("late@example.com").user_id)
    assert_error(studio.call(INVITE, body={"email": "late@example.com", "role": "member"}), 409, "CONFLICT")
    assert member_ids(studio)[member.who.user_id] == "member"


def test_accepting_a_deleted_workspaces_invitation_is_not_found(studio: Studio) -> None:
    invite(studio, "x@example.com")
    token = link_token(studio.portal, "x@example.com")
    assert studio.ok("PortalWorkspaceDeleteFunction") == {"deleted": True}
    who = studio.portal.sign_in("x@example.com")
    assert_error(accept(studio.portal, who, token), 404, "NOT_FOUND")
    assert studio.portal.call("PortalWorkspacesListFunction", token=who.token).json() == []


def test_invite_and_accept_honour_idempotency_keys(studio: Studio) -> None:
    first = studio.call(INVITE, body={"email": "i@example.com", "role": "member"}, key="inv-1")
    again = studio.call(INVITE, body={"email": "i@example.com", "role": "member"}, key="inv-1")
    assert (first.status, again.status) == (201, 201) and first.json() == again.json()
    assert len(studio.portal.mails("i@example.com")) == 1  # the replay mails nothing
    # The key is scoped to the caller, the action and the address (as other writes' to their target): another body
    # for the same address is refused.
    assert_error(studio.call(INVITE, body={"email": "i@example.com", "role": "admin"}, key="inv-1"), 409, "CONFLICT")
    who = studio.portal.sign_in("i@example.com")
    token = link_token(studio.portal, "i@example.com")
    joined_once = accept(studio.portal, who, token, **{"Idempotency-Key": "acc-1"})
    replayed = accept(studio.portal, who, token, **{"Idempotency-Key": "acc-1"})
    assert (joined_once.status, replayed.status) == (200, 200) and joined_once.json() == replayed.json()
    assert [e.action for e in studio.audit()].count("member.join") == 1


def refuse_mail(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every mail refused as SES refuses one (``MailUnavailable``: a 500); the addresses refused, in order."""
    refused: list[str] = []

    def send(self: Any, message: Any) -> None:
        refused.append(message.to)
        raise mail.MailUnavailable()

    monkeypatch.setattr(mail.OutboxMailer, "send", send)
    return refused


def test_a_keyed_retry_after_a_failed_mail_mails_a_link_that_works(
    studio: Studio, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The invitation and its key's record commit, then the mail fails (500): the retry with the same key replays
    the 201 and mails the invitation again, with a new token (the first was never mailed), and that link lets the
    invitee join. Once mailed, a further replay mails nothing (issue 38: a keyed invitation never loses its link)."""
    body, key = {"email": "late@example.com", "role": "admin"}, "inv-late"
    sent = mail.OutboxMailer.send
    refused = refuse_mail(monkeypatch)
    assert_error(studio.call(INVITE, body=body, key=key), 500, "INTERNAL_ERROR")
    assert refused == ["late@example.com"] and studio.portal.mails("late@example.com") == []
    stored = item(studio.portal, main_table.invitation(studio.workspace_id, "late@example.com"))
    assert stored is not None and "mailedAt" not in stored  # stored, its link never mailed
    first_hash = stored["tokenHash"]["S"]

    monkeypatch.setattr(mail.OutboxMailer, "send", sent)
    retried = studio.call(INVITE, body=body, key=key)
    assert retried.status == 201, retried.body
    invitation = retried.json()["invitation"]
    assert (invitation["id"], invitation["role"]) == (stored["id"]["S"], "admin")
    assert len(studio.portal.mails("late@example.com")) == 1
    token = link_token(studio.portal, "late@example.com")
    digest = hashlib.sha256(token.encode()).hexdigest()
    renewed = item(studio.portal, main_table.invitation(studio.workspace_id, "late@example.com"))
    assert renewed is not None and renewed["tokenHash"]["S"] == digest != first_hash and "mailedAt" in renewed
    assert renewed["expiresAt"] == stored["expiresAt"]  # the same invitation, as the replayed answer says
    assert item(studio.portal, main_table.invitation_token(first_hash)) is None  # the unmailed token is dead

    again = studio.call(INVITE, body=body, key=key)
    assert (again.status, again.json()) == (201, retried.json())
    assert len(studio.portal.mails("late@example.com")) == 1  # mailed once: the replay sends nothing more
    assert [e.action for e in studio.audit()].count("member.invite") == 1  # one invitation made
    who = studio.portal.sign_in("late@example.com")
    answer = accept(studio.portal, who, token)
    assert answer.status == 200, answer.body
    assert member_ids(studio)[who.user_id] == "admin"


def test_a_keyed_retry_of_an_invitation_revoked_since_mails_nothing(
    studio: Studio, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The mail failed, then the invitation was revoked: the replay answers its 201 and mails no link (only a pending
    invitation is mailed again)."""
    body, key = {"email": "gone@example.com", "role": "member"}, "inv-gone"
    sent = mail.OutboxMailer.send
    refuse_mail(monkeypatch)
    assert_error(studio.call(INVITE, body=body, key=key), 500, "INTERNAL_ERROR")
    monkeypatch.setattr(mail.OutboxMailer, "send", sent)
    (pending,) = studio.ok(INVITATIONS)["invitations"]
    assert studio.ok(REVOKE, invitation_id=pending["id"]) == {}
    assert studio.call(INVITE, body=body, key=key).status == 201
    assert studio.portal.mails("gone@example.com") == []
    assert studio.ok(INVITATIONS) == {"invitations": [], "nextCursor": None}


def test_concurrent_invitations_of_one_address_leave_one_pending_with_one_live_token(
    studio: Studio, monkeypatch: pytest.MonkeyPatch
) -> None:
    generous(monkeypatch, per_address=10)  # six mails to one address: over the default of five an hour
    body = {"email": "race@example.com", "role": "member"}
    with ThreadPoolExecutor(6) as pool:
        answers = list(pool.map(lambda _: studio.call_in_container(INVITE, body=body), range(6)))
    assert [a.status for a in answers] == [201] * 6, [a.body for a in answers]
    assert len({a.json()["invitation"]["id"] for a in answers}) == 1
    (pending,) = studio.ok(INVITATIONS)["invitations"]
    tokens = studio.portal.aws.dynamodb.scan(
        TableName=get_settings().main_table, FilterExpression="begins_with(pk, :p)",
        ExpressionAttributeValues={":p": {"S": "INVITETOKEN#"}},
    )["Items"]  # fmt: skip
    assert len(tokens) == 1  # every renewal deleted the token it replaced
    who = studio.portal.sign_in("race@example.com")
    mails = [m for m in studio.portal.mails("race@example.com") if "/invitations?" in m["link"]]
    links = [parse_qs(urlsplit(m["link"]).query)["token"][0] for m in mails]
    joins = [accept(studio.portal, who, token).status for token in links]
    assert sorted(joins) == [200] + [404] * 5  # one link works: the last stored one
    assert member_ids(studio)[who.user_id] == pending["role"]


def test_concurrent_accepts_make_one_member(studio: Studio) -> None:
    invite(studio, "twin@example.com", "admin")
    token = link_token(studio.portal, "twin@example.com")
    who = studio.portal.sign_in("twin@example.com")
    joiner = studio.as_(who)
    with ThreadPoolExecutor(6) as pool:
        answers = list(pool.map(lambda _: joiner.call_in_container(ACCEPT, body={"token": token}), range(6)))
    statuses = sorted(a.status for a in answers)
    assert statuses[0] == 200 and statuses.count(200) == 1, [a.body for a in answers]
    assert all(a.status in (404, 409) for a in answers if a.status != 200)
    assert member_ids(studio) == {studio.who.user_id: "owner", who.user_id: "admin"}
    assert studio.portal.workspace_record(studio.workspace_id).member_count == 2
    assert [e.action for e in studio.audit()].count("member.join") == 1


def voided(studio: Studio, invitation: dict[str, Any], who: Any, token: str) -> None:
    """``who``'s acceptance of ``invitation`` refused as a revoked one's (the same 404 body), nothing joined, the
    invitation and its token deleted, and an ``invitation.void`` entry in the workspace's log naming it."""
    revoked = accept(studio.portal, who, "x" * 43)
    refused = accept(studio.portal, who, token)
    assert_error(refused, 404, "NOT_FOUND")
    assert refused.body == revoked.body
    assert who.user_id not in member_ids(studio)
    assert item(studio.portal, main_table.invitation(studio.workspace_id, invitation["email"])) is None
    assert item(studio.portal, main_table.invitation_token(hashlib.sha256(token.encode()).hexdigest())) is None
    entry = studio.audit(1)[0]
    assert (entry.action, entry.actor_id, entry.target) == ("invitation.void", who.user_id,
                                                             f"invitation:{invitation['id']}")  # fmt: skip
    assert_error(accept(studio.portal, who, token), 404, "NOT_FOUND")  # and stays dead
    assert [e.action for e in studio.audit()].count("invitation.void") == 1


def test_a_removed_admins_pending_invitation_cannot_be_accepted(studio: Studio) -> None:
    """The ex-admin invites an address they control, is removed, then accepts: refused (issue 38, hole 3)."""
    admin = joined(studio, "admin@example.com", "admin")
    invitation = invite(admin, "admin.alt@example.com")
    token = link_token(studio.portal, "admin.alt@example.com")
    assert studio.ok(REMOVE, user_id=admin.who.user_id) == {}
    voided(studio, invitation, studio.portal.sign_in("admin.alt@example.com"), token)


def test_an_invitation_whose_inviter_lost_the_role_is_no_longer_listed(studio: Studio) -> None:
    admin, member = joined(studio, "admin@example.com", "admin"), joined(studio, "admin2@example.com", "admin")
    gone, kept = invite(admin, "gone@example.com"), invite(member, "kept@example.com")
    assert [i["id"] for i in studio.ok(INVITATIONS)["invitations"]] == [gone["id"], kept["id"]]
    studio.ok(REMOVE, user_id=admin.who.user_id)
    assert studio.ok(INVITATIONS) == {
        "invitations": [kept],
        "nextCursor": None,
    }  # no longer pending: it cannot be accepted


def test_a_demoted_admins_pending_invitation_cannot_be_accepted_and_a_new_one_can(studio: Studio) -> None:
    admin = joined(studio, "admin@example.com", "admin")
    invitation = invite(admin, "friend@example.com")
    token = link_token(studio.portal, "friend@example.com")
    assert studio.ok(ROLE, user_id=admin.who.user_id, body={"role": "member"})["member"]["role"] == "member"
    friend = studio.portal.sign_in("friend@example.com")
    voided(studio, invitation, friend, token)
    # The owner's own invitation of the same address stands: the address is not barred, the dead invitation is.
    invite(studio, "friend@example.com")
    assert accept(studio.portal, friend, link_token(studio.portal, "friend@example.com")).status == 200


def test_an_admin_promoted_again_before_the_accept_keeps_their_invitation(studio: Studio) -> None:
    admin = joined(studio, "admin@example.com", "admin")
    invite(admin, "kept@example.com")
    token = link_token(studio.portal, "kept@example.com")
    studio.ok(ROLE, user_id=admin.who.user_id, body={"role": "member"})
    studio.ok(ROLE, user_id=admin.who.user_id, body={"role": "admin"})
    assert accept(studio.portal, studio.portal.sign_in("kept@example.com"), token).status == 200


def test_an_owner_who_transferred_keeps_member_invitations_but_not_admin_ones(studio: Studio) -> None:
    """Ownership handed on: the old owner is an admin, who may invite members but makes no admin, so their pending
    member invitation stands and their admin invitation is void."""
    heir = joined(studio, "heir@example.com", "admin")
    as_member = invite(studio, "m@example.com", "member")
    m_token = link_token(studio.portal, "m@example.com")
    as_admin = invite(studio, "a@example.com", "admin")
    a_token = link_token(studio.portal, "a@example.com")
    studio.ok(TRANSFER, body={"userId": heir.who.user_id})
    assert accept(studio.portal, studio.portal.sign_in("m@example.com"), m_token).status == 200
    voided(heir, as_admin, studio.portal.sign_in("a@example.com"), a_token)
    assert as_member["id"] != as_admin["id"]


def test_an_invitation_made_before_tokens_named_their_inviter_is_still_checked(studio: Studio) -> None:
    """A token stored before this change has no ``invitedBy``: the acceptance reads the inviter from the invitation."""
    admin = joined(studio, "admin@example.com", "admin")
    invitation = invite(admin, "old@example.com")
    token = link_token(studio.portal, "old@example.com")
    key = main_table.invitation_token(hashlib.sha256(token.encode()).hexdigest())
    table, stored_key = get_settings().main_table, {k: {"S": v} for k, v in key.items()}
    studio.portal.aws.dynamodb.update_item(TableName=table, Key=stored_key, UpdateExpression="REMOVE invitedBy")
    stored = item(studio.portal, key)
    assert stored is not None and "invitedBy" not in stored
    studio.ok(REMOVE, user_id=admin.who.user_id)
    voided(studio, invitation, studio.portal.sign_in("old@example.com"), token)


@pytest.mark.parametrize("lost", ["demoted", "removed"])
def test_a_demotion_or_removal_racing_the_acceptance_is_caught_by_the_acceptances_transaction(
    studio: Studio, monkeypatch: pytest.MonkeyPatch, lost: str
) -> None:
    """The acceptance read the inviter as an admin; the demotion (or removal) commits before its transaction: the
    transaction's check on the inviter's membership cancels it, and the read again finds the invitation void. (A
    removal also moves ``memberCount``, which the transaction conditions on too; a demotion moves nothing else.)"""
    admin = joined(studio, "admin@example.com", "admin")
    invitation = invite(admin, "racer@example.com")
    token = link_token(studio.portal, "racer@example.com")
    racer = studio.portal.sign_in("racer@example.com")
    reads = invitation_store.InvitationStore.joining
    removed: list[bool] = []

    def joining_then_removed(self: Any, token_hash: str, token_record: Any) -> Any:
        seen = reads(self, token_hash, token_record)
        if not removed:  # the first read still sees the admin; the removal lands right after it
            removed.append(True)
            assert seen.inviter is not None and seen.inviter.role == "admin"
            if lost == "removed":
                assert studio.ok(REMOVE, user_id=admin.who.user_id) == {}
            else:
                studio.ok(ROLE, user_id=admin.who.user_id, body={"role": "member"})
        return seen

    monkeypatch.setattr(invitation_store.InvitationStore, "joining", joining_then_removed)
    voided(studio, invitation, racer, token)
    assert removed == [True]


def generous(monkeypatch: pytest.MonkeyPatch, **limits: int) -> None:
    """Invitation mail limits set for a test (``per_workspace``, ``per_address``, ``to_address``), the providers
    made afresh."""
    from core.platform import providers as platform_providers

    for name, value in limits.items():
        monkeypatch.setenv(f"INVITATIONS_{name.upper()}", str(value))
    platform_providers.reset()


def test_invitation_mail_to_one_address_is_throttled_and_says_so(studio: Studio) -> None:
    """Five mails an hour to one address (renewals included); the sixth is a 429 with Retry-After, and it stores and
    mails nothing: the link mailed last still works."""
    for _ in range(5):
        invite(studio, "flooded@example.com")
    token = link_token(studio.portal, "flooded@example.com")
    refused = studio.call(INVITE, body={"email": "Flooded@example.com", "role": "member"})
    assert_error(refused, 429, "RATE_LIMITED")
    # A count is remembered up to one bucket (60 s) longer than the hour.
    assert 0 < int(refused.header("Retry-After") or 0) <= 3600 + 60
    assert "5 invitations in 60 minutes" in refused.json()["error"]
    assert len(studio.portal.mails("flooded@example.com")) == 5
    assert link_token(studio.portal, "flooded@example.com") == token
    who = studio.portal.sign_in("flooded@example.com")
    assert accept(studio.portal, who, token).status == 200  # the refused renewal killed no link


def test_a_strangers_invitations_do_not_block_another_workspaces(studio: Studio) -> None:
    """Issue 38, hole 4: a free account invites the victim company's new hire five times, its own limit for that
    address; the company's invitation still goes through, is mailed and accepted."""
    attacker = Studio.open(studio.portal, email="attacker@example.net", plan="free", name="Spam")
    for _ in range(5):
        invite(attacker, "newhire@victim.example")
    victims = studio.call(INVITE, body={"email": "newhire@victim.example", "role": "member"})
    assert victims.status == 201, victims.body
    refused = attacker.call(INVITE, body={"email": "newhire@victim.example", "role": "member"})
    assert_error(refused, 429, "RATE_LIMITED")  # the attacker's own limit for that address
    assert "This workspace has sent that address 5 invitations in 60 minutes" in refused.json()["error"]
    assert len(studio.portal.mails("newhire@victim.example")) == 6
    hire = studio.portal.sign_in("newhire@victim.example")
    answer = accept(studio.portal, hire, link_token(studio.portal, "newhire@victim.example"))
    assert answer.status == 200 and answer.json()["workspace"]["id"] == studio.workspace_id


def test_the_address_bound_across_workspaces_still_stops_a_flood_from_many(studio: Studio) -> None:
    """Twenty mails an hour to one address from all workspaces together: four workspaces at their own limit of five
    reach it, and a fifth workspace's first invitation is refused. Requests a workspace's own limit refused spent
    nothing of the address's bound."""
    flooders = [studio] + [Studio.open(studio.portal, email=f"flood{n}@example.net", plan="free") for n in range(4)]
    for n, flooder in enumerate(flooders[:4]):
        for _ in range(5):
            invite(flooder, "target@example.org")
        if n == 0:  # over its own limit: refused before the address's bound is counted
            for _ in range(3):
                assert_error(flooder.call(INVITE, body={"email": "target@example.org", "role": "member"}), 429,
                             "RATE_LIMITED")  # fmt: skip
    refused = flooders[4].call(INVITE, body={"email": "target@example.org", "role": "member"})
    assert_error(refused, 429, "RATE_LIMITED")
    assert (
        "That address has been sent 20 invitations in 60 minutes by all workspaces together" in refused.json()["error"]
    )
    assert 0 < int(refused.header("Retry-After") or 0) <= 3600 + 60
    assert len(studio.portal.mails("target@example.org")) == 20
    assert flooders[4].ok(INVITATIONS) == {"invitations": [], "nextCursor": None}  # nothing stored for the refused one
    assert invite(flooders[4], "someone.else@example.org")["email"] == "someone.else@example.org"  # its own budget


def test_invitation_mail_of_one_workspace_is_throttled(studio: Studio, monkeypatch: pytest.MonkeyPatch) -> None:
    generous(monkeypatch, per_workspace=3)
    for n in range(3):
        invite(studio, f"person{n}@example.com")
    assert_error(studio.call(INVITE, body={"email": "person3@example.com", "role": "member"}), 429, "RATE_LIMITED")
    assert not studio.portal.mails("person3@example.com")
    assert len(studio.ok(INVITATIONS)["invitations"]) == 3  # nothing stored for the refused one
    other = Studio.open(studio.portal, email="second-owner@example.com")
    assert invite(other, "person3@example.com")["email"] == "person3@example.com"  # another workspace's own budget


def test_the_invitation_throttle_keeps_no_address_in_the_rate_table(studio: Studio) -> None:
    invite(studio, "Private.Invitee@Example.com")
    rows = studio.portal.aws.dynamodb.scan(TableName=get_settings().rate_limits_table)["Items"]
    subjects = sorted(row["pk"]["S"].split("#")[0] for row in rows if row["pk"]["S"].startswith("invite-"))
    assert subjects == ["invite-pair", "invite-to", "invite-ws"]
    assert "private.invitee" not in repr(rows).lower() and "example.com" not in repr(rows).lower()
