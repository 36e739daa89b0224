"""Fixtures of the management-plane integration tests (helpers live in ``support``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.platform import providers as platform_providers
from tests.support.idp import CLIENT_ID, IdentityProviders
from tests.support.portal import Portal


@pytest.fixture
def idp(portal: Portal, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> IdentityProviders:
    """Google and Apple sign-in configured against local JWKS files (no network)."""
    providers = IdentityProviders(tmp_path)
    for provider in ("google", "apple"):
        monkeypatch.setenv(f"{provider.upper()}_JWKS_URL", providers.urls[provider])
        monkeypatch.setenv(f"{provider.upper()}_CLIENT_IDS", f"another-client, {CLIENT_ID[provider]}")
    platform_providers.reset()
    return providers
