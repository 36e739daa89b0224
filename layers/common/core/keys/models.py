"""The keys' wire models (service-api.md, "Resources and their fields"), as both planes send them."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from core.platform.fields import (
    AllowedOrigins,
    QueryInt,
    name_rules,
    whole_number_rules,
)
from core.platform.models import ApiModel, RequestModel
from core.platform.write_fields import ListQuery

KEYS_PAGE = 200  # a page of keys, and the most: every workspace's keys fitted in one before pages (issue 43)


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
    created_by: str | None = Field(
        description="The user id of the member who minted it (null for keys minted before it was kept); the key "
        "stays valid when that member leaves"
    )
    revoked_at: str | None


class MintedApiKey(ApiKey):
    key: str


class MintKeyRequest(RequestModel):
    name: Annotated[str, *name_rules(64)]
    rate_limit: Annotated[int, *whole_number_rules(1, 100_000)] | None = None
    allowed_origins: AllowedOrigins | None = None


class KeyQuery(ListQuery):
    limit: QueryInt = Field(KEYS_PAGE, ge=1, le=KEYS_PAGE)
    cursor: str | None = Field(None, min_length=1, max_length=512)


class KeyList(ApiModel):
    keys: list[ApiKey]
    next_cursor: str | None = Field(description="The next page's cursor; null on the last page")


class MintedKeyEnvelope(ApiModel):
    key: MintedApiKey


class WhoAmI(ApiModel):
    workspace_id: str
    api_key_id: str
