"""Minting, listing and revoking workspace API keys (management plane).

A key's raw value is returned once and never stored (only its SHA-256). A mint with an
``Idempotency-Key`` derives the raw value from the idempotency record's own random
``attempt`` id, so a replay while the record lives returns the same key, and a mint
after it expired makes a new one. The key and the record's completion are written in one
transaction, so a key is never stored while its record says the mint is still to do (a
retry would mint a second one). A key record is never overwritten, so a revoked key
stays revoked whatever is replayed, retried or minted again. A mint and a revocation write their audit entries
(``key.mint``, ``key.revoke``, the key's id as target, never the key) in the same transaction as the key.
"""

from __future__ import annotations

import builtins
import hashlib
import hmac
import re
from collections.abc import Callable
from dataclasses import dataclass

from core.audit.ports import AuditEntries
from core.audit.writes import Author, audit_record
from core.identity.records import UserRecord
from core.keys import key_format as api_keys
from core.keys.models import ApiKey, KeyList, KeyQuery, MintedApiKey, MintedKeyEnvelope, MintKeyRequest
from core.keys.ports import ApiKeys
from core.keys.records import ApiKeyRecord
from core.platform import cursors
from core.platform.errors import ApiKeysNotAvailable, Conflict, NotFound, ValidationFailed
from core.platform.idempotency import Claim, Idempotency, Replay
from core.platform.ids import new_id, now_iso
from core.platform.kinds import Role
from core.platform.settings import PlanLimits, plan_limit_message
from core.platform.transactions import Also
from core.workspaces.records import WorkspaceRecord
from core.workspaces.workspace import WorkspaceService

MANAGERS: tuple[Role, ...] = ("owner", "admin")


def key_record(
    raw: str,
    workspace_id: str,
    name: str,
    *,
    rate_limit: int | None = None,
    allowed_origins: list[str] | None = None,
    created_at: str | None = None,
    key_id: str | None = None,
    created_by: str | None = None,
) -> ApiKeyRecord:
    """The stored record of the raw key ``raw``: its hash and display prefix, never the key itself.

    Mint builds its records here, and so do the local demo and the test seeder (which may fix the id and the
    creation time), so their keys cannot drift from minted ones.
    """
    return ApiKeyRecord(
        id=key_id or new_id("key"), key_hash=api_keys.hash_key(raw), workspace_id=workspace_id, name=name,
        prefix=api_keys.display_prefix(raw), rate_limit=rate_limit, allowed_origins=allowed_origins,
        created_at=created_at or now_iso(), created_by=created_by,
    )  # fmt: skip


@dataclass(frozen=True)
class ManagedWorkspace:
    """A workspace the caller may manage, with its owner's user record when the caller is the owner."""

    record: WorkspaceRecord
    owner: UserRecord | None


