"""Workspaces, members, brands and the caller's account (management plane)."""

from __future__ import annotations

import re
import secrets
import unicodedata
from collections.abc import Callable

from ..errors import Forbidden, NotFound, ValidationFailed
from ..ids import new_id, now_iso
from ..models.management import Account, Brand, Member, Role, StorageConfig, Workspace, WorkspaceSummary
from ..models.records import BrandRecord, MembershipRecord, UserRecord, WorkspaceRecord
from ..repositories.api_keys import ApiKeyRepository
from ..repositories.users import UserRepository
from ..repositories.workspaces import SlugTaken, WorkspaceRepository
from ..settings import PlanLimits
from . import together

MAX_NAME = 80
SLUG_ATTEMPTS = 20


# Latin letters that do not decompose into a base letter plus marks, spelled as their ASCII readers do.
_TRANSLITERATE = str.maketrans({"æ": "ae", "œ": "oe", "ø": "o", "ł": "l", "đ": "d", "ð": "d", "þ": "th", "\u0131": "i"})


def slugify(name: str) -> str:
    """ASCII slug of a name. NFKC first, so compatibility forms (full-width letters, ligatures such as U+FB01) read
    as their plain letters and NFC/NFD spellings of one name agree; then accents are dropped (NFKD minus the
    combining marks) and the remaining Latin letters transliterated. Other scripts fall back to ``workspace``."""
    text = unicodedata.normalize("NFKC", name).casefold()
    text = "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))
    slug = re.sub(r"[^a-z0-9]+", "-", text.translate(_TRANSLITERATE)).strip("-")[:48].strip("-")
    return slug or "workspace"


def validate_name(name: str) -> str:
    name = name.strip()
    if not 1 <= len(name) <= MAX_NAME:
        raise ValidationFailed(f"name: must be 1-{MAX_NAME} characters")
    return name


