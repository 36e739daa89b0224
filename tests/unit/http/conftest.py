"""Fixtures of the core.http tests."""

from __future__ import annotations

import pytest

from tests.support.http_boundary import FakeAuthenticator, patch_key_authenticator


@pytest.fixture
def authenticator(monkeypatch: pytest.MonkeyPatch) -> FakeAuthenticator:
    """A key check that lets every request in as ``ws_1`` (``error`` set: refuses it), swapped into deps."""
    fake = FakeAuthenticator()
    patch_key_authenticator(monkeypatch, lambda: fake)
    return fake
