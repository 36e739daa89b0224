"""Members and invitations driven in process, for the tests of ``tests/integration/portal/test_invitations.py`` and
``test_members.py`` and the fault tests: an invitation made through its handler, its link's token read from the
outbox (as the invitee would follow it), and a user who joined by accepting it."""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qs, urlsplit

from tests.support.authoring import Studio
from tests.support.lambdas import HttpResult
from tests.support.portal import Portal, Session

INVITE = "PortalInvitationCreateFunction"
INVITATIONS = "PortalInvitationsListFunction"
REVOKE = "PortalInvitationRevokeFunction"
ACCEPT = "PortalInvitationAcceptFunction"
ROLE = "PortalMemberUpdateFunction"
REMOVE = "PortalMemberRemoveFunction"
TRANSFER = "PortalWorkspaceTransferFunction"
MEMBERS = "PortalMembersListFunction"


def invite(studio: Studio, email: str, role: str = "member", **request: Any) -> dict[str, Any]:
    """``email`` invited by ``studio``'s caller (201): the invitation."""
    invitation: dict[str, Any] = studio.ok(INVITE, 201, body={"email": email, "role": role}, **request)["invitation"]
    return invitation


def link_token(portal: Portal, email: str) -> str:
    """The token of the newest invitation link mailed to ``email`` (the outbox's JSON file, as sign-in's)."""
    mails = [m for m in portal.mails(email.lower()) if "/invitations?" in m["link"]]
    assert mails, f"no invitation mailed to {email}"
    return parse_qs(urlsplit(mails[-1]["link"]).query)["token"][0]


def accept(portal: Portal, who: Session, token: str, **headers: str) -> HttpResult:
    return portal.call(ACCEPT, token=who.token, body={"token": token}, headers=headers or None)


def joined(studio: Studio, email: str, role: str = "member") -> Studio:
    """A new user, signed in as ``email``, invited by ``studio``'s caller and accepted: the workspace as theirs."""
    who = studio.portal.sign_in(email)
    invite(studio, email, role)
    answer = accept(studio.portal, who, link_token(studio.portal, email))
    assert answer.status == 200, answer.body
    return studio.as_(who)


def member_ids(studio: Studio) -> dict[str, str]:
    """The workspace's members as the owner lists them: user id to role."""
    return {m["userId"]: m["role"] for m in studio.ok(MEMBERS)}