class WorkspaceService:
    def __init__(
        self,
        workspaces: WorkspaceRepository,
        users: UserRepository,
        keys: ApiKeyRepository,
        *,
        plan_of: Callable[[str], PlanLimits],
        enqueue_purge: Callable[[str], None],
        bucket: str,
    ):
        self._workspaces = workspaces
        self._users = users
        self._keys = keys
        self._plan_of = plan_of
        self._enqueue_purge = enqueue_purge
        self._bucket = bucket

    # --- access

    def membership(self, workspace_id: str, user_id: str, *, roles: tuple[Role, ...] = ()) -> WorkspaceRecord:
        """The workspace if the user is a member (404 otherwise: existence is never leaked), in one of ``roles``."""
        return self.membership_and_caller(workspace_id, user_id, roles=roles, with_caller=False)[0]

    def membership_and_caller(
        self, workspace_id: str, user_id: str, *, roles: tuple[Role, ...] = (), with_caller: bool = True
    ) -> tuple[WorkspaceRecord, UserRecord | None]:
        """``membership`` and (``with_caller``) the caller's user record, all in one read."""
        member, workspace, caller = self._workspaces.access(workspace_id, user_id, with_user=with_caller)
        if member is None or workspace is None:
            raise NotFound("Workspace not found")
        if roles and member.role not in roles:
            raise Forbidden(f"Only a workspace {' or '.join(roles)} may do this")
        return workspace, caller

    def read_as_member[T](self, workspace_id: str, user_id: str, read: Callable[[], T]) -> T:
        """``read()``'s answer once the user's membership is checked (404 as ``membership``), read together."""
        access, found = together.run(lambda: self.membership(workspace_id, user_id), read)
        access.result()
        return found.result()

    def user(self, user_id: str) -> UserRecord:
        user = self._users.get(user_id)
        if user is None:
            raise NotFound("User not found")
        return user

    # --- workspaces

    def list_for(self, user_id: str) -> list[WorkspaceSummary]:
        memberships = {m.workspace_id: m for m in self._workspaces.memberships_of(user_id)}
        found = self._workspaces.get_many(list(memberships))  # deleted workspaces drop out here, at once
        return [
            WorkspaceSummary(
                id=ws.id,
                name=ws.name,
                slug=ws.slug,
                type=ws.type,
                origin=ws.origin,
                role=memberships[ws.id].role,
                owner_id=ws.owner_id,
                member_count=ws.member_count,
                created_at=ws.created_at,
                logo_key=ws.logo_key,
            )
            for ws in sorted(found, key=lambda w: (w.created_at, w.id))
        ]

    def create(self, user_id: str, name: str) -> Workspace:
        name = validate_name(name)
        user = self.user(user_id)
        limit = self._plan_of(user.plan).workspaces
        now = now_iso()
        workspace_id = new_id("ws")
        brand = BrandRecord(id=new_id("brd"), workspace_id=workspace_id, slug=slugify(name), name=name,
                            is_default=True, created_at=now, updated_at=now)  # fmt: skip
        owner = MembershipRecord(id=new_id("mem"), workspace_id=workspace_id, user_id=user_id, role="owner",
                                 created_at=now)  # fmt: skip
        base = slugify(name)
        for attempt in range(SLUG_ATTEMPTS + 1):
            slug = base if attempt == 0 else f"{base}-{attempt + 1}"
            if attempt == SLUG_ATTEMPTS:
                slug = f"{base}-{secrets.token_hex(3)}"
            record = WorkspaceRecord(id=workspace_id, name=name, slug=slug, owner_id=user_id,
                                     default_brand_id=brand.id, created_at=now, updated_at=now)  # fmt: skip
            try:
                self._workspaces.create(record, owner, brand, plan_limit=limit)
                return self.to_workspace(record)
            except SlugTaken:
                continue
        raise AssertionError("unreachable: the last attempt uses a random suffix")

    def get(self, user_id: str, workspace_id: str) -> Workspace:
        return self.to_workspace(self.membership(workspace_id, user_id))

    def to_workspace(self, ws: WorkspaceRecord) -> Workspace:
        storage = StorageConfig(type="s3", bucket=self._bucket, prefix=f"workspaces/{ws.id}/")
        return Workspace(
            id=ws.id, name=ws.name, slug=ws.slug, type=ws.type, origin=ws.origin, owner_id=ws.owner_id,
            created_at=ws.created_at, storage_config=storage, wrap_config=ws.wrap_config,
            default_workflow_id=ws.default_workflow_id, default_brand_id=ws.default_brand_id, listed=ws.listed,
            store_conversations=ws.store_conversations, updated_at=ws.updated_at,
        )  # fmt: skip

    def delete(self, user_id: str, workspace_id: str) -> None:
        """Owner only. Gone at once for every API; content and records are purged in the background.

        Safe to retry after a partial failure: the tombstone remembers the owner, and
        every later step is idempotent.
        """
        tombstone = self._workspaces.tombstone(workspace_id)
        if tombstone is None or tombstone.owner_id != user_id:
            workspace = self.membership(workspace_id, user_id, roles=("owner",))
            if not self._workspaces.delete(workspace, now_iso()):
                raise NotFound("Workspace not found")
        now = now_iso()
        for key in self._keys.list_for_workspace(workspace_id):
            if key.revoked_at is None:
                self._keys.revoke(key.key_hash, now)
        self._workspaces.remove_memberships(workspace_id)
        self._enqueue_purge(workspace_id)

    # --- members, brands, account

    def members(self, user_id: str, workspace_id: str) -> list[Member]:
        members = self.read_as_member(workspace_id, user_id, lambda: self._workspaces.members(workspace_id))
        users = self._workspaces.users([m.user_id for m in members])
        return [
            Member(
                id=m.id,
                user_id=m.user_id,
                workspace_id=m.workspace_id,
                role=m.role,
                email=users[m.user_id].email if m.user_id in users else "",
                name=users[m.user_id].name if m.user_id in users else "",
                image=users[m.user_id].image if m.user_id in users else "",
                created_at=m.created_at,
            )
            for m in sorted(members, key=lambda m: (m.created_at, m.id))
        ]

    def brands(self, user_id: str, workspace_id: str) -> list[Brand]:
        found = self.read_as_member(workspace_id, user_id, lambda: self._workspaces.brands(workspace_id))
        brands = sorted(found, key=lambda b: (not b.is_default, b.created_at, b.id))
        return [Brand.model_validate(b.model_dump(include=set(Brand.model_fields))) for b in brands]

    def account(self, user_id: str) -> Account:
        """The caller; a stale active workspace (deleted, or membership gone) is replaced, or null."""
        user = self.user(user_id)
        active = user.active_workspace_id
        if active and self._workspaces.get_membership(active, user_id) is None:
            remaining = sorted(self._workspaces.memberships_of(user_id), key=lambda m: m.created_at)
            live = {w.id for w in self._workspaces.get_many([m.workspace_id for m in remaining])}
            active = next((m.workspace_id for m in remaining if m.workspace_id in live), None)
            self._users.set_active_workspace(user_id, active)
        return Account(id=user.id, email=user.email, name=user.name, image=user.image, role=user.role,
                       workspace_id=active, created_at=user.created_at)  # fmt: skip
