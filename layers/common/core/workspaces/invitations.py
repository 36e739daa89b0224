"""Invitations (authoring.md, "Members and invitations"): owners and admins invite an address (only the owner
invites an admin: only the owner makes admins), list and revoke the pending ones; a signed-in user whose address is
the invited one accepts the link's token and joins.

A token is ``secrets.token_urlsafe(32)``, mailed in a link to the portal app (``/invitations?token=…``, as sign-in
links open it) and stored only as its SHA-256; it works once, for seven days. An unknown, used, revoked, renewed or
expired token, and one presented by another address, are the same 404. Inviting an address again renews its one
invitation (a new token, the old one dead); inviting a member is 409.

Invitation mail is throttled, as sign-in mail is, so that nobody can use the service to flood an inbox: per
workspace, per workspace and invited address, and per invited address from all workspaces together, a larger bound
no one workspace can reach alone (``InvitationLimits``). Over any, the answer is 429 ``RATE_LIMITED`` with
``Retry-After`` and nothing is stored or mailed; saying so reveals nothing, since the inviter named the address
(docs/decisions.md, "Invitation mail is throttled").

The mail goes after the invitation is stored, and the invitation is marked mailed (``mailedAt``) once SES took it.
A keyed invitation (``Idempotency-Key``) commits with the key's record, so its retry replays the stored 201; a replay
that finds the invitation pending and unmarked (its mail failed, or the answer was lost before the mark) mails it
again with a new token, so the invitee always ends with a link that works, and a replay of one already mailed sends
nothing (docs/decisions.md, "A keyed invitation whose mail failed").

An invitation stands only while its inviter could still make it (``MAY_INVITE``): accepting one whose inviter was
removed or demoted since voids it (404, as a revoked one; audited ``invitation.void``).
"""

from __future__ import annotations

import logging
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING
from urllib.parse import urlencode

from core.audit.writes import Author, Write, Writes, until_unchanged
from core.identity.mail import Mailer, Message
from core.identity.mail_limits import EMAIL
from core.platform import pages, together
from core.platform.dynamo import StorageUnavailable
from core.platform.envelopes import Empty
from core.platform.errors import Conflict, Forbidden, NotFound, RateLimited, ValidationFailed
from core.platform.ids import iso, new_id, now_iso, sha256_hex
from core.platform.kinds import InvitedRole, Role
from core.platform.main_table import INVITATION
from core.platform.transactions import Changed
from core.workspaces.access import AuthoringAccess
from core.workspaces.models import WorkspaceSummary
from core.workspaces.ports import Invitations
from core.workspaces.records import InvitationRecord, MembershipRecord
from core.workspaces.writer_models import (
    Invitation,
    InvitationAccept,
    InvitationCreate,
    InvitationEnvelope,
    InvitationList,
    InvitationQuery,
    JoinedWorkspace,
)

if TYPE_CHECKING:  # built by the providers: the list, revoke and accept functions never load the limiter
    from core.platform.rate_limit import SlidingWindowLimiter

logger = logging.getLogger(__name__)

VALID_SECONDS = 7 * 86400
GONE = "Invitation not found"
# Who may make an invitation of each role, and so whose invitation still stands: it is accepted only while its
# inviter still holds one of these roles (an admin demoted or removed, or an owner who handed the workspace on and
# so makes no admin, leaves invitations that cannot be accepted: docs/decisions.md).
MAY_INVITE: dict[InvitedRole, tuple[Role, ...]] = {"member": ("owner", "admin"), "admin": ("owner",)}


@dataclass(frozen=True)
class InvitationLimits:
    """Invitation mails allowed in any rolling ``window_seconds``: per workspace, per workspace and address, and per
    address from all workspaces together (``to_address``, larger than ``per_address``: docs/decisions.md)."""

    per_workspace: int
    per_address: int
    to_address: int
    window_seconds: int


@dataclass(frozen=True)
class InvitationMailThrottle:
    limiter: SlidingWindowLimiter
    limits: InvitationLimits

    def count(self, workspace_id: str, email: str) -> None:
        """Count one invitation mail; over a limit: ``RateLimited``, naming it. In this order, so that a request
        refused by one limit never spends the ones after it: the workspace's own allowance, then its allowance for
        this address (so one workspace, a stranger's included, never spends another workspace's), then the address's
        bound across workspaces, which a workspace reaches only within its own allowance for the address. The
        address is keyed by a hash only (with the workspace, for the second)."""
        limits, minutes = self.limits, self.limits.window_seconds // 60
        limited = (
            (f"invite-ws#{workspace_id}", limits.per_workspace,
             f"This workspace has sent {limits.per_workspace} invitations in {minutes} minutes, its limit"),
            (f"invite-pair#{sha256_hex(f'invitation|{workspace_id}|{email}')}", limits.per_address,
             f"This workspace has sent that address {limits.per_address} invitations in {minutes} minutes, its limit"),
            (f"invite-to#{sha256_hex('invitation|' + email)}", limits.to_address,
             f"That address has been sent {limits.to_address} invitations in {minutes} minutes by all workspaces "
             "together, its limit"),
        )  # fmt: skip
        for subject, limit, message in limited:
            try:
                self.limiter.take(subject, limit, limits.window_seconds)
            except RateLimited as refused:
                raise RateLimited(f"{message}: try again after Retry-After seconds", headers=refused.headers) from None


