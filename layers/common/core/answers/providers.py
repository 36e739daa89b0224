"""The answers' provider: the writer's service on its stores."""

from __future__ import annotations

from typing import TYPE_CHECKING

from core.platform import aws
from core.platform.providers import per_container
from core.platform.settings import get_settings

if TYPE_CHECKING:
    from core.answers.writer import AnswerService


@per_container
def writer() -> AnswerService:
    from core.answers.store import AnswerReadStore
    from core.answers.write_store import AnswerStore
    from core.answers.writer import AnswerService
    from core.audit import providers as audit
    from core.platform import jobs
    from core.workspaces import providers as workspaces

    settings = get_settings()
    reader = AnswerReadStore(aws.dynamodb(), settings.main_table)
    store = AnswerStore(aws.dynamodb(), settings.main_table)
    return AnswerService(workspaces.access(), reader, store, audit.writes(), jobs.reread_agent)
