"""The storage interfaces services depend on: one ``Protocol`` per repository, holding only what services call.

A service is typed against these, never against a concrete repository, so a test can hand it a small
fake and mypy still checks that the fake has the right methods (no ``type: ignore``). The concrete
classes in ``core.repositories`` satisfy them structurally, without inheriting: mypy checks that where
``core.deps`` wires them in. Names are plural nouns (what is stored), used qualified (``ports.ApiKeys``),
so a signature reads as "something that stores API keys", not as one implementation. A service that
needs a small part of one (the read plane's key check: ``ApiKeyLookup``) names that part, so its fakes stay small.

To give a service a new storage call: add the method here with the repository's signature, then use it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

# Only for the type checker: importing the models here would load them into every function that
# imports a service (the read plane's functions never load the management models: tests/unit/test_cold_path.py).
if TYPE_CHECKING:
    pass


class ObjectVersions(Protocol):
    """Every version and delete marker under a prefix of the versioned bucket (``ObjectVersionStore``)."""

    def delete_prefix(self, prefix: str, keep_going: Callable[[], bool]) -> int: ...
    def any_under(self, prefix: str) -> bool: ...
