"""Hook into every boto3 client the layer builds (``core.platform.aws.client``, cached per container)."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import pytest


def wrap_core_clients(attach: Callable[[Any], Any], monkeypatch: pytest.MonkeyPatch) -> None:
    """Pass each client ``core.platform.aws.client`` builds through ``attach`` (which registers its hooks and returns
    it).

    The wrapper keeps ``cache_clear``, so ``platform_providers.reset()`` still empties the client cache.
    """
    from core.platform import aws

    original = aws.client

    @functools.wraps(original)
    def client(service: str) -> Any:
        return attach(original(service))

    wrapped: Callable[[str], Any] = client
    wrapped.cache_clear = original.cache_clear  # type: ignore[attr-defined]
    monkeypatch.setattr(aws, "client", wrapped)


def core_tables() -> dict[str, str]:
    """The stack's tables by a short name, as the per-request meters label their calls (``Query:main``)."""
    from core.platform.settings import get_settings

    settings = get_settings()
    return {settings.main_table: "main", settings.ledger_table: "ledger", settings.api_keys_table: "keys",
            settings.rate_limits_table: "rates"}  # fmt: skip
