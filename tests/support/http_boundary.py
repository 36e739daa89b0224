"""Helpers for the core.http tests: invoke a resolver, a fake key authenticator, CORS assertions."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import pytest

from core.keys import providers as keys_providers
from core.keys.check import WorkspaceCaller
from core.platform import errors
from core.platform.rate_limit import RateStatus
from tests.support.lambdas import HttpResult, LambdaContext, sample_event, with_request

RATE = RateStatus(limit=600, remaining=599, reset_seconds=42)


class FakeAuthenticator:
    def __init__(self, error: errors.DomainError | None = None) -> None:
        self.error = error
        self.seen: list[Any] = []

    def authenticate(self, headers: Any, *, origin: str | None = None, agent_id: str | None = None) -> WorkspaceCaller:
        self.seen.append(headers)
        if self.error:
            raise self.error
        return WorkspaceCaller(workspace_id="ws_1", api_key_id="key_1", rate=RATE)


def patch_key_authenticator(monkeypatch: pytest.MonkeyPatch, factory: Callable[[], Any]) -> None:
    """Swap ``keys_providers.checker``; cached like the original, so conftest's ``platform_providers.reset()`` still
    works."""
    monkeypatch.setattr(keys_providers, "checker", functools.cache(factory))


def call(app: Any, event: dict[str, Any]) -> HttpResult:
    """Resolve ``event`` as Lambda would and return the HTTP result (multi-value headers joined)."""
    raw = app.resolve(event, LambdaContext(function_name="test"))
    headers = dict(raw.get("headers") or {})
    for name, values in (raw.get("multiValueHeaders") or {}).items():
        headers[name] = ", ".join(values)
    return HttpResult(status=raw["statusCode"], headers=headers, body=raw.get("body") or "")


def feed_event(**changes: Any) -> dict[str, Any]:
    return with_request(sample_event("BrainFeedFunction"), **changes)


def assert_cors(result: HttpResult) -> None:
    assert result.header("Access-Control-Allow-Origin") == "*"
    assert "RateLimit-Remaining" in (result.header("Access-Control-Expose-Headers") or "")
