"""The audit's providers: ``Writes``, through which every write honours its Idempotency-Key and records its entry,
and ``reader``, which reads the log back."""

from __future__ import annotations

from typing import TYPE_CHECKING

from core.platform import aws
from core.platform.providers import per_container
from core.platform.settings import get_settings

if TYPE_CHECKING:
    from core.audit.reader import AuditReader
    from core.audit.writes import Writes


@per_container
def writes() -> Writes:
    from core.audit.store import AuditStore
    from core.audit.writes import Writes
    from core.platform import providers as platform

    return Writes(platform.idempotency, AuditStore(aws.dynamodb(), get_settings().main_table))


@per_container
def reader() -> AuditReader:
    from core.audit.reader import AuditReader
    from core.audit.store import AuditStore

    return AuditReader(AuditStore(aws.dynamodb(), get_settings().main_table))
