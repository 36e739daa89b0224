"""Invitations and their tokens (authoring.md, "Members and invitations"; docs/data-model.md).

An invitation is one item per address in the workspace's partition (``INVITE#<email>``), naming its one live token
by hash (``tokenHash``); the token is an item of its own (``INVITETOKEN#<sha256>``), which the link's token finds.
Every write conditions on the ``tokenHash`` it read: two invitations of one address at once meet on one item (the
second renews the first, and the first's token is deleted with it), and an acceptance racing a renewal or a
revocation finds its token gone. Accepting is one transaction: the token used up, the invitation deleted, the
membership written (with its index row, as the owner's), ``memberCount`` moved and the audit entry, conditioned on
the inviter still holding a role that may make the invitation (``ConditionCheck`` on their membership), so a removal
or demotion racing the acceptance cannot slip through; an invitation whose inviter lost that role is voided instead
(``void``: the token and the invitation deleted, with its own audit entry).

Once SES takes an invitation's mail, the invitation is marked (``mailedAt``, conditioned on the token mailed); a
keyed retry that finds its invitation unmarked gives it a new token (``renew_token``: the same invitation, only the
link changes) and mails that (docs/decisions.md, "A keyed invitation whose mail failed").
"""

from __future__ import annotations

import time
from typing import Any

from core.identity.records import UserRecord
from core.platform import main_table as keys
from core.platform import pages
from core.platform.dynamo import batch_get, get_item, query_all, to_item, written_if
from core.platform.errors import Conflict, NotFound
from core.platform.kinds import Role
from core.platform.transactions import EXISTS, NEW, Also, Changed, Transaction
from core.workspaces.records import (
    InvitationRecord,
    InvitationTokenRecord,
    Invitee,
    Joining,
    MembershipRecord,
    Redeeming,
    WorkspaceRecord,
)
from core.workspaces.store import member_row

GONE = "Invitation not found"
ALREADY = "You are already a member of this workspace"
CHANGED = "The invitation changed while this request was applied; read it again"
ROLE = {"#role": "role"}  # a reserved word in DynamoDB's expressions


def role_in(roles: tuple[Role, ...]) -> tuple[str, dict[str, str]]:
    """``#role IN (…)`` over ``roles`` and its values: false on a missing item, whose role does not exist."""
    values: dict[str, str] = {f":may{n}": role for n, role in enumerate(roles)}
    return f"#role IN ({', '.join(values)})", values


