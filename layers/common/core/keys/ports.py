"""The keys' storage interfaces: one ``Protocol`` per store its services use, holding only what they call.

The stores satisfy them structurally, without inheriting: mypy checks that where ``providers.py`` wires
them, and a test can hand a service a small fake that mypy checks too."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

# Only for the type checker: importing the models here would load them into every function that
# imports a service (the read plane's functions never load the management models: tests/unit/test_cold_path.py).
if TYPE_CHECKING:
    from core.keys.records import ApiKeyRecord


class ApiKeyLookup(Protocol):
    """The part of ``ApiKeys`` the read plane's key check uses: find a key, note its use."""

    def get_by_hash(self, key_hash: str) -> ApiKeyRecord | None: ...
    def hash_of(self, key_id: str) -> str | None: ...
    def touch_last_used(self, key_hash: str, at: str) -> None: ...


class ApiKeys(ApiKeyLookup, Protocol):
    """Workspace API keys, by the SHA-256 of the raw key (``ApiKeyStore``)."""

    def put(
        self, record: ApiKeyRecord, *, audit: dict[str, Any] | None = None, completing: dict[str, Any] | None = None
    ) -> None: ...
    def page(self, workspace_id: str, limit: int, after: tuple[str, str] | None) -> list[ApiKeyRecord]: ...
    def list_for_workspace(self, workspace_id: str) -> list[ApiKeyRecord]: ...
    def revoke(self, key_hash: str, at: str, *, audit: dict[str, Any] | None = None) -> bool: ...
    def delete_many(self, key_hashes: list[str]) -> None: ...
