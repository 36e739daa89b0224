"""Creating a workspace: the one path the portal, the local demo and the test seeds all take.

The store's transaction claims the slug, counts the workspace against the owner's plan
(``ownedWorkspaces``, conditioned on the limit) and writes the workspace, the owner's membership
and the default brand together; this module names the workspace, builds those records and
retries a taken slug with a suffix. Seeds and the demo pass a fixed id, an earlier clock or a few
extra fields, never a write of their own, so their data cannot drift from what production writes.
"""

from __future__ import annotations

import re
import secrets
import unicodedata
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from core.platform.errors import PlanLimitReached, ValidationFailed
from core.platform.idempotency import Idempotency, Replay
from core.platform.ids import new_id, now_iso
from core.platform.settings import PlanLimits, plan_limit_message
from core.workspaces.models import CreateWorkspaceRequest, Workspace, WorkspaceEnvelope
from core.workspaces.ports import CreatesWorkspaces, NewDefaultBrand
from core.workspaces.records import MembershipRecord, WorkspaceRecord
from core.workspaces.store import SlugTaken

if TYPE_CHECKING:  # only a type: agents' and brands' writers import ``slugify`` from here
    from core.workspaces.workspace import WorkspaceService

MAX_NAME = 80
SLUG_ATTEMPTS = 20


# Latin letters that do not decompose into a base letter plus marks, spelled as their ASCII readers do.
_TRANSLITERATE = str.maketrans({"æ": "ae", "œ": "oe", "ø": "o", "ł": "l", "đ": "d", "ð": "d", "þ": "th", "\u0131": "i"})


def slugify(name: str, fallback: str = "workspace") -> str:
    """ASCII slug of a name. NFKC first, so compatibility forms (full-width letters, ligatures such as U+FB01) read
    as their plain letters and NFC/NFD spellings of one name agree; then accents are dropped (NFKD minus the
    combining marks) and the remaining Latin letters transliterated. Other scripts fall back to ``fallback``."""
    text = unicodedata.normalize("NFKC", name).casefold()
    text = "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))
    slug = re.sub(r"[^a-z0-9]+", "-", text.translate(_TRANSLITERATE)).strip("-")[:48].strip("-")
    return slug or fallback


def validate_name(name: str) -> str:
    name = name.strip()
    if not 1 <= len(name) <= MAX_NAME:
        raise ValidationFailed(f"name: must be 1-{MAX_NAME} characters")
    return name


def create_workspace(
    repo: CreatesWorkspaces,
    default_brand: NewDefaultBrand,
    owner_id: str,
    name: str,
    plan_limit: int,
    *,
    slug: str | None = None,
    workspace_id: str | None = None,
    at: str | None = None,
    workspace_fields: Mapping[str, Any] | None = None,
    brand_fields: Mapping[str, Any] | None = None,
) -> WorkspaceRecord:
    """Create the workspace ``name`` owned by ``owner_id``, an existing user who owns fewer than ``plan_limit``
    workspaces (``PlanLimitReached`` otherwise), with its default brand (``core.brands.records.default_brand``).
    ``name`` is taken as given (the service validates it first).

    The keywords are for seeds and the demo, which need fixed or back-dated data: a base slug other than the
    name's, the workspace's id, its creation time, and record fields the portal leaves at their defaults (a
    logo, a default workflow, a palette). ``brand_fields`` must not repeat the brand's identity fields.
    """
    now, workspace_id = at or now_iso(), workspace_id or new_id("ws")
    base = slug or slugify(name)
    brand = default_brand(workspace_id, base, name, now, brand_fields or {})
    owner = MembershipRecord(id=new_id("mem"), workspace_id=workspace_id, user_id=owner_id, role="owner",
                             created_at=now)  # fmt: skip
    for attempt in range(SLUG_ATTEMPTS + 1):
        # The name's own slug, then -2, -3, ...; the last attempt takes a random suffix, so it cannot lose.
        candidate = base if attempt == 0 else f"{base}-{attempt + 1}"
        if attempt == SLUG_ATTEMPTS:
            candidate = f"{base}-{secrets.token_hex(3)}"
        record = WorkspaceRecord(id=workspace_id, name=name, slug=candidate, owner_id=owner_id,
                                 default_brand_id=brand.id, created_at=now, updated_at=now,
                                 **(workspace_fields or {}))  # fmt: skip
        try:
            repo.create(record, owner, brand, plan_limit=plan_limit)
            return record
        except SlugTaken:
            continue
    raise AssertionError("unreachable: the last attempt uses a random suffix")


class WorkspaceCreation:
    """The portal's ``POST /api/workspaces``: built by ``core.brands.providers.workspace_creation``, which gives it
    the default brand's builder, so that workspaces never import brands (brands check access through workspaces)."""

    def __init__(
        self, service: WorkspaceService, workspaces: CreatesWorkspaces, default_brand: NewDefaultBrand, *,
        plan_of: Callable[[str], PlanLimits], idempotency: Callable[[], Idempotency],
    ):  # fmt: skip
        self._service = service
        self._workspaces = workspaces
        self._default_brand = default_brand
        self._plan_of = plan_of
        self._idempotency = idempotency

    def create(self, user_id: str, name: str) -> Workspace:
        name = validate_name(name)
        plan = self._service.user(user_id).plan
        limit = self._plan_of(plan).workspaces
        try:
            created = create_workspace(self._workspaces, self._default_brand, user_id, name, limit)
        except PlanLimitReached:
            raise PlanLimitReached(plan_limit_message(plan, "workspaces", "workspaces you own")) from None
        return self._service.to_workspace(created, plan)

    def create_once(
        self, user_id: str, request: CreateWorkspaceRequest, idempotency_key: str | None, *, status: int
    ) -> WorkspaceEnvelope:
        """``create`` honouring ``Idempotency-Key``, its record keeping ``status`` (the route's): a retry answers the
        first answer."""
        outcome = self._idempotency().run_claimed(
            idempotency_key, scope=f"{user_id}|create-workspace", request=request.model_dump_json(), status=status,
            work=lambda _: WorkspaceEnvelope(workspace=self.create(user_id, request.name)),
        )  # fmt: skip
        return WorkspaceEnvelope.model_validate(outcome.body) if isinstance(outcome, Replay) else outcome
