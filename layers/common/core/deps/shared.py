"""Providers both planes use: the API keys (minted on the portal, checked on the read plane) and billing (chat
charges, the hold sweeper finishes what a crashed turn left). Neither loads the management models."""

from __future__ import annotations

from typing import TYPE_CHECKING

from core import aws
from core.deps.registry import per_container
from core.settings import get_settings

if TYPE_CHECKING:
    from core.repositories.api_keys import ApiKeyRepository
    from core.services.billing import Billing


@per_container
def api_keys() -> ApiKeyRepository:
    from core.repositories.api_keys import ApiKeyRepository

    return ApiKeyRepository(aws.dynamodb(), get_settings().api_keys_table)


@per_container
def billing() -> Billing:
    from core.repositories.ledger import LedgerRepository
    from core.services.billing import Billing

    settings = get_settings()
    return Billing(LedgerRepository(aws.dynamodb(), settings.ledger_table), hold_seconds=settings.hold_seconds)
