"""The providers: every per-container cache of every ``core.<package>.providers`` is registered, so
``platform_providers.reset()`` cannot leave one behind."""

from __future__ import annotations

import importlib
import pkgutil
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from core.platform import aws, registry, settings
from core.platform import providers as platform_providers


def caches_in(module: ModuleType) -> dict[str, Any]:
    """Every module-level object of ``module`` that holds a cache (``cache_clear``; not a class), by name."""
    return {
        name: value
        for name, value in vars(module).items()
        if callable(getattr(value, "cache_clear", None)) and not isinstance(value, type)
    }


def provider_modules() -> list[ModuleType]:
    """Every package's ``providers`` module (each resource package has one; the platform has one)."""
    import core

    packages = [m.name for m in pkgutil.iter_modules(core.__path__) if m.ispkg]
    return [
        importlib.import_module(f"core.{p}.providers")
        for p in packages
        if (Path(core.__path__[0]) / p / "providers.py").exists()
    ]


def test_every_cache_of_deps_and_below_is_registered() -> None:
    found = {
        f"{m.__name__}.{name}": value
        for m in [*provider_modules(), aws, settings]
        for name, value in caches_in(m).items()
    }
    registered = [id(c) for c in registry.registered()]
    missing = [name for name, value in found.items() if id(value) not in registered]
    assert found, "no cache found: the scan is broken"
    assert missing == []


def test_every_public_provider_is_registered() -> None:
    public = {
        f"{m.__name__}.{name}": value
        for m in provider_modules()
        for name, value in caches_in(m).items()
        if not name.startswith("_")
    }
    assert {"core.keys.providers.store", "core.keys.providers.admin", "core.chat.providers.model"} <= set(public)
    assert {"core.platform.providers.portal_secret", "core.platform.providers.media_url_secret"} <= set(public)
    assert [n for n, v in public.items() if all(v is not c for c in registry.registered())] == []


def test_every_resource_package_has_its_providers() -> None:
    assert {m.__name__.split(".")[1] for m in provider_modules()} == {
        "agents", "answers", "audit", "brands", "chat", "credits", "events", "identity", "insights", "items", "keys",
        "knowledge",
        "objects",
        "platform", "posts", "purge", "usage", "webhooks", "workflows", "workspaces",
    }  # fmt: skip


def test_reset_empties_a_provider_registered_later(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(
        registry, "_registered", list(registry.registered())
    )  # this test's provider does not outlive it
    built: list[object] = []

    @platform_providers.per_container
    def thing() -> object:
        built.append(object())
        return built[-1]

    assert thing() is thing()
    platform_providers.reset()
    assert thing() is not built[0]
    assert len(built) == 2


def test_reset_forgets_the_cached_secrets(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(platform_providers.portal_secret, "_value", (0.0, b"portal"))
    monkeypatch.setattr(platform_providers.media_url_secret, "_value", (0.0, b"media"))
    platform_providers.reset()
    assert (platform_providers.portal_secret.cached, platform_providers.media_url_secret.cached) == (False, False)
