"""The insights' providers. Each builds what its function uses, nothing more."""

from __future__ import annotations

from typing import TYPE_CHECKING

from core.platform import aws
from core.platform.providers import per_container
from core.platform.settings import get_settings

if TYPE_CHECKING:
    from core.insights.feedback import FeedbackService
    from core.insights.reader import InsightsReader


@per_container
def reader() -> InsightsReader:
    """Insights, ratings and unanswered questions read by owners and admins (the management plane)."""
    from core.insights.reader import InsightsReader, Reach
    from core.insights.reader_store import InsightsReadStore
    from core.platform.retention import first_kept_day
    from core.workspaces import providers as workspaces

    access = workspaces.access()

    def reach(user_id: str, workspace_id: str, agent_id: str) -> Reach:
        """An owner's or admin's access to the workspace's agent (404 for a stranger or another workspace's agent,
        403 for a member), as what the reads need of the workspace."""
        workspace = access.agent_writer(user_id, workspace_id, agent_id).workspace
        return Reach(workspace.store_conversations, workspace.conversation_retention_days)

    return InsightsReader(InsightsReadStore(aws.dynamodb(), get_settings().main_table), reach, first_kept_day)


# ---- a visitor's rating of a turn (the read plane's BrainFeedbackFunction; helper FEEDBACK's part)


@per_container
def feedback() -> FeedbackService:
    """Ratings of turns by the visitors they were answered to: limited per visitor as the chat, never billed."""
    from core.insights.feedback import FeedbackService
    from core.insights.feedback_store import FeedbackStore
    from core.platform.rate_limit import SlidingWindowLimiter
    from core.platform.rate_limit_store import RateLimitStore
    from core.platform.retention import expires_at

    settings = get_settings()
    return FeedbackService(
        store=FeedbackStore(aws.dynamodb(), settings.main_table, expires_at),
        limiter=SlidingWindowLimiter(RateLimitStore(aws.dynamodb(), settings.rate_limits_table)),
        visitor_limit=settings.chat_visitor_turns_per_minute,
    )
