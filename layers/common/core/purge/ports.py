"""The purge's storage interfaces: one ``Protocol`` per store its services use, holding only what they call.

The stores satisfy them structurally, without inheriting: mypy checks that where ``providers.py`` wires
them, and a test can hand a service a small fake that mypy checks too."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Protocol

# Only for the type checker: importing the models here would load them into every function that
# imports a service (the read plane's functions never load the management models: tests/unit/test_cold_path.py).
if TYPE_CHECKING:
    pass


class UsageRecords(Protocol):
    """A workspace's usage counters outside its own partitions (``UsageStore``): the ledger table's usage days and
    its keys' window items in the rate-limits table."""

    def delete_workspace_usage(self, workspace_id: str, key_ids: Iterable[str]) -> int: ...


class ObjectVersions(Protocol):
    """Every version and delete marker under a prefix of the versioned bucket (``ObjectVersionStore``)."""

    def delete_prefix(self, prefix: str, keep_going: Callable[[], bool]) -> int: ...
    def any_under(self, prefix: str) -> bool: ...


class StorageRecords(Protocol):
    """The storage counter's records of a workspace's keys (``core.objects.storage_store.StorageStore``)."""

    def clear_prefix(self, workspace_id: str, prefix: str, keep_going: Callable[[], bool]) -> int: ...
    def drain(self, workspace_id: str, keep_going: Callable[[], bool]) -> int: ...
