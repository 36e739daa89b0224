"""The credits' wire models (service-api.md, "Resources and their fields"), as both planes send them."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from core.platform.fields import (
    QUERY_INT_MAX,
    QueryInt,
)
from core.platform.kinds import RefType
from core.platform.models import ApiModel


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


class CreditHistoryQuery(ApiModel):
    """``GET /api/credits/history`` query: strings from the URL, so numbers are parsed (plain digits only),
    then range-checked."""

    model_config = ApiModel.model_config | {"extra": "ignore", "validate_by_name": False}

    limit: QueryInt = Field(50, ge=1, le=200)
    offset: QueryInt = Field(0, ge=0, le=QUERY_INT_MAX)
    ref_type: RefType | None = None
