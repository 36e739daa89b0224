"""The insights' providers. Each builds what its function uses, nothing more."""

from __future__ import annotations

from typing import TYPE_CHECKING

from core.platform import aws
from core.platform.providers import per_container
from core.platform.settings import get_settings

if TYPE_CHECKING:
    from core.insights.feedback import FeedbackService


# ---- a visitor's rating of a turn (the read plane's BrainFeedbackFunction; helper FEEDBACK's part)


@per_container
def feedback() -> FeedbackService:
    """Ratings of turns by the visitors they were answered to: limited per visitor as the chat, never billed."""
    from core.chat.retention import expires_at
    from core.insights.feedback import FeedbackService
    from core.insights.feedback_store import FeedbackStore
    from core.platform.rate_limit import SlidingWindowLimiter
    from core.platform.rate_limit_store import RateLimitStore

    settings = get_settings()
    return FeedbackService(
        store=FeedbackStore(aws.dynamodb(), settings.main_table, expires_at),
        limiter=SlidingWindowLimiter(RateLimitStore(aws.dynamodb(), settings.rate_limits_table)),
        visitor_limit=settings.chat_visitor_turns_per_minute,
    )
