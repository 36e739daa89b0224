"""The per-container caches ``platform_providers.reset()`` empties: each registers itself, so none can be left off a
list.

A provider is ``@per_container`` (``functools.cache`` plus registration); a cache made outside the providers
(settings, AWS clients) is ``track``-ed once by the package; a cached secret registers itself when made.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import Protocol


class Clearable(Protocol):
    def cache_clear(self) -> None: ...


class Provider[T](Protocol):
    """What ``@per_container`` returns: the builder, called once per container, and its cache's reset."""

    def __call__(self) -> T: ...

    def cache_clear(self) -> None: ...


_registered: list[Clearable] = []


def track[C: Clearable](cached: C) -> C:
    """Register a cache built elsewhere (returned unchanged)."""
    _registered.append(cached)
    return cached


def per_container[T](builder: Callable[[], T]) -> Provider[T]:
    """``builder``'s result, built on first use and kept for the container's life (until ``clear_all``)."""
    return track(cache(builder))


def registered() -> tuple[Clearable, ...]:
    return tuple(_registered)


def clear_all() -> None:
    for cached in _registered:
        cached.cache_clear()
