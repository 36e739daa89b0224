"""The audit's provider: ``Writes``, through which every write honours its Idempotency-Key and records its entry."""

from __future__ import annotations

from typing import TYPE_CHECKING

from core.platform import aws
from core.platform.providers import per_container
from core.platform.settings import get_settings

if TYPE_CHECKING:
    from core.audit.writes import Writes


@per_container
def writes() -> Writes:
    from core.audit.store import AuditStore
    from core.audit.writes import Writes
    from core.platform import providers as platform

    return Writes(platform.idempotency, AuditStore(aws.dynamodb(), get_settings().main_table))
