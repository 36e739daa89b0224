"""Invitations and their tokens (authoring.md, "Members and invitations"; docs/data-model.md).

An invitation is one item per address in the workspace's partition (``INVITE#<email>``), naming its one live token
by hash (``tokenHash``); the token is an item of its own (``INVITETOKEN#<sha256>``), which the link's token finds.
Every write conditions on the ``tokenHash`` it read: two invitations of one address at once meet on one item (the
second renews the first, and the first's token is deleted with it), and an acceptance racing a renewal or a
revocation finds its token gone. Accepting is one transaction: the token used up, the invitation deleted, the
membership written (with its index row, as the owner's), ``memberCount`` moved and the audit entry.
"""

from __future__ import annotations

import time
from typing import Any

from core.identity.records import UserRecord
from core.platform import main_table as keys
from core.platform.dynamo import batch_get, get_item, query_all, to_item
from core.platform.errors import Conflict, NotFound
from core.platform.transactions import EXISTS, NEW, Also, Changed, Transaction
from core.workspaces.records import (
    InvitationRecord,
    InvitationTokenRecord,
    Invitee,
    MembershipRecord,
    Redeeming,
    WorkspaceRecord,
)
from core.workspaces.store import member_row

GONE = "Invitation not found"
ALREADY = "You are already a member of this workspace"
CHANGED = "The invitation changed while this request was applied; read it again"


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

    def workspace(self, workspace_id: str) -> WorkspaceRecord | None:
        found = get_item(self._db, self._table, keys.workspace(workspace_id), consistent=True)
        return WorkspaceRecord.model_validate(found) if found else None

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
                                      role=invitation.role, expires_at=invitation.expires_at)  # fmt: skip
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

    def accept(
        self, token_hash: str, token: InvitationTokenRecord, member: MembershipRecord, seen_count: int, *, also: Also
    ) -> None:
        """One transaction: the token used up (if still live), the invitation deleted (if it still names this token),
        ``member`` written (if not a member already: 409) and ``memberCount`` moved from ``seen_count`` (the
        workspace read for the answer; 409 ``Changed`` if it moved, or the workspace is gone)."""
        tx = Transaction(self._table)
        tx.delete(keys.invitation_token(token_hash), condition="attribute_exists(pk) AND expiresAt > :now",
                  values={":now": int(time.time())}, name="token")  # fmt: skip
        tx.delete(keys.invitation(token.workspace_id, token.email), condition="tokenHash = :hash",
                  values={":hash": token_hash}, name="token")  # fmt: skip
        tx.put(member_row(member), condition=NEW, name="member")
        tx.update(keys.workspace(token.workspace_id), "ADD memberCount :one", condition="memberCount = :seen",
                  values={":one": 1, ":seen": seen_count}, name="changed")  # fmt: skip
        tx.carry(also).commit_or_raise(self._db, {
            "token": NotFound(GONE), "member": Conflict(ALREADY), "changed": Changed(CHANGED),
        })  # fmt: skip