def to_invitation(record: InvitationRecord) -> Invitation:
    return Invitation.from_record(record, expires_at=iso(datetime.fromtimestamp(record.expires_at, UTC)))


class InvitationService:
    def __init__(
        self, access: AuthoringAccess, store: Invitations, writes: Writes, mailer: Callable[[], Mailer], *,
        app_url: Callable[[], str], throttle: InvitationMailThrottle | None = None,
    ):  # fmt: skip
        self._access = access
        self._throttle = throttle
        self._store = store
        self._writes = writes
        self._mailer = mailer
        self._app_url = app_url  # the console's address, read when a mail goes (core.identity.app_url_store)

    def invite(self, author: Author, workspace_id: str, request: InvitationCreate) -> InvitationEnvelope:
        """A new invitation, or the address's pending one renewed (a new token and expiry; the role asked now); the
        link is mailed once the invitation is stored, and the invitation marked mailed once SES took it.

        With an Idempotency-Key the invitation and the key's record commit together, before the mail: a retry that
        replays that answer finds the invitation unmarked when the first attempt's mail failed (or its answer was
        lost before the mark) and mails it again, with a new token (``_mail_again``)."""
        email = request.email.lower()
        access, invitee = together.checked_then_read(
            lambda: self._access.writer(author.user_id, workspace_id), lambda: self._store.invitee(workspace_id, email)
        )
        if request.role == "admin" and access.member.role != "owner":
            raise Forbidden("Only the workspace owner makes admins")
        if not EMAIL.match(email):
            raise ValidationFailed("email: must be an e-mail address")

        ran = False

        def work(write: Write) -> InvitationEnvelope:
            nonlocal ran
            ran = True
            if self._throttle is not None:  # before anything is stored: a refusal leaves the pending link working
                self._throttle.count(workspace_id, email)

            def attempt() -> tuple[InvitationEnvelope, InvitationRecord, str]:
                found = invitee()
                if found.user_id is not None and self._store.is_member(workspace_id, found.user_id):
                    raise Conflict("That address is already a member of this workspace")
                token, now = secrets.token_urlsafe(32), time.time()
                old = found.invitation
                record = InvitationRecord(
                    id=old.id if old else new_id("inv"), workspace_id=workspace_id, email=email, role=request.role,
                    invited_by=author.user_id, created_at=iso(datetime.fromtimestamp(now, UTC)),
                    expires_at=int(now) + VALID_SECONDS, token_hash=sha256_hex(token),
                )  # fmt: skip
                answer = InvitationEnvelope(invitation=to_invitation(record))
                also = write.also(f"invitation:{record.id}", answer)  # the target names the invitation, never the token
                self._store.save(record, replacing=old, user_id=found.user_id, also=also)
                return answer, record, token

            answer, record, token = until_unchanged(attempt)
            self._mail(record, token, access.workspace.name)
            return answer

        answer = self._writes.run(author, workspace_id, "member.invite", on=email, request=request,
                                  answer=InvitationEnvelope, work=work)  # fmt: skip
        if not ran:  # a keyed retry answered from its record: the first attempt's mail may never have gone out
            self._mail_again(invitee().invitation, answer.invitation.id, access.workspace.name)
        return answer

    def _mail_again(self, found: InvitationRecord | None, invitation_id: str, workspace: str) -> None:
        """A replayed invitation's link mailed again if it may never have reached the invitee: the invitation the
        answer names is still pending (not accepted, revoked, expired or made anew since) and not marked mailed.
        Its raw token was never stored, so it gets a new one (the old link dies: only the link mailed works),
        keeping its id, role and expiry, so the replayed answer still describes it. Counted by the mail limits as
        any invitation mail (429 over one: nothing renewed or mailed, and the replay may be retried). A replay of an
        invitation marked mailed sends nothing: one mail per invitation made, however often the answer is replayed.
        """
        if found is None or found.id != invitation_id or found.mailed_at is not None or found.expires_at <= time.time():
            return
        if self._throttle is not None:
            self._throttle.count(found.workspace_id, found.email)
        token = secrets.token_urlsafe(32)
        try:
            self._store.renew_token(found, sha256_hex(token))
        except Changed:
            return  # another request renewed it (and mails its own link) or its mail went out meanwhile
        self._mail(found.model_copy(update={"token_hash": sha256_hex(token)}), token, workspace)

    def _mail(self, invitation: InvitationRecord, token: str, workspace: str) -> None:
        """Mail ``token``'s link for ``invitation``, then mark the invitation mailed. A failed mark is logged, not
        raised: the mail went out and the invitation stands, so the answer is still its success; the cost is that a
        keyed retry of this request mails a new link (the invitee's newest link works)."""
        link = f"{self._app_url().rstrip('/')}/invitations?{urlencode({'token': token})}"
        role = "an admin" if invitation.role == "admin" else "a member"
        text = (f"You are invited to join the workspace {workspace} as {role}."
                f"\n\nSign in with this address and open:\n\n{link}\n\nThe link works once, for 7 days.")  # fmt: skip
        subject = "You are invited to a workspace"
        self._mailer().send(Message(to=invitation.email, subject=subject, text=text, link=link))
        try:
            self._store.mailed(invitation, now_iso())
        except StorageUnavailable:
            logger.warning("invitation mailed, not marked", extra={"invitationId": invitation.id})

    def pending(self, user_id: str, workspace_id: str, query: InvitationQuery) -> InvitationList:
        """The workspace's pending invitations in address order, one page of invitation items and one more (owners
        and admins; the Query goes beside the check; a bad cursor is refused after it). One expired, or whose inviter
        no longer holds a role that may make it, cannot be accepted, so it is not pending: left out of its page (a
        page may show fewer than ``limit``; ``nextCursor`` still says whether items follow). The inviters'
        memberships are read after the Query (one BatchGetItem, none when nothing is pending)."""

        def page() -> list[InvitationRecord]:
            return self._store.page(workspace_id, query.limit + 1, pages.after(query.cursor, INVITATION))

        _, read = together.checked_then_read(lambda: self._access.writer(user_id, workspace_id), page)
        shown, cursor = pages.cut(read(), query.limit, lambda r: f"{INVITATION}{r.email}")
        now = time.time()
        live = [r for r in shown if r.expires_at > now]
        roles = self._store.roles(workspace_id, {r.invited_by for r in live})
        standing = [r for r in live if roles.get(r.invited_by) in MAY_INVITE[r.role]]
        return InvitationList(invitations=[to_invitation(r) for r in standing], next_cursor=cursor)

    def revoke(self, author: Author, workspace_id: str, invitation_id: str) -> Empty:
        """Delete a pending invitation and its token (its link answers 404 from then on); unknown or expired: 404."""
        _, read = together.checked_then_read(
            lambda: self._access.writer(author.user_id, workspace_id), lambda: self._store.all(workspace_id)
        )

        def work(write: Write) -> Empty:
            def attempt() -> Empty:
                now = time.time()
                invitation = next((r for r in read() if r.id == invitation_id and r.expires_at > now), None)
                if invitation is None:
                    raise NotFound(GONE)
                self._store.revoke(invitation, also=write.also(f"invitation:{invitation_id}", Empty()))
                return Empty()

            return until_unchanged(attempt)

        return self._writes.run(author, workspace_id, "invitation.revoke", on=invitation_id, request=None,
                                answer=Empty, work=work)  # fmt: skip

    def accept(self, author: Author, request: InvitationAccept) -> JoinedWorkspace:
        """Join the invitation's workspace in its role: the caller's address must be the invited one (404, as for an
        unknown token, otherwise). One transaction (``Invitations.accept``); the answer is the workspace as
        ``GET /api/workspaces`` lists it."""
        token_hash = sha256_hex(request.token)

        def work(write: Write) -> JoinedWorkspace:
            def attempt() -> JoinedWorkspace:
                found = self._store.redeeming(token_hash, author.user_id)
                token, user = found.token, found.user
                if token is None or user is None or user.email.lower() != token.email:
                    raise NotFound(GONE)
                joining = self._store.joining(token_hash, token)
                workspace, inviter_id, may = joining.workspace, joining.inviter_id, MAY_INVITE[token.role]
                if workspace is None or not inviter_id:
                    raise NotFound(GONE)
                if joining.inviter is None or joining.inviter.role not in may:
                    # Its inviter was removed or demoted since: the invitation died with their role (as a revoked
                    # one, the same 404), and is deleted so the link stays dead and the list stops showing it.
                    target = f"invitation:{token.invitation_id}"
                    void = write.entry(target, None, workspace_id=workspace.id, action="invitation.void")
                    self._store.void(token_hash, token, inviter_id=inviter_id, inviter_roles=may, also=void)
                    raise NotFound(GONE)
                member = MembershipRecord(id=new_id("mem"), workspace_id=workspace.id, user_id=author.user_id,
                                          role=token.role, created_at=now_iso())  # fmt: skip
                summary = WorkspaceSummary.from_record(workspace, role=token.role,
                                                       member_count=workspace.member_count + 1)  # fmt: skip
                answer = JoinedWorkspace(workspace=summary)
                also = write.also(f"user:{author.user_id}", answer, workspace_id=workspace.id)
                self._store.accept(token_hash, token, member, workspace.member_count, inviter_id=inviter_id,
                                   inviter_roles=may, also=also)  # fmt: skip
                return answer

            return until_unchanged(attempt)

        # The route names no workspace: the Idempotency-Key is scoped to the caller and this action alone.
        return self._writes.run(author, "", "member.join", on="accept", request=request, answer=JoinedWorkspace,
                                work=work)  # fmt: skip