class KeyAdminService:
    def __init__(
        self,
        workspaces: WorkspaceService,
        keys: ApiKeys,
        plan_of: Callable[[str], PlanLimits],
        default_rate_limit: int,
        replay_secret: Callable[[], bytes],
        *,
        idempotency: Callable[[], Idempotency],
        audit: AuditEntries,
    ):
        self._audit = audit
        self._workspaces = workspaces
        self._keys = keys
        self._plan_of = plan_of
        self._default_rate_limit = default_rate_limit
        self._replay_secret = replay_secret
        self._idempotency = idempotency

    def _view(self, record: ApiKeyRecord) -> ApiKey:
        return ApiKey.from_record(record, rate_limit=record.rate_limit or self._default_rate_limit)

    def list(self, user_id: str, workspace_id: str, query: KeyQuery) -> KeyList:
        """Newest first, one page and one key more (so ``nextCursor`` is null exactly on the last page), read
        beside the membership check; a bad cursor is refused after the check (a stranger learns nothing)."""

        def page() -> builtins.list[ApiKeyRecord]:
            return self._keys.page(workspace_id, query.limit + 1, _key_position(query.cursor))

        keys = self._workspaces.read_as_member(workspace_id, user_id, page)
        shown, more = keys[: query.limit], len(keys) > query.limit
        last = f"{shown[-1].created_at}#{shown[-1].key_hash}" if shown else ""
        return KeyList(keys=[self._view(k) for k in shown], next_cursor=cursors.encode(last) if more else None)

    def require_manager(self, user_id: str, workspace_id: str) -> ManagedWorkspace:
        """The workspace, if the caller is its owner or an admin (404 for strangers, 403 for members).

        The caller's user record comes in the same read: keys usually are minted by the owner, whose
        plan decides whether the workspace may have keys, so a mint then needs no second read.
        """
        workspace, caller = self._workspaces.membership_and_caller(workspace_id, user_id, roles=MANAGERS)
        return ManagedWorkspace(workspace, caller if caller and caller.id == workspace.owner_id else None)

    def check_can_mint(self, user_id: str, workspace_id: str, workspace: ManagedWorkspace | None = None) -> None:
        """Owner or admin (403), and the workspace owner's plan must include keys (402)."""
        managed = workspace or self.require_manager(user_id, workspace_id)
        owner = managed.owner or self._workspaces.user(managed.record.owner_id)
        if not self._plan_of(owner.plan).api_keys:  # the owner's plan, named: a member can see it on the workspace
            raise ApiKeysNotAvailable(plan_limit_message(owner.plan, "api_keys", "API keys"))

    def mint(
        self,
        author: Author,
        workspace_id: str,
        name: str,
        rate_limit: int | None,
        claim: Claim | None,
        *,
        workspace: ManagedWorkspace | None = None,
        allowed_origins: builtins.list[str] | None = None,  # ``list`` is the method above, in this class
    ) -> MintedApiKey:
        """A new key; the raw value is in the response only.

        ``workspace`` is the caller's already-checked workspace (``require_manager``), if any.
        ``claim``: the Idempotency-Key's claim; the secret is an HMAC of its attempt id under the
        service's secret, so a replayed response can carry the same raw key again without the raw
        key ever being stored, and the key is written in one transaction with the claim's completion.
        """
        user_id = author.user_id
        self.check_can_mint(user_id, workspace_id, workspace)
        raw = api_keys.generate(self.replay_secret(user_id, workspace_id, claim.attempt) if claim else None)
        record = key_record(raw, workspace_id, name, rate_limit=rate_limit, allowed_origins=allowed_origins,
                            created_by=user_id)  # fmt: skip
        minted = MintedApiKey(**self._view(record).model_dump(), key=raw)
        audit = self._audit.entry(audit_record(author, workspace_id, "key.mint", f"key:{record.id}"))
        if claim is None:
            self._keys.put(record, audit=audit)  # conditional: never over an existing key
            return minted
        try:
            self._keys.put(record, audit=audit, completing=claim.completion(MintedKeyEnvelope(key=minted)))
        except Conflict:
            # A run of this same attempt may have stored the key already (two runs after a lapsed lock):
            # the hash is derived from the attempt, so a live key with it in this workspace is this mint's.
            # A revoked one is refused (the claim is then released, and a retry mints a new key).
            stored = self._keys.get_by_hash(record.key_hash)
            if stored is None or stored.workspace_id != workspace_id or stored.revoked_at is not None:
                raise
            claim.found_stored()
            minted = MintedApiKey(**self._view(stored).model_dump(), key=raw)
        return minted

    def mint_once(
        self,
        author: Author,
        workspace_id: str,
        request: MintKeyRequest,
        *,
        workspace: ManagedWorkspace | None = None,
    ) -> MintedKeyEnvelope:
        """``mint`` honouring the author's ``Idempotency-Key``, its record keeping the route's status: a replay
        answers the stored key with its raw value re-derived (the record never holds it)."""
        user_id = author.user_id

        def work(claim: Claim | None) -> MintedKeyEnvelope:
            return MintedKeyEnvelope(key=self.mint(
                author, workspace_id, request.name, request.rate_limit, claim, workspace=workspace,
                allowed_origins=request.allowed_origins,
            ))  # fmt: skip

        outcome = self._idempotency().run_claimed(
            author.idempotency_key, scope=f"{user_id}|mint-key|{workspace_id}", request=request.model_dump_json(),
            status=author.status, work=work,
            redact=lambda body: {"key": {k: v for k, v in body["key"].items() if k != "key"}},
        )  # fmt: skip
        if not isinstance(outcome, Replay):
            return outcome
        self.check_can_mint(user_id, workspace_id)  # a replay is still subject to today's access rules
        raw = api_keys.generate(self.replay_secret(user_id, workspace_id, outcome.attempt))
        return MintedKeyEnvelope.model_validate({"key": outcome.body["key"] | {"key": raw}})

    def replay_secret(self, user_id: str, workspace_id: str, attempt: str) -> bytes:
        message = f"mint|{user_id}|{workspace_id}|{attempt}".encode()
        return hmac.new(self._replay_secret(), message, hashlib.sha256).digest()

    def revoke(self, author: Author, workspace_id: str, key_id: str) -> None:
        """Revoke the key, with its ``key.revoke`` entry in the same transaction; revoking it again is answered the
        same and writes the entry alone (every write that succeeds is in the log, as the writer's are)."""
        self._workspaces.membership(workspace_id, author.user_id, roles=MANAGERS)
        record = next((k for k in self._keys.list_for_workspace(workspace_id) if k.id == key_id), None)
        if record is None:
            raise NotFound("API key not found")
        audit = self._audit.entry(audit_record(author, workspace_id, "key.revoke", f"key:{key_id}"))
        if record.revoked_at is not None or not self._keys.revoke(record.key_hash, now_iso(), audit=audit):
            self._audit.commit(Also(audit=audit))


_POSITION = re.compile(r"^(\d{4}-\d{2}-\d{2}T[0-9:.]+Z?[+0-9:]*)#([0-9a-f]{64})$")


def _key_position(cursor: str | None) -> tuple[str, str] | None:
    """The (``createdAt``, ``keyHash``) a keys page's cursor names; 400 for anything the listing did not make. The
    hash is the table's key, not the raw key: knowing it opens nothing (the check hashes what it is given)."""
    if cursor is None:
        return None
    found = _POSITION.match(cursors.decode(cursor))
    if found is None:
        raise ValidationFailed(cursors.BAD_CURSOR)
    return found.group(1), found.group(2)
