"""The agents' providers: the read plane's published data (``reader``) and the writer's agents (``writer``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from core.platform import aws
from core.platform.providers import per_container
from core.platform.settings import get_settings

if TYPE_CHECKING:  # each provider imports what it builds: a function loads the modules it uses, no others
    from core.agents.ports import Models
    from core.agents.service import ReadPlaneService
    from core.agents.writer import AgentService


@per_container
def reader() -> ReadPlaneService:
    from core.agents.service import ReadPlaneService
    from core.agents.store import PublishedAgentStore

    return ReadPlaneService(PublishedAgentStore(aws.dynamodb(), get_settings().main_table))


@per_container
def writer() -> AgentService:
    from core.agents.write_store import AgentStore
    from core.agents.writer import AgentService
    from core.audit import providers as audit
    from core.platform import jobs
    from core.purge.store import PurgeStore
    from core.workspaces import providers as workspaces

    table = aws.dynamodb(), get_settings().main_table
    return AgentService(
        workspaces.access(),
        AgentStore(*table),
        PurgeStore(*table),
        audit.writes(),
        enqueue_purge=jobs.purge,
        notify=jobs.reread_agent,
        models=_catalogue,
    )


def _catalogue() -> Models:
    """The deployment's models, imported only by a write that names one (the writers' cold path does not load it)."""
    from core.platform.model_catalogue import catalogue

    return catalogue()