class InvitationStore:
    def __init__(self, client: Any, table: str):
        self._db = client
        self._table = table

    # --- reads

    def invitee(self, workspace_id: str, email: str) -> Invitee:
        """The address's invitation and its e-mail claim (the user it belongs to): one consistent BatchGetItem."""
        rows = batch_get(self._db, self._table, [keys.invitation(workspace_id, email), keys.email_claim(email)])
        invitation = next((r for r in rows if r["sk"].startswith(keys.INVITATION)), None)
        claim = next((r for r in rows if r["sk"] == "EMAIL"), None)
        return Invitee(
            invitation=InvitationRecord.model_validate(invitation) if invitation else None,
            user_id=claim["userId"] if claim else None,
        )

    def is_member(self, workspace_id: str, user_id: str) -> bool:
        return get_item(self._db, self._table, keys.member(workspace_id, user_id), consistent=True) is not None

    def all(self, workspace_id: str) -> list[InvitationRecord]:
        """Every invitation item of the workspace, expired ones included (TTL deletes late): one Query."""
        rows = query_all(self._db, {
            "TableName": self._table, "ConsistentRead": True,
            "KeyConditionExpression": "pk = :pk AND begins_with(sk, :prefix)",
            "ExpressionAttributeValues": to_item({":pk": f"WS#{workspace_id}", ":prefix": keys.INVITATION}),
        })  # fmt: skip
        return [InvitationRecord.model_validate(r) for r in rows]

    def page(self, workspace_id: str, limit: int, start: str | None) -> list[InvitationRecord]:
        """``limit`` invitation items in address order (their sort key), after the sort key ``start``."""
        request = pages.range_query(self._table, f"WS#{workspace_id}", keys.INVITATION, limit, start)
        return [InvitationRecord.model_validate(r) for r in query_all(self._db, request, limit)]

    def roles(self, workspace_id: str, user_ids: set[str]) -> dict[str, Role]:
        """The role of each of ``user_ids`` who is a member of the workspace: one consistent BatchGetItem (none for
        no one)."""
        if not user_ids:
            return {}
        rows = batch_get(self._db, self._table, [keys.member(workspace_id, u) for u in sorted(user_ids)])
        return {str(r["sk"]).removeprefix("MEMBER#"): r["role"] for r in rows}

    def redeeming(self, token_hash: str, user_id: str) -> Redeeming:
        """The token and the caller's user (their address decides): one consistent BatchGetItem."""
        rows = batch_get(self._db, self._table, [keys.invitation_token(token_hash), keys.user(user_id)])
        token = next((r for r in rows if r["sk"] == "INVITETOKEN"), None)
        user = next((r for r in rows if r["sk"] == "USER"), None)
        live = token is not None and token["expiresAt"] > time.time()
        return Redeeming(
            token=InvitationTokenRecord.model_validate(token) if live else None,
            user=UserRecord.model_validate(user) if user else None,
        )

    def joining(self, token_hash: str, token: InvitationTokenRecord) -> Joining:
        """The token's workspace and its inviter's membership: one consistent BatchGetItem. A token stored before
        tokens named their inviter reads the invitation instead (the one naming this token), then the membership."""
        ws, inviter_id = token.workspace_id, token.invited_by
        wanted = [keys.workspace(ws), keys.member(ws, inviter_id) if inviter_id else keys.invitation(ws, token.email)]
        rows = batch_get(self._db, self._table, wanted)
        workspace = next((r for r in rows if r["sk"] == "WS"), None)
        member = next((r for r in rows if r["sk"].startswith("MEMBER#")), None)
        if not inviter_id:
            invitation = next((r for r in rows if r["sk"].startswith(keys.INVITATION)), None)
            if invitation is not None and invitation.get("tokenHash") == token_hash:
                inviter_id = str(invitation["invitedBy"])
                member = get_item(self._db, self._table, keys.member(ws, inviter_id), consistent=True)
        return Joining(
            workspace=WorkspaceRecord.model_validate(workspace) if workspace else None,
            inviter_id=inviter_id,
            inviter=MembershipRecord.model_validate(member) if member else None,
        )

    # --- writes

    def save(
        self, invitation: InvitationRecord, *, replacing: InvitationRecord | None, user_id: str | None, also: Also
    ) -> None:
        """Write ``invitation`` and its token (its ``tokenHash``; the token item's TTL is the invitation's expiry):
        new if ``replacing`` is None, else in place of ``replacing`` if its token is still the one read (whose token
        item goes). ``user_id``: the address's user, who must still not be a member (409). The workspace must
        still exist (404)."""
        ws, tx = invitation.workspace_id, Transaction(self._table)
        item = keys.invitation(ws, invitation.email) | invitation.attributes()
        if replacing is None:
            tx.put(item, condition=NEW, name="changed")
        else:
            tx.put(item, condition="tokenHash = :seen", values={":seen": replacing.token_hash}, name="changed")
            tx.delete(keys.invitation_token(replacing.token_hash))
        token = InvitationTokenRecord(workspace_id=ws, email=invitation.email, invitation_id=invitation.id,
                                      role=invitation.role, expires_at=invitation.expires_at,
                                      invited_by=invitation.invited_by)  # fmt: skip
        tx.put(keys.invitation_token(invitation.token_hash) | token.attributes(), condition=NEW)
        if user_id is not None:
            tx.check(keys.member(ws, user_id), NEW, name="member")
        tx.check(keys.workspace(ws), EXISTS, name="workspace")
        tx.carry(also).commit_or_raise(self._db, {
            "changed": Changed(CHANGED), "member": Conflict("That address is already a member of this workspace"),
            "workspace": NotFound("Workspace not found"),
        })  # fmt: skip

    def revoke(self, invitation: InvitationRecord, *, also: Also) -> None:
        """Delete the invitation, if its token is still the one read, and its token."""
        tx = Transaction(self._table)
        tx.delete(keys.invitation(invitation.workspace_id, invitation.email), condition="tokenHash = :seen",
                  values={":seen": invitation.token_hash}, name="changed")  # fmt: skip
        tx.delete(keys.invitation_token(invitation.token_hash))
        tx.carry(also).commit_or_raise(self._db, {"changed": Changed(CHANGED)})

    def mailed(self, invitation: InvitationRecord, at: str) -> bool:
        """Mark the invitation's link as taken by SES (``mailedAt``), if its token is still the one mailed: one
        conditional UpdateItem. False when it was renewed, revoked or accepted since (that write's link is another's
        to mail)."""
        return written_if(self._db, "UpdateItem", lambda: self._db.update_item(
            TableName=self._table, Key=to_item(keys.invitation(invitation.workspace_id, invitation.email)),
            UpdateExpression="SET mailedAt = :at", ConditionExpression="tokenHash = :hash",
            ExpressionAttributeValues=to_item({":at": at, ":hash": invitation.token_hash}),
        ))  # fmt: skip

    def renew_token(self, invitation: InvitationRecord, token_hash: str) -> None:
        """A new token for the same invitation (its id, role, inviter and expiry kept), in place of one never
        marked mailed: the invitation names ``token_hash``, the old token's item goes and the new one is written,
        if the invitation still names the old token and is still unmarked (else ``Changed``: another write renewed
        it, or its mail went out meanwhile)."""
        ws, tx = invitation.workspace_id, Transaction(self._table)
        tx.update(keys.invitation(ws, invitation.email), "SET tokenHash = :new",
                  condition="tokenHash = :seen AND attribute_not_exists(mailedAt)",
                  values={":new": token_hash, ":seen": invitation.token_hash}, name="changed")  # fmt: skip
        tx.delete(keys.invitation_token(invitation.token_hash))
        token = InvitationTokenRecord(workspace_id=ws, email=invitation.email, invitation_id=invitation.id,
                                      role=invitation.role, expires_at=invitation.expires_at,
                                      invited_by=invitation.invited_by)  # fmt: skip
        tx.put(keys.invitation_token(token_hash) | token.attributes(), condition=NEW)
        tx.commit_or_raise(self._db, {"changed": Changed(CHANGED)})

    def accept(
        self, token_hash: str, token: InvitationTokenRecord, member: MembershipRecord, seen_count: int, *,
        inviter_id: str, inviter_roles: tuple[Role, ...], also: Also,
    ) -> None:  # fmt: skip
        """One transaction: the token used up (if still live), the invitation deleted (if it still names this token),
        the inviter still a member in one of ``inviter_roles`` (else ``Changed``: read again, and the invitation is
        void), ``member`` written (if not a member already: 409) and ``memberCount`` moved from ``seen_count`` (the
        workspace read for the answer; 409 ``Changed`` if it moved, or the workspace is gone)."""
        tx = Transaction(self._table)
        tx.delete(keys.invitation_token(token_hash), condition="attribute_exists(pk) AND expiresAt > :now",
                  values={":now": int(time.time())}, name="token")  # fmt: skip
        tx.delete(keys.invitation(token.workspace_id, token.email), condition="tokenHash = :hash",
                  values={":hash": token_hash}, name="token")  # fmt: skip
        may, values = role_in(inviter_roles)
        tx.check(keys.member(token.workspace_id, inviter_id), may, names=ROLE, values=values, name="changed")
        tx.put(member_row(member), condition=NEW, name="member")
        tx.update(keys.workspace(token.workspace_id), "ADD memberCount :one", condition="memberCount = :seen",
                  values={":one": 1, ":seen": seen_count}, name="changed")  # fmt: skip
        tx.carry(also).commit_or_raise(self._db, {
            "token": NotFound(GONE), "member": Conflict(ALREADY), "changed": Changed(CHANGED),
        })  # fmt: skip

    def void(
        self, token_hash: str, token: InvitationTokenRecord, *, inviter_id: str, inviter_roles: tuple[Role, ...],
        also: Also,
    ) -> None:  # fmt: skip
        """The invitation made void because its inviter no longer holds one of ``inviter_roles``: its token and the
        invitation deleted (if it still names this token: else 404, someone else settled it), if the inviter still
        holds none of them (else ``Changed``: promoted again meanwhile, read again)."""
        tx = Transaction(self._table)
        tx.delete(keys.invitation_token(token_hash), condition=EXISTS, name="token")
        tx.delete(keys.invitation(token.workspace_id, token.email), condition="tokenHash = :hash",
                  values={":hash": token_hash}, name="token")  # fmt: skip
        may, values = role_in(inviter_roles)
        tx.check(keys.member(token.workspace_id, inviter_id), f"attribute_not_exists(pk) OR NOT ({may})", names=ROLE,
                 values=values, name="changed")  # fmt: skip
        tx.carry(also).commit_or_raise(self._db, {"token": NotFound(GONE), "changed": Changed(CHANGED)})
