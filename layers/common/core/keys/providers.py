"""The keys' providers: the store both planes use, the read plane's key check, the portal's key management."""

from __future__ import annotations

from typing import TYPE_CHECKING

from core.platform import aws
from core.platform.providers import media_url_secret, per_container, portal_secret
from core.platform.settings import get_settings

if TYPE_CHECKING:  # each provider imports what it builds: a function loads the modules it uses, no others
    from core.keys.admin import KeyAdminService
    from core.keys.check import KeyAuthenticator
    from core.keys.store import ApiKeyStore


@per_container
def store() -> ApiKeyStore:
    from core.keys.store import ApiKeyStore

    return ApiKeyStore(aws.dynamodb(), get_settings().api_keys_table)


@per_container
def checker() -> KeyAuthenticator:
    from core.keys.check import KeyAuthenticator
    from core.platform.rate_limit_store import RateLimitStore

    settings = get_settings()
    limits = RateLimitStore(aws.dynamodb(), settings.rate_limits_table)
    return KeyAuthenticator(store(), limits, settings.default_key_rate_limit, signing_secret=media_url_secret)


@per_container
def admin() -> KeyAdminService:
    from core.audit.store import AuditStore
    from core.keys.admin import KeyAdminService
    from core.platform import providers as platform
    from core.workspaces import providers as workspaces

    settings = get_settings()
    return KeyAdminService(
        workspaces.service(), store(), workspaces.plan_of, settings.default_key_rate_limit, portal_secret,
        idempotency=platform.idempotency, audit=AuditStore(aws.dynamodb(), settings.main_table),
    )  # fmt: skip
