"""Management-plane resources (service-api.md, "Resources and their fields")."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field

from core.models.base import ApiModel, RequestModel
from core.models.fields import (
    EMAIL_DOCUMENTED,
    EMAIL_PATTERN,
    QUERY_INT_MAX,
    AllowedOrigins,
    QueryInt,
    name_rules,
    text_rules,
    whole_number_rules,
)
from core.models.kinds import RefType, Role, WorkspaceOrigin, WorkspaceType


class StorageConfig(ApiModel):
    type: str
    bucket: str
    prefix: str


class Workspace(ApiModel):
    id: str
    name: str
    slug: str
    type: WorkspaceType
    origin: WorkspaceOrigin
    owner_id: str
    created_at: str
    storage_config: StorageConfig
    wrap_config: dict[str, Any] = Field(default_factory=dict)
    default_workflow_id: str | None  # null until the owner picks one (decisions.md: null, never "")
    default_brand_id: str
    listed: bool
    store_conversations: bool
    updated_at: str


class WorkspaceSummary(ApiModel):
    id: str
    name: str
    slug: str
    type: WorkspaceType
    origin: WorkspaceOrigin
    role: Role
    owner_id: str
    member_count: int
    created_at: str
    logo_key: str


class Member(ApiModel):
    id: str
    user_id: str
    workspace_id: str
    role: Role
    email: str
    name: str
    image: str
    created_at: str


class Brand(ApiModel):
    id: str
    slug: str
    name: str
    is_default: bool
    palette: list[str]
    font_family: str
    created_at: str
    updated_at: str


class ApiKey(ApiModel):
    """Key metadata. ``key`` (the raw secret) is set only on the mint response."""

    id: str
    name: str
    prefix: str
    rate_limit: int
    allowed_origins: list[str] | None = Field(
        description="Origins a browser may call the read plane from with this key; null: any (docs/security.md)"
    )
    last_used_at: str | None
    created_at: str
    revoked_at: str | None


class MintedApiKey(ApiKey):
    key: str


class CreditAmounts(ApiModel):
    available: int
    held: int
    total: int


class CreditBalance(ApiModel):
    balance: CreditAmounts
    unit: Literal["credits"] = "credits"
    usd_cents: CreditAmounts


class CreditLedgerEntry(ApiModel):
    id: str
    account_id: str
    amount_credits: int
    ref_type: RefType
    ref_id: str
    description: str
    created_at: str


class CreditHistory(ApiModel):
    entries: list[CreditLedgerEntry]
    total: int
    limit: int
    offset: int


class Account(ApiModel):
    id: str
    email: str
    name: str
    image: str
    role: str
    workspace_id: str | None
    created_at: str


class ErrorBody(ApiModel):
    error: str
    code: str


# --- request bodies (``RequestModel``: strict types, unknown fields refused, ``null`` = absent when optional)


class MagicLinkRequest(RequestModel):
    email: Annotated[str, *text_rules(3, 254, pattern=EMAIL_PATTERN, documented=EMAIL_DOCUMENTED)]


class MagicLinkVerifyRequest(RequestModel):
    token: Annotated[str, *text_rules(1, 512)]


class IdTokenRequest(RequestModel):
    id_token: Annotated[str, *text_rules(1, 8192)]


class CreateWorkspaceRequest(RequestModel):
    name: Annotated[str, *name_rules(80)]  # also the default brand's name


class MintKeyRequest(RequestModel):
    name: Annotated[str, *name_rules(64)]
    rate_limit: Annotated[int, *whole_number_rules(1, 100_000)] | None = None
    allowed_origins: AllowedOrigins | None = None


class CreditHistoryQuery(ApiModel):
    """``GET /api/credits/history`` query: strings from the URL, so numbers are parsed (plain digits only),
    then range-checked."""

    model_config = ApiModel.model_config | {"extra": "ignore", "validate_by_name": False}

    limit: QueryInt = Field(50, ge=1, le=200)
    offset: QueryInt = Field(0, ge=0, le=QUERY_INT_MAX)
    ref_type: RefType | None = None


class TokenResponse(ApiModel):
    token: str


class SignInResponse(ApiModel):
    user: Account
