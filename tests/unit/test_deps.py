"""core.deps: every per-container cache is registered, so ``deps.reset()`` cannot leave one behind."""

from __future__ import annotations

import importlib
import pkgutil
from types import ModuleType
from typing import Any

import pytest

from core import aws, deps, settings
from core.deps import registry


def caches_in(module: ModuleType) -> dict[str, Any]:
    """Every module-level object of ``module`` that holds a cache (``cache_clear``; not a class), by name."""
    return {
        name: value
        for name, value in vars(module).items()
        if callable(getattr(value, "cache_clear", None)) and not isinstance(value, type)
    }


def deps_modules() -> list[ModuleType]:
    return [deps] + [importlib.import_module(f"core.deps.{m.name}") for m in pkgutil.iter_modules(deps.__path__)]


def test_every_cache_of_deps_and_below_is_registered() -> None:
    found = {
        f"{m.__name__}.{name}": value for m in [*deps_modules(), aws, settings] for name, value in caches_in(m).items()
    }
    registered = [id(c) for c in registry.registered()]
    missing = [name for name, value in found.items() if id(value) not in registered]
    assert found, "no cache found: the scan is broken"
    assert missing == []


def test_every_public_provider_of_the_facade_is_registered() -> None:
    public = {name: value for name, value in caches_in(deps).items() if not name.startswith("_")}
    assert {"api_keys", "key_admin", "chat_model", "portal_secret", "media_url_secret"} <= set(public)
    assert [n for n, v in public.items() if all(v is not c for c in registry.registered())] == []


def test_reset_empties_a_provider_registered_later(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(
        registry, "_registered", list(registry.registered())
    )  # this test's provider does not outlive it
    built: list[object] = []

    @deps.per_container
    def thing() -> object:
        built.append(object())
        return built[-1]

    assert thing() is thing()
    deps.reset()
    assert thing() is not built[0]
    assert len(built) == 2


def test_reset_forgets_the_cached_secrets(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(deps.portal_secret, "_value", (0.0, b"portal"))
    monkeypatch.setattr(deps.media_url_secret, "_value", (0.0, b"media"))
    deps.reset()
    assert (deps.portal_secret.cached, deps.media_url_secret.cached) == (False, False)
