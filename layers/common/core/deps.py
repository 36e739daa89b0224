"""Per-container singletons: repositories and services wired to the configured tables.

Built on first use (never at import) and cached for the container's life. Tests
swap implementations by calling ``reset()`` after changing the environment.
"""

from __future__ import annotations

from functools import cache

from . import aws
from .repositories.agents import AgentRepository
from .repositories.api_keys import ApiKeyRepository
from .repositories.rate_limits import RateLimitRepository
from .services.key_auth import KeyAuthenticator
from .services.read_plane import ReadPlaneService
from .settings import get_settings


@cache
def key_authenticator() -> KeyAuthenticator:
    settings = get_settings()
    return KeyAuthenticator(
        ApiKeyRepository(aws.dynamodb(), settings.api_keys_table),
        RateLimitRepository(aws.dynamodb(), settings.rate_limits_table),
        settings.default_key_rate_limit,
    )


@cache
def read_plane() -> ReadPlaneService:
    return ReadPlaneService(AgentRepository(aws.dynamodb(), get_settings().main_table))


def reset() -> None:
    """Forget every cached setting, client and service (tests, after changing the environment)."""
    for cached in (key_authenticator, read_plane, get_settings, aws.client):
        cached.cache_clear()
