"""Read-plane (brain) providers: the key check, the public read service, media, chat.

One provider reaches another through the package (``deps.billing()``, ``deps.chat_model``), not this
module's own name, so a test that swaps ``deps.<provider>`` swaps it for every provider built after.
Providers both planes use (keys, billing) are in ``shared``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from core import aws, deps
from core.deps.registry import per_container
from core.deps.secrets import media_url_secret
from core.settings import get_settings

if TYPE_CHECKING:  # each accessor imports what it builds: a function loads the services it uses, no others
    from core.chat.model import ChatModel
    from core.services.chat import ChatService
    from core.services.key_auth import KeyAuthenticator
    from core.services.media import MediaService
    from core.services.media_urls import MediaUrlService
    from core.services.read_plane import ReadPlaneService


@per_container
def key_authenticator() -> KeyAuthenticator:
    from core.repositories.rate_limits import RateLimitRepository
    from core.services.key_auth import KeyAuthenticator

    settings = get_settings()
    limits = RateLimitRepository(aws.dynamodb(), settings.rate_limits_table)
    return KeyAuthenticator(deps.api_keys(), limits, settings.default_key_rate_limit, signing_secret=media_url_secret)


@per_container
def read_plane() -> ReadPlaneService:
    from core.repositories.agents import AgentRepository
    from core.services.read_plane import ReadPlaneService

    return ReadPlaneService(AgentRepository(aws.dynamodb(), get_settings().main_table))


@per_container
def media() -> MediaService:
    from core.repositories.content import ObjectReader
    from core.services.media import MediaService

    settings = get_settings()
    reader = ObjectReader(aws.s3(), settings.content_bucket)
    return MediaService(reader, settings.r2_cache_control, settings.r2_max_response_bytes)


@per_container
def media_urls() -> MediaUrlService:
    from core.services.media_urls import MediaUrlService

    return MediaUrlService(media_url_secret)


@per_container
def chat_model() -> ChatModel:
    settings = get_settings()
    if settings.chat_model == "offline":
        from core.chat.offline import OfflineModel

        return OfflineModel(delay_seconds=settings.offline_model_delay_ms / 1000)
    from core.chat.bedrock import BedrockModel

    return BedrockModel(aws.bedrock_runtime(), settings.bedrock_model_id)


@per_container
def chat() -> ChatService:
    from core.repositories.agents import AgentRepository
    from core.repositories.conversations import ConversationStore
    from core.repositories.rate_limits import RateLimitRepository
    from core.services.chat import ChatService
    from core.services.rate_limit import SlidingWindowLimiter

    settings = get_settings()
    return ChatService(
        agents=AgentRepository(aws.dynamodb(), settings.main_table),
        limiter=SlidingWindowLimiter(RateLimitRepository(aws.dynamodb(), settings.rate_limits_table)),
        credits=deps.billing(),
        model=deps.chat_model,
        conversations=ConversationStore(aws.s3(), settings.content_bucket),
        price=settings.chat_credits_per_turn,
        visitor_limit=settings.chat_visitor_turns_per_minute,
        max_tokens=settings.chat_max_tokens,
        keepalive_seconds=settings.chat_keepalive_seconds,
    )
